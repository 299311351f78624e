// The neighbouring-datasets panel: the page's mechanism run many times on a toy pair D, D′ that
// differ in one record (in the teaching worker), and what its guarantee says about the two
// clouds of releases. All of it is a non-private diagnostic: thousands of releases of a toy
// pair, not a private release of the page's data. The numbers come from Rust
// (audit::neighbours); this file draws them.

import { startJob } from '../page/teach-jobs.js';
import { COLORS, drawHistograms, drawLogXCurves } from '../drawing/teach-draw.js';

const $ = (id) => document.getElementById(id);
const RECORD_WORDS = {
  outlier: 'D′ moves the record’s feature to −50 times the declared bound (the session clips it back to the bound: the worst case)',
  random: 'D′ has a record drawn at random within the declared bounds (seeded by the page’s seed)',
  label_flip: 'D′ has the same record with its label flipped',
};

let job = null;
let last = null;

function lawWords(v) {
  if (v.law.kind === 'gaussian') {
    return `Gaussian noise: the worst-case privacy loss is N(μ, 2μ) with μ = Σ Δ²/(2σ²) = ${v.law.mu.toPrecision(3)} over all the noise draws (dashed). `
      + `The fitted losses have mean ${v.loss.mean.toPrecision(3)}.`;
  }
  return `ℓ2-Laplace noise in one dimension (a Laplace law of scale b): the worst-case privacy loss has atoms at ±ε = ±${v.law.epsilon.toPrecision(3)} `
    + `(stems: probability ½ at +ε, ½e^{−ε} at −ε) and the density ¼e^{−(ε−L)/2} between (dashed). The fitted losses have mean ${v.loss.mean.toPrecision(3)}.`;
}

function draw(v) {
  const bins = v.releases.on_d.length;
  drawHistograms($('neighbours-releases'), {
    lo: v.releases.lo,
    hi: v.releases.hi,
    series: [
      { counts: v.releases.on_d, color: COLORS.d, label: `on D (mean ${v.means[0].toPrecision(3)})` },
      { counts: v.releases.on_d_prime, color: COLORS.dPrime, label: `on D′ (mean ${v.means[1].toPrecision(3)})` },
    ],
    xlabel: 'release along the direction D − D′ separates (the first coordinate)',
  });
  drawHistograms($('neighbours-loss'), {
    lo: v.loss.lo,
    hi: v.loss.hi,
    series: [{ counts: v.loss.counts, total: v.runs, color: COLORS.d, label: 'fitted loss of each release on D' }],
    curve: v.loss.theory.filter(([, d]) => d > 0),
    atoms: v.loss.atoms,
    curveLabel: 'worst case of the noise law',
    xlabel: 'privacy loss L(o) = ln p_D(o) / p_D′(o)',
  });
  const points = (ys) => v.profile.delta.map((d, i) => [d, ys[i] ?? NaN]);
  drawLogXCurves($('neighbours-profile'), {
    curves: [
      { points: points(v.profile.worst_case), color: COLORS.theory, dashed: true, label: 'ε(δ) promised (worst case)' },
      { points: points(v.profile.empirical), color: COLORS.d, label: 'ε(δ) of the fitted losses' },
    ],
    markers: [
      ...(v.claim.delta > 0 ? [{ x: v.claim.delta, y: v.claim.epsilon, color: COLORS.text, label: `claimed (ε, δ)` }] : []),
      { x: Math.max(v.claim.delta, 1e-8), y: v.audit.epsilon_lower, color: COLORS.marker, label: `audit ε̂ = ${v.audit.epsilon_lower.toFixed(2)}` },
    ],
    xlabel: 'δ',
    ylabel: 'ε',
  });
  const leak = v.leaks.length ? ` NOT PRIVATE: ${v.leaks.join(' ')}` : '';
  $('neighbours-summary').textContent = `${v.runs} runs on each side, ${bins} bins. ${lawWords(v)} `
    + `The Clopper–Pearson audit of these draws gives ε̂ = ${v.audit.epsilon_lower.toFixed(2)} against the claimed ε = ${v.claim.epsilon.toPrecision(3)}`
    + `${v.claim.delta > 0 ? ` at δ = ${v.claim.delta.toExponential(0)}` : ''}${v.audit.violation ? ': the draws contradict the claim.' : ' (a lower bound: it cannot prove privacy).'}${leak}`;
  $('neighbours-summary').dataset.verdict = v.audit.violation ? 'violation' : 'pass';
}

function setRunning(on) {
  $('neighbours-run').disabled = on;
  $('neighbours-cancel').disabled = !on;
}

async function run(getConfig) {
  const config = getConfig();
  $('neighbours-error').textContent = '';
  $('neighbours-progress').value = 0;
  setRunning(true);
  $('neighbours-status').textContent = 'drawing…';
  job = startJob({
    type: 'neighbours', config: JSON.stringify(config), record: $('neighbour_record').value, runs: Number($('neighbour_runs').value),
  }, (done, total) => {
    $('neighbours-progress').value = done / total;
    $('neighbours-status').textContent = `${done} of ${total} runs on each side`;
  });
  try {
    const v = await job.promise;
    if (v) {
      last = v;
      draw(v);
      $('neighbours-status').textContent = 'done';
    } else {
      $('neighbours-status').textContent = 'cancelled';
    }
  } catch (e) {
    $('neighbours-error').textContent = e.field === 'algorithm' ? `Not available for this algorithm. ${e.message}` : e.message;
    $('neighbours-status').textContent = '';
  } finally {
    setRunning(false);
    job = null;
  }
}

/**
 * Mounts the neighbouring-datasets panel (`root`, its fold); a run reads the page's current
 * (valid) settings (www/page/mount.js).
 */
export function mount(root, { settings: getConfig }) {
  const words = () => { $('neighbour-record-help').textContent = RECORD_WORDS[$('neighbour_record').value]; };
  $('neighbour_record').addEventListener('change', words);
  words();
  $('neighbours-run').addEventListener('click', () => run(getConfig));
  $('neighbours-cancel').addEventListener('click', () => job?.cancel());
  window.__teach ??= {};
  window.__teach.neighbours = () => last;
  return {};
}
