// The embed API: a page that shows the playground in an iframe (a course page, lecture notes) can
// drive it and hear what it does, with window.postMessage. It speaks only to one origin: the
// parent's, when the embed link names it (`?embed&parent=https://course.example`), else the
// page's own (a parent on the same site). Messages from any other origin, or from another window
// than the parent, are ignored, and nothing is ever posted to '*'.
//
// Posted to the parent:
//   { type: 'ready' }                           the page has read its link and takes commands
//   { type: 'run-started', config }             Play started the run (config: its settings, JSON)
//   { type: 'released', config, guarantee, releases }
//                                               the run published its releases: releases is
//                                               [{ algorithm, repeat, w, y? }] (the private
//                                               outputs, the numbers the worker sent), guarantee
//                                               the statement of all of them together (Rust's
//                                               composeRun: epsilon, delta, releases, …)
//   { type: 'error', error: { field, message } } a setting, a link or the run was refused
// Accepted from the parent:
//   { type: 'set', link }   a link of the page (or its #hash): its settings, applied as opening
//                           the link applies them (validated in Rust; a refused value is named
//                           in an 'error' message and its default used, as on the page)
//   { type: 'play' }        presses Play (nothing if the run is already playing)
//   { type: 'reset' }       presses Reset
// docs/GUIDE.md ("Embedding") has a ten-line parent page.

import { composeRun, configFromUrl } from '../pkg/dp_playground.js';
import { ui } from './ui.js';
import { failed, run } from './state.js';
import { restoreFromHash } from './link.js';

/** The origin the API speaks to, from the page's own URL, or null when it is not framed. */
export function parentOrigin(href = location.href, framed = window.parent !== window) {
  if (!framed) return null;
  const url = new URL(href);
  const named = url.searchParams.get('parent');
  if (named === null) return url.origin;
  try {
    const origin = new URL(named).origin;
    // Only a bare origin is accepted: a path or a typo names no one, and then no one is heard.
    return origin === named.replace(/\/$/, '') && origin !== 'null' ? origin : null;
  } catch {
    return null;
  }
}

/** The releases of the run on screen, as the parent receives them. */
function releases() {
  const out = [];
  for (const { a, r, lane } of run.allLanes()) {
    if (!lane.release) continue;
    const { w, y } = lane.release;
    out.push({ algorithm: run.info.previews[a].kind, repeat: r, w, ...(y ? { y } : {}) });
  }
  return out;
}

/** Starts the API when the page is framed; `origin` defaults to what the URL says. */
export function mountEmbedApi(origin = parentOrigin()) {
  if (!origin) return;
  const tell = (message) => window.parent.postMessage(message, origin);

  // What the page does, read from the status line's state, the one place every path sets.
  let last = ui.status.dataset.state;
  new MutationObserver(() => {
    const state = ui.status.dataset.state;
    if (state === last) return;
    const was = last;
    last = state;
    const config = run.info?.config ?? null;
    if (state === 'running' && was !== 'paused') tell({ type: 'run-started', config });
    else if (state === 'released') {
      let guarantee = null;
      try {
        guarantee = composeRun(config);
      } catch (e) {
        tell({ type: 'error', error: { field: e?.field ?? null, message: String(e?.message ?? e) } });
      }
      tell({ type: 'released', config, guarantee, releases: releases() });
    } else if (state === 'error' && failed) tell({ type: 'error', error: { ...failed } });
  }).observe(ui.status, { attributes: true, attributeFilter: ['data-state'] });

  window.addEventListener('message', (event) => {
    if (event.origin !== origin || event.source !== window.parent) return;
    const msg = event.data;
    if (msg?.type === 'set' && typeof msg.link === 'string') {
      const hash = msg.link.includes('#') ? msg.link.slice(msg.link.indexOf('#')) : '';
      // The link's refused values, said to the parent as the page says them beside the controls.
      for (const e of configFromUrl(hash).errors) tell({ type: 'error', error: { field: e.field, message: e.message } });
      if (location.hash === hash) restoreFromHash();
      else location.hash = hash; // the page's hashchange listener restores it
    } else if (msg?.type === 'play') {
      if (ui.status.dataset.state !== 'running' && !ui.play.disabled) ui.play.click();
    } else if (msg?.type === 'reset') {
      if (!ui.reset.disabled) ui.reset.click();
    }
  });
  tell({ type: 'ready' });
}
