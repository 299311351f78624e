// The solver worker: owns one wasm Session and advances it in slices of ≈ SLICE_MS, yielding to
// its event loop between slices so that pause, step and a new configuration arrive promptly. It
// also reads and parses a chosen CSV file (in chunks, so the page shows progress and can cancel)
// and keeps it parsed, so that no run parses it again.

import init, { CsvFile, Session, onProgress } from '../pkg/dp_playground.js';
import { moduleFromPage } from './wasm-module.js';
import { ToWorker, FromWorker, SLICE_MS, SLOW_MS, GRID_RES, CSV_CHUNK, batchTransferables } from './protocol.js';

let session = null;
let runId = -1;
/** When the last CONFIGURE began: its preparation reports progress only once it is slow. */
let configuredAt = 0;
const QUIET_MS = 250;
let playing = false;
let speed = 'fast';
/**
 * Parsed CSV files by load id: the one the page's runs use (`csvInUse`) and the latest loaded
 * (which the page may not have accepted yet); any other is freed.
 */
const files = new Map();
let csvInUse = null;
let csvLatest = null;
/** The load in progress: { id, cancelled }. */
let loading = null;

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

/** Frees every kept file but `keep` and the one in use. */
function prune(keep) {
  for (const [id, file] of files) {
    if (id !== keep && id !== csvInUse) {
      file.free();
      files.delete(id);
    }
  }
}

async function sha256(bytes) {
  try {
    const sum = await crypto.subtle.digest('SHA-256', bytes);
    return [...new Uint8Array(sum)].map((b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return ''; // no WebCrypto (an insecure origin): the page keys the file by name and size
  }
}

/**
 * Reads `file` in chunks of CSV_CHUNK bytes, saying how far it got after each, then parses it
 * (labels checked against the loss of `configJson`) and keeps it under `id`. A CANCEL_LOAD, or a
 * newer LOAD_CSV, stops it between chunks (or discards the parse) without a word.
 */
async function loadCsv(id, file, configJson, label) {
  if (loading) loading.cancelled = true;
  const job = { id, cancelled: false };
  loading = job;
  const say = (type, payload) => { if (!job.cancelled) self.postMessage({ type, loadId: id, ...payload }); };
  try {
    const bytes = new Uint8Array(file.size);
    for (let at = 0; at < file.size; at += CSV_CHUNK) {
      const chunk = new Uint8Array(await file.slice(at, at + CSV_CHUNK).arrayBuffer());
      if (job.cancelled) return;
      bytes.set(chunk, at);
      say(FromWorker.CSV_PROGRESS, { done: at + chunk.length, total: file.size });
    }
    const parsed = new CsvFile(bytes, configJson, label);
    const shape = parsed.shape(configJson);
    const hash = await sha256(bytes);
    if (job.cancelled) {
      parsed.free();
      return;
    }
    prune(id);
    files.set(id, parsed);
    csvLatest = id;
    say(FromWorker.CSV_LOADED, { shape, hash });
  } catch (e) {
    say(FromWorker.CSV_ERROR, { error: asError(e) });
  } finally {
    if (loading === job) loading = null;
  }
}

function configure(id, configJson, csv) {
  configuredAt = performance.now();
  playing = false;
  session?.free();
  session = null;
  runId = id;
  if (files.has(csv)) {
    csvInUse = csv;
    prune(csvLatest);
  }
  try {
    const file = files.get(csv);
    session = file ? Session.withCsv(configJson, file) : new Session(configJson);
    post(FromWorker.READY, { info: session.info(), grid: null });
    // The contours follow (F on a grid: up to 10⁷ loss evaluations, the longest part of preparing
    // a small run), so the page draws everything else meanwhile; a Play waits behind them.
    post(FromWorker.GRID, { grid: session.lossGrid(GRID_RES) ?? null });
  } catch (e) {
    post(FromWorker.ERROR, { error: asError(e) });
  }
}

// Messages that arrive while the module instantiates wait for it, in order.
const loaded = moduleFromPage(init).then(() => {
  // Preparing a large problem is one long call: it says how far it got, and the page shows it
  // (and may stop this worker: a Cancel cannot reach a busy one). A quick one says nothing.
  onProgress((stage, fraction) => {
    if (performance.now() - configuredAt > QUIET_MS) post(FromWorker.PROGRESS, { stage, fraction });
  });
});

self.onmessage = async (event) => {
  await loaded;
  const msg = event.data;
  if (msg.type === ToWorker.CONFIGURE) {
    configure(msg.runId, msg.config, msg.csv);
    return;
  }
  if (msg.type === ToWorker.LOAD_CSV) {
    loadCsv(msg.loadId, msg.file, msg.config, msg.label);
    return;
  }
  if (msg.type === ToWorker.CANCEL_LOAD) {
    if (loading?.id === msg.loadId) loading.cancelled = true;
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
