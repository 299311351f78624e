// The attacker's view: the page's algorithm run many times on a neighbouring pair D, D′ built
// from the page's settings (in the teaching worker), and the ROC of a test of "was the record
// in?" from the releases, against the curve the stated guarantee allows. All of it is a
// non-private diagnostic: thousands of releases of a toy pair, not a private release of the
// page's data. The numbers come from Rust (audit::attack); the plot is drawn by the wasm's
// plotters code ('roc'), on the canvas as in an SVG export.

import { startJob } from '../page/teach-jobs.js';
import { drawFitted } from '../drawing/fit.js';
import { figureSize } from '../drawing/figures.js';
import { download } from '../drawing/export.js';
import { figureContext, plotSvg } from '../pkg/dp_playground.js';

const $ = (id) => document.getElementById(id);
const pct = (p) => `${(100 * p).toPrecision(p < 0.001 ? 1 : 3).replace(/\.?0+$/, '')} %`;
/** "1 time in 100" for FPR 1 %. */
const inHundred = (p) => (p === 0.01 ? '1 time in 100' : p === 0.1 ? '1 time in 10' : `${pct(p)} of the time`);

let job = null;
let last = null;
/** The settings the last view was drawn from (for the exported figure's context line). */
let lastConfig = null;

function scoreWords(v) {
  return v.score === 'likelihood_ratio'
    ? 'The test thresholds the release itself: here it is a deterministic point plus one draw of the stated noise in one dimension, so D and D′ shift the same law, the likelihood ratio is monotone in the release, and this is the likelihood-ratio test (the most powerful).'
    : 'The test thresholds the release projected onto the direction the differing record moves it (the release law is not known in closed form, so this is not the likelihood-ratio test and a better attack may exist).';
}

function allowedWords(v) {
  const a = v.allowed;
  if (!Number.isFinite(a.epsilon)) return 'This run claims no privacy (ε = ∞): any attacker may be right every time, and the allowed curve is TPR = 1.';
  const ed = `(ε, δ) = (${a.epsilon.toPrecision(3)}, ${a.delta === 0 ? '0' : a.delta.toExponential(0)})`;
  if (a.mu !== null && a.mu !== undefined) {
    return `Allowed: the smaller of the ${ed} region's bound and the Gaussian trade-off curve with μ = ${a.mu.toPrecision(3)} (every noise draw the plan states is Gaussian: μ² = Σ (Δ/σ)² over the draws).`;
  }
  return `Allowed: the ${ed} region's bound TPR ≤ min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR)) (the plan's noise is not all Gaussian, so no Gaussian curve is drawn).`;
}

/** The plot spec of a view. */
export function rocSpec(v) {
  return {
    fpr: v.roc_fpr,
    tpr: v.roc_tpr,
    allowedFpr: v.allowed_fpr,
    allowedTpr: v.allowed_tpr,
    floor: Math.max(1e-4, 0.5 / v.runs),
    marks: v.at.map((x) => x.target),
    label: `measured (${v.runs} runs a side)`,
    allowedLabel: v.allowed.mu != null ? `allowed (ε, δ; Gaussian μ = ${v.allowed.mu.toPrecision(3)})` : 'allowed by (ε, δ)',
  };
}

function draw(v) {
  drawFitted('roc', $('attack-roc'), rocSpec(v));
  const body = $('attack-table').querySelector('tbody');
  body.replaceChildren(...v.at.map((x) => {
    const tr = document.createElement('tr');
    const cells = [
      pct(x.target),
      `${pct(x.tpr)} (${x.hits_in} of ${v.runs}; at FPR ${pct(x.fpr)})`,
      pct(x.allowed),
      x.exceeds ? `yes: at least ${pct(x.tpr_lower)} > ${pct(x.allowed_at_upper)}` : 'no',
    ];
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c;
      tr.append(td);
    }
    tr.dataset.exceeds = String(x.exceeds);
    return tr;
  }));
  const one = v.at[0];
  // The plan's reasons start with NOT PRIVATE already.
  const leak = v.leaks.length ? ` ${v.leaks.map((l) => (/^NOT PRIVATE/.test(l) ? l : `NOT PRIVATE: ${l}`)).join(' ')}` : '';
  const side = v.positive === 'd' ? 'D' : 'D′';
  $('attack-summary').textContent = `${v.runs} runs on each side. ${scoreWords(v)} Of the four one-sided tests (D or D′ called “in”, either tail of the score) the one shown calls ${side} “in”: the best at FPR 1 %. ${allowedWords(v)} `
    + `In plain words: an attacker who says “in” ${inHundred(one.target)} when the record is out is right at most ${pct(one.allowed)} of the time when it is in; this attack is right ${pct(one.tpr)} of the time. `
    + `Its advantage (TPR − FPR at its best threshold) is ${v.advantage.toFixed(3)} (the best of many thresholds, so up to ${v.advantage_margin.toFixed(3)} of it can be sampling error); the guarantee allows at most ${v.allowed_advantage.toFixed(3)}. `
    + (v.within
      ? 'The measured curve stays within what the guarantee allows, up to sampling error (Clopper–Pearson, confidence 99.9 % over the four tests). That is a lower bound on the leak: a better attack or a worse pair could do more.'
      : 'The measured curve crosses the allowed curve beyond sampling error (Clopper–Pearson, confidence 99.9 % over the four tests): the runs contradict the stated guarantee.')
    + leak;
  $('attack-summary').dataset.verdict = v.within ? 'within' : 'crosses';
}

function setRunning(on) {
  $('attack-run').disabled = on;
  $('attack-cancel').disabled = !on;
}

async function run(getConfig) {
  const config = getConfig();
  $('attack-error').textContent = '';
  $('attack-progress').value = 0;
  setRunning(true);
  $('attack-status').textContent = 'drawing…';
  job = startJob({ type: 'attack', config: JSON.stringify(config), runs: Number($('attack_runs').value) }, (done, total) => {
    $('attack-progress').value = done / total;
    $('attack-status').textContent = `${done} of ${total} runs on each side`;
  });
  try {
    const v = await job.promise;
    if (v) {
      last = v;
      lastConfig = config;
      $('attack-svg').disabled = false;
      $('attack-setting').textContent = `The pair: ${v.setting}. ${v.claim.relation === 'add_remove' ? 'Neighbours by adding or removing a record.' : 'Neighbours by replacing one record.'} `
        + `From the page: the algorithm, ε, δ, the seed and the demonstration switch; the records, their number and the loss are the worst-case pair of the algorithm's audit (the page's own data have n = ${config.n}), kept small so that thousands of runs take seconds.`;
      draw(v);
      $('attack-status').textContent = 'done';
    } else {
      $('attack-status').textContent = 'cancelled';
    }
  } catch (e) {
    $('attack-error').textContent = e.message;
    $('attack-status').textContent = '';
  } finally {
    setRunning(false);
    job = null;
  }
}

/**
 * Mounts the attacker's view (`root`, its fold); a run reads the page's current (valid)
 * settings (www/page/mount.js).
 */
export function mount(root, { settings: getConfig }) {
  $('attack-run').addEventListener('click', () => run(getConfig));
  $('attack-cancel').addEventListener('click', () => job?.cancel());
  // The same drawing as the canvas, as an SVG document (crates/wasm/src/wasm/plot/roc.rs).
  $('attack-svg').addEventListener('click', () => {
    if (!last) return;
    const { caption, stem } = figureContext('attacker-roc', JSON.stringify(lastConfig));
    const context = `${caption} · the attacker's view on a scaled-down pair, ${last.runs} runs a side`;
    const svg = plotSvg('roc', { ...rocSpec(last), context }, ...figureSize($('attack-roc')));
    download(`${stem}.svg`, new Blob([svg], { type: 'image/svg+xml' }));
  });
  // Redrawn at its new size when the window changes (the figure follows the canvas's width).
  window.addEventListener('resize', () => { if (last && root.open) drawFitted('roc', $('attack-roc'), rocSpec(last)); });
  root.addEventListener('toggle', () => { if (last && root.open) drawFitted('roc', $('attack-roc'), rocSpec(last)); });
  window.__teach ??= {};
  window.__teach.attack = () => last;
  return {};
}
