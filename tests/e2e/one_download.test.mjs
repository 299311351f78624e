// One download and one compile of the wasm module (www/workers/wasm-module.js): on a fresh page
// used as a newcomer uses it — a run played to its release, the neighbouring-datasets view run
// (the teaching worker), a sweep run (a pool of workers) — the browser fetches
// dp_playground_bg.wasm exactly once, and every worker still computes. Before the page handed its
// compiled module to the workers, this visit fetched it once per worker too (five times here).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMoreSettings, ready, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab.close();
});

async function set(page, selector, value) {
  await page.fill(selector, value);
  await page.press(selector, 'Tab');
}

test('a visit that plays a run, runs the neighbours view and a sweep fetches the wasm once', async () => {
  const { page, seen } = await lab.open();
  const wasmFetches = () => seen.requests.filter((url) => url.endsWith('.wasm'));

  await ready(page);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });

  await page.click('#neighbours-panel > summary');
  await page.click('#neighbours-run');
  await page.waitForFunction(() => document.getElementById('neighbours-status').textContent === 'done', null, { timeout: 60_000 });

  // A small sweep with two workers in its pool, so more than one worker is started.
  await openMoreSettings(page);
  await set(page, '#n', '300');
  await ready(page);
  await page.click('#open-sweep');
  await set(page, '#sweep-values', '0.5, 1');
  await set(page, '#sweep-repeats', '2');
  await set(page, '#sweep-workers', '2');
  await page.click('#sweep-run');
  await page.waitForFunction(() => /^Done/.test(document.querySelector('#sweep-status').textContent), null, { timeout: 80_000 });

  assert.deepEqual(wasmFetches().map((url) => new URL(url).pathname), ['/www/pkg/dp_playground_bg.wasm'],
    `the wasm was fetched ${wasmFetches().length} times: ${wasmFetches().join(', ')}`);
  assert.deepEqual(seen.errors, []);
});
