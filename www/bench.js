// The benchmark page: starts the benchmark worker, fills the table as each case arrives, and
// keeps the machine-readable result in `window.benchResults` and the <pre id="json"> (read by
// scripts/bench and tests/e2e/bench.test.mjs).

import { startWorker } from './workers/wasm-module.js';

const params = new URLSearchParams(location.search);
const quick = params.has('quick');
// ?only=TEXT runs the read and the cases whose name contains TEXT (e.g. ?only=DP-SGD).
const only = params.get('only') ?? '';
const status = document.getElementById('status');
const body = document.querySelector('#results tbody');
const json = document.getElementById('json');

/** The result so far: { status: 'running' | 'done' | 'error', error?, quick, userAgent, sizes }. */
const results = { status: 'running', quick, userAgent: navigator.userAgent, sizes: [] };
window.benchResults = results;

const rows = new Map();
const key = (n, d, name) => `${n}×${d}:${name}`;
const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

function setStatus(state, text) {
  status.dataset.state = state;
  status.textContent = text;
}

function publish() {
  json.textContent = JSON.stringify(results, null, 1);
}

function cell(tr, text) {
  const td = document.createElement('td');
  td.textContent = text;
  tr.append(td);
  return td;
}

function showPlan(plan) {
  for (const size of plan) {
    results.sizes.push({ n: size.n, d: size.d, cases: [] });
    for (const { case: name, repeats } of size.cases) {
      const tr = document.createElement('tr');
      tr.className = 'pending';
      for (const text of [size.n.toLocaleString('en'), size.d, name, repeats, '…', '…', '…']) cell(tr, text);
      body.append(tr);
      rows.set(key(size.n, size.d, name), tr);
    }
  }
}

function showCase(m) {
  const { type: _type, ...figures } = m;
  results.sizes.find((s) => s.n === m.n && s.d === m.d).cases.push(figures);
  const tr = rows.get(key(m.n, m.d, m.case));
  tr.className = '';
  const tds = tr.children;
  tds[3].textContent = `${m.repeats} × ${m.runs_per_repeat}`;
  tds[4].textContent = fmt(m.min_ms, 3);
  tds[5].textContent = fmt(m.median_ms, 3);
  tds[6].textContent = `${fmt(m.ratio_to_read)}×`;
  publish();
}

const worker = startWorker(new URL('./workers/bench-worker.js', import.meta.url));
worker.onmessage = ({ data: m }) => {
  if (m.type === 'plan') {
    showPlan(m.plan);
    setStatus('running', 'running…');
  } else if (m.type === 'size') {
    setStatus('running', `running n = ${m.n.toLocaleString('en')}, d = ${m.d}… (generating the data first)`);
  } else if (m.type === 'case') {
    showCase(m);
  } else if (m.type === 'done') {
    results.status = 'done';
    setStatus('done', 'done');
    publish();
  } else if (m.type === 'error') {
    results.status = 'error';
    results.error = m.message;
    setStatus('error', `the benchmark stopped: ${m.message}`);
    publish();
  }
};
worker.onerror = (e) => {
  results.status = 'error';
  results.error = e.message ?? 'the benchmark worker failed to start';
  setStatus('error', `the benchmark stopped: ${results.error}`);
  publish();
};
worker.postMessage({ quick, only });
publish();
