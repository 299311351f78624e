// The teaching worker: runs the audit tab's audits, the neighbouring-datasets view and the
// attacker's view (many runs of one mechanism on a toy pair) a chunk at a time, so the page shows progress and a
// cancel lands between chunks. Apart from the solver worker, so a run on the page and a
// teaching job never wait for each other. One job at a time: a new one cancels the last.

import init, { AttackJob, AuditJob, NeighbourJob } from '../pkg/dp_playground.js';
import { moduleFromPage } from './wasm-module.js';

/** Time one chunk of runs aims for before yielding (the pairs per chunk adapt to it). */
const CHUNK_MS = 30;

let current = null;
const loaded = moduleFromPage(init);

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

async function runJob(msg) {
  if (current) current.cancelled = true;
  const job = { id: msg.id, cancelled: false };
  current = job;
  const post = (type, payload = {}) => self.postMessage({ type, id: job.id, ...payload });
  let work = null;
  try {
    if (msg.type === 'audit') work = new AuditJob(msg.scenario, msg.bug, msg.seed);
    else if (msg.type === 'attack') work = new AttackJob(msg.config, msg.runs);
    else work = new NeighbourJob(msg.config, msg.record, msg.runs);
    let pairs = 8;
    while (!work.isDone()) {
      const start = performance.now();
      const done = work.advance(pairs);
      const ms = performance.now() - start;
      pairs = Math.max(1, Math.min(pairs * 4, Math.round((pairs * CHUNK_MS) / Math.max(ms, 0.5))));
      post('progress', { done, total: work.runs() });
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (job.cancelled) {
        post('cancelled');
        return;
      }
    }
    post('result', { result: msg.type === 'audit' ? work.report() : work.view() });
  } catch (e) {
    post('error', { error: asError(e) });
  } finally {
    work?.free();
    if (current === job) current = null;
  }
}

self.onmessage = async (event) => {
  await loaded;
  const msg = event.data;
  if (msg.type === 'cancel') {
    if (current?.id === msg.id) current.cancelled = true;
    return;
  }
  runJob(msg);
};
