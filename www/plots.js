// Run history on the main thread and its drawing, at most once per animation frame.
// The drawing itself is done by the wasm plotting functions (plotters-canvas).

import { drawPlot } from './pkg/dp_playground.js';

/** Most points per series handed to the plotter: more cannot be seen and only costs frame time. */
const MAX_POINTS = 4000;

/** Keeps every k-th point (and always the last) so that at most `max` remain. */
export function decimate(values, stride, max) {
  const n = values.length / stride;
  if (n <= max) return Float64Array.from(values);
  const k = Math.ceil(n / max);
  const out = [];
  for (let i = 0; i < n; i += k) for (let j = 0; j < stride; j++) out.push(values[i * stride + j]);
  const last = (n - 1) * stride;
  if ((n - 1) % k !== 0) for (let j = 0; j < stride; j++) out.push(values[last + j]);
  return Float64Array.from(out);
}

export class RunHistory {
  constructor(info = null, grid = null) {
    this.info = info;
    this.grid = grid;
    this.gradEvals = [];
    this.excess = [];
    this.loss = [];
    this.path = [];
    this.noiseNorm = [];
    this.epsSpent = [];
    this.release = null;
  }

  append(batch) {
    for (const v of batch.gradEvals) this.gradEvals.push(v);
    for (const v of batch.excess) this.excess.push(v);
    for (const v of batch.loss) this.loss.push(v);
    for (const v of batch.path) this.path.push(v);
    for (const v of batch.noiseNorm) this.noiseNorm.push(v);
    for (const v of batch.epsSpent) this.epsSpent.push(v);
    if (batch.release) this.release = batch.release;
  }

  get latestExcess() {
    return this.excess.length ? this.excess[this.excess.length - 1] : null;
  }
}

/** Redraws the plots of `history` on the next animation frame, coalescing repeated requests. */
export class Plotter {
  constructor(canvases, onError) {
    this.canvases = canvases; // { excess, path, noise, privacy }
    this.onError = onError;
    this.pending = null;
    this.frames = 0;
  }

  request(history) {
    const first = this.pending === null;
    this.pending = history;
    if (first) requestAnimationFrame(() => this.draw());
  }

  draw() {
    const h = this.pending;
    this.pending = null;
    if (!h || !h.info) return;
    try {
      const specs = plotSpecs(h);
      for (const [kind, canvas] of Object.entries(this.canvases)) drawPlot(kind, canvas, specs[kind]);
      this.frames += 1;
    } catch (e) {
      this.onError(e?.message ?? e);
    }
  }
}

// Specs for the wasm `drawPlot(kind, canvas, spec)` (src/wasm/plot/): one run today, so one
// series per plot, no band and no theory curve yet.

/**
 * The spec of every plot the page has a canvas for, keyed by plot kind; the same specs give
 * the SVG export: `plotSvg(kind, plotSpecs(h)[kind], width, height)`.
 */
export function plotSpecs(h) {
  return { excess: excessSpec(h), path: pathSpec(h), noise: noiseSpec(h), privacy: privacySpec(h) };
}

/** The run's label in legends: the algorithm's short name. */
function runLabel(h) {
  return h.info.preview.algorithm.split(' (')[0] || 'run';
}

/** Excess empirical risk of the run's iterates (non-private). */
export function excessSpec(h) {
  return {
    series: [{
      label: runLabel(h),
      color: 0,
      x: decimate(h.gradEvals, 1, MAX_POINTS),
      mean: decimate(h.excess, 1, MAX_POINTS),
    }],
  };
}

/** The d = 2 parameter view over the domain's bounding square (where `lossGrid` is computed). */
export function pathSpec(h) {
  const w = h.info.reference.w;
  const p = h.info.preview;
  const spec = {
    extent: h.info.radius,
    grid: h.grid ?? undefined,
    domain: { kind: 'l2_ball', radius: h.info.radius },
    paths: [{ color: 0, label: `${runLabel(h)} path (non-private)`, xy: decimate(h.path, 2, MAX_POINTS) }],
    wStar: [w[0], w[1] ?? 0],
    releases: h.release ? [{ color: 0, label: 'release (private)', xy: h.release.w.slice(0, 2) }] : [],
  };
  // Output perturbation's one release has an output sensitivity; DP-GD's σ is per gradient step.
  if (p.releases === 1 && Number.isFinite(p.sensitivity) && p.sensitivity > 0) {
    spec.sensitivityRadius = p.sensitivity;
  }
  return spec;
}

/** Every noise draw goes into the histogram: decimating would thin its tails. */
export function noiseSpec(h) {
  const p = h.info.preview;
  return {
    norms: Float64Array.from(h.noiseNorm),
    law: { kind: 'gaussian', sigma: p.sigma, d: h.info.d },
  };
}

/** ε spent over steps. DP-GD spends over its T steps; output perturbation all at its one release. */
export function privacySpec(h) {
  const p = h.info.preview;
  return {
    series: [{
      label: runLabel(h),
      color: 0,
      x: decimate(h.gradEvals, 1, MAX_POINTS),
      eps: decimate(h.epsSpent, 1, MAX_POINTS),
    }],
    target: p.guarantee.epsilon,
    span: p.releases > 1 ? h.info.steps : Math.max(1, h.gradEvals.at(-1) ?? 1),
  };
}
