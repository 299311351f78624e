// Run history on the main thread and its drawing, at most once per animation frame.
// The drawing itself is done by the wasm plotting functions (plotters-canvas, or plotters' SVG
// backend for the SVG export); this file only turns the history into their plain specs.

import { NARROW, drawFitted } from './fit.js';
import { appendViews, emptyViews, localisationSpec, ternaryFields, verticesSpec } from './run-views.js';

/** The games whose x is a mixed strategy on a simplex (the others' x is a model on a ball). */
const X_ON_SIMPLEX = new Set(['rock_paper_scissors', 'random_matrix', 'query_release',
  'group_dro_logistic_simplex', 'group_dro_squares_simplex']);

/** Most points per series handed to the plotter: more cannot be seen and only costs frame time. */
const MAX_POINTS = 2000;

/** Keeps every k-th point (and always the last) so that at most `max` remain. */
export function decimate(values, stride, max) {
  const n = values.length / stride;
  if (n <= max) return Array.from(values);
  const k = Math.ceil(n / max);
  const out = [];
  for (let i = 0; i < n; i += k) for (let j = 0; j < stride; j++) out.push(values[i * stride + j]);
  const last = (n - 1) * stride;
  if ((n - 1) % k !== 0) for (let j = 0; j < stride; j++) out.push(values[last + j]);
  return out;
}

/** Indices 0, k, 2k, … (and the last) of a series of length n, at most `max` of them. */
function strideIndices(n, max) {
  const k = Math.max(1, Math.ceil(n / max));
  const idx = [];
  for (let i = 0; i < n; i += k) idx.push(i);
  if (n > 0 && idx[idx.length - 1] !== n - 1) idx.push(n - 1);
  return idx;
}

/** One lane's columns, appended batch by batch. */
class Lane {
  constructor() {
    this.gradEvals = [];
    this.excess = [];
    this.loss = [];
    this.path = [];
    this.noiseNorm = [];
    this.epsSpent = [];
    this.release = null;
    /** The run's named diagnostics where it last stood (a certificate …), non-private. */
    this.diagnostics = {};
    /** A game's players { x, y } where the run last stood (the curator's view), non-private. */
    this.players = null;
    /** A game's views (ternary path, vertex draws, dense iterate, phases, stop): saddle_views.js. */
    this.views = emptyViews();
    /** A localized heavy-tail run's localisation view where it last stood: localisation_view.js. */
    this.localisation = null;
  }

  append(batch) {
    for (const v of batch.gradEvals) this.gradEvals.push(v);
    for (const v of batch.excess) this.excess.push(v);
    for (const v of batch.loss) this.loss.push(v);
    for (const v of batch.path) this.path.push(v);
    for (const v of batch.noiseNorm) this.noiseNorm.push(v);
    for (const v of batch.epsSpent) this.epsSpent.push(v);
    if (batch.release) this.release = batch.release;
    if (Object.keys(batch.diagnostics ?? {}).length) this.diagnostics = batch.diagnostics;
    if (batch.players) this.players = batch.players;
    appendViews(this.views, batch.views);
    if (batch.localisation) this.localisation = batch.localisation;
  }
}

/** Everything a run has sent: lanes[algorithm][repeat]. */
export class RunHistory {
  constructor(info = null, grid = null) {
    this.info = info;
    this.grid = grid;
    const algorithms = info?.previews?.length ?? 1;
    const repeats = info ? JSON.parse(info.config).repeats : 1;
    this.lanes = Array.from({ length: algorithms }, () => Array.from({ length: repeats }, () => new Lane()));
    this.progress = [0, algorithms * repeats];
  }

  append(slice) {
    for (const b of slice.lanes) this.lanes[b.algorithm][b.repeat].append(b);
    this.progress = slice.progress;
  }

  /** The main algorithm's first repeat: the run the readout describes. */
  get main() {
    return this.lanes[0][0];
  }

  /** The main algorithm's release of the first repeat (the one a link reproduces). */
  get release() {
    return this.main.release;
  }

  get latestExcess() {
    const e = this.main.excess;
    return e.length ? e[e.length - 1] : null;
  }

  /** Every lane, flattened with its indices. */
  *allLanes() {
    for (const [a, reps] of this.lanes.entries()) for (const [r, lane] of reps.entries()) yield { a, r, lane };
  }
}

const label = (info, a) => info.cards?.[info.previews[a].kind]?.name ?? info.previews[a].kind;

/**
 * The part of a theory curve over the data's x range [lo, hi]; a one-release bound (a flat
 * line) is drawn across the whole range.
 */
function theoryWithin(theory, lo, hi, span = [lo, hi]) {
  if (!theory || !(hi >= lo)) return [[], []];
  const keep = theory.x.map((x, i) => i).filter((i) => theory.x[i] >= lo && theory.x[i] <= hi);
  const flat = theory.y.every((y) => y === theory.y[0]);
  // A one-release bound is a level, like the release it bounds: across every curve's range.
  if (flat) return [[Math.max(span[0], 1), Math.max(span[1], 1)], [theory.y[0], theory.y[0]]];
  return [keep.map((i) => theory.x[i]), keep.map((i) => theory.y[i])];
}

/**
 * Whether algorithm `a`'s curve is a non-private solver's path rather than what is released: a
 * one-release method (output or objective perturbation, the exponential mechanism) solves the
 * problem without noise and releases once, so its path falls to 10⁻⁷ while its release sits far
 * above. Its path is drawn faint ("solver path (not released)") and its release as a level.
 */
export const releasesOnce = (history, a) => history.info.previews[a].releases === 1;

/** The release's excess over repeats: mean, and min–max when there are several. */
function releaseMark(reps, x) {
  const vals = reps.map((l) => l.release?.excess).filter((v) => Number.isFinite(v));
  if (!vals.length) return null;
  const y = vals.reduce((s, v) => s + v, 0) / vals.length;
  return reps.length > 1 ? { x, y, lo: Math.min(...vals), hi: Math.max(...vals) } : { x, y };
}

/** Mean and min–max band over repeats, at the first repeat's x positions. */
function excessSeries(history, a, theory, span) {
  const reps = history.lanes[a];
  const first = reps[0];
  const once = releasesOnce(history, a);
  // A one-release method's last entry is its release, drawn as its own mark, not as the end of
  // the solver's path (a hairline from 10⁻⁷ up to the release).
  const steps = first.gradEvals.length - (once && first.release ? 1 : 0);
  const idx = strideIndices(steps, MAX_POINTS);
  const x = [];
  const mean = [];
  const lo = [];
  const hi = [];
  for (const i of idx) {
    const vals = reps.filter((l) => l.excess.length > i).map((l) => l.excess[i]);
    x.push(first.gradEvals[i]);
    mean.push(vals.reduce((s, v) => s + v, 0) / vals.length);
    lo.push(Math.min(...vals));
    hi.push(Math.max(...vals));
  }
  const band = reps.length > 1;
  const [tx, ty] = theoryWithin(theory, x[0], x[x.length - 1], span);
  // At its gradient evaluations (at least one pass, for the log axis: the exponential mechanism
  // computes none).
  const release = first.release ? releaseMark(reps, Math.max(1, first.gradEvals[first.gradEvals.length - 1] ?? 1)) : null;
  return {
    label: label(history.info, a),
    color: a,
    x,
    mean,
    lo: band ? lo : [],
    hi: band ? hi : [],
    theoryX: tx,
    theoryY: ty,
    solverPath: once,
    release,
  };
}

/**
 * The papers' lower bounds beside the theory curves (Rust's `Curve::lower`), each a level across
 * the plotted range, drawn dotted grey and labelled as a lower bound; lanes with the same level
 * (the same problem and budget) share one line.
 */
function lowerBounds(theories, span) {
  const levels = [...new Set(theories.map((t) => t?.lower?.y).filter((y) => Number.isFinite(y) && y > 0))];
  const x = [Math.max(span[0], 1), Math.max(span[1], 1)];
  return levels.map((y) => ({ label: 'lower bound (worst case, constant 1)', x, y: [y, y] }));
}

const algorithmsOf = (history) => [...Array(history.lanes.length).keys()];

/** The gradient evaluations every algorithm's first repeat spans: [first, last] over all. */
function gradSpan(history) {
  const ends = history.lanes.map((reps) => reps[0].gradEvals).filter((g) => g.length);
  if (!ends.length) return [1, 1];
  return [Math.min(...ends.map((g) => g[0])), Math.max(...ends.map((g) => g[g.length - 1]))];
}

/** The spec of each plot, built from the history (shared by the canvases and the SVG export). */
const SPECS = {
  excess: (history, theories) => ({
    series: algorithmsOf(history).map((a) => excessSeries(history, a, theories[a], gradSpan(history))),
    // The metric the session measures on this problem (excess risk, a duality gap …).
    title: `${history.info.previews[0].metric} (non-private)`,
    // Without a certified F* the excess columns are NaN: the plot says why instead of staying blank.
    unavailable: history.info.referenceUnavailable ?? null,
    // A game is scored by its duality gap, not by F(w) − F*.
    yLabel: history.info.previews[0].metric.startsWith('duality gap') ? 'duality gap' : 'F(w) − F*',
    bandLabel: `min–max over ${history.lanes[0].length} repeats`,
    references: lowerBounds(theories, gradSpan(history)),
  }),
  path: (history) => {
    const { info } = history;
    const layer = (a, xy) => ({ color: a, label: label(info, a), xy });
    return {
      extent: info.view.extent,
      center: info.view.center,
      axisLabels: info.view.axis_labels,
      grid: history.grid,
      domain: info.view.domain ?? { kind: 'none' },
      paths: algorithmsOf(history).map((a) => layer(a, decimate(history.lanes[a][0].path, 2, MAX_POINTS))),
      wStar: info.view.w_star ?? null,
      // The ball is drawn around w*: none without a reference, and none around a game's declared
      // equilibrium (the base game's, not the empirical solution a release perturbs).
      sensitivityRadius: info.view.w_star && !info.equilibrium ? (info.previews[0].sensitivity_ball ?? null) : null,
      releases: algorithmsOf(history).map((a) => layer(a, history.lanes[a].flatMap((l) => (l.release ? l.release.plane : [])))),
    };
  },
  noise: (history) => {
    const main = history.info.previews[0];
    // Iterative methods: every step's draw; one-release methods: each released repeat's one draw
    // (the last positive norm its lane reported). Non-private diagnostics (the plot says so): a
    // release carries no noise norm, since with the path it names the dataset.
    const lastDraw = (l) => l.noiseNorm.findLast((v) => Number.isFinite(v) && v > 0);
    const norms = main.releases > 1
      ? history.lanes[0].flatMap((l) => l.noiseNorm.filter((v) => Number.isFinite(v)))
      : history.lanes[0].filter((l) => l.release).map(lastDraw).filter((v) => Number.isFinite(v));
    return {
      norms,
      law: main.noise.kind === 'none' ? { kind: 'none' } : main.noise,
      title: main.releases > 1 ? 'noise norm of each step' : 'noise norm of each release (over repeats)',
      // An algorithm that adds no noise vector says so in the plot instead of leaving it blank.
      note: main.noise.kind !== 'none' ? ''
        : Number.isFinite(main.guarantee.epsilon)
          ? `${label(history.info, 0)} adds no Gaussian or Laplace noise: its privacy comes from the random `
            + 'choices it makes (the vertex it samples at each step, a draw of the exponential mechanism), '
            + 'so there is no noise norm to draw.'
          : `${label(history.info, 0)} adds no noise at all: it is the non-private baseline (ε = ∞).`,
    };
  },
  privacy: (history) => {
    const { info } = history;
    const eps = (a) => history.lanes[a][0].epsSpent;
    return {
      series: algorithmsOf(history).map((a) => ({
        label: label(info, a),
        color: a,
        x: decimate(eps(a).map((_, i) => i + 1), 1, MAX_POINTS),
        eps: decimate(eps(a), 1, MAX_POINTS),
      })),
      // A non-private baseline claims ε = ∞: no claimed line (the plot says so).
      target: Number.isFinite(info.previews[0].guarantee.epsilon) ? info.previews[0].guarantee.epsilon : null,
      span: Math.max(1, ...algorithmsOf(history).map((a) => eps(a).length)),
    };
  },
  players: (history) => {
    const main = history.lanes[0][0];
    const release = main.release;
    const equilibrium = history.info.equilibrium;
    return {
      x: main.players?.x ?? [],
      y: main.players?.y ?? [],
      // A game's release: x always, y only where the run released it (the C-SC variant does not).
      releaseX: release?.w ?? [],
      releaseY: release?.y ?? [],
      equilibriumX: equilibrium?.x ?? [],
      equilibriumY: equilibrium?.y ?? [],
      // Both players of three strategies: ternary plots with their paths.
      ...ternaryFields(history),
      // On a ball x is a model's weights (either sign), not a mixed strategy: labelled so.
      xModel: !X_ON_SIMPLEX.has(JSON.parse(history.info.config).game),
    };
  },
  vertices: (history) => verticesSpec(history),
  localisation: (history) => localisationSpec(history),
  features: (history) => ({
    norms: history.info.featureNorms,
    threshold: JSON.parse(history.info.config).feature_bound,
    clippedFraction: history.info.clipped / (history.info.rows ?? history.info.n),
  }),
};

/** The spec of plot `kind` for `history`. */
export function spec(history, kind, theories = []) {
  return SPECS[kind](history, theories);
}


/** A frame at 60 Hz; a draw longer than this costs the page a frame. */
const FRAME_MS = 1000 / 60;

/**
 * Redraws the plots of `history`, keeping the page responsive: each animation frame draws at most
 * one plot whose data changed (round robin), and after a draw that took longer than a frame the
 * next frames are left idle for as long as it took, so at least half the frames stay free for the
 * page while a large run streams in. The data plot (feature norms) is drawn once per run.
 */
export class Plotter {
  constructor(canvases, onError) {
    this.canvases = canvases; // { excess, path, noise, privacy, features, players, vertices, localisation }
    this.onError = onError;
    this.history = null;
    this.dirty = new Set();
    this.scheduled = false;
    this.idleFrames = 0;
    this.next = 0;
    this.theories = [];
    this.frames = 0;
    this.draws = 0;
    /** Adds what is drawn besides the history (the pinned runs, www/page/pins.js) to a plot's spec. */
    this.decorate = (kind, s) => s;
    // The vertex view stacks its four panels on a narrow canvas (crates/wasm/src/wasm/plot/vertices.rs):
    // they need this much height to keep their text at its size.
    if (canvases.vertices) canvases.vertices.dataset.minHeight = '480';
    // On a phone the excess plot, one tab at a time, is drawn taller than its 640 × 460 shape
    // scaled down: its legend (four entries, one in two rows) then leaves most of the curves free.
    if (canvases.excess && NARROW.matches) canvases.excess.dataset.minHeight = '340';
  }

  /** The spec plot `kind` is drawn from now (null before a run is prepared). */
  spec(kind) {
    const h = this.history;
    return h?.info ? this.decorate(kind, spec(h, kind, this.theories)) : null;
  }

  /** Marks every plot of `history` for redrawing (the feature plot only for a new run). */
  request(history) {
    const newRun = history !== this.history;
    this.history = history;
    for (const [kind, canvas] of Object.entries(this.canvases)) {
      // A plot of the other problem kind is not on the page (display: none): nothing to draw.
      if (canvas.offsetParent === null) continue;
      if (kind !== 'features' || newRun) this.dirty.add(kind);
    }
    this.schedule();
  }

  /** Draws the plot on `canvas` again: it was just shown (by a tab) or resized, which clears it. */
  redraw(canvas) {
    const kind = Object.keys(this.canvases).find((k) => this.canvases[k] === canvas);
    if (!kind || !this.history) return;
    this.dirty.add(kind);
    this.schedule();
  }

  /** Whether every requested drawing is on screen (the end-to-end tests wait for this). */
  get idle() {
    return this.dirty.size === 0 && !this.scheduled;
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.frame());
  }

  frame() {
    this.scheduled = false;
    this.frames += 1;
    if (this.dirty.size === 0) return;
    if (this.idleFrames > 0) {
      this.idleFrames -= 1;
      this.schedule();
      return;
    }
    const kinds = Object.keys(this.canvases);
    let kind = null;
    for (let i = 0; i < kinds.length && kind === null; i++) {
      const k = kinds[(this.next + i) % kinds.length];
      if (this.dirty.has(k)) {
        kind = k;
        this.next = (this.next + i + 1) % kinds.length;
      }
    }
    this.dirty.delete(kind);
    const start = performance.now();
    this.draw(kind);
    this.idleFrames = Math.floor((performance.now() - start) / FRAME_MS);
    if (this.dirty.size > 0) this.schedule();
  }

  draw(kind) {
    const h = this.history;
    if (!h || !h.info) return;
    try {
      // At its displayed size × the screen's pixel scale (www/drawing/fit.js).
      drawFitted(kind, this.canvases[kind], this.spec(kind));
      this.draws += 1;
    } catch (e) {
      this.onError(e);
    }
  }
}
