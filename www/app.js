// The page: controls, URL hash, and the conversation with the solver worker. All validation
// happens in Rust (normalizeConfig / configFromLink / previews; a CSV file is read and parsed in
// the worker); this file only moves values and messages.

import init, {
  cards, checkCsvSize, composeRun, controls as controlTable, composeRuns, configFromLink, configFromUrl, csvSizeLimit, normalizeConfig, pickAlgorithm, pickGame, pickProblem, plotAxes, previews,
} from './pkg/dp_playground.js';
import { ToWorker, FromWorker } from './protocol.js';
import { Plotter, RunHistory, spec as plotSpec } from './plots.js';
import { exportPng, exportSvg, mountScaleMenus, pngScale } from './figures.js';
import { showSaddleViews } from './saddle_views.js';
import { showGameReadout, syncGameFields } from './game_facts.js';
import { showLocalisation } from './localisation_view.js';
import { DIAGNOSTICS_CSV, RUN_JSON, copyText, download } from './export.js';
import { setupLessons } from './lessons.js';
import { citedIn } from './references.js';
import { cardProse, hasProse, mergeProse } from './card_text.js';
import { SweepPanel } from './sweep.js';
import { mountNeighbours } from './neighbours.js';
import { mountAudit } from './audit.js';
import { mountHeavy } from './heavy.js';
import { mountLayout, reveal, summariseCompare } from './layout.js';
import { mountShare } from './share.js';
import { Pins, showCompare } from './pins.js';
import { annotate, explainPage, wordsUsed } from './glossary.js';
import { bindTyped, composedWords, holdHeight, markStale, tighterWords } from './steady.js';

const $ = (id) => document.getElementById(id);
const ui = {
  epsilon: $('epsilon'),
  epsilonOutput: $('epsilon-output'),
  epsilonTyped: $('epsilon-typed'),
  seed: $('seed'),
  unseeded: $('unseeded'),
  play: $('play'),
  step: $('step'),
  reset: $('reset'),
  cancel: $('cancel'),
  speed: $('speed'),
  progress: $('progress'),
  status: $('status'),
  stepCount: $('step-count'),
  excess: $('excess'),
  release: $('release'),
  caveats: $('caveats'),
  headline: $('guarantee-headline'),
  detail: $('guarantee-detail'),
};

/**
 * Fields that are plain numbers, plain choices, or numbers whose blank means "the default": the
 * wasm's table of controls (src/config/controls.rs) says which, once the module is loaded; it
 * also gives an empty `<label for=key>` its words.
 */
let NUMBERS, OPTIONAL, CHOICES;
function readControlTable() {
  const rows = controlTable().filter((r) => r.page === 'plain');
  const keys = (test) => rows.filter(test).map((r) => r.key);
  NUMBERS = keys((r) => (r.kind === 'integer' || r.kind === 'number') && !r.optional);
  OPTIONAL = keys((r) => r.kind === 'number' && r.optional);
  CHOICES = keys((r) => r.kind === 'choice');
  for (const r of rows) {
    const label = document.querySelector(`label[for="${r.key}"]`);
    if (label && label.textContent.trim() === '') label.textContent = r.label;
  }
}

/** The loss parameter each loss takes (if any), with its label and default. */
const LOSS_PARAMS = {
  smoothed_hinge: ['gamma', 'smoothing γ', 1],
  huber: ['delta', 'Huber δ', 1],
};
/** The default declared label bound of each residual loss (targets are clipped to it). */
const LABEL_BOUNDS = { squared: 1, huber: 10, absolute: 10 };
/** The parameter of each aggregation (Lowy & Razaviyayn 2021, "Output Perturbation for Differentially Private Convex Optimization", §7), with its label and default. */
const WRAP_PARAMS = {
  tilted: ['tau', 'tilt τ', 1],
  adversarial: ['radius', 'perturbation radius ‖v‖ ≤', 0.1],
};
/** The parameters of each feature tail (first, second), with labels and defaults. */
const TAIL_PARAMS = {
  student_t: [['nu', 'degrees of freedom ν', 3]],
  pareto_radial: [['alpha', 'tail index α', 3]],
  log_normal: [['sigma', 'log-normal σ', 1]],
  contaminated: [['p', 'outlier fraction p', 0.05], ['scale', 'outlier scale', 10]],
  rare_outlier: [['p', 'outlier probability p', 0.01], ['a', 'outlier size a', 100]],
};

/** The parameter of each regression-noise law (`noise_tail`), with its label and default. */
const NOISE_PARAMS = {
  student_t: ['nu', 'noise degrees of freedom ν', 3],
  pareto_radial: ['alpha', 'noise tail index α', 3],
};

/** The last valid RunConfig (all fields, as normalised by Rust). */
let config = null;
let runId = 0;
let run = new RunHistory();
let state = 'loading';
/**
 * The setting Rust refused while the controls still show it ({ field, message }), else null.
 * While it is set nothing runs: the plots show the last valid settings and Play says why it is off.
 */
let invalid = null;
/**
 * 'play' or 'step' when clicked while a run is being prepared, done once it is ready. A field's
 * change (say a typed value, committed as the pointer goes down on Play) starts a new run; the
 * click that follows is kept rather than lost on a disabled button.
 */
let pending = null;
/** Cards by algorithm kind, from Rust. */
let cardsByKind = {};
/**
 * Every setting some algorithm reads (a RunConfig key, the id of its control), from the cards: a
 * control shows only while the main or a compared algorithm reads it.
 */
let settingKeys = [];
/** The worker's id of the loaded CSV file (parsed and kept there, in this tab only), or null. */
let csvId = null;
/** The CSV load in progress, { id, file }, or null; ids count loads. */
let csvLoad = null;
let csvLoads = 0;
/**
 * Everything released on each CSV file loaded in this tab: file key (name, size, SHA-256) →
 * { name, runs: the configs of the runs started on it, in order }. Composed in Rust (composeRuns).
 */
const fileBudgets = new Map();
/** The loaded file's key, and the run already charged to it (a run is charged when it starts). */
let csvKey = null;
let chargedRun = 0;
/** Finished runs kept on the plots to compare with the next (www/pins.js). */
const pins = new Pins();
/**
 * Why the run on screen cannot play although no setting is refused ({ field, message }), or
 * null: the worker could not prepare it, or the CSV data have no file yet. Said beside Play.
 */
let failed = null;
/** The error lines the last refusal wrote: a new refusal clears them, so each is the current config's. */
const refusedLines = new Set();
/**
 * What the last pick from a menu changed, by key: { was, now, by } (values as JSON texts, `by`
 * the pick's name). The next pick restores `was` where the control still holds `now`, so a
 * setting an earlier pick forced (say the simplex) does not outlive the pick that needed it.
 */
let forced = {};
/** The last valid run's title and guarantee headline (the title says so when a pick is refused). */
let goodTitle = '';
let goodHeadline = '';

const fmt = (v, digits = 3) => (v === null || v === undefined ? '–' : String(Number(Number(v).toPrecision(digits))));
const sci = (v) => (v === null || v === undefined ? '–' : Number(v).toExponential(2));
/**
 * Gradient evaluations in full passes: a whole number when it is one up to rounding (a phased
 * run's passes over chunks of n̄ records add up to 3.000000000000001), else four digits.
 */
const passes = (v) => {
  const whole = Math.round(v);
  return Math.abs(v - whole) <= 1e-9 * Math.max(1, Math.abs(v)) ? String(whole) : fmt(v, 4);
};

// --- errors next to the control they are about -------------------------------------------------

function clearErrors() {
  document.querySelectorAll('.error').forEach((el) => { el.textContent = ''; });
  refusedLines.clear();
  invalid = null;
  showBlocked();
  syncSettings();
}

/**
 * A setting Rust refused: the message goes next to its field, and until it is fixed Play is off,
 * saying why beside it with a link to the field, and nothing runs (not the last valid settings
 * under the new names).
 */
function refuse(error) {
  for (const el of refusedLines) el.textContent = '';
  refusedLines.clear();
  refusedLines.add(showError(error));
  invalid = { field: error?.field ?? null, message: error?.message ?? String(error) };
  pending = null;
  syncSettings();
  showBlocked();
  if (state === 'running') {
    // Play (which pauses) is off now: the run on screen stops where it is.
    worker.postMessage({ type: ToWorker.PAUSE, runId });
    setState('paused', 'paused: a setting is invalid');
  } else {
    setState(state, ui.status.textContent);
  }
}

/** The control a refused field names, and the words of its label (null without one). */
function controlOf(field) {
  const errorEl = field && ($(`${field}-error`) ?? $(`${field.split('.')[0]}-error`));
  const box = errorEl?.closest('.field');
  // In a group of checks (the compared algorithms): the one ticked, else the first that can be.
  const control = box?.querySelector(':is(input, select, textarea):checked:enabled')
    ?? box?.querySelector(':is(input, select, textarea):enabled');
  if (!control) return null;
  const label = box.querySelector('label, .label');
  return { control, label: (label?.textContent ?? field).trim().replace(/\s+/g, ' ') };
}

/**
 * Why Play is off, whenever it is, in one line beside it: the refused setting (or the failed
 * preparation, or the missing CSV file) with a link to its control, or what to press after a
 * release. Null while Play is on.
 */
function playReason() {
  if (invalid) return { ...invalid, error: true };
  if (!ui.play.disabled) return null;
  if (failed) return { ...failed, error: true };
  if (state === 'released') {
    return { field: null, message: 'this run is finished and its output released. Reset runs these settings again; New noise draw gives fresh noise on the same data.' };
  }
  if (state === 'stopped') return { field: null, message: 'preparing the run was cancelled: press Reset to prepare it again.' };
  return { field: null, message: `the run is ${ui.status.textContent}.` };
}

/** Beside Play: why it is off, with a link to the setting to fix (a refusal or a failure is red). */
function showBlocked() {
  const el = $('play-blocked');
  const reason = playReason();
  if (!reason) {
    el.replaceChildren();
    el.className = 'error';
    showShownSettings();
    return;
  }
  // Red for what must be fixed; a finished run's line is plain help (not an error line).
  el.className = reason.error ? 'error' : 'help';
  const target = controlOf(reason.field);
  const parts = [`Play is off: ${reason.message}`];
  if (target) {
    const link = Object.assign(document.createElement('a'), { href: `#${target.control.id || reason.field}`, textContent: `Fix “${target.label}”` });
    // A link in the page's own words; the hash itself holds the settings, so it is not followed.
    link.addEventListener('click', (event) => {
      event.preventDefault();
      reveal(target.control);
      target.control.scrollIntoView({ block: 'center' });
      target.control.focus();
    });
    el.replaceChildren(`${parts[0]} `, link);
  } else {
    el.replaceChildren(parts[0]);
  }
  showShownSettings();
}

/**
 * Which settings the plots and readouts show (the run's own), and, while a
 * setting is invalid, that these are the last valid ones and not the controls.
 */
function showShownSettings() {
  const c = JSON.parse(run.info?.config ?? 'null') ?? config;
  if (!c) return;
  const name = (kind) => cardsByKind[kind]?.name ?? kind;
  const names = [c.algorithm, ...(c.compare ?? [])].map(name).join(' vs ');
  const words = [names, `ε = ${fmt(c.epsilon)}`, c.delta === 0 ? 'δ = 0' : `δ = ${sci(c.delta)}`, `n = ${c.n}`, `d = ${c.d}`];
  if (c.repeats > 1) words.push(`${c.repeats} repeats`);
  const key = invalid?.field?.split('.')[0];
  const was = key && key in c && typeof c[key] !== 'object' ? `; ${controlOf(invalid.field)?.label ?? key} = ${valueWords(key, c[key])}` : '';
  // Refused, or valid but unable to run (no CSV file yet, a failed preparation): the plots keep
  // the last good run, and say so in red.
  const blocked = Boolean(invalid || failed);
  const text = invalid
    ? `The plots and readouts show the last good run (the last valid settings, not the controls): ${words.join(', ')}${was}.`
    : blocked ? `The plots and readouts show the last good run, not these settings (see why beside Play): ${words.join(', ')}.`
      : `The plots and readouts show: ${words.join(', ')}.`;
  // Said twice: above the readout and above the plots.
  for (const el of document.querySelectorAll('.shown-settings')) {
    el.textContent = text;
    el.classList.toggle('stale', blocked);
  }
  // The "Settings changed — press Play" label floats over the plots' first line, which says more
  // (in red) while Play is off for a reason: it gives way then, and comes back with the next run.
  const label = $('stale-label');
  if (label) label.hidden = blocked || document.querySelector('section.plots')?.dataset.stale !== 'true';
  showTitle();
}

/**
 * The title names the algorithm the menu shows: the last valid run's title, or, while a pick is
 * refused, the picked algorithm and that it is refused (the guarantee under it is then the last
 * good run's, and says so).
 */
function showTitle() {
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

/** Shows an error beside its field (or on the run's error line); returns the line written. */
function showError(error) {
  const field = error?.field;
  const el = (field && ($(`${field}-error`) ?? $(`${field.split('.')[0]}-error`))) || $('run-error');
  el.textContent = error?.message ?? String(error);
  // A message inside a closed panel, or beside a setting the algorithm does not read, would go
  // unseen.
  reveal(el);
  el.closest('[hidden]')?.removeAttribute('hidden');
  return el;
}

// --- state and the readout ----------------------------------------------------------------------

function setState(next, text) {
  // Play turned off under the keyboard (a run released after Enter on Play) must not drop the
  // focus to the page's body: it goes to the next thing to press, beside it.
  const hadFocus = document.activeElement === ui.play;
  state = next;
  ui.status.dataset.state = next;
  ui.status.textContent = text ?? next;
  const ready = ['ready', 'paused', 'running', 'cancelled'].includes(next);
  // While a run is prepared, Play and Step take a click and act once it is ready (`pending`).
  ui.play.disabled = invalid !== null || !(ready || next === 'loading');
  ui.step.disabled = invalid !== null || !((ready && next !== 'running') || next === 'loading');
  ui.reset.disabled = next === 'loading';
  // A new noise draw is a new run: not while one is prepared, nor with noise from the OS (every
  // run draws afresh there).
  $('new-draw').disabled = next === 'loading' || next === 'nofile' || invalid !== null || Boolean(config?.unseeded_noise);
  ui.cancel.disabled = next !== 'running'; // while preparing: showPreparation
  ui.play.textContent = next === 'running' ? 'Pause' : 'Play';
  $('pin').disabled = next !== 'released';
  ui.play.setAttribute('aria-pressed', String(next === 'running'));
  showBlocked();
  if (hadFocus && ui.play.disabled) {
    (ui.reset.disabled ? $('play-blocked').querySelector('a') : ui.reset)?.focus();
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

function statement(g) {
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

function showGuarantees(list) {
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
  for (const [k, v] of p.defaults ?? []) if (OPTIONAL.includes(k)) $(k).placeholder = `theory: ${fmt(v, 4)}`;
  showCalibrations(p.single_release);
  // What the excess plot draws depends on the problem (excess risk, or a duality gap).
  $('excess-metric').textContent = p.metric;
  $('excess-plot').setAttribute('aria-label', `${p.metric} against gradient evaluations, log-log`);
  $('compare-guarantees').replaceChildren(...others.map((o) => Object.assign(document.createElement('li'), {
    textContent: `${cardsByKind[o.kind]?.name ?? o.kind}: ${headline(o)}. ${noiseWords(o)}`,
  })));
  showCard(p.kind);
}

/** `text` with its first letter capitalised (Rust's caveats start lower-case). */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

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
function composedStatement(c) {
  return statement({ epsilon: c.epsilon, delta: c.delta, relation: c.relation });
}

/**
 * The guarantee of everything the run of `cfg` publishes (algorithms × repeats), from Rust's
 * composeRun, shown before Play.
 */
function showComposed(cfg) {
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

/** The running total of the loaded file, next to it. */
function showFileBudget() {
  const el = $('csv-budget');
  const entry = csvKey && fileBudgets.get(csvKey);
  if (!entry) {
    el.textContent = '';
    return;
  }
  if (entry.runs.length === 0) {
    el.textContent = `${entry.name}: nothing released on it since it was loaded.`;
    el.dataset.epsilon = '0';
    el.dataset.runs = '0';
    return;
  }
  const c = composeRuns(JSON.stringify(entry.runs));
  el.dataset.epsilon = String(c.epsilon);
  el.dataset.runs = String(entry.runs.length);
  el.textContent = `${entry.name}: ${entry.runs.length} run${entry.runs.length === 1 ? '' : 's'}, ${c.releases} release${c.releases === 1 ? '' : 's'} since it was loaded; `
    + `together ${composedStatement(c)} (${c.method}).${tighterWords(c, fmt)}${c.seeded ? ` ${capital(c.seeded)}.` : ''}`;
}

/** The cap on ε released on the loaded file: null when blank; an error at the cap otherwise. */
function budgetCap() {
  const text = $('budget_cap').value.trim();
  if (text === '') return null;
  const cap = Number(text);
  if (!(Number.isFinite(cap) && cap > 0)) throw new Error(`The cap must be a number > 0 (or blank for none), not "${text}".`);
  return cap;
}

/**
 * Charges the run about to start to the loaded file (once per run) and says whether it may start:
 * a decision from the settings and the cap alone, never from the data.
 */
function chargeFile() {
  $('budget_cap-error').textContent = '';
  if (config.data !== 'csv' || !csvKey || chargedRun === runId) return true;
  const entry = fileBudgets.get(csvKey);
  let total;
  let cap;
  try {
    cap = budgetCap();
    total = composeRuns(JSON.stringify([...entry.runs, config]));
  } catch (e) {
    const message = e?.message ?? String(e);
    if (e?.field) showError(e);
    else $('budget_cap-error').textContent = message;
    return false;
  }
  if (cap !== null && total.epsilon > cap) {
    const message = `Refused: this run would bring the ε released on ${entry.name} to ${fmt(total.epsilon)}, above the cap ε = ${fmt(cap)}. `
      + 'Raise the cap, or load another file.';
    $('budget_cap-error').textContent = message;
    $('run-error').textContent = message;
    return false;
  }
  entry.runs.push(config);
  chargedRun = runId;
  showFileBudget();
  return true;
}

/** The kind whose card is shown (or waits for its prose). */
let cardKind = null;

function showCard(kind) {
  const c = cardsByKind[kind];
  if (!c) return;
  cardKind = kind;
  // The prose is not in the wasm module: it comes with pkg/cards.json (www/card_text.js).
  if (!hasProse(c)) {
    delete $('card').dataset.kind;
    loadCardProse();
    return;
  }
  $('card').dataset.kind = kind;
  const rows = [['source', c.source], ['assumptions', c.assumptions], ['privacy', c.privacy],
    ['utility', c.utility], ['what to watch', c.watch], ...(c.summary ? [['in full', c.summary]] : []),
    ['references', citedIn(c.source, c.privacy, c.utility, c.summary).join(' ')],
    ['code', `src/${c.module.replace('::', '/')}.rs`]];
  // The glossary's words the card uses, explained after it (www/glossary.js).
  const words = wordsUsed(c.name, c.assumptions, c.privacy, c.utility, c.watch, c.summary ?? '')
    .map((line) => ['meaning', line]);
  $('card-body').replaceChildren(...[...rows, ...words].flatMap(([k, v]) => [
    Object.assign(document.createElement('dt'), { textContent: k }),
    Object.assign(document.createElement('dd'), { textContent: v }),
  ]));
}

/**
 * Fetches the cards' prose once, then shows the waiting card and the settings' help lines; on a
 * failure the card says so, and the next card shown tries again.
 */
function loadCardProse() {
  if (loadCardProse.pending) return;
  loadCardProse.pending = true;
  cardProse().then((prose) => {
    mergeProse(cardsByKind, prose);
    if (cardKind !== null) showCard(cardKind);
    syncSettings();
  }, (e) => {
    $('card-body').replaceChildren(Object.assign(document.createElement('dd'), {
      textContent: `The card's text could not be loaded (${e?.message ?? e}): reload the page.`,
    }));
  }).finally(() => { loadCardProse.pending = false; });
}

function showReadout() {
  const main = run.main;
  ui.stepCount.textContent = passes(main.gradEvals.length ? main.gradEvals[main.gradEvals.length - 1] : 0);
  // A length measured on the data (a certified solver, a privacy filter, Poisson batches): the
  // counter and the ε-spent curve's extent are NOT PRIVATE (Rust's lengthDependsOnData, per lane).
  const measured = Boolean(run.info?.lengthDependsOnData?.some((m) => m));
  $('step-np').hidden = !measured;
  $('privacy-np').hidden = !measured;
  const e = run.latestExcess;
  const unavailable = run.info?.referenceUnavailable;
  const game = JSON.parse(run.info?.config ?? '{}').problem === 'saddle';
  $('excess-name').textContent = game ? 'duality gap' : 'excess risk';
  $('release-name').textContent = game ? 'released (x, y)' : 'released w';
  ui.excess.textContent = unavailable && !game ? 'reference unavailable (non-private diagnostic)' : sci(e);
  ui.excess.title = unavailable ?? '';
  ui.excess.dataset.value = e === null || Number.isNaN(e) ? '' : String(e);
  const r = run.release;
  const coords = (v) => `(${v.slice(0, 4).map((c) => fmt(c, 4)).join(', ')}${v.length > 4 ? ', …' : ''})`;
  if (!r) ui.release.textContent = 'not yet';
  else if (r.y) ui.release.textContent = `x = ${coords(r.w)}, y = ${coords(r.y)}; duality gap ${sci(r.excess)}`;
  else ui.release.textContent = `${coords(r.w)}; excess ${r.excess === null ? 'unknown (reference unavailable)' : sci(r.excess)}`;
  // A failure at run time that depends on the data (a certificate that never held) voids the
  // guarantee the preview stated: the headline says so, with the ledger's own sentence.
  const failure = r?.ledger.leaks.find((l) => !ui.headline.dataset.leaks?.includes(l));
  if (failure) {
    ui.headline.textContent = `NOT PRIVATE (this run): ${failure}`;
    ui.headline.classList.add('not-private');
  }
  $('certificate').textContent = diagnosticsWords(main.diagnostics);
  showSaddleViews(run, $);
  showLocalisation(run, $);
  const pop = r?.population;
  $('population').textContent = pop
    ? `${sci(pop.value)} ± ${sci(pop.std_error)} (fresh-sample estimate)`
    : (r ? 'n/a (no generator to sample a population from here)' : '–');
  showGameReadout($, JSON.parse(run.info?.config ?? '{}'), r, fmt);
  ui.caveats.replaceChildren(
    ...(r ? r.ledger.leaks : []).map((c) => Object.assign(document.createElement('li'), { textContent: c, className: 'leak' })),
    ...(r ? r.ledger.caveats : []).map((c) => {
      const li = document.createElement('li');
      annotate(li, c);
      return li;
    }),
    // What happened on these data (a fallback, an abort): facts about the raw data, so labelled
    // non-private and kept out of the private export.
    ...(r ? r.ledger.events ?? [] : []).map((c) => Object.assign(document.createElement('li'), {
      textContent: `In this run (non-private: depends on the data): ${c}`, className: 'event',
    })),
  );
  showPins();
  const [done, total] = run.progress;
  ui.progress.max = total;
  ui.progress.value = done;
  ui.progress.hidden = total <= 1;
}

/** The compare readout: this run's and the pinned runs' rows, and what the screen shows together. */
function showPins() {
  $('clear-pins').hidden = pins.size === 0;
  showCompare(run, config, pins, { fmt, sci, statement }, (i) => {
    pins.list.splice(i, 1);
    showPins();
    plotter.request(run);
  });
}

/**
 * The named diagnostics of a run (non-private): a certificate as the sentence the release waits
 * on, every other value as `name = value`.
 */
function diagnosticsWords(d) {
  const { certificate_bound: bound, certificate_threshold: threshold, certificate_met: met, ...rest } = d ?? {};
  const words = bound === undefined ? []
    : [`‖w − w*‖ ≤ ${sci(bound)} (the release needs ≤ ${sci(threshold)})${met ? ': met' : ''}`];
  words.push(...Object.entries(rest).map(([name, value]) => `${name} = ${fmt(value, 4)}`));
  return words.length ? words.join('; ') : 'none (this method releases without a certificate)';
}

const PATH_WORDS = {
  minimisation: 'Loss contours (darker is lower), the domain boundary, the non-private path, w* (×, non-private), '
    + 'the sensitivity ball (dashed, named in the legend where it is large enough to see) and the released points '
    + '(red dots, private).',
  saddle: 'The minimising player\'s first two weights (x₁, x₂): its non-private path, the base game\'s equilibrium '
    + '(×, declared by the generator, where known) and the released x (red dots, private).',
};

function describeProblem(c, info) {
  $('path-words').textContent = PATH_WORDS[c.problem] ?? PATH_WORDS.minimisation;
  if (c.problem === 'saddle') {
    const game = { rock_paper_scissors: `rock–paper–scissors embedded in ${c.d} strategies`,
      random_matrix: `a random ${c.d} × ${c.d} matrix game`, ball_game: `a random bilinear game on ℓ2 balls of radius ${c.radius} in d = ${c.d}`,
      query_release: `query release: a histogram over the ${2 ** c.d} rows of ${c.d} binary attributes against the worst of ${4 * c.d * (c.d - 1)} signed 2-way marginals`,
      l1_system_fit: `the ℓ1 system fit min ‖Āx − b̄‖₁ over ‖x‖₂ ≤ ${c.radius}, d = ${c.d} equations, through its game yᵀ(Ax − b) with y in [−1, 1]^${c.d}`,
      group_dro_logistic: `worst-group logistic regression: x in the ℓ2 ball of radius ${c.radius} over d = ${c.d} features against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_squares: `worst-group least squares: x in the ℓ2 ball of radius ${c.radius} over d = ${c.d} features against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_logistic_simplex: `worst-group logistic regression: x on the simplex over d = ${c.d} features (a mixture) against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      group_dro_squares_simplex: `worst-group least squares: x on the simplex over d = ${c.d} features (a mixture) against the weights y of 3 groups (declared shares 0.5, 0.3, 0.2)`,
      auc_maximisation: `AUC maximisation (square-loss form): x = (w, s, t) with ‖w‖₂ ≤ ${c.radius} over d = ${c.d} features against α, declared class prior p = 0.3 (convex in x, strongly concave in α with μy = 0.42)` }[c.game];
    const dro = c.game.startsWith('group_dro');
    const records = c.game === 'auc_maximisation' ? (c.records === 'bounded' ? `‖a‖ ≤ ${c.entry_bound}, labels ±1`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} features ${c.clip_records ? `clipped to ‖a‖ ≤ ${c.entry_bound}` : `NOT clipped to ${c.entry_bound} (the demonstration)`}, labels ±1`)
      : dro ? (c.records === 'bounded' ? `‖a‖ ≤ ${c.entry_bound} and |b| ≤ ${c.entry_bound}`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} features and labels ${c.clip_records ? `clipped to ‖a‖, |b| ≤ ${c.entry_bound}` : `NOT clipped to ${c.entry_bound} (the demonstration)`}`)
      : c.records === 'bounded' ? `entries ±${c.entry_bound}`
      : `heavy-tailed ${c.tail.kind.replace('_', '-')} entries ${c.clip_records ? `clipped to ±${c.entry_bound}` : `NOT clipped to ±${c.entry_bound} (the demonstration)`}`;
    const reg = c.game !== 'auc_maximisation' && (c.mu_x > 0 || c.mu_y > 0) ? `, regularised with μx = ${c.mu_x}, μy = ${c.mu_y}` : '';
    $('problem-line').textContent = `Saddle point of ${game}${reg}: n = ${c.n} records with ${records}.`;
    return;
  }
  if (c.data === 'csv' && csvId === null) {
    // No numbers to describe yet (n and d come from the file): say what to do instead.
    $('problem-line').textContent = `${c.loss.kind.replace('_', ' ')} loss on your CSV file, once it is loaded: choose it at “CSV file”, under the data source.`;
    return;
  }
  const source = { csv: 'your CSV file', sparse: `sparse high-dimensional data (${c.sparsity} non-zeros in w₀)` }[c.data]
    ?? `synthetic ${c.tail.kind.replace('_', '-')} data`;
  const domain = { l2_ball: `‖w‖₂ ≤ ${c.radius}`, l1_ball: `‖w‖₁ ≤ ${c.radius}`, box: `|wⱼ| ≤ ${c.radius}`,
    simplex: 'the simplex', unconstrained: 'R^d' }[c.domain];
  // Counted once the data are made; until then the words keep their place (a line that came and
  // went moved every control under it, issue 19 item 6).
  const clipped = `; clipping shortened ${info ? info.clipped : '…'} of them (non-private)`;
  // The no-clipping demonstrations leave the features as they are (their card says which).
  const unclipped = c.leak && Boolean(cardsByKind[c.algorithm]?.unclipped_features);
  const targets = c.loss.label_bound === undefined
    ? (c.data === 'csv' ? ', labels −1 and +1 (a 0 is read as −1)' : '')
    : `, targets to |y| ≤ ${c.loss.label_bound}`;
  annotate($('problem-line'), `${c.loss.kind.replace('_', ' ')} loss on ${source}, n = ${c.n}, d = ${c.d}, `
    + `${unclipped ? `features NOT clipped to ‖x‖ ≤ ${c.feature_bound} (the demonstration)` : `features clipped to ‖x‖ ≤ ${c.feature_bound}${clipped}`}${targets}; domain ${domain}.`);
}

// --- config ↔ controls ↔ URL hash ---------------------------------------------------------------

/** A control's number, or its raw text when it is not one (so that Rust can name the field). */
function numberOrText(text) {
  const t = String(text).trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
}

function epsilonFromSlider() {
  return Number((10 ** Number(ui.epsilon.value)).toPrecision(2));
}

function lossFromControls() {
  const kind = $('loss').value;
  const param = LOSS_PARAMS[kind];
  const loss = param ? { kind, [param[0]]: numberOrText($('loss-param').value) } : { kind };
  if (kind in LABEL_BOUNDS) loss.label_bound = numberOrText($('label-bound').value);
  return loss;
}

function wrapFromControls() {
  const kind = $('wrap').value;
  const param = WRAP_PARAMS[kind];
  return param ? { kind, [param[0]]: numberOrText($('wrap-param').value) } : { kind };
}

function tailFromControls() {
  const kind = $('tail').value;
  const params = TAIL_PARAMS[kind] ?? [];
  const tail = { kind };
  params.forEach(([key], i) => { tail[key] = numberOrText($(i === 0 ? 'tail-a' : 'tail-b').value); });
  return tail;
}

function noiseFromControls() {
  const kind = $('noise_tail').value;
  const param = NOISE_PARAMS[kind];
  return param ? { kind, [param[0]]: numberOrText($('noise_tail-a').value) } : { kind };
}

function fromControls() {
  const c = { ...config };
  for (const k of NUMBERS) c[k] = numberOrText($(k).value);
  for (const k of OPTIONAL) c[k] = $(k).value.trim() === '' ? null : numberOrText($(k).value);
  for (const k of CHOICES) c[k] = $(k).value;
  // The typed value (the slider writes its value there): Rust validates it like every field.
  c.epsilon = numberOrText(ui.epsilonTyped.value);
  c.seed = numberOrText(ui.seed.value);
  c.unseeded_noise = ui.unseeded.checked;
  c.leak = $('leak').checked;
  c.clip_records = $('clip_records').checked;
  c.loss = lossFromControls();
  c.wrap = wrapFromControls();
  c.tail = tailFromControls();
  c.noise_tail = noiseFromControls();
  c.compare = [...document.querySelectorAll('#compare input:checked')].map((el) => el.value);
  return c;
}

function syncParamFields() {
  const lossParam = LOSS_PARAMS[$('loss').value];
  $('loss-param-field').hidden = !lossParam;
  if (lossParam) $('loss-param-label').textContent = lossParam[1];
  $('label-bound-field').hidden = !($('loss').value in LABEL_BOUNDS);
  const wrapParam = WRAP_PARAMS[$('wrap').value];
  $('wrap-param-field').hidden = !wrapParam;
  if (wrapParam) $('wrap-param-label').textContent = wrapParam[1];
  const tailParams = TAIL_PARAMS[$('tail').value] ?? [];
  $('tail-a-field').hidden = tailParams.length < 1;
  $('tail-b-field').hidden = tailParams.length < 2;
  if (tailParams[0]) $('tail-a-label').textContent = tailParams[0][1];
  if (tailParams[1]) $('tail-b-label').textContent = tailParams[1][1];
  const noiseParam = NOISE_PARAMS[$('noise_tail').value];
  $('noise_tail-a-field').hidden = !noiseParam;
  if (noiseParam) $('noise_tail-a-label').textContent = noiseParam[1];
  syncGameFields($, $('problem').value, $('game').value);
  // A CSV file brings its own n, d and values: the generator's settings go, the picker comes
  // (n stays: under add/remove it is declared).
  const csv = $('data').value === 'csv';
  $('csv-field').hidden = !csv;
  for (const el of document.querySelectorAll('.synthetic-only')) {
    // A parameter's field (a tail's ν) was just shown or hidden by its menu above.
    if (csv) el.hidden = true;
    else if (!el.classList.contains('param')) el.hidden = false;
  }
  for (const el of document.querySelectorAll('#compare input')) {
    // Compared algorithms run on the same problem: those that cannot solve it are off.
    const solves = cardsByKind[el.value]?.solves.includes($('problem').value) ?? true;
    el.disabled = el.value === $('algorithm').value || !solves;
    el.closest('label').hidden = !solves;
    if (el.disabled) el.checked = false;
  }
  syncSettings();
}

/**
 * Shows the settings the main algorithm or a compared one reads, in the main algorithm's words
 * (its card's label and help; a compared one's where the main one does not read it). The others
 * are hidden and keep their values.
 */
function syncSettings() {
  const compared = [...document.querySelectorAll('#compare input:checked')].map((el) => el.value);
  const reading = [$('algorithm').value, ...compared].map((kind) => cardsByKind[kind]).filter(Boolean);
  for (const key of settingKeys) {
    const use = reading.map((c) => c.settings.find((s) => s.key === key)).find(Boolean);
    // A setting with an error shows, so the message beside it is seen.
    $(`${key}-field`).hidden = !use && $(`${key}-error`).textContent === '';
    if (!use) continue;
    $(`${key}-label`).textContent = use.label;
    $(`${key}-help`).textContent = use.help ?? ''; // until pkg/cards.json arrives
  }
}

/** Sets every control to `c` (the config, or a candidate that may still hold a refused value). */
function syncControls(c = config) {
  document.body.dataset.problem = c.problem;
  ui.epsilon.value = String(Math.log10(c.epsilon));
  ui.epsilonOutput.textContent = fmt(c.epsilon, 2);
  ui.epsilonTyped.value = String(c.epsilon);
  ui.seed.value = String(c.seed);
  ui.unseeded.checked = c.unseeded_noise;
  $('leak').checked = c.leak;
  $('clip_records').checked = c.clip_records;
  for (const k of NUMBERS) $(k).value = String(c[k]);
  for (const k of OPTIONAL) $(k).value = c[k] === null ? '' : String(c[k]);
  for (const k of CHOICES) $(k).value = c[k];
  $('loss').value = c.loss.kind;
  const lossParam = LOSS_PARAMS[c.loss.kind];
  if (lossParam) $('loss-param').value = String(c.loss[lossParam[0]]);
  if (c.loss.kind in LABEL_BOUNDS) $('label-bound').value = String(c.loss.label_bound);
  $('wrap').value = c.wrap.kind;
  const wrapParam = WRAP_PARAMS[c.wrap.kind];
  if (wrapParam) $('wrap-param').value = String(c.wrap[wrapParam[0]]);
  $('tail').value = c.tail.kind;
  (TAIL_PARAMS[c.tail.kind] ?? []).forEach(([key], i) => {
    $(i === 0 ? 'tail-a' : 'tail-b').value = String(c.tail[key]);
  });
  $('noise_tail').value = c.noise_tail.kind;
  const noiseParam = NOISE_PARAMS[c.noise_tail.kind];
  if (noiseParam) $('noise_tail-a').value = String(c.noise_tail[noiseParam[0]]);
  for (const el of document.querySelectorAll('#compare input')) el.checked = c.compare.includes(el.value);
  summariseCompare();
  syncParamFields();
}

/** Fills the parameter fields of a newly chosen loss, aggregation or tail with their defaults. */
function defaultParams(control) {
  if (control === $('loss')) {
    const param = LOSS_PARAMS[$('loss').value];
    if (param) $('loss-param').value = String(param[2]);
    const bound = LABEL_BOUNDS[$('loss').value];
    if (bound !== undefined) $('label-bound').value = String(bound);
  } else if (control === $('wrap')) {
    const param = WRAP_PARAMS[$('wrap').value];
    if (param) $('wrap-param').value = String(param[2]);
  } else if (control === $('tail')) {
    (TAIL_PARAMS[$('tail').value] ?? []).forEach(([, , dflt], i) => { $(i === 0 ? 'tail-a' : 'tail-b').value = String(dflt); });
  } else if (control === $('noise_tail')) {
    const param = NOISE_PARAMS[$('noise_tail').value];
    if (param) $('noise_tail-a').value = String(param[2]);
  }
}

/** The config in the URL hash, read field by field: what cannot be used falls back alone. */
function configFromHash() {
  // Decoded in Rust (RunConfig::from_link), the reader `dp-playground run <link>` uses too.
  const out = configFromUrl(location.hash);
  for (const e of out.errors) {
    // Rust's message names the control by its label and says what to do; the link's key is not the page's word.
    showError({ field: e.field, message: `${e.message} The link's value was not used: the default is shown.` });
  }
  const c = JSON.parse(out.config);
  if (c.data === 'csv' && csvId === null) {
    showError({ field: 'data', message: 'This link was made with a CSV file, which a link cannot carry: load the file again. Showing synthetic data meanwhile.' });
    c.data = 'synthetic';
  }
  return c;
}

/**
 * A person picked an algorithm from the menu: the controls' values with every need of the
 * algorithm met (Rust's pickAlgorithm: a ridge, a domain, a step count …), applied with a note
 * saying what changed and why. A link is never adjusted: it restores exactly what it says.
 */
function pickFromMenu() {
  const kind = $('algorithm').value;
  pickWith((from) => pickAlgorithm(from, kind), cardsByKind[kind]?.name ?? kind);
}

/**
 * A person switched the problem menu (minimise, or a game): Rust's pickProblem poses it, an
 * algorithm that cannot solve it giving way to the first that can, each change with its note.
 */
function pickProblemFromMenu() {
  const problem = $('problem').value;
  pickWith((from) => pickProblem(from, problem), problem === 'saddle' ? 'the game' : 'the minimisation');
}

/** The menus themselves: a pick sets them, and the next pick never puts them back. */
const PICKED = ['algorithm', 'problem', 'game', 'compare'];

/** A setting's value in the page's words: a menu's option text, a number as typed. */
function valueWords(key, value) {
  const shown = value !== null && typeof value === 'object' ? value.kind : value;
  const option = [...($(key)?.options ?? [])].find((o) => o.value === String(shown));
  return option ? option.textContent.trim() : String(shown ?? 'blank');
}

/** Applies `picker`'s config (Rust's pick, from the controls as they stand) with its notes. */
function pickWith(picker, name) {
  const controls = fromControls();
  // What the previous pick forced and this one may not need goes back first (Rust's pick then
  // forces it again if this algorithm needs it too); a control changed since keeps its value.
  const restored = [];
  for (const [key, { was, now, by }] of Object.entries(forced)) {
    if (JSON.stringify(controls[key]) !== now) continue;
    controls[key] = JSON.parse(was);
    restored.push({ key, by, now: JSON.parse(now) });
  }
  forced = {};
  // Picked from where the person stands: the controls as they were under the algorithm in use
  // (Rust reads them leniently, and a setting the new algorithm refuses, say the pitfall toggle,
  // must reach the pick to be turned off with a note rather than dropped unseen).
  const from = JSON.stringify({ ...controls, algorithm: config.algorithm, problem: config.problem });
  let picked;
  try {
    picked = picker(from);
  } catch (e) {
    if (restored.length) syncControls(controls);
    refuse(e);
    return;
  }
  // Only what the pick changed replaces the controls' values, so a value still being typed (not
  // yet a valid setting) stays where the person can see and fix it.
  const read = JSON.parse(configFromLink(from).config);
  const candidate = { ...controls };
  for (const [key, value] of Object.entries(JSON.parse(picked.config))) {
    // The menus a pick sets are always the pick's: the lenient read may already hold a fallback
    // equal to the pick's value while the menu still shows the previous choice.
    if (!PICKED.includes(key) && JSON.stringify(value) === JSON.stringify(read[key])) continue;
    candidate[key] = value;
    if (!PICKED.includes(key)) forced[key] = { was: JSON.stringify(read[key]), now: JSON.stringify(value), by: name };
  }
  // A restored setting this pick forces again is the pick's note, not a restoration.
  const back = restored.filter(({ key }) => !(key in forced)).map(({ key, by, now }) => `${controlOf(key)?.label ?? key} back to ${valueWords(key, candidate[key])} (${by} had set ${valueWords(key, now)}, which this one does not need)`);
  const notes = [...picked.notes, ...back];
  $('algorithm-note').textContent = notes.length ? `For ${name}: ${notes.join('; ')}.` : '';
  syncControls(candidate);
  applyConfig(candidate);
}

/**
 * Validates `candidate` in Rust; on success it becomes the config, the hash is updated and a new
 * run starts. On failure the message goes next to the field and the last good run stays.
 */
function applyConfig(candidate) {
  let normalized;
  let list;
  try {
    normalized = JSON.parse(normalizeConfig(JSON.stringify(candidate)));
    list = previews(JSON.stringify(normalized));
  } catch (e) {
    refuse(e);
    return false;
  }
  clearErrors();
  config = normalized;
  window.history.replaceState(null, '', `#${encodeURIComponent(JSON.stringify(config))}`);
  markStale(Boolean(run.info));
  startRun(list);
  return true;
}

// --- the worker ---------------------------------------------------------------------------------

let worker;
let plotter;
/** The sweep panel (www/sweep.js); it reads the last valid settings. */
let sweepPanel = null;
/** The heavy-tail panel (www/heavy.js); it follows the last valid settings. */
let heavyPanel = null;
/** Whether the page has read its link and listens to its worker (a lesson picked before then waits). */
let pageStarted = false;
/** Whether the worker is preparing the current run and has reported progress (a long preparation). */
let preparing = false;

/**
 * Stops a worker that is busy preparing a run (generating and certifying a large problem is one
 * call: neither a Cancel nor the next configuration can reach it) and starts a fresh one, which
 * waits for its next CONFIGURE. `stale`: it is busy with a run that has been replaced (it said
 * so). Not while it holds or reads a CSV file, which would be lost: the next run then waits its
 * turn. Returns whether it did.
 */
function restartBusyWorker(stale = false) {
  if (!(preparing || stale) || csvId !== null || csvLoad) return false;
  preparing = false;
  // Whatever the old worker said last is about runs that are gone.
  worker.onmessage = null;
  worker.onerror = null;
  worker.terminate();
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  listenTo(worker, { startOnLoad: false });
  return true;
}

function startRun(list) {
  restartBusyWorker();
  runId += 1;
  failed = null;
  setState('loading', 'preparing data and reference optimum…');
  try {
    showGuarantees(list ?? previews(JSON.stringify(config)));
  } catch (e) {
    showError(e);
  }
  showComposed(config);
  sweepPanel?.settingsChanged();
  heavyPanel?.configured();
  holdHeight($('problem-line'));
  describeProblem(config, null);
  if (config.data === 'csv' && csvId === null) {
    // Nothing to prepare until a file is loaded: the picker says so, and so does the line
    // beside Play, with a link to the picker.
    failed = { field: 'csv', message: 'load your CSV file first: choose it at “CSV file”, just under the data source.' };
    setState('nofile', 'waiting for your CSV file');
    return;
  }
  configureWorker();
}

/** Asks the worker to prepare the current run. */
function configureWorker() {
  worker.postMessage({
    type: ToWorker.CONFIGURE,
    runId,
    config: JSON.stringify(config),
    csv: config.data === 'csv' ? csvId : null,
  });
}

function onWorkerMessage(event) {
  const msg = event.data;
  if (msg.type === FromWorker.LOADED) {
    startRun();
    return;
  }
  if (msg.type === FromWorker.PROGRESS) {
    if (state !== 'loading') return;
    if (msg.runId === runId) showPreparation(msg);
    // Still preparing a run that has been replaced (a second setting typed within 250 ms of the
    // first): the current run would wait behind it.
    else if (restartBusyWorker(true)) configureWorker();
    return;
  }
  if (msg.runId === runId && (msg.type === FromWorker.READY || msg.type === FromWorker.ERROR)) preparing = false;
  if ([FromWorker.CSV_PROGRESS, FromWorker.CSV_LOADED, FromWorker.CSV_ERROR].includes(msg.type)) {
    onCsvMessage(msg);
    return;
  }
  if (msg.runId !== runId) return; // stale: a run that has been replaced
  switch (msg.type) {
    case FromWorker.READY: {
      msg.info.cards = cardsByKind;
      run = new RunHistory(msg.info, msg.grid);
      plotter.theories = msg.info.theories ?? [];
      // The caption names a dashed bound only when one is drawn, and otherwise what would make
      // the main algorithm's apply (Rust's theoryMissing names the condition and its control).
      $('excess-bound-words').textContent = plotter.theories.some((t) => t?.x?.length)
        ? 'the theory bound dashed'
        : msg.info.theoryMissing?.[0]
          ? `no theory bound applies to these settings; to draw ${cardsByKind[msg.info.previews[0].kind]?.name ?? 'the algorithm'}’s, ${msg.info.theoryMissing[0]}`
          : 'no theory bound applies to these settings (see the card\'s assumptions), so none is drawn';
      describeProblem(JSON.parse(msg.info.config), msg.info);
      holdHeight($('problem-line'), false);
      showReadout();
      plotter.request(run);
      setState('ready', 'ready: press Play');
      heavyPanel?.dataReady();
      showShownSettings();
      if (pending) {
        const action = pending;
        pending = null;
        (action === 'play' ? play : step)();
      }
      break;
    }
    case FromWorker.GRID:
      run.grid = msg.grid;
      plotter.request(run);
      break;
    case FromWorker.BATCH:
      markStale(false);
      run.append(msg.slice);
      showReadout();
      plotter.request(run);
      if (msg.slice.done) setState('released', 'released: the ringed points are the private outputs');
      break;
    case FromWorker.ERROR:
      showError(msg.error);
      failed = { field: msg.error?.field ?? null, message: msg.error?.message ?? String(msg.error) };
      setState('error', 'error');
      break;
    case FromWorker.EXPORTED:
      saveExport(msg);
      break;
    default:
      break;
  }
}

/** How far the worker got preparing the run (a large one takes seconds): the status and the bar. */
function showPreparation({ stage, fraction }) {
  preparing = true;
  // Cancel stops the busy worker (restartBusyWorker), unless it holds a CSV file.
  ui.cancel.disabled = csvId !== null || csvLoad !== null;
  ui.status.textContent = `preparing: ${stage}, ${Math.round(100 * fraction)}%`;
  ui.progress.max = 1;
  ui.progress.value = fraction;
  ui.progress.hidden = false;
}

/** Downloads a file the worker made (the run JSON or the diagnostics CSV) and says what it holds. */
function saveExport({ what, text, error }) {
  if (error) {
    showError(error);
    return;
  }
  const say = (words) => { $('export-status').textContent = words; };
  if (what === 'csv') {
    download(DIAGNOSTICS_CSV, new Blob([text], { type: 'text/csv' }));
    say('Diagnostics CSV saved: NOT PRIVATE, every row (the release rows too, flagged release_row = 1) is computed '
      + 'from the raw data and the noise. The private releases are in the run JSON\'s "private" part.');
  } else {
    download(RUN_JSON, new Blob([text], { type: 'application/json' }));
    say('Run JSON saved: "private" holds the released points, their ledgers and the guarantee of all of them together; '
      + '"diagnostics" (NOT PRIVATE) the rest.');
  }
}

function onWorkerError(event) {
  const message = `The solver worker failed: ${event.message ?? 'unknown error'}`;
  showError({ field: null, message });
  failed = { field: null, message: `${message}. Reload the page.` };
  setState('error', 'error');
}

// --- CSV ----------------------------------------------------------------------------------------

/**
 * A file was chosen (or the label column changed): the worker reads it in chunks and parses it,
 * the progress bar and its Cancel showing meanwhile; the run and data on screen stay until it has
 * loaded.
 */
function onCsvChosen() {
  const file = $('csv-file').files?.[0];
  if (!file) return;
  $('csv-error').textContent = '';
  try {
    checkCsvSize(file.size);
  } catch (e) {
    csvRefused(file, e);
    return;
  }
  // A load in progress gives way: the worker stops it when the new one starts.
  csvLoads += 1;
  csvLoad = { id: csvLoads, file };
  showCsvProgress(0, file.size, `reading ${file.name}…`);
  worker.postMessage({
    type: ToWorker.LOAD_CSV,
    loadId: csvLoad.id,
    file,
    // Checked against the loss the controls show (margin losses need ±1 labels).
    config: JSON.stringify({ ...config, loss: lossFromControls() }),
    label: $('csv-label').value,
  });
}

/** The progress bar of a CSV load (`total` null: hidden, with its Cancel). */
function showCsvProgress(done, total, text) {
  const bar = $('csv-progress');
  const busy = total !== null;
  $('csv-loading').hidden = !busy;
  if (!busy) return;
  bar.max = Math.max(total, 1);
  bar.value = done;
  $('csv-progress-text').textContent = text;
}

/** Cancel: the load stops, and the data, preview and run on screen stay as they were. */
function cancelCsvLoad() {
  if (!csvLoad) return;
  worker.postMessage({ type: ToWorker.CANCEL_LOAD, loadId: csvLoad.id });
  $('export-status').textContent = `Loading ${csvLoad.file.name} cancelled: ${csvId === null ? 'no file is loaded' : 'the file loaded before stays'}.`;
  csvLoad = null;
  showCsvProgress(0, null);
  // The input would otherwise name a file that is not loaded (and choosing it again would not
  // fire a change).
  $('csv-file').value = '';
}

function onCsvMessage(msg) {
  if (csvLoad?.id !== msg.loadId) return; // a load cancelled or replaced
  const { file } = csvLoad;
  switch (msg.type) {
    case FromWorker.CSV_PROGRESS: {
      const mb = (b) => (b / 1e6).toFixed(1);
      const text = msg.done < msg.total ? `reading ${file.name}: ${mb(msg.done)} of ${mb(msg.total)} MB`
        : `parsing ${file.name} (${mb(msg.total)} MB)…`;
      showCsvProgress(msg.done, msg.total, text);
      break;
    }
    case FromWorker.CSV_ERROR:
      csvLoad = null;
      showCsvProgress(0, null);
      csvRefused(file, msg.error);
      break;
    case FromWorker.CSV_LOADED:
      csvLoad = null;
      showCsvProgress(0, null);
      csvLoaded(file, msg.loadId, msg.shape, msg.hash);
      break;
    default:
      break;
  }
}

/**
 * `file` was refused (`error` says where and why): beside the picker, and, when no file is
 * loaded for the CSV data, beside Play too; a file loaded before stays in use.
 */
function csvRefused(file, error) {
  const message = `${file.name}: ${error?.message ?? error}`;
  showError({ field: 'csv', message });
  if (config.data === 'csv' && csvId === null) {
    failed = { field: 'csv', message: `${file.name} was not loaded (the reason is beside “CSV file”): fix the file, or choose another.` };
    showBlocked();
  }
}

/** The worker has parsed and kept `file` under `id`: preview it, and run on it. */
function csvLoaded(file, id, shape, hash) {
  csvId = id;
  // A key for the file: its name, size and SHA-256 (the same file loaded again keeps its total).
  csvKey = `${file.name}|${file.size}|${hash}`;
  if (!fileBudgets.has(csvKey)) fileBudgets.set(csvKey, { name: file.name, runs: [] });
  showFileBudget();
  const table = $('csv-preview');
  table.querySelector('tbody').replaceChildren(...shape.head.map((row) => {
    const tr = document.createElement('tr');
    for (const v of row.slice(0, 8)) tr.append(Object.assign(document.createElement('td'), { textContent: fmt(v, 4) }));
    return tr;
  }));
  table.hidden = false;
  // Replace-one: n is public and is the row count. Add/remove: n is declared at its control and a
  // file of any size runs (refusing n ± 1 rows would itself tell D from D ∪ {z}).
  const controls = fromControls();
  const n = controls.relation === 'replace_one' ? shape.n : controls.n;
  const candidate = { ...controls, data: 'csv', n, d: shape.d };
  candidate.batch = Math.min(candidate.batch, n);
  if (applyConfig(candidate)) {
    syncControls();
    const declared = n === shape.n ? '' : ` (n = ${n} declared: add/remove neighbours; every row is used)`;
    // Margin losses need labels −1 and +1: a 0 is read as −1 (Rust's CSV reader, record by record).
    const mapped = shape.mapped > 0 ? ` Its labels 0 (${shape.mapped} of them) are read as −1, since the ${config.loss.kind.replace('_', ' ')} loss needs labels −1 and +1.` : '';
    const words = `${file.name}: ${shape.n} rows, ${shape.d} features loaded${declared}.${mapped}`;
    $('export-status').textContent = words;
    $('csv-status').textContent = words;
  }
}

/** The size limit beside the file input, as Rust states it (csvSizeLimit). */
function showCsvLimit() {
  const bytes = csvSizeLimit();
  const size = bytes >= 2 ** 30 ? `${bytes / 2 ** 30} GiB` : `${bytes / 2 ** 20} MiB`;
  $('csv-limit').textContent = `Files up to ${size}: the tab holds the file and its numbers in its memory.`;
}

// --- controls -----------------------------------------------------------------------------------

/** Plays the prepared run (once charged to a loaded file). */
function play() {
  if (!chargeFile()) return;
  worker.postMessage({ type: ToWorker.PLAY, runId, speed: ui.speed.value });
  setState('running', 'running…');
}

/** Advances the prepared run by one step. */
function step() {
  if (!chargeFile()) return;
  worker.postMessage({ type: ToWorker.STEP, runId });
  setState('paused', 'paused');
}

/** A click on Play or Step while the run is prepared: done once it is ready. */
function wait(action) {
  pending = action;
  ui.status.textContent = `preparing the run with these settings; it will ${action === 'play' ? 'play' : 'step'} when ready…`;
}

function wireControls() {
  // The typed ε and the slider move together; registered first, so the slider's value is typed
  // before a change applies the controls.
  bindTyped(ui.epsilon, ui.epsilonTyped, epsilonFromSlider, (eps) => {
    ui.epsilonOutput.textContent = fmt(eps, 2);
  });
  ui.epsilon.addEventListener('input', () => {
    const eps = epsilonFromSlider();
    ui.epsilonOutput.textContent = fmt(eps, 2);
    try {
      showGuarantees(previews(JSON.stringify({ ...config, epsilon: eps })));
    } catch (e) {
      showError(e);
    }
    showComposed({ ...config, epsilon: eps });
  });
  // Every control applies the values of all controls, so a choice Rust refused (say output
  // perturbation without a ridge) is applied once the field it named is fixed.
  const controls = [ui.epsilon, ui.epsilonTyped, ui.seed, ui.unseeded, $('leak'), $('clip_records'), ...[...NUMBERS, ...OPTIONAL, ...CHOICES].map($),
    $('loss'), $('loss-param'), $('label-bound'), $('wrap'), $('wrap-param'), $('tail'), $('tail-a'), $('tail-b'),
    $('noise_tail'), $('noise_tail-a')];
  for (const control of controls) {
    control.addEventListener('change', () => {
      // New data (another seed): its noise draws start again from the seed's own.
      if (control === ui.seed) $('noise_draw').value = '0';
      defaultParams(control);
      syncParamFields();
      if (control === $('algorithm')) pickFromMenu();
      else if (control === $('problem')) pickProblemFromMenu();
      else if (control === $('game')) pickWith((from) => pickGame(from, $('game').value), 'the game');
      else applyConfig(fromControls());
    });
  }
  $('compare').addEventListener('change', () => {
    syncSettings();
    applyConfig(fromControls());
  });
  $('pin').addEventListener('click', () => {
    if (state !== 'released' || !run.release) return;
    pins.add(run, plotter.theories);
    showPins();
    plotter.request(run);
  });
  $('clear-pins').addEventListener('click', () => {
    pins.clear();
    showPins();
    plotter.request(run);
  });
  $('csv-file').addEventListener('change', onCsvChosen);
  $('csv-label').addEventListener('change', onCsvChosen);
  $('csv-cancel').addEventListener('click', cancelCsvLoad);
  ui.play.addEventListener('click', () => {
    if (invalid) return;
    if (state === 'loading') wait('play');
    else if (state === 'running') {
      worker.postMessage({ type: ToWorker.PAUSE, runId });
      setState('paused', 'paused');
    } else play();
  });
  ui.step.addEventListener('click', () => {
    if (invalid) return;
    if (state === 'loading') wait('step');
    else step();
  });
  ui.cancel.addEventListener('click', () => {
    if (state === 'loading') {
      if (restartBusyWorker()) {
        pending = null;
        ui.progress.hidden = true;
        setState('stopped', 'cancelled while preparing: Reset prepares it again');
      }
      return;
    }
    worker.postMessage({ type: ToWorker.PAUSE, runId });
    setState('cancelled', 'cancelled: Play continues, Reset starts again');
  });
  // From the controls, not the last valid config: with a setting refused, Reset must not run the
  // old settings either.
  ui.reset.addEventListener('click', () => applyConfig(fromControls()));
  // The next noise of the same seed (the data stay), in the link and counted in the total.
  $('new-draw').addEventListener('click', () => {
    $('noise_draw').value = String((config?.noise_draw ?? 0) + 1);
    applyConfig(fromControls());
  });
  const say = (text) => { $('export-status').textContent = text; };
  $('copy-link').addEventListener('click', async () => {
    if (invalid) {
      say(linkRefusal());
      return;
    }
    const ok = await copyText(location.href);
    say(ok ? 'Link copied: it restores these settings and, seeded, this exact run.' : `Copy this link: ${location.href}`);
  });
  // The worker's session makes the files (Rust, session::export); EXPORTED brings them back.
  $('export-csv').addEventListener('click', () => worker.postMessage({ type: ToWorker.EXPORT, runId, what: 'csv' }));
  $('export-json').addEventListener('click', () => worker.postMessage({ type: ToWorker.EXPORT, runId, what: 'json' }));
  // Figures for slides (www/figures.js): the run's settings inside the figure and in its name.
  mountScaleMenus();
  const exportFigure = (kind, save) => {
    if (!run.info) return;
    try {
      // The pinned runs go into the exported figure too, as on the page.
      save(kind, plotter.decorate(kind, plotSpec(run, kind, plotter.theories)), run.info.config, $(`${kind}-plot`));
    } catch (e) {
      showError({ field: null, message: String(e) });
    }
  };
  document.querySelectorAll('button.png').forEach((b) => b.addEventListener('click', () => {
    exportFigure(b.dataset.canvas.replace(/-plot$/, ''), (...args) => exportPng(...args, pngScale(b)));
  }));
  document.querySelectorAll('button.svg').forEach((b) => b.addEventListener('click', () => {
    exportFigure(b.dataset.plot, exportSvg);
  }));
}

/** Why no link may be copied while a setting is refused (Copy link and the Share fold). */
function linkRefusal() {
  const label = controlOf(invalid.field)?.label ?? 'a setting';
  return `Not copied: “${label}” is invalid, and a link now would hold the last valid settings instead. Fix it first.`;
}

function buildAlgorithmControls() {
  const list = cards();
  cardsByKind = Object.fromEntries(list.map((c) => [c.kind, c]));
  settingKeys = [...new Set(list.flatMap((c) => c.settings.map((s) => s.key)))];
  // One group per problem kind: picking an algorithm of the other kind switches the problem
  // (Rust's pickAlgorithm says so in its note).
  const groups = [['minimisation', 'minimise F(w)'], ['saddle', 'saddle point (a game)']].map(([kind, label]) => {
    const group = Object.assign(document.createElement('optgroup'), { label });
    group.append(...list.filter((c) => c.solves.includes(kind))
      .map((c) => Object.assign(document.createElement('option'), { value: c.kind, textContent: c.name })));
    return group;
  }).filter((g) => g.children.length > 0);
  $('algorithm').replaceChildren(...groups);
  $('compare').replaceChildren(...list.map((c) => {
    const label = Object.assign(document.createElement('label'), { className: 'check' });
    label.append(Object.assign(document.createElement('input'), { type: 'checkbox', value: c.kind }), ` ${c.name}`);
    return label;
  }));
}

// The worker starts before the page's own module loads, so both fetch and compile at once
// (first visit). Its first message (LOADED) waits here until the page's wasm is ready too.
worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const early = [];
worker.onmessage = (event) => early.push(event);
worker.onerror = (event) => early.push(event);
await init();
readControlTable();
buildAlgorithmControls();
plotter = new Plotter(
  {
    excess: $('excess-plot'), path: $('path-plot'), noise: $('noise-plot'), privacy: $('privacy-plot'), features: $('features-plot'),
    players: $('players-plot'), vertices: $('vertices-plot'), localisation: $('localisation-plot'),
  },
  // A plot's error is a { field, message } object from Rust (or a JS Error): its words, never
  // "[object Object]".
  (e) => showError({ field: null, message: `A plot could not be drawn: ${e?.message ?? String(e)}` }),
);
// Before the link is read: the folds a narrow screen closes must not hide its errors.
mountLayout({ canvases: Object.values(plotter.canvases), redraw: (canvas) => plotter.redraw(canvas) });
plotter.decorate = (kind, s) => pins.decorate(kind, s, config);
// A lesson's link (`?lesson=…`) puts its preset in the hash before the page reads it.
await setupLessons(() => { if (pageStarted) restoreFromHash(); });
config = configFromHash();
syncControls();
wireControls();
// The teaching panels read the page's current settings when they start a job.
mountNeighbours(() => config);
mountAudit(() => config);
// The data's feature norms are the run's on screen once it is ready (non-private diagnostics).
heavyPanel = mountHeavy({ config: () => config, norms: () => (state === 'loading' ? null : run.info?.featureNorms ?? null) });
showCsvLimit();
explainPage();
sweepPanel = new SweepPanel(() => (invalid ? null : config));
mountShare({ refusal: () => (invalid ? linkRefusal() : null) });
// Every message counted as it arrives (stale ones too), so a test can prove that none came.
const received = {};
/** Handles `w`'s messages; a restarted worker's LOADED starts nothing (its CONFIGURE is queued). */
function listenTo(w, { startOnLoad }) {
  w.onmessage = (event) => {
    received[event.data.type] = (received[event.data.type] ?? 0) + 1;
    if (startOnLoad || event.data.type !== FromWorker.LOADED) onWorkerMessage(event);
  };
  w.onerror = onWorkerError;
}
listenTo(worker, { startOnLoad: true });
for (const event of early.splice(0)) (event.type === 'error' ? onWorkerError : worker.onmessage)(event);
pageStarted = true;
/** A link was opened (or a lesson picked): the settings in the hash replace the page's. */
function restoreFromHash() {
  clearErrors();
  forced = {};
  // A link restores exactly what it says: the note of an earlier pick no longer applies.
  $('algorithm-note').textContent = '';
  config = configFromHash();
  syncControls();
  markStale(Boolean(run.info));
  startRun();
}
window.addEventListener('hashchange', restoreFromHash);
// For the end-to-end tests: frames drawn, so a test can measure the page's frame rate.
window.__dp = {
  plotter: () => plotter, run: () => run, received: () => ({ ...received }),
  // The spec a plot is drawn from (with its pinned layers) and the axes Rust draws it with.
  spec: (kind) => plotter.spec(kind), axes: (kind) => plotAxes(kind, plotter.spec(kind)),
};
