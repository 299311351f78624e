// Messages between the page (www/page/conversation.js) and the solver worker (worker.js).
//
// Every message carries the `runId` of the run it belongs to; a receiver drops messages of any
// other run, so a reset or a new ε never mixes two runs on screen.

/** Page → worker. */
export const ToWorker = Object.freeze({
  CONFIGURE: 'configure', // { runId, config: JSON text, csv?: loadId of a file LOADED_CSV } → READY or ERROR
  LOAD_CSV: 'load-csv', // { loadId, file: File, config: JSON text (its loss), label } → CSV_PROGRESS…, CSV_LOADED or CSV_ERROR
  CANCEL_LOAD: 'cancel-load', // { loadId } the load stops; nothing more is said about it
  PLAY: 'play', // { runId, speed: 'fast' | 'slow' } → BATCH… until done or PAUSE
  PAUSE: 'pause', // { runId }
  STEP: 'step', // { runId } → one BATCH of one step
  EXPORT: 'export', // { runId, what: 'json' | 'csv' } → EXPORTED
});

/** Worker → page. */
export const FromWorker = Object.freeze({
  LOADED: 'loaded', // {} the wasm module is instantiated
  PROGRESS: 'progress', // { runId, stage: words, fraction } while a CONFIGURE is prepared (a few a second)
  READY: 'ready', // { runId, info, grid: null } a run is configured, nothing computed privately yet
  GRID: 'grid', // { runId, grid } F on the parameter view's grid (or null), right after READY
  BATCH: 'batch', // { runId, slice: { lanes: [{ algorithm, repeat, columns…, release }], progress, done } }
  ERROR: 'error', // { runId, error: { field, message } }
  CSV_PROGRESS: 'csv-progress', // { loadId, done, total } bytes of the file read so far
  CSV_LOADED: 'csv-loaded', // { loadId, shape: { n, d, head }, hash: SHA-256 hex or '' } the worker keeps the parsed file
  CSV_ERROR: 'csv-error', // { loadId, error: { field: 'csv', message } }
  EXPORTED: 'exported', // { runId, what, text } or { runId, what, error }: the file, made in Rust
});

/** Bytes of a CSV file read at a time: the progress bar moves, and a cancel lands, between chunks. */
export const CSV_CHUNK = 1 << 20;

/** Time the worker computes before yielding to its event loop, so a Pause or a new setting is read within a frame. */
export const SLICE_MS = 8;

/** Pause between single steps at the slow speed (≈ 20 steps per second). */
export const SLOW_MS = 50;

/** Side of the loss grid the worker sends for the contour view (d = 2 only). */
export const GRID_RES = 72; // Rust lowers it for large n (session.rs, GRID_BUDGET)

/** The transferable buffers of a batch, so postMessage moves rather than copies them. */
export function batchTransferables(batch) {
  return ['t', 'gradEvals', 'loss', 'excess', 'path', 'noiseNorm', 'gradNorm', 'epsSpent']
    .map((k) => batch[k]?.buffer)
    .filter(Boolean);
}
