// n = 10⁶ in a tab: a newcomer types n = 1000000 and d = 20. Preparing that problem
// (generating 2·10⁷ values, certifying the reference) is one long call in the worker, so the
// worker reports its progress, the page shows it, the next setting does not wait behind it, and
// Cancel stops it (by replacing the busy worker). The timings are reported by
// `node scripts/measure-tab.mjs large`, not asserted here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMoreSettings, plotsDrawn, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** Types a number and leaves the field, as a person does: the field's change starts a run. */
async function typeNumber(page, id, value) {
  await page.fill(`#${id}`, String(value));
  await page.$eval(`#${id}`, (input) => input.blur());
}

test('a large problem shows its progress while prepared, and Cancel stops it', async () => {
  const { page, seen } = await lab.open();
  await page.waitForSelector('#status[data-state="ready"]');
  await typeNumber(page, 'n', 1_000_000);
  await openMoreSettings(page);
  await typeNumber(page, 'd', 20);
  await page.waitForFunction(() => /^preparing: [a-z -]+( \(non-private\))?, \d+%$/
    .test(document.querySelector('#status').textContent));
  assert.equal(await page.isVisible('#progress'), true, 'the bar shows how far it got');
  assert.ok((await page.evaluate(() => window.__dp.received().progress)) > 0);
  assert.equal(await page.isEnabled('#cancel'), true);
  await page.click('#cancel');
  await page.waitForSelector('#status[data-state="stopped"]');
  assert.equal(await page.textContent('#status'), 'cancelled while preparing: Reset prepares it again');
  assert.equal(await page.isEnabled('#play'), false, 'nothing to play: the run was never prepared');
  // The fresh worker takes the next setting at once: a small problem is ready and runs.
  await typeNumber(page, 'n', 500);
  await page.waitForSelector('#status[data-state="ready"]');
  const info = await page.evaluate(() => JSON.parse(window.__dp.run().info.config));
  assert.deepEqual([info.n, info.d], [500, 20]);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]');
  await plotsDrawn(page);
  assert.deepEqual(seen.errors, []);
});
