// The sweep's speed-up: the same sweep on the page with 1 worker and with W workers, in one
// session, timed by the page (the panel's data-elapsed-ms). Not a test (timings are the
// machine's): run it by hand, on a quiet machine, with
//
//   node tests/e2e/sweep_speedup.mjs [W…]        (default: 2 and navigator.hardwareConcurrency)
//
// It prints what the browser reports as hardwareConcurrency, each time and its ratio to one
// worker's. The sweep: output perturbation, δ = 0, n = 2000, ε = 0.25 … 4 (5 values), R = 20.
import { session } from './harness.mjs';

const lab = await session();
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
  await set('#n', '2000');
  await ready();
  await page.click('#open-sweep');
  await set('#sweep-values', '0.25, 0.5, 1, 2, 4');
  await set('#sweep-repeats', '20');
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
  const one = await timed(1);
  console.log(`navigator.hardwareConcurrency = ${one.cores}`);
  console.log(`1 worker: ${(one.ms / 1000).toFixed(2)} s`);
  const list = wanted.length ? wanted : [...new Set([2, one.cores])].filter((w) => w > 1);
  for (const w of list) {
    const r = await timed(w);
    console.log(`${w} workers: ${(r.ms / 1000).toFixed(2)} s, speed-up ${(one.ms / r.ms).toFixed(2)}×${r.csv === one.csv ? '' : ' (slopes differ!)'}`);
  }
} finally {
  await lab.close();
}
