// The conversation with the solver worker (www/workers/worker.js, messages in
// www/workers/protocol.js): it prepares each run, plays it in batches and makes the exports.

import { previews } from '../pkg/dp_playground.js';
import { $, ui } from './ui.js';
import { cardsByKind, config, nextRunId, pending, phase, plotter, run, runId, setFailed, setPending, setRun } from './state.js';
import { showError, showShownSettings } from './errors.js';
import { describeProblem, setState, showReadout } from './readout.js';
import { showComposed, showGuarantees } from './guarantee.js';
import { csvId, csvLoad, onCsvMessage } from './csv.js';
import { FromWorker, ToWorker } from '../workers/protocol.js';
import { startWorker } from '../workers/wasm-module.js';
import { RunHistory } from '../drawing/plots.js';
import { DIAGNOSTICS_CSV, download, RUN_JSON } from '../drawing/export.js';
import { holdHeight, markStale } from './steady.js';
import { play, step } from './wiring.js';
import { updatePanels } from './mount.js';

/** The solver worker (a new one replaces a worker busy with a run that is gone). */
let worker;
/** What the first worker said before the page listened (its LOADED, or an error). */
const early = [];

/**
 * Starts the solver worker. Called before the page's own bindings are initialised, so the worker
 * loads its script while the one compile of the wasm module runs (www/workers/wasm-module.js);
 * its first message (LOADED) waits until `listen()`.
 */
export function spawnWorker() {
  worker = startWorker(new URL('../workers/worker.js', import.meta.url));
  worker.onmessage = (event) => early.push(event);
  worker.onerror = (event) => early.push(event);
}

/** Sends `message` to the solver worker. */
export function post(message) {
  worker.postMessage(message);
}

/** Whether the page has read its link and listens to its worker (a lesson picked before then waits). */
export let pageStarted = false;
/** Whether the worker is preparing the current run and has reported progress (a long preparation). */
let preparing = false;

/**
 * Stops a worker that is busy preparing a run (generating and certifying a large problem is one
 * call: neither a Cancel nor the next configuration can reach it) and starts a fresh one, which
 * waits for its next CONFIGURE. `stale`: it is busy with a run that has been replaced (it said
 * so). Not while it holds or reads a CSV file, which would be lost: the next run then waits its
 * turn. Returns whether it did.
 */
export function restartBusyWorker(stale = false) {
  if (!(preparing || stale) || csvId !== null || csvLoad) return false;
  preparing = false;
  // Whatever the old worker said last is about runs that are gone.
  worker.onmessage = null;
  worker.onerror = null;
  worker.terminate();
  worker = startWorker(new URL('../workers/worker.js', import.meta.url));
  listenTo(worker, { startOnLoad: false });
  return true;
}

export function startRun(list) {
  restartBusyWorker();
  nextRunId();
  setFailed(null);
  setState('loading', 'preparing data and reference optimum…');
  try {
    showGuarantees(list ?? previews(JSON.stringify(config)));
  } catch (e) {
    showError(e);
  }
  showComposed(config);
  updatePanels('settings');
  holdHeight($('problem-line'));
  describeProblem(config, null);
  if (config.data === 'csv' && csvId === null) {
    // Nothing to prepare until a file is loaded: the picker says so, and so does the line
    // beside Play, with a link to the picker.
    setFailed({ field: 'csv', message: 'load your CSV file first: choose it at “CSV file”, just under the data source.' });
    setState('nofile', 'waiting for your CSV file');
    return;
  }
  configureWorker();
}

/** Asks the worker to prepare the current run. */
export function configureWorker() {
  worker.postMessage({
    type: ToWorker.CONFIGURE,
    runId,
    config: JSON.stringify(config),
    csv: config.data === 'csv' ? csvId : null,
  });
}

function onWorkerMessage(event) {
  const msg = event.data;
  if (msg.type === FromWorker.LOADED) {
    startRun();
    return;
  }
  if (msg.type === FromWorker.PROGRESS) {
    if (phase !== 'loading') return;
    if (msg.runId === runId) showPreparation(msg);
    // Still preparing a run that has been replaced (a second setting typed within 250 ms of the
    // first): the current run would wait behind it.
    else if (restartBusyWorker(true)) configureWorker();
    return;
  }
  if (msg.runId === runId && (msg.type === FromWorker.READY || msg.type === FromWorker.ERROR)) preparing = false;
  if ([FromWorker.CSV_PROGRESS, FromWorker.CSV_LOADED, FromWorker.CSV_ERROR].includes(msg.type)) {
    onCsvMessage(msg);
    return;
  }
  if (msg.runId !== runId) return; // stale: a run that has been replaced
  switch (msg.type) {
    case FromWorker.READY: {
      msg.info.cards = cardsByKind;
      setRun(new RunHistory(msg.info, msg.grid));
      plotter.theories = msg.info.theories ?? [];
      // The caption names a dashed bound only when one is drawn, and otherwise what would make
      // the main algorithm's apply (Rust's theoryMissing names the condition and its control).
      $('excess-bound-words').textContent = plotter.theories.some((t) => t?.x?.length)
        ? 'the theory bound dashed'
        : msg.info.theoryMissing?.[0]
          ? `no theory bound applies to these settings; to draw ${cardsByKind[msg.info.previews[0].kind]?.name ?? 'the algorithm'}’s, ${msg.info.theoryMissing[0]}`
          : 'no theory bound applies to these settings (see the card\'s assumptions), so none is drawn';
      describeProblem(JSON.parse(msg.info.config), msg.info);
      holdHeight($('problem-line'), false);
      showReadout();
      plotter.request(run);
      setState('ready', 'ready: press Play');
      updatePanels('data');
      showShownSettings();
      if (pending) {
        const action = pending;
        setPending(null);
        (action === 'play' ? play : step)();
      }
      break;
    }
    case FromWorker.GRID:
      run.grid = msg.grid;
      plotter.request(run);
      break;
    case FromWorker.BATCH:
      markStale(false);
      run.append(msg.slice);
      showReadout();
      plotter.request(run);
      if (msg.slice.done) {
        setState('released', 'released: the ringed points are the private outputs');
        updatePanels('released');
      }
      break;
    case FromWorker.ERROR:
      showError(msg.error);
      setFailed({ field: msg.error?.field ?? null, message: msg.error?.message ?? String(msg.error) });
      setState('error', 'error');
      break;
    case FromWorker.EXPORTED:
      saveExport(msg);
      break;
    default:
      break;
  }
}

/** How far the worker got preparing the run (a large one takes seconds): the status and the bar. */
function showPreparation({ stage, fraction }) {
  preparing = true;
  // Cancel stops the busy worker (restartBusyWorker), unless it holds a CSV file.
  ui.cancel.disabled = csvId !== null || csvLoad !== null;
  ui.status.textContent = `preparing: ${stage}, ${Math.round(100 * fraction)}%`;
  ui.progress.max = 1;
  ui.progress.value = fraction;
  ui.progress.hidden = false;
}

/** Downloads a file the worker made (the run JSON or the diagnostics CSV) and says what it holds. */
function saveExport({ what, text, error }) {
  if (error) {
    showError(error);
    return;
  }
  const say = (words) => { $('export-status').textContent = words; };
  if (what === 'csv') {
    download(DIAGNOSTICS_CSV, new Blob([text], { type: 'text/csv' }));
    say('Diagnostics CSV saved: NOT PRIVATE, every row (the release rows too, flagged release_row = 1) is computed '
      + 'from the raw data and the noise. The private releases are in the run JSON\'s "private" part.');
  } else {
    download(RUN_JSON, new Blob([text], { type: 'application/json' }));
    say('Run JSON saved: "private" holds the released points, their ledgers and the guarantee of all of them together; '
      + '"diagnostics" (NOT PRIVATE) the rest.');
  }
}

function onWorkerError(event) {
  const message = `The solver worker failed: ${event.message ?? 'unknown error'}`;
  showError({ field: null, message });
  setFailed({ field: null, message: `${message}. Reload the page.` });
  setState('error', 'error');
}

// Every message counted as it arrives (stale ones too), so a test can prove that none came.
export const received = {};
/** Handles `w`'s messages; a restarted worker's LOADED starts nothing (its CONFIGURE is queued). */
function listenTo(w, { startOnLoad }) {
  w.onmessage = (event) => {
    received[event.data.type] = (received[event.data.type] ?? 0) + 1;
    if (startOnLoad || event.data.type !== FromWorker.LOADED) onWorkerMessage(event);
  };
  w.onerror = onWorkerError;
}

/** The page is ready: it listens to the worker, and handles what it said meanwhile. */
export function listen() {
  listenTo(worker, { startOnLoad: true });
  for (const event of early.splice(0)) (event.type === 'error' ? onWorkerError : worker.onmessage)(event);
  pageStarted = true;
}
