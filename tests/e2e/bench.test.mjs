// End to end, the benchmark page (/bench.html?quick: tiny sizes) in Chromium (Playwright) and in
// Firefox (geckodriver; see scripts/bench-browsers.mjs): every case of the plan produced a finite,
// positive time and ratio to the read. No timing thresholds: the figures are only checked to exist.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from './harness.mjs';
import { benchInChromium, benchInFirefox } from '../../scripts/bench-browsers.mjs';

const CASES = [
  'read',
  'squared value+gradient',
  'logistic value+gradient',
  'DP-SGD epoch (b = 256, clip 1)',
  'DP-SGD part: batch draws',
  'DP-SGD part: clipped sums',
  'DP-SGD part: noise draws',
  'DP-SGD part: update and report',
  'certified reference solve',
  'generate data',
];

let server;
let base;

before(async () => {
  server = serve();
  base = await server.url;
});

after(() => server?.stop());

function checkResults(results, browser) {
  assert.equal(results.status, 'done', `${browser}: ${results.error ?? ''}`);
  assert.equal(results.quick, true);
  assert.equal(results.sizes.length, 2, `${browser}: two sizes`);
  for (const size of results.sizes) {
    assert.deepEqual(size.cases.map((c) => c.case), CASES, `${browser}: every case at n = ${size.n}`);
    for (const c of size.cases) {
      const what = `${browser}, n = ${size.n}, d = ${size.d}, ${c.case}`;
      for (const k of ['min_ms', 'median_ms', 'ratio_to_read']) {
        assert.ok(Number.isFinite(c[k]) && c[k] > 0, `${what}: ${k} = ${c[k]}`);
      }
      assert.ok(c.median_ms >= c.min_ms, `${what}: median ≥ min`);
      assert.ok(Number.isInteger(c.runs_per_repeat) && c.runs_per_repeat >= 1, `${what}: runs`);
    }
    assert.equal(size.cases[0].ratio_to_read, 1, `${browser}: the read is its own unit`);
  }
}

test('the benchmark page measures every case in Chromium', async () => {
  checkResults(await benchInChromium(`${base}bench.html?quick`, { timeoutMs: 60_000 }), 'Chromium');
});

test('the benchmark page measures every case in Firefox', async () => {
  checkResults(await benchInFirefox(`${base}bench.html?quick`, { timeoutMs: 60_000 }), 'Firefox');
});
