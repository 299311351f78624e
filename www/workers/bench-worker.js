// The benchmark's worker: runs the plan of `bench::plan` on the wasm core, one size at a time,
// timing each case with performance.now() around `BenchWorkload.run`, and posts every case's
// figures as soon as they are measured (so the page fills its table and stays responsive).

import init, { BenchWorkload, benchPlan, benchRunsPerTiming } from '../pkg/dp_playground.js';
import { moduleFromPage } from './wasm-module.js';

const post = (type, payload = {}) => self.postMessage({ type, ...payload });
/** The page's compiled module, instantiated (www/workers/wasm-module.js). */
const loaded = moduleFromPage(init);

/** Milliseconds per run of a timed batch of `runs` runs (preparation untimed), and its check. */
function time(workload, name, runs) {
  workload.prepare(name, runs);
  const t0 = performance.now();
  const check = workload.run(name, runs);
  const ms = (performance.now() - t0) / runs;
  if (!Number.isFinite(check)) throw new Error(`${name}: its result is not finite (${check})`);
  return ms;
}

const minOf = (xs) => Math.min(...xs);
/** The upper median, as `bench::Summary` computes it natively. */
const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The plan with only the read (every ratio's unit) and the cases whose name contains `only`. */
function filtered(plan, only) {
  if (!only) return plan;
  return plan.map((s) => ({ ...s, cases: s.cases.filter((c) => c.case === 'read' || c.case.includes(only)) }));
}

async function runPlan(quick, only) {
  await loaded;
  const plan = filtered(JSON.parse(benchPlan(quick)), only);
  post('plan', { plan });
  for (const size of plan) {
    post('size', { n: size.n, d: size.d });
    const workload = new BenchWorkload(size.n, size.d);
    try {
      let readMin = NaN;
      for (const { case: name, repeats } of size.cases) {
        // An untimed warm-up run sets how many runs a timed batch holds (bench::runs_per_timing).
        // A batch that then reads shorter than that minimum is not kept: it grows and is timed
        // again. Firefox's clock ticks in whole milliseconds, and on a loaded machine the
        // warm-up run can read a whole tick (or be descheduled), choosing too few runs.
        let runs = benchRunsPerTiming(time(workload, name, 1));
        const times = [];
        while (times.length < repeats) {
          const perRun = time(workload, name, runs);
          // A batch that read 0 ms ran inside one tick: ten times as many runs (Rust's bound on a
          // batch holds only for a batch it could time).
          const wanted = perRun > 0 ? benchRunsPerTiming(perRun) : Math.min(runs * 10, 10_000_000);
          if (wanted > runs) runs = wanted;
          else times.push(perRun);
        }
        const min = minOf(times);
        if (name === 'read') readMin = min;
        post('case', {
          n: size.n, d: size.d, case: name, repeats, runs_per_repeat: runs,
          min_ms: min, median_ms: medianOf(times), ratio_to_read: min / readMin,
        });
      }
    } finally {
      workload.free(); // the next size needs the memory
    }
  }
  post('done');
}

self.onmessage = (e) => {
  runPlan(Boolean(e.data?.quick), e.data?.only ?? '').catch((err) => post('error', { message: err?.message ?? String(err) }));
};
