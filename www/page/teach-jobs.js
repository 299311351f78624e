// The page's side of the teaching worker (teach-worker.js): one worker, started on first use;
// a job reports progress and ends in a result, an error or a cancel.

import { startWorker } from '../workers/wasm-module.js';

let worker = null;
let nextId = 1;
const handlers = new Map();

function ensureWorker() {
  if (worker) return worker;
  worker = startWorker(new URL('../workers/teach-worker.js', import.meta.url));
  worker.onmessage = (event) => {
    const msg = event.data;
    const h = handlers.get(msg.id);
    if (!h) return; // a job that was replaced or cancelled
    if (msg.type === 'progress') {
      h.progress(msg.done, msg.total);
      return;
    }
    handlers.delete(msg.id);
    if (msg.type === 'result') h.resolve(msg.result);
    else if (msg.type === 'error') h.reject(msg.error);
    else h.resolve(null); // cancelled
  };
  worker.onerror = (e) => {
    for (const h of handlers.values()) h.reject({ field: null, message: `The teaching worker failed: ${e.message}` });
    handlers.clear();
  };
  return worker;
}

/**
 * Starts `message` (an audit or a neighbouring view) in the teaching worker. `progress(done,
 * total)` is called after each chunk. Returns { promise, cancel }: the promise resolves with the
 * result, or null once cancelled, and rejects with a { field, message } error.
 */
export function startJob(message, progress) {
  const w = ensureWorker();
  const id = nextId++;
  for (const [other, h] of handlers) { // the worker runs one job at a time: a new one replaces it
    handlers.delete(other);
    h.resolve(null);
  }
  const promise = new Promise((resolve, reject) => handlers.set(id, { resolve, reject, progress }));
  w.postMessage({ ...message, id });
  return { promise, cancel: () => w.postMessage({ type: 'cancel', id }) };
}
