// Run history on the main thread and its drawing, at most once per animation frame.
// The drawing itself is done by the wasm plotting functions (plotters-canvas).

import { drawExcess, drawNoise, drawPath, drawPrivacy } from './pkg/dp_playground.js';

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
      const c = this.canvases;
      const p = h.info.preview;
      const steps = decimate(h.gradEvals, 1, MAX_POINTS);
      drawExcess(
        c.excess,
        steps,
        decimate(h.excess, 1, MAX_POINTS),
      );
      drawPath(
        c.path,
        decimate(h.path, 2, MAX_POINTS),
        h.info.radius,
        Float64Array.from(h.info.reference.w),
        h.release ? Float64Array.from(h.release.w) : undefined,
        h.grid ?? undefined,
      );
      // Every draw goes into the histogram: decimating would thin its tails.
      drawNoise(c.noise, Float64Array.from(h.noiseNorm), p.sigma, h.info.d);
      // DP-GD spends over its T steps; output perturbation spends it all at its one release.
      const span = p.releases > 1 ? h.info.steps : Math.max(1, h.gradEvals.at(-1) ?? 1);
      drawPrivacy(c.privacy, steps, decimate(h.epsSpent, 1, MAX_POINTS), p.guarantee.epsilon, span);
      this.frames += 1;
    } catch (e) {
      this.onError(e);
    }
  }
}
