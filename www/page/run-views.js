// Showing or hiding the per-family views' figures and filling their tables: the saddle page's
// vertex view and phase timeline, and the localisation view (their records and specs are in
// www/drawing/run-views.js).

import { hasLocalisation, planned, samplesVertices } from '../drawing/run-views.js';

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

/** Shows the localisation view's figure (and its tab on a narrow screen) only when it applies. */
export function showLocalisation(history, $) {
  const shown = hasLocalisation(history);
  $('localisation-plot').closest('figure').hidden = !shown;
  const tab = document.getElementById('localisation-plot-tab');
  if (tab) tab.hidden = !shown;
}
