// How a panel joins the page: one API for every panel in www/panels/.
//
//   import { mount } from '../panels/<name>.js';
//   mount(root, context) → { update?(change), ready? }
//
// `root` is the panel's element in index.html (its fold or section). `context` is all a panel
// may read of the page, so no panel reaches into the page's modules:
//   wasm              the page's wasm module, initialised
//   settings()        the last valid settings (a RunConfig)
//   validSettings()   the same, or null while a setting the controls show is refused
//   featureNorms()    the raw feature norms of the run's data (non-private; null before they exist)
//   refusal()         why no link may be given now (a setting is refused), else null
//   restore()         "a link was opened": read the hash and prepare its run
//   report(error)     show an error ({ field, message }) beside its control
//   releasedRun()     the released run: { config (JSON), released (each lane's metric) }, else null
// The handle's `update(change)` hears 'settings' (the valid settings changed: a run is being
// prepared), 'data' (the run's data exist) and 'released' (every lane of the run has released); `ready`, a promise, is awaited before the page
// reads its link (the lessons put a lesson's preset there).

/** The handles of the mounted panels, in the order they were mounted. */
const mounted = [];

/** Mounts a panel module's `mount` on `root` with `context`, and keeps its handle. */
export function mountPanel({ mount }, root, context) {
  const handle = mount(root, context) ?? {};
  mounted.push(handle);
  return handle;
}

/** Tells every mounted panel what changed ('settings' or 'data'). */
export function updatePanels(change) {
  for (const panel of mounted) panel.update?.(change);
}
