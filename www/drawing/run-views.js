// What the run's per-family views keep and the specs they are drawn from; the page shows or
// hides their figures and tables (www/page/run-views.js).
//
// The saddle page's views; the drawing and every number are Rust's
// (src/session/game_views.rs, crates/wasm/src/wasm/plot/ternary.rs and vertices.rs):
// - the ternary plot of both players when each has three strategies (the players plot's spec
//   gets their paths);
// - the vertex view of a vertex-sampling run: the vertices it drew (the public view, covered by
//   its ε) beside the dense iterate (the curator's view, not private);
// - a phased run's timeline (Zhang et al. 2022: n̄, μ_k, σ_k, the target radius, the gradients
//   used), a table under the plots, updated as the run goes;
// - why a run stopped early (González et al.'s Algorithm 3: its privacy filter, or its budget).


/** Most rows of a per-step view the page keeps per lane: past it, every other row is dropped. */
const MAX_ROWS = 4000;

/** An empty record of a lane's views. */
export function emptyViews() {
  return { steps: [], draws: [], simplexPath: [], dense: null, phases: [], stopped: null };
}

/** Keeps every other row of `rows` (arrays of `widths[k]` numbers per row, in step). */
function halve(columns) {
  for (const [values, width] of columns) {
    let out = 0;
    for (let r = 0; r * width < values.length; r += 2) {
      for (let j = 0; j < width; j++) values[out++] = values[r * width + j];
    }
    values.length = out;
  }
}

/** Adds a batch's `views` (Rust's GameViews, thinned per slice) to a lane's record `v`. */
export function appendViews(v, views) {
  if (!views) return;
  const steps = views.steps ?? [];
  v.steps.push(...steps);
  v.draws.push(...(views.draws ?? []));
  v.simplexPath.push(...(views.simplex_path ?? []));
  if (v.steps.length > MAX_ROWS) {
    const columns = [[v.steps, 1]];
    if (v.draws.length) columns.push([v.draws, 2]);
    if (v.simplexPath.length) columns.push([v.simplexPath, 6]);
    halve(columns);
  }
  if (views.dense) v.dense = views.dense;
  if (views.phases?.length) v.phases = views.phases;
  if (views.stopped) v.stopped = views.stopped;
}

/** What the run's info says before Play: whether it samples vertices, its planned phases. */
export const planned = (history) => history.info?.views ?? null;

/** Whether the run draws vertices (so the vertex view applies). */
export function samplesVertices(history) {
  return Boolean(planned(history)?.dense);
}

/** Whether both players are simplices of three strategies (so the players plot is ternary). */
const isTernary = (history) => Boolean(planned(history)?.ternary);

/** The ternary fields of the players plot's spec (the main lane's paths), or nothing for bars. */
export function ternaryFields(history) {
  if (!isTernary(history)) return {};
  const path = history.main.views.simplexPath;
  const pathX = [];
  const pathY = [];
  for (let i = 0; i + 6 <= path.length; i += 6) {
    pathX.push(path[i], path[i + 1], path[i + 2]);
    pathY.push(path[i + 3], path[i + 4], path[i + 5]);
  }
  return { ternary: true, pathX, pathY };
}

/** The vertex view's spec: the main lane's draws and its dense iterate. */
export function verticesSpec(history) {
  const v = history.main.views;
  const dense = v.dense ?? planned(history)?.dense;
  const draws = v.draws.length ? v.draws : [];
  return {
    steps: draws.length ? v.steps : [],
    draws,
    denseX: dense?.x ?? [],
    denseY: dense?.y ?? [],
  };
}

// The localisation view of a localized heavy-tail run (Lowy 2026, Algorithm 1 with
// Algorithm 4 Double-OutputPert or Algorithm 2 OutputPert-Localize in every call), the
// numbers and the drawing are Rust's (crates/algorithms/src/algo/heavy_tails/localisation_view.rs,
// crates/wasm/src/wasm/plot/localisation.rs): in the (x₁, x₂) plane, W, each call's localisation ball, the
// noise of each call with its public scale (a ring of radius E‖b‖ = d·β_t, shrinking by phase),
// the candidates of each aggregation step and the one picked, the centres in order, and the
// release in red. Only the release is private; the rest is a diagnostic of the raw data.


/** The view where the main lane stands: its last batch's, else the run's info (before Play). */
function viewOf(history) {
  return history.main.localisation ?? history.info?.localisation ?? null;
}

/** Whether the run has a localisation view (a localized heavy-tail family is picked). */
export function hasLocalisation(history) {
  return Boolean(history?.info?.localisation);
}

/** The localisation plot's spec. */
export function localisationSpec(history) {
  return { view: viewOf(history) };
}
