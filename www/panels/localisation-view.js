// The localisation view of a localized heavy-tail run (Lowy 2026, Algorithm 1 with
// Algorithm 4 Double-OutputPert or Algorithm 2 OutputPert-Localize in every call), wired here; the
// numbers and the drawing are Rust's (src/algo/heavy_tails/localisation_view.rs,
// src/wasm/plot/localisation.rs): in the (x₁, x₂) plane, W, each call's localisation ball, the
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

/** Shows the localisation view's figure (and its tab on a narrow screen) only when it applies. */
export function showLocalisation(history, $) {
  const shown = hasLocalisation(history);
  $('localisation-plot').closest('figure').hidden = !shown;
  const tab = document.getElementById('localisation-plot-tab');
  if (tab) tab.hidden = !shown;
}
