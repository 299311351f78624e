// The guarantee shown before the run, from the settings alone (Rust's previews and composeRun):
// the title, the headline, the noise it adds and what all the run's releases compose to.

import { composeRun } from '../pkg/dp_playground.js';
import { $, ui } from './ui.js';
import { CONTROLS } from './controls.js';
import { capital, fmt, sci } from './format.js';
import { cardsByKind, config, invalid } from './state.js';
import { showError } from './errors.js';
import { showCard } from './card.js';
import { annotate } from './glossary.js';
import { composedWords, tighterWords } from './steady.js';

/** The last valid run's title and guarantee headline (the title says so when a pick is refused). */
let goodTitle = '';
let goodHeadline = '';

/**
 * The title names the algorithm the menu shows: the last valid run's title, or, while a pick is
 * refused, the picked algorithm and that it is refused (the guarantee under it is then the last
 * good run's, and says so).
 */
export function showTitle() {
  const kind = $('algorithm').value;
  const refused = invalid !== null && config !== null && kind !== config.algorithm;
  const title = $('algorithm-title');
  title.textContent = refused ? `${cardsByKind[kind]?.name ?? kind}: refused with these settings (see why beside Play)` : goodTitle;
  title.classList.toggle('refused', refused);
  if (goodHeadline) {
    // The relation's word in it (replace-one, add/remove) is explained on hover and focus.
    annotate(ui.headline, refused ? `Last good run, ${cardsByKind[config.algorithm]?.name ?? config.algorithm}: ${goodHeadline}` : goodHeadline);
  }
}

const METHOD_NAMES = {
  classical: 'classical (Dwork–Roth)',
  zwb: 'ZWB+19 closed form',
  analytic: 'analytic (Balle–Wang)',
};

function showCalibrations(rows) {
  const cells = (...texts) => {
    const tr = document.createElement('tr');
    for (const t of texts) tr.append(Object.assign(document.createElement('td'), { textContent: t }));
    return tr;
  };
  document.querySelector('#calibrations tbody').replaceChildren(...rows.map((r) => (r.sigma === null
    ? cells(METHOD_NAMES[r.method] ?? r.method, 'n/a', r.refused ?? '')
    : cells(METHOD_NAMES[r.method] ?? r.method, sci(r.sigma), sci(r.exact_delta)))));
}

export function statement(g) {
  const relation = g.relation === 'replace_one' ? 'replace-one' : 'add/remove';
  return g.delta === 0
    ? `pure ε = ${fmt(g.epsilon)}-DP, ${relation} neighbours`
    : `(ε = ${fmt(g.epsilon)}, δ = ${sci(g.delta)})-DP, ${relation} neighbours`;
}

/** One entry of the preview's noise law: count × law (sensitivity). */
function drawWords(d) {
  const law = d.noise.kind === 'l2_laplace' ? `ℓ2-Laplace scale ${sci(d.noise.scale)}` : `σ = ${sci(d.noise.sigma)}`;
  return `${d.count > 1 ? `${d.count} × ` : ''}${law} (sensitivity ${sci(d.sensitivity)})`;
}

function noiseWords(p) {
  const law = p.noise.kind === 'l2_laplace' ? 'ℓ2-Laplace scale' : 'σ';
  if (p.noise.kind === 'none') {
    // Mirror descent with vertex sampling draws once per step, the grid mechanisms once per call:
    // the accounting says how the draws compose, so the sentence counts none itself.
    return p.releases > 1
      ? `No added noise: ${p.releases} draws from the exponential mechanism, each with utility sensitivity ${sci(p.sensitivity)} (G = ${fmt(p.lipschitz)}). Budget: ${p.guarantee.accounting}.`
      : `No added noise: draws from the exponential mechanism, utility sensitivity ${sci(p.sensitivity)} (G = ${fmt(p.lipschitz)}). Budget: ${p.guarantee.accounting}.`;
  }
  // Draws of different laws (phases, or objective perturbation's b and its residual noise): list
  // each, with the budget split the accounting states.
  if (p.draws.length > 1) {
    return `Noise draws, in order: ${p.draws.map(drawWords).join('; ')} (G = ${fmt(p.lipschitz)}). `
      + `Budget: ${p.guarantee.accounting}.`;
  }
  if (p.releases > 1) {
    return `Noise ${law} = ${sci(p.sigma)} per coordinate in each of ${p.releases} releases, for sensitivity ${sci(p.sensitivity)} `
      + `(G = ${fmt(p.lipschitz)})${p.step_size ? `; step size η = ${fmt(p.step_size)}` : ''}.`;
  }
  return `One noise draw, ${law} = ${sci(p.sigma)} per coordinate, for sensitivity ${sci(p.sensitivity)} `
    + `(G = ${fmt(p.lipschitz)}); the release waits for its certificate.`;
}

/**
 * The headline of a preview: its guarantee, or NOT PRIVATE first when a demonstration (a leak,
 * DP-SVRG's as-printed noise) voids it. The reasons are the ledger's own sentences, from Rust.
 */
function headline(p) {
  return p.leaks.length
    ? `NOT PRIVATE (a demonstration): it claims ${statement(p.guarantee)}, which this run does not keep`
    : statement(p.guarantee);
}

export function showGuarantees(list) {
  const [p, ...others] = list;
  goodTitle = p.algorithm;
  goodHeadline = headline(p);
  showTitle();
  ui.headline.classList.toggle('not-private', p.leaks.length > 0);
  ui.headline.dataset.leaks = JSON.stringify(p.leaks);
  $('guarantee-leaks').replaceChildren(...p.leaks.map((text) => Object.assign(document.createElement('li'), { textContent: text, className: 'leak' })));
  annotate(ui.detail, `${noiseWords(p)} Stated before the run, from the settings alone.${spentWords(p.guarantee)}`);
  // A blank optional setting shows the value it takes (e.g. Algorithm 3's U from Theorem 3.14).
  $('budget_u').placeholder = 'theory';
  for (const [k, v] of p.defaults ?? []) if (CONTROLS.optional.includes(k)) $(k).placeholder = `theory: ${fmt(v, 4)}`;
  showCalibrations(p.single_release);
  // What the excess plot draws depends on the problem (excess risk, or a duality gap).
  $('excess-metric').textContent = p.metric;
  $('excess-plot').setAttribute('aria-label', `${p.metric} against gradient evaluations, log-log`);
  $('compare-guarantees').replaceChildren(...others.map((o) => Object.assign(document.createElement('li'), {
    textContent: `${cardsByKind[o.kind]?.name ?? o.kind}: ${headline(o)}. ${noiseWords(o)}`,
  })));
  showCard(p.kind);
}

/**
 * When the accounting composes the draws to less than the stated ε (private mirror descent's
 * (ACC), its step size set by accuracy rather than privacy), one line on why two ε's show and why
 * the ε-spent plot steps up at the release; '' otherwise. Both are valid bounds.
 */
function spentWords(g) {
  const found = /composed by \(ACC\) to ε = ([0-9.]+)/.exec(g.accounting ?? '');
  const spent = found ? Number(found[1]) : NaN;
  if (!(spent < g.epsilon * (1 - 1e-9))) return '';
  return ` Two ε's, both valid: the headline's ε = ${fmt(g.epsilon)} is the budget this run promises; composing its draws `
    + `by (ACC) shows they use only ε = ${fmt(spent, 4)} of it (the step size is set by accuracy here, not by privacy). `
    + 'The ε-spent plot follows (ACC) and steps up to the promised ε at the release.';
}

/** (ε, δ) words for a composed total (same form as a single guarantee's). */
export function composedStatement(c) {
  return statement({ epsilon: c.epsilon, delta: c.delta, relation: c.relation });
}

/**
 * The guarantee of everything the run of `cfg` publishes (algorithms × repeats), from Rust's
 * composeRun, shown before Play.
 */
export function showComposed(cfg) {
  const el = $('composed-guarantee');
  let c;
  try {
    c = composeRun(JSON.stringify(cfg));
  } catch (e) {
    el.textContent = '';
    showError(e);
    return;
  }
  el.dataset.epsilon = String(c.epsilon);
  el.dataset.releases = String(c.releases);
  const demo = c.not_private ? ' NOT PRIVATE: a demonstration is among them; this states what the correct mechanisms would promise.' : '';
  // Rust's composition carries the seeded caveat whenever a release is seeded.
  const seeded = c.seeded ? ` ${capital(c.seeded)}.` : '';
  annotate(el, `${composedWords(cfg, c, composedStatement(c))}${tighterWords(c, fmt)}${demo}${seeded}`);
}
