// The saddle page's views, wired here; the drawing and every number are Rust's
// (src/session/game_views.rs, src/wasm/plot/ternary.rs and vertices.rs):
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
const planned = (history) => history.info?.views ?? null;

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

const fmt = (v, digits = 3) => (Number.isFinite(v) ? Number(v.toPrecision(digits)).toString() : '∞');

/**
 * Shows or hides the vertex view and the timeline for `history`, and fills the timeline: one row
 * per phase of a phased run, and the sentence saying why a run stopped early.
 */
export function showSaddleViews(history, $) {
  const vertices = samplesVertices(history);
  const figure = $('vertices-plot').closest('figure');
  figure.hidden = !vertices;
  const tab = document.getElementById('vertices-plot-tab');
  if (tab) tab.hidden = !vertices;
  const main = history.main;
  const phases = main.views.phases.length ? main.views.phases : (planned(history)?.phases ?? []);
  const stopped = main.views.stopped;
  $('saddle-timeline').hidden = phases.length === 0 && !stopped;
  $('phase-table').hidden = phases.length === 0;
  $('phase-rows').replaceChildren(...phases.map((p) => {
    const tr = document.createElement('tr');
    tr.dataset.state = p.state;
    const cells = [p.algorithm, p.k, p.records, fmt(p.mu_k), fmt(p.sigma), p.releases,
      fmt(p.target_radius), p.state === 'waiting' ? '–' : fmt(p.gradients, 4), p.state];
    tr.append(...cells.map((c) => Object.assign(document.createElement('td'), { textContent: String(c) })));
    return tr;
  }));
  $('stop-reason').hidden = !stopped;
  // The label beside it stays: when a run stopped early depends on the data (NOT PRIVATE).
  $('stop-words').textContent = stopped ?? '';
}
