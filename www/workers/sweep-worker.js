// One worker of the sweep's pool (www/panels/sweep.js): it plans the sweep from the same settings as the
// page, and for each task it is given builds the point (data and reference, in Rust) and runs the
// task's repeats one by one, reporting each lane's metric as it lands. The lanes are Rust's
// (src/session/sweep_lanes.rs): independent runs, so the pool may share them out in any way.

import init, { SweepPlan } from '../pkg/dp_playground.js';
import { moduleFromPage } from './wasm-module.js';

const ready = moduleFromPage(init);
/** The plan of the sweep in progress, keyed by its settings and request. */
let plan = null;
let planKey = null;
/** The point built last: { key, index, point }. */
let built = null;

function asError(e) {
  if (e && typeof e === 'object' && 'message' in e) return { field: e.field ?? null, message: String(e.message) };
  return { field: null, message: String(e) };
}

self.onmessage = async ({ data }) => {
  await ready;
  const { sweepId, config, request, task } = data;
  try {
    const key = `${config}\n${request}`;
    if (key !== planKey) {
      built?.point.free();
      built = null;
      plan?.free();
      plan = new SweepPlan(config, request);
      planKey = key;
    }
    // The point built last is kept: the pool gives a worker more of the same point while any
    // remains, so its data and reference are built once.
    if (built?.key !== key || built.index !== task.point) {
      built?.point.free();
      built = null;
      built = { key, index: task.point, point: plan.point(task.point) };
    }
    const { point } = built;
    const bound = point.bound() ?? null;
    for (let r = task.start; r < task.end; r += 1) {
      const metric = point.lane(r) ?? null;
      self.postMessage({ type: 'lane', sweepId, point: task.point, repeat: r, metric, bound });
    }
    self.postMessage({ type: 'task-done', sweepId, point: task.point });
  } catch (e) {
    self.postMessage({ type: 'error', sweepId, error: asError(e) });
  }
};
