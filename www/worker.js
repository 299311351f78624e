// The solver worker: owns one wasm Session and advances it in slices of ≈ SLICE_MS, yielding to
// its event loop between slices so that pause, step and a new configuration arrive promptly.

import init, { Session } from './pkg/dp_playground.js';
import { ToWorker, FromWorker, SLICE_MS, SLOW_MS, GRID_RES, batchTransferables } from './protocol.js';

let session = null;
let runId = -1;
let playing = false;
let speed = 'fast';

// A zero-delay yield: unlike setTimeout(0), a MessageChannel task is not clamped to 4 ms.
const tick = new MessageChannel();
tick.port1.onmessage = () => slice();

function post(type, payload = {}, transfer = []) {
  self.postMessage({ type, runId, ...payload }, transfer);
}

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

function sendSlice(slice) {
  post(FromWorker.BATCH, { slice }, slice.lanes.flatMap(batchTransferables));
  if (slice.done) playing = false;
}

function slice() {
  if (!playing || !session) return;
  try {
    // Slow: one step per lane visit, paced for the eye; fast: as much as fits in a slice.
    sendSlice(speed === 'slow' ? session.advance(1, Number.POSITIVE_INFINITY) : session.advance(Number.MAX_SAFE_INTEGER, SLICE_MS));
  } catch (e) {
    playing = false;
    post(FromWorker.ERROR, { error: asError(e) });
    return;
  }
  if (!playing) return;
  if (speed === 'slow') setTimeout(slice, SLOW_MS);
  else tick.port2.postMessage(null);
}

function configure(id, configJson, csv, label) {
  playing = false;
  session?.free();
  session = null;
  runId = id;
  try {
    session = new Session(configJson, csv ?? undefined, label ?? undefined);
    post(FromWorker.READY, { info: session.info(), grid: session.lossGrid(GRID_RES) ?? null });
  } catch (e) {
    post(FromWorker.ERROR, { error: asError(e) });
  }
}

// Messages that arrive while the module instantiates wait for it, in order.
const loaded = init();

self.onmessage = async (event) => {
  await loaded;
  const msg = event.data;
  if (msg.type === ToWorker.CONFIGURE) {
    configure(msg.runId, msg.config, msg.csv, msg.label);
    return;
  }
  if (msg.runId !== runId || !session) return; // a stale command for a run that is gone
  switch (msg.type) {
    case ToWorker.PLAY:
      speed = msg.speed ?? 'fast';
      if (!playing && !session.isDone()) {
        playing = true;
        slice();
      }
      break;
    case ToWorker.PAUSE:
      playing = false;
      break;
    case ToWorker.STEP:
      playing = false;
      if (!session.isDone()) {
        try {
          sendSlice(session.advance(1, Number.POSITIVE_INFINITY));
        } catch (e) {
          post(FromWorker.ERROR, { error: asError(e) });
        }
      }
      break;
    case ToWorker.EXPORT:
      // The files are made in Rust from every slice the session handed out (session::export),
      // the same code `dp-playground run` writes them with.
      try {
        post(FromWorker.EXPORTED, { what: msg.what, text: msg.what === 'csv' ? session.runCsv() : session.runJson() });
      } catch (e) {
        post(FromWorker.EXPORTED, { what: msg.what, error: asError(e) });
      }
      break;
    default:
      post(FromWorker.ERROR, { error: { field: null, message: `unknown message type ${msg.type}` } });
  }
};

loaded.then(
  () => self.postMessage({ type: FromWorker.LOADED }),
  (e) => self.postMessage({ type: FromWorker.ERROR, runId: -1, error: asError(e) }),
);
