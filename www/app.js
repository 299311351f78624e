// The page: controls, URL hash, and the conversation with the solver worker. All validation
// happens in Rust (normalizeConfig / preview); this file only moves values and messages.

import init, { normalizeConfig, preview } from './pkg/dp_playground.js';
import { ToWorker, FromWorker } from './protocol.js';
import { Plotter, RunHistory } from './plots.js';
import { copyText, download, runCsv, runJson } from './export.js';

const $ = (id) => document.getElementById(id);
const ui = {
  epsilon: $('epsilon'),
  epsilonOutput: $('epsilon-output'),
  seed: $('seed'),
  unseeded: $('unseeded'),
  algorithm: $('algorithm'),
  l2: $('l2'),
  play: $('play'),
  step: $('step'),
  reset: $('reset'),
  status: $('status'),
  stepCount: $('step-count'),
  excess: $('excess'),
  release: $('release'),
  caveats: $('caveats'),
  headline: $('guarantee-headline'),
  detail: $('guarantee-detail'),
};

/** The last valid RunConfig (all fields, as normalised by Rust); the page edits ε and the seed. */
let config = null;
let runId = 0;
let run = new RunHistory();
let state = 'loading';

const fmt = (v, digits = 3) => (v === null || v === undefined ? '–' : String(Number(Number(v).toPrecision(digits))));
const sci = (v) => (v === null || v === undefined ? '–' : Number(v).toExponential(2));

// --- errors next to the control they are about -------------------------------------------------

function clearErrors() {
  document.querySelectorAll('.error').forEach((el) => { el.textContent = ''; });
}

function showError(error) {
  const field = error?.field;
  const el = (field && $(`${field}-error`)) || $('run-error');
  el.textContent = error?.message ?? String(error);
}

// --- state and the readout ----------------------------------------------------------------------

function setState(next, text) {
  state = next;
  ui.status.dataset.state = next;
  ui.status.textContent = text ?? next;
  const ready = ['ready', 'paused', 'running'].includes(next);
  ui.play.disabled = !ready;
  ui.step.disabled = !ready || next === 'running';
  ui.reset.disabled = next === 'loading';
  ui.play.textContent = next === 'running' ? 'Pause' : 'Play';
  ui.play.setAttribute('aria-pressed', String(next === 'running'));
}

const METHOD_NAMES = {
  classical: 'classical (Dwork–Roth)',
  zwb: 'ZWB+19 closed form',
  analytic: 'analytic (Balle–Wang)',
};

function showCalibrations(rows) {
  const cells = (...texts) => {
    const tr = document.createElement('tr');
    for (const t of texts) tr.append(Object.assign(document.createElement('td'), { textContent: t }));
    return tr;
  };
  document.querySelector('#calibrations tbody').replaceChildren(...rows.map((r) => (r.sigma === null
    ? cells(METHOD_NAMES[r.method] ?? r.method, 'n/a', r.refused ?? '')
    : cells(METHOD_NAMES[r.method] ?? r.method, sci(r.sigma), sci(r.exact_delta)))));
}

function showGuarantee(p) {
  const g = p.guarantee;
  const relation = g.relation === 'replace_one' ? 'replace-one' : 'add/remove';
  $('algorithm-title').textContent = p.algorithm;
  ui.headline.textContent = `(ε = ${fmt(g.epsilon)}, δ = ${sci(g.delta)})-DP, ${relation} neighbours`;
  const noise = p.releases > 1
    ? `Noise σ = ${sci(p.sigma)} per coordinate in each of ${p.releases} steps, for sensitivity ${sci(p.sensitivity)} `
      + `(G = ${fmt(p.lipschitz)}); step size η = ${fmt(p.step_size)}.`
    : `One noise draw, σ = ${sci(p.sigma)} per coordinate, for sensitivity ${sci(p.sensitivity)} `
      + `(G = ${fmt(p.lipschitz)}, including the solver's certified error); the release waits for the certificate.`;
  ui.detail.textContent = `${noise} Stated before the run, from the settings alone.`;
  showCalibrations(p.single_release);
}

function showReadout() {
  ui.stepCount.textContent = String(run.gradEvals.length ? run.gradEvals[run.gradEvals.length - 1] : 0);
  const e = run.latestExcess;
  ui.excess.textContent = sci(e);
  ui.excess.dataset.value = e === null ? '' : String(e);
  const r = run.release;
  ui.release.textContent = r
    ? `(${r.w.slice(0, 4).map((v) => fmt(v, 4)).join(', ')}${r.w.length > 4 ? ', …' : ''}); excess ${sci(r.excess)}`
    : 'not yet';
  ui.caveats.replaceChildren(
    ...(r ? r.ledger.caveats : []).map((c) => Object.assign(document.createElement('li'), { textContent: c })),
  );
}

// --- config ↔ controls ↔ URL hash ---------------------------------------------------------------

/** JSON text for Rust; a seed that is not a number travels as a string so Rust can name it. */
function configJson(cfg) {
  const seed = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(String(cfg.seed)) ? Number(cfg.seed) : String(cfg.seed);
  return JSON.stringify({ ...cfg, seed });
}

function epsilonFromSlider() {
  return Number((10 ** Number(ui.epsilon.value)).toPrecision(2));
}

function syncControls() {
  ui.epsilon.value = String(Math.log10(config.epsilon));
  ui.epsilonOutput.textContent = fmt(config.epsilon, 2);
  ui.seed.value = String(config.seed);
  ui.unseeded.checked = config.unseeded_noise;
  ui.algorithm.value = config.algorithm;
  ui.l2.value = String(config.l2);
}

/** The config in the URL hash (validated by Rust), or the defaults with a message saying why. */
function configFromHash() {
  const raw = decodeURIComponent(location.hash.replace(/^#/, ''));
  try {
    return JSON.parse(normalizeConfig(raw || '{}'));
  } catch (e) {
    showError({ field: null, message: `The link's settings were not used (${e?.message ?? e}); showing the defaults.` });
    return JSON.parse(normalizeConfig('{}'));
  }
}

/**
 * Validates `candidate` in Rust; on success it becomes the config, the hash is updated and a new
 * run starts. On failure the message goes next to the field and the last good run stays.
 */
function applyConfig(candidate) {
  let normalized;
  try {
    normalized = JSON.parse(normalizeConfig(configJson(candidate)));
  } catch (e) {
    showError(e);
    return false;
  }
  clearErrors();
  config = normalized;
  window.history.replaceState(null, '', `#${encodeURIComponent(JSON.stringify(config))}`);
  startRun();
  return true;
}

// --- the worker ---------------------------------------------------------------------------------

let worker;
let plotter;

function startRun() {
  runId += 1;
  setState('loading', 'preparing data and reference optimum…');
  try {
    showGuarantee(preview(JSON.stringify(config)));
  } catch (e) {
    showError(e);
  }
  worker.postMessage({ type: ToWorker.CONFIGURE, runId, config: JSON.stringify(config) });
}

function onWorkerMessage(event) {
  const msg = event.data;
  if (msg.type === FromWorker.LOADED) {
    startRun();
    return;
  }
  if (msg.runId !== runId) return; // stale: a run that has been replaced
  switch (msg.type) {
    case FromWorker.READY: {
      run = new RunHistory(msg.info, msg.grid);
      const c = JSON.parse(msg.info.config);
      $('n-value').textContent = c.n;
      $('d-value').textContent = c.d;
      $('bound-value').textContent = c.feature_bound;
      $('radius-value').textContent = c.radius;
      showReadout();
      plotter.request(run);
      setState('ready', 'ready: press Play');
      break;
    }
    case FromWorker.BATCH:
      run.append(msg.batch);
      showReadout();
      plotter.request(run);
      if (msg.batch.done) setState('released', 'released: the red point is the private output');
      break;
    case FromWorker.ERROR:
      showError(msg.error);
      setState('error', 'error');
      break;
    default:
      break;
  }
}

function onWorkerError(event) {
  showError({ field: null, message: `The solver worker failed: ${event.message ?? 'unknown error'}` });
  setState('error', 'error');
}

// --- controls -----------------------------------------------------------------------------------

function wireControls() {
  ui.epsilon.addEventListener('input', () => {
    const eps = epsilonFromSlider();
    ui.epsilonOutput.textContent = fmt(eps, 2);
    try {
      showGuarantee(preview(JSON.stringify({ ...config, epsilon: eps })));
    } catch (e) {
      showError(e);
    }
  });
  // Every control applies the values of all controls, so a choice Rust refused (say output
  // perturbation without a ridge) is applied once the field it named is fixed.
  const fromControls = () => ({
    ...config,
    epsilon: epsilonFromSlider(),
    seed: ui.seed.value,
    unseeded_noise: ui.unseeded.checked,
    algorithm: ui.algorithm.value,
    l2: ui.l2.value.trim() === '' ? ui.l2.value : Number(ui.l2.value),
  });
  for (const control of [ui.epsilon, ui.seed, ui.unseeded, ui.algorithm, ui.l2]) {
    control.addEventListener('change', () => applyConfig(fromControls()));
  }
  ui.play.addEventListener('click', () => {
    if (state === 'running') {
      worker.postMessage({ type: ToWorker.PAUSE, runId });
      setState('paused', 'paused');
    } else {
      worker.postMessage({ type: ToWorker.PLAY, runId });
      setState('running', 'running…');
    }
  });
  ui.step.addEventListener('click', () => {
    worker.postMessage({ type: ToWorker.STEP, runId });
    setState('paused', 'paused');
  });
  ui.reset.addEventListener('click', () => applyConfig(config));
  const say = (text) => { $('export-status').textContent = text; };
  $('copy-link').addEventListener('click', async () => {
    const ok = await copyText(location.href);
    say(ok ? 'Link copied: it restores these settings and, seeded, this exact run.' : `Copy this link: ${location.href}`);
  });
  $('export-csv').addEventListener('click', () => {
    download('dp-playground-run.csv', new Blob([runCsv(run)], { type: 'text/csv' }));
    say('Run CSV saved: every row but the release (private = 1) is a non-private diagnostic.');
  });
  $('export-json').addEventListener('click', () => {
    download('dp-playground-config.json', new Blob([runJson(config, run)], { type: 'application/json' }));
    say('Config JSON saved.');
  });
  document.querySelectorAll('button.png').forEach((b) => b.addEventListener('click', () => {
    $(b.dataset.canvas).toBlob((blob) => download(`dp-playground-${b.dataset.canvas}.png`, blob), 'image/png');
  }));
}

await init();
plotter = new Plotter(
  { excess: $('excess-plot'), path: $('path-plot'), noise: $('noise-plot'), privacy: $('privacy-plot') },
  (e) => showError({ field: null, message: String(e) }),
);
config = configFromHash();
syncControls();
wireControls();
// The worker starts only now, so its first message finds the page's own wasm ready.
worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = onWorkerMessage;
worker.onerror = onWorkerError;
window.addEventListener('hashchange', () => {
  config = configFromHash();
  syncControls();
  startRun();
});
