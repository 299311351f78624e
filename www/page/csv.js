// A CSV file of the person's: read and parsed in the worker (www/workers/worker.js), previewed
// here, and every run on it charged to its running total (composed in Rust, composeRuns) and
// held to the cap.

import { checkCsvSize, composeRuns, csvSizeLimit } from '../pkg/dp_playground.js';
import { $ } from './ui.js';
import { capital, fmt } from './format.js';
import { config, runId, setFailed } from './state.js';
import { fromControls, lossFromControls, syncControls } from './controls.js';
import { showBlocked, showError } from './errors.js';
import { composedStatement } from './guarantee.js';
import { applyConfig } from './link.js';
import { post } from './conversation.js';
import { FromWorker, ToWorker } from '../workers/protocol.js';
import { tighterWords } from './steady.js';

/** The worker's id of the loaded CSV file (parsed and kept there, in this tab only), or null. */
export let csvId = null;
/** The CSV load in progress, { id, file }, or null; ids count loads. */
export let csvLoad = null;
let csvLoads = 0;
/**
 * Everything released on each CSV file loaded in this tab: file key (name, size, SHA-256) →
 * { name, runs: the configs of the runs started on it, in order }. Composed in Rust (composeRuns).
 */
const fileBudgets = new Map();
/** The loaded file's key, and the run already charged to it (a run is charged when it starts). */
let csvKey = null;
let chargedRun = 0;

/** The running total of the loaded file, next to it. */
function showFileBudget() {
  const el = $('csv-budget');
  const entry = csvKey && fileBudgets.get(csvKey);
  if (!entry) {
    el.textContent = '';
    return;
  }
  if (entry.runs.length === 0) {
    el.textContent = `${entry.name}: nothing released on it since it was loaded.`;
    el.dataset.epsilon = '0';
    el.dataset.runs = '0';
    return;
  }
  const c = composeRuns(JSON.stringify(entry.runs));
  el.dataset.epsilon = String(c.epsilon);
  el.dataset.runs = String(entry.runs.length);
  el.textContent = `${entry.name}: ${entry.runs.length} run${entry.runs.length === 1 ? '' : 's'}, ${c.releases} release${c.releases === 1 ? '' : 's'} since it was loaded; `
    + `together ${composedStatement(c)} (${c.method}).${tighterWords(c, fmt)}${c.seeded ? ` ${capital(c.seeded)}.` : ''}`;
}

/** The cap on ε released on the loaded file: null when blank; an error at the cap otherwise. */
function budgetCap() {
  const text = $('budget_cap').value.trim();
  if (text === '') return null;
  const cap = Number(text);
  if (!(Number.isFinite(cap) && cap > 0)) throw new Error(`The cap must be a number > 0 (or blank for none), not "${text}".`);
  return cap;
}

/**
 * Charges the run about to start to the loaded file (once per run) and says whether it may start:
 * a decision from the settings and the cap alone, never from the data.
 */
export function chargeFile() {
  $('budget_cap-error').textContent = '';
  if (config.data !== 'csv' || !csvKey || chargedRun === runId) return true;
  const entry = fileBudgets.get(csvKey);
  let total;
  let cap;
  try {
    cap = budgetCap();
    total = composeRuns(JSON.stringify([...entry.runs, config]));
  } catch (e) {
    const message = e?.message ?? String(e);
    if (e?.field) showError(e);
    else $('budget_cap-error').textContent = message;
    return false;
  }
  if (cap !== null && total.epsilon > cap) {
    const message = `Refused: this run would bring the ε released on ${entry.name} to ${fmt(total.epsilon)}, above the cap ε = ${fmt(cap)}. `
      + 'Raise the cap, or load another file.';
    $('budget_cap-error').textContent = message;
    $('run-error').textContent = message;
    return false;
  }
  entry.runs.push(config);
  chargedRun = runId;
  showFileBudget();
  return true;
}

/**
 * A file was chosen (or the label column changed): the worker reads it in chunks and parses it,
 * the progress bar and its Cancel showing meanwhile; the run and data on screen stay until it has
 * loaded.
 */
export function onCsvChosen() {
  const file = $('csv-file').files?.[0];
  if (!file) return;
  $('csv-error').textContent = '';
  try {
    checkCsvSize(file.size);
  } catch (e) {
    csvRefused(file, e);
    return;
  }
  // A load in progress gives way: the worker stops it when the new one starts.
  csvLoads += 1;
  csvLoad = { id: csvLoads, file };
  showCsvProgress(0, file.size, `reading ${file.name}…`);
  post({
    type: ToWorker.LOAD_CSV,
    loadId: csvLoad.id,
    file,
    // Checked against the loss the controls show (margin losses need ±1 labels).
    config: JSON.stringify({ ...config, loss: lossFromControls() }),
    label: $('csv-label').value,
  });
}

/** The progress bar of a CSV load (`total` null: hidden, with its Cancel). */
function showCsvProgress(done, total, text) {
  const bar = $('csv-progress');
  const busy = total !== null;
  $('csv-loading').hidden = !busy;
  if (!busy) return;
  bar.max = Math.max(total, 1);
  bar.value = done;
  $('csv-progress-text').textContent = text;
}

/** Cancel: the load stops, and the data, preview and run on screen stay as they were. */
export function cancelCsvLoad() {
  if (!csvLoad) return;
  post({ type: ToWorker.CANCEL_LOAD, loadId: csvLoad.id });
  $('export-status').textContent = `Loading ${csvLoad.file.name} cancelled: ${csvId === null ? 'no file is loaded' : 'the file loaded before stays'}.`;
  csvLoad = null;
  showCsvProgress(0, null);
  // The input would otherwise name a file that is not loaded (and choosing it again would not
  // fire a change).
  $('csv-file').value = '';
}

export function onCsvMessage(msg) {
  if (csvLoad?.id !== msg.loadId) return; // a load cancelled or replaced
  const { file } = csvLoad;
  switch (msg.type) {
    case FromWorker.CSV_PROGRESS: {
      const mb = (b) => (b / 1e6).toFixed(1);
      const text = msg.done < msg.total ? `reading ${file.name}: ${mb(msg.done)} of ${mb(msg.total)} MB`
        : `parsing ${file.name} (${mb(msg.total)} MB)…`;
      showCsvProgress(msg.done, msg.total, text);
      break;
    }
    case FromWorker.CSV_ERROR:
      csvLoad = null;
      showCsvProgress(0, null);
      csvRefused(file, msg.error);
      break;
    case FromWorker.CSV_LOADED:
      csvLoad = null;
      showCsvProgress(0, null);
      csvLoaded(file, msg.loadId, msg.shape, msg.hash);
      break;
    default:
      break;
  }
}

/**
 * `file` was refused (`error` says where and why): beside the picker, and, when no file is
 * loaded for the CSV data, beside Play too; a file loaded before stays in use.
 */
function csvRefused(file, error) {
  const message = `${file.name}: ${error?.message ?? error}`;
  showError({ field: 'csv', message });
  if (config.data === 'csv' && csvId === null) {
    setFailed({ field: 'csv', message: `${file.name} was not loaded (the reason is beside “CSV file”): fix the file, or choose another.` });
    showBlocked();
  }
}

/** The worker has parsed and kept `file` under `id`: preview it, and run on it. */
function csvLoaded(file, id, shape, hash) {
  csvId = id;
  // A key for the file: its name, size and SHA-256 (the same file loaded again keeps its total).
  csvKey = `${file.name}|${file.size}|${hash}`;
  if (!fileBudgets.has(csvKey)) fileBudgets.set(csvKey, { name: file.name, runs: [] });
  showFileBudget();
  const table = $('csv-preview');
  table.querySelector('tbody').replaceChildren(...shape.head.map((row) => {
    const tr = document.createElement('tr');
    for (const v of row.slice(0, 8)) tr.append(Object.assign(document.createElement('td'), { textContent: fmt(v, 4) }));
    return tr;
  }));
  table.hidden = false;
  // Replace-one: n is public and is the row count. Add/remove: n is declared at its control and a
  // file of any size runs (refusing n ± 1 rows would itself tell D from D ∪ {z}).
  const controls = fromControls();
  const n = controls.relation === 'replace_one' ? shape.n : controls.n;
  const candidate = { ...controls, data: 'csv', n, d: shape.d };
  candidate.batch = Math.min(candidate.batch, n);
  if (applyConfig(candidate)) {
    syncControls();
    const declared = n === shape.n ? '' : ` (n = ${n} declared: add/remove neighbours; every row is used)`;
    // Margin losses need labels −1 and +1: a 0 is read as −1 (Rust's CSV reader, record by record).
    const mapped = shape.mapped > 0 ? ` Its labels 0 (${shape.mapped} of them) are read as −1, since the ${config.loss.kind.replace('_', ' ')} loss needs labels −1 and +1.` : '';
    const words = `${file.name}: ${shape.n} rows, ${shape.d} features loaded${declared}.${mapped}`;
    $('export-status').textContent = words;
    $('csv-status').textContent = words;
  }
}

/** The size limit beside the file input, as Rust states it (csvSizeLimit). */
export function showCsvLimit() {
  const bytes = csvSizeLimit();
  const size = bytes >= 2 ** 30 ? `${bytes / 2 ** 30} GiB` : `${bytes / 2 ** 20} MiB`;
  $('csv-limit').textContent = `Files up to ${size}: the tab holds the file and its numbers in its memory.`;
}
