// End to end: the neighbouring-datasets panel, reached as a newcomer would (open
// its summary, press its button), draws both output distributions, the privacy-loss histogram
// against the worst case and the ε(δ) curves, for DP-GD and for output perturbation; and says
// why it is not available for another family. Seeded (the page's seed 1): the draws are fixed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, session, snapshotCanvas } from './harness.mjs';

let lab;
const link = (config) => `#${encodeURIComponent(JSON.stringify(config))}`;
const CANVASES = ['#neighbours-releases', '#neighbours-loss', '#neighbours-profile'];

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

async function drawNeighbours(hash, record) {
  const { context, page, seen } = await lab.open(hash);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#neighbours-panel > summary');
  await page.selectOption('#neighbour_record', record);
  await page.selectOption('#neighbour_runs', '500');
  for (const c of CANVASES) await snapshotCanvas(page, c);
  await page.click('#neighbours-run');
  await page.waitForFunction(() => document.getElementById('neighbours-status').textContent === 'done', null, { timeout: 60_000 });
  const view = await page.evaluate(() => window.__teach.neighbours());
  const pixels = {};
  for (const c of CANVASES) pixels[c] = await changedPixels(page, c);
  return { context, page, seen, view, pixels };
}

function assertDrawn(view, pixels, name) {
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  // Both clouds are there, in full, and their histograms are drawn.
  assert.equal(view.runs, 500, name);
  assert.equal(sum(view.releases.on_d), 500, name);
  assert.equal(sum(view.releases.on_d_prime), 500, name);
  assert.ok(view.means[0] > view.means[1], `${name}: D's record pushes the release up: ${view.means}`);
  // The privacy-loss histogram holds the draws, and the worst case has a curve (or atoms).
  assert.ok(sum(view.loss.counts) + view.loss.outside === 500, name);
  assert.ok(sum(view.loss.counts) > 400, `${name}: most losses in the window`);
  assert.ok(view.loss.theory.some(([, d]) => d > 0), name);
  assert.ok(view.profile.worst_case.some((e) => e > 0), name);
  for (const [c, n] of Object.entries(pixels)) assert.ok(n > 2000, `${name}: ${c} drew ${n} pixels`);
}

test('DP-GD: both distributions, the privacy loss against N(μ, 2μ), and the ε(δ) curve are drawn', async () => {
  const { context, page, seen, view, pixels } = await drawNeighbours(link({ algorithm: 'noisy_gd', steps: 20 }), 'outlier');
  assertDrawn(view, pixels, 'DP-GD');
  assert.equal(view.law.kind, 'gaussian');
  assert.ok(!view.audit.violation, JSON.stringify(view.audit));
  assert.match(await page.textContent('#neighbours-summary'), /N\(μ, 2μ\) with μ = .*a lower bound/);
  // Say what these draws are: a non-private teaching diagnostic.
  assert.match(await page.textContent('#neighbours-panel'), /measured on the raw data \(not private\).*not a\s+private release of your data/s);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('output perturbation: both distributions and the Laplace privacy loss (atoms at ±ε) are drawn', async () => {
  const { context, page, seen, view, pixels } = await drawNeighbours(link({ algorithm: 'output_perturbation', l2: 0.1, delta: 0 }), 'label_flip');
  assertDrawn(view, pixels, 'output perturbation');
  assert.equal(view.law.kind, 'laplace');
  assert.equal(view.loss.atoms.length, 2);
  assert.match(await page.textContent('#neighbours-summary'), /atoms at ±ε/);
  // Cancel: a second, larger draw stops between chunks and says so; the last view stays.
  // (Both clicks in one task: this small toy draws 5000 runs faster than a test can click.)
  await page.selectOption('#neighbour_runs', '5000');
  await page.evaluate(() => {
    document.getElementById('neighbours-run').click();
    document.getElementById('neighbours-cancel').click();
  });
  await page.waitForFunction(() => document.getElementById('neighbours-status').textContent === 'cancelled', null, { timeout: 30_000 });
  assert.equal((await page.evaluate(() => window.__teach.neighbours())).runs, 500);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('another family gets a reason, next to the panel, not a blank plot', async () => {
  const { context, page, seen } = await lab.open(link({ algorithm: 'dp_sgd' }));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#neighbours-panel > summary');
  await page.click('#neighbours-run');
  await page.waitForFunction(() => document.getElementById('neighbours-error').textContent !== '', null, { timeout: 30_000 });
  assert.match(await page.textContent('#neighbours-error'), /Not available for this algorithm\. .*pick DP-GD or output perturbation.*audit tab/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
