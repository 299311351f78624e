// End to end: everything the page publishes is added up. The guarantee panel
// states the composed guarantee of all releases of a run before Play; on a loaded CSV file a
// running total counts every run on it, and a cap refuses the run that would exceed it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMoreSettings, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });

test('repeats = 10 typed into the control: the guarantee panel states the composed guarantee of 10 releases before Play', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  assert.match(await page.textContent('#composed-guarantee'), /publishes 1 release: \(ε = 1, δ = 1\.00e-6\)-DP/);
  await page.fill('#repeats', '10');
  await page.press('#repeats', 'Tab');
  await page.waitForFunction(() => document.querySelector('#composed-guarantee').dataset.releases === '10');
  const text = await page.textContent('#composed-guarantee');
  // DP-GD states ρ-zCDP: ten releases compose to ρ·10, far below 10·ε = 10 but above one ε.
  const m = text.match(/publishes 10 releases: together \(ε = ([\d.]+), δ = 1\.00e-5\)-DP, replace-one neighbours \(.*zCDP/);
  assert.ok(m, text);
  const epsilon = Number(m[1]);
  assert.ok(epsilon > 1 && epsilon < 5, text);
  // Stated before anything ran.
  assert.equal(await page.textContent('#release'), 'not yet');
  assert.notEqual(await page.getAttribute('#status', 'data-state'), 'released');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a loaded CSV keeps a running total of what was released on it, and a cap refuses the run that would exceed it', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await openMoreSettings(page);
  const rows = ['x1,x2,label'];
  for (let i = 0; i < 120; i++) {
    const x = [Math.sin(i), Math.cos(3 * i)];
    rows.push(`${x.map((v) => v.toFixed(4)).join(',')},${x[0] + x[1] > 0 ? 1 : -1}`);
  }
  await page.setInputFiles('#csv-file', { name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"data":"csv"'));
  await ready(page);
  assert.match(await page.textContent('#csv-budget'), /mine\.csv: nothing released on it/);

  const total = () => page.$eval('#csv-budget', (el) => ({ runs: Number(el.dataset.runs), epsilon: Number(el.dataset.epsilon), text: el.textContent }));
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  const one = await total();
  assert.equal(one.runs, 1, one.text);
  assert.match(one.text, /1 run, 1 release since it was loaded; together \(ε = 1, δ = 1\.00e-6\)-DP/);

  await page.click('#reset');
  await ready(page);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  const two = await total();
  assert.equal(two.runs, 2, two.text);
  assert.match(two.text, /2 runs, 2 releases since it was loaded; together \(ε = [\d.]+, δ = 2\.00e-6\)-DP/);
  assert.ok(two.epsilon > one.epsilon && two.epsilon < 2 * one.epsilon, two.text);

  // A cap at the total so far: the next run would exceed it, so Play refuses, before any data are
  // read for it, and says so next to Play and next to the cap.
  await page.fill('#budget_cap', String(two.epsilon));
  await page.click('#reset');
  await ready(page);
  await page.click('#play');
  await page.waitForFunction(() => document.querySelector('#run-error').textContent !== '');
  for (const where of ['#run-error', '#budget_cap-error']) {
    assert.match(await page.textContent(where), /^Refused: this run would bring the ε released on mine\.csv to [\d.]+, above the cap ε = [\d.]+/);
  }
  await page.waitForTimeout(500);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'ready');
  assert.equal(await page.textContent('#release'), 'not yet');
  assert.equal((await total()).runs, 2);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
