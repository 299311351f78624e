// The privacy filter on the page: González, Guzmán & Paquette's Algorithm 3 stopped by its privacy
// filter. A newcomer picks the algorithm from the menu, raises n, sees Theorem 3.14's gradient
// budget U in the blank field, types one ten times larger and presses Play: the sentence under
// the plots says the privacy filter stopped the run, the ledger's ε spent stays within the stated
// ε, and no theory bound is drawn off the theorem's U.
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

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
const configInUse = (page) => page.evaluate(() => JSON.parse(window.__dp.run().info.config));

async function type(page, id, value) {
  await page.fill(`#${id}`, value);
  await page.dispatchEvent(`#${id}`, 'change');
  await ready(page);
}

test('a gradient budget U ten times Theorem 3.14’s is stopped by the privacy filter within ε', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await openMoreSettings(page);
  await page.selectOption('#algorithm', 'bias_reduced_smd');
  await ready(page);
  await type(page, 'n', '20000');
  // The blank field shows the value it takes: Theorem 3.14's U at these settings.
  assert.ok(await page.isVisible('#budget_u'), 'Algorithm 3 reads the gradient budget U');
  assert.equal(await page.inputValue('#budget_u'), '');
  const shown = await page.getAttribute('#budget_u', 'placeholder');
  const m = shown.match(/^theory: ([\d.]+)$/);
  assert.ok(m, shown);
  const theorem = Number(m[1]);
  assert.ok(theorem >= 4, shown);
  assert.match(await page.textContent('#budget_u-help'), /privacy filter/);
  const stated = (await configInUse(page)).epsilon;
  await type(page, 'budget_u', String(Math.round(10 * theorem)));
  const config = await configInUse(page);
  assert.deepEqual([config.problem, config.algorithm, config.n, config.budget_u],
    ['saddle', 'bias_reduced_smd', 20000, Math.round(10 * theorem)]);
  // Privacy does not move with U; the theorem's bound does not apply off its U.
  assert.match(await page.textContent('#excess-bound-words'), /no theory bound applies/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  const said = await page.textContent('#stop-words');
  assert.ok(await page.isVisible('#stop-reason'));
  assert.match(said, /^Stopped after \d+ steps: the privacy filter stopped the run before step \d+/);
  const caveats = await page.$$eval('#caveats li', (lis) => lis.map((li) => li.textContent));
  const ledger = caveats.map((c) => c.match(/composed by \(ACC\) to ε = ([\d.]+) so far, of the stated ε = ([\d.]+)/)).find(Boolean);
  assert.ok(ledger, caveats.join('\n'));
  const [spent, claimed] = [Number(ledger[1]), Number(ledger[2])];
  assert.equal(claimed, stated);
  assert.ok(spent <= claimed && spent > 0, `ε spent ${spent} of ${claimed}`);
  assert.ok(caveats.some((c) => /typed, not Theorem 3\.14's U/.test(c)), caveats.join('\n'));
  assert.deepEqual(seen.errors, []);
  await context.close();
});
