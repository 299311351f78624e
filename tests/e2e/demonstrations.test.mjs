// Demonstrations in the browser: a demonstration that voids the guarantee (the leak toggle,
// DP-SVRG's noise "as printed") says NOT PRIVATE in the headline before Play, reached the way a
// newcomer would: a fresh page, the menu and the controls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const headline = (page) => page.textContent('#guarantee-headline');

/** Waits until the headline says NOT PRIVATE, then checks that nothing has been released. */
async function notPrivateBeforePlay(page, what) {
  await page.waitForFunction(() => /NOT PRIVATE/.test(document.querySelector('#guarantee-headline').textContent), null, { timeout: 30_000 });
  assert.match(await headline(page), /^NOT PRIVATE/, what);
  assert.equal(await page.textContent('#release'), 'not yet', `${what}: before Play`);
  assert.notEqual(await page.getAttribute('#status', 'data-state'), 'released', what);
  const reasons = await page.$$eval('#guarantee-leaks li.leak', (els) => els.map((el) => el.textContent));
  assert.ok(reasons.length > 0 && reasons.every((r) => /^NOT /.test(r)), `${what}: ${reasons}`);
  return reasons;
}

test('the leak toggle puts NOT PRIVATE in the headline before Play, with the reasons the ledger gives', async () => {
  const { context, page, seen } = await lab.open();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.doesNotMatch(await headline(page), /NOT PRIVATE/);
  assert.match(await headline(page), /-DP/);
  // DP-GD (the default), then DP-SGD picked from the menu.
  await page.check('#leak');
  const gdReasons = await notPrivateBeforePlay(page, 'DP-GD with the leak');
  assert.match(gdReasons.join(' '), /not clipped/);
  // Its card says the demonstration leaves the features unclipped, and the problem line says so.
  assert.match(await page.textContent('#problem-line'), /features NOT clipped/);
  await page.selectOption('#algorithm', 'dp_sgd');
  await page.waitForFunction(() => document.querySelector('#algorithm-title').textContent.startsWith('DP-SGD'));
  const sgdReasons = await notPrivateBeforePlay(page, 'DP-SGD with the leak');
  assert.match(sgdReasons.join(' '), /not clipped/);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  // One source: the ledger after the run states the same sentences the headline showed before.
  const ledger = await page.$$eval('#caveats li.leak', (els) => els.map((el) => el.textContent));
  assert.deepEqual(ledger, sgdReasons);
  // Turned off, the claim is a guarantee again.
  await page.uncheck('#leak');
  await page.waitForFunction(() => !/NOT PRIVATE/.test(document.querySelector('#guarantee-headline').textContent));
  assert.equal(await page.$$eval('#guarantee-leaks li', (els) => els.length), 0);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('DP-SVRG with its noise "as printed" says NOT PRIVATE in the headline before Play', async () => {
  // Without the default's ridge, so that the pick has one to set.
  const { context, page, seen } = await lab.open(`#${encodeURIComponent('{"l2":0}')}`);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.selectOption('#algorithm', 'dp_svrg');
  // DP-SVRG needs a ridge: picking it sets one, and the note beside the menu says so.
  await page.waitForFunction(() => document.querySelector('#algorithm-title').textContent.startsWith('DP-SVRG'));
  assert.match(await page.textContent('#algorithm-note'), /ridge l2 set to 0\.1/);
  assert.doesNotMatch(await headline(page), /NOT PRIVATE/, 'certified noise is a guarantee');
  assert.match(await page.textContent('#problem-line'), /features clipped to/);
  await page.selectOption('#svrg_noise', 'as_printed');
  const reasons = await notPrivateBeforePlay(page, 'DP-SVRG as printed');
  assert.match(reasons.join(' '), /NOT CERTIFIED/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
