// End to end: every residual loss declares a bound on |y|, reached from the loss
// menu on a fresh page; the targets are clipped to it and the bound is shown with the other
// declared constants (the problem line, the release's ledger).
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

test('each residual loss shows a declared label bound that is clipped to, shown, and checked at its field', async () => {
  const { context, page, seen } = await lab.open('');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openMoreSettings(page);
  // The default logistic loss takes ±1 labels: no bound to declare.
  assert.equal(await page.isVisible('#label-bound'), false);
  for (const [kind, dflt] of [['squared', '1'], ['huber', '10'], ['absolute', '10']]) {
    await page.selectOption('#loss', kind);
    await page.waitForSelector('#label-bound', { state: 'visible' });
    assert.equal(await page.inputValue('#label-bound'), dflt, kind);
  }
  // Absolute loss, bound typed by hand: the link, the problem line and the ledger carry it.
  await page.fill('#label-bound', '2.5');
  await page.press('#label-bound', 'Enter');
  await page.locator('#label-bound').blur();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"label_bound":2.5'));
  assert.match(await page.textContent('#problem-line'), /targets to \|y\| ≤ 2\.5/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.match(await page.textContent('#caveats'), /targets clipped to \|y\| ≤ 2\.5 \(absolute loss\)/);
  // A bound of 0 is refused next to the label-bound control, and the last good run stays.
  await page.fill('#label-bound', '0');
  await page.press('#label-bound', 'Enter');
  await page.locator('#label-bound').blur();
  await page.waitForFunction(() => document.getElementById('loss.label_bound-error').textContent !== '');
  assert.match(await page.textContent('[id="loss.label_bound-error"]'), /> 0/);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  assert.deepEqual(seen.errors, []);
  await context.close();
});
