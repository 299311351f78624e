// The sweep's speed-up: the same sweep on the page with 1 worker and with W workers, in one
// session, timed by the page (the panel's data-elapsed-ms). Not a test (timings are the
// machine's): run it by hand, on a quiet machine, with
//
//   node tests/e2e/sweep_speedup.mjs [W…]        (default: 2 and navigator.hardwareConcurrency)
//   SWEEP_N=20000 SWEEP_R=40 ROUNDS=3 node tests/e2e/sweep_speedup.mjs 2
//
// It prints what the browser reports as hardwareConcurrency, each time (the best of ROUNDS,
// rounds interleaved so a change of load hits every worker count alike) and its ratio to one
// worker's. The sweep: output perturbation, δ = 0, n = SWEEP_N (default 20000),
// ε = 0.25 … 4 (5 values), R = SWEEP_R (default 20).
import { session } from './harness.mjs';

const lab = await session();
const N = process.env.SWEEP_N ?? '20000';
const R = process.env.SWEEP_R ?? '20';
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const wanted = process.argv.slice(2).map(Number).filter((w) => Number.isInteger(w) && w >= 1);

async function timed(workers) {
  const { context, page, seen } = await lab.open(`?workers=${workers}`);
  const ready = () => page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });
  const set = async (selector, value) => { await page.fill(selector, value); await page.press(selector, 'Tab'); };
  await ready();
  await page.selectOption('#algorithm', 'output_perturbation');
  await ready();
  await set('#delta', '0');
  await ready();
  await set('#n', N);
  await ready();
  await page.click('#open-sweep');
  await set('#sweep-values', '0.25, 0.5, 1, 2, 4');
  await set('#sweep-repeats', R);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.click('#sweep-run');
  await page.waitForFunction(() => /^Done/.test(document.querySelector('#sweep-status').textContent), null, { timeout: 600_000 });
  const ms = Number(await page.getAttribute('#sweep-status', 'data-elapsed-ms'));
  const csv = await page.evaluate(() => document.querySelector('#sweep-slopes tbody').textContent);
  if (seen.errors.length) console.error(seen.errors);
  await context.close();
  return { ms, cores, csv };
}

try {
  const first = await timed(1);
  console.log(`navigator.hardwareConcurrency = ${first.cores}; n = ${N}, 5 ε values × R = ${R}`);
  const list = [1, ...(wanted.length ? wanted : [...new Set([2, first.cores])].filter((w) => w > 1))];
  const best = new Map(list.map((w) => [w, w === 1 ? first : null]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const w of list) {
      if (round === 0 && w === 1) continue;
      const r = await timed(w);
      if (r.csv !== first.csv) console.log(`${w} workers: the slopes differ!`);
      if (!best.get(w) || r.ms < best.get(w).ms) best.set(w, r);
    }
  }
  const one = best.get(1).ms;
  for (const w of list) {
    const { ms } = best.get(w);
    console.log(`${w} worker${w > 1 ? 's' : ''}: ${(ms / 1000).toFixed(2)} s, speed-up ${(one / ms).toFixed(2)}×`);
  }
} finally {
  await lab.close();
}
