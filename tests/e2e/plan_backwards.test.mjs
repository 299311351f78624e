// Planning backwards in the browser, from a fresh page: the target typed beside the guarantee is
// read by Rust (a bad one is refused at its field), the ε the bound gives is said and confirmed by
// a 60-run sweep in workers (a table of the measured excess and its spread at ε/2, ε and 2ε, and
// the ratio of the bound to the measured mean), "Set this ε" puts it on the page, and a target no
// ε can reach is said to be out of reach. At each of three widths the panel is legible: nothing
// wider than the screen, and a screenshot to look at (/tmp/plan-<width>.png).
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

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { state: 'attached', timeout: 30_000 });

async function solve(page, target) {
  await page.fill('#plan-target', target);
  await page.click('#plan-solve');
}

test('the defaults: ε for t = 0.01 is solved, confirmed by a sweep, and set on the page', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.click('#plan-panel > summary');
  await solve(page, '0.01');
  await page.waitForFunction(() => document.getElementById('plan-answer').dataset.kind === 'found', null, { timeout: 60_000 });
  // DP-GD, the page's default algorithm: the bound is 0.01 at ε = 2.46 (tests/playground/plan_backwards.rs).
  assert.match(await page.textContent('#plan-answer'), /^The theory says ε = 2\.46: there the bound on the expected excess risk is /);
  await page.waitForSelector('#plan-table:not([hidden]) tbody tr:nth-child(3)', { timeout: 120_000 });
  await page.waitForFunction(() => document.getElementById('plan-reading').textContent !== '', null, { timeout: 10_000 });
  const rows = await page.$$eval('#plan-table tbody tr', (trs) => trs.map((tr) => ({ eps: Number(tr.dataset.epsilon), mean: Number(tr.dataset.mean), cells: [...tr.cells].map((c) => c.textContent) })));
  assert.deepEqual(rows.map((r) => r.eps), [1.23, 2.46, 4.92]);
  // The measured mean at the answer meets the target (the native acceptance test's 2.2e-3).
  assert.ok(rows[1].mean <= 0.01, JSON.stringify(rows));
  assert.equal(rows[1].cells[6], 'yes');
  // The answer's row is the bold one; every cell on one line.
  assert.equal(await page.$eval('#plan-table tbody tr:nth-child(2)', (tr) => tr.className), 'plan-answer-row');
  const reading = await page.textContent('#plan-reading');
  assert.match(reading, /^Measured over 20 repeats at this ε: mean excess .* within the target 0\.01\./);
  const ratio = Number(await page.getAttribute('#plan-reading', 'data-ratio'));
  assert.ok(ratio > 1, `bound / measured mean = ${ratio}`);
  assert.ok(reading.includes(`${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}× below it`), reading);
  assert.equal(await page.textContent('#plan-apply'), 'Set ε = 2.46 on the page');
  await page.click('#plan-apply');
  await page.waitForFunction(() => document.getElementById('epsilon-typed').value === '2.46');
  await page.waitForFunction(() => /ε = 2\.46/.test(document.getElementById('guarantee-headline').textContent), null, { timeout: 10_000 });
  assert.equal(await page.textContent('#plan-stale'), '', 'setting ε keeps the answer current');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a target out of reach is said, and a bad target is refused at its field', async () => {
  const { context, page } = await lab.open();
  await ready(page);
  await page.click('#plan-panel > summary');
  await solve(page, 'a lot');
  assert.match(await page.textContent('#plan-target-error'), /^target excess risk t: enter a positive number/);
  assert.equal(await page.textContent('#plan-answer'), '');
  await solve(page, '1e-6');
  await page.waitForFunction(() => document.getElementById('plan-answer').dataset.kind === 'out_of_reach', null, { timeout: 60_000 });
  assert.equal(await page.textContent('#plan-target-error'), '');
  assert.match(await page.textContent('#plan-answer'), /^Out of reach: even at ε = 100, the largest the page accepts, the bound is 2\.07e-5 > 1e-6\./);
  assert.ok(await page.isDisabled('#plan-apply'));
  assert.ok(await page.isHidden('#plan-table'));
  await context.close();
});

for (const [name, viewport] of [['wide', { width: 1920, height: 1080 }], ['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the planning panel is legible at ${name} width`, async () => {
    const { context, page } = await lab.open('', viewport);
    await ready(page);
    await page.click('#plan-panel > summary');
    await solve(page, '0.01');
    await page.waitForSelector('#plan-table:not([hidden]) tbody tr:nth-child(3)', { timeout: 120_000 });
    await page.waitForFunction(() => document.getElementById('plan-reading').textContent !== '', null, { timeout: 10_000 });
    await page.locator('#plan-panel').scrollIntoViewIfNeeded();
    await page.locator('#plan-panel').screenshot({ path: `/tmp/plan-${name}.png` });
    const boxes = await page.evaluate(() => ['plan-panel', 'plan-target', 'plan-solve', 'plan-apply', 'plan-answer', 'plan-table', 'plan-reading']
      .map((id) => { const r = document.getElementById(id).getBoundingClientRect(); return { id, left: r.left, right: r.right, width: r.width }; }));
    const width = viewport.width;
    for (const b of boxes) {
      assert.ok(b.width > 0, `${name}: #${b.id} is shown`);
      assert.ok(b.left >= 0 && b.right <= width + 1, `${name}: #${b.id} [${b.left}, ${b.right}] inside the ${width} px screen`);
    }
    // The table fits its panel (no cell cut off), and its text is a readable size.
    const fits = await page.$eval('#plan-table', (t) => t.scrollWidth <= t.parentElement.clientWidth + 1);
    assert.ok(fits, `${name}: the table fits the panel`);
    const size = await page.$eval('#plan-table td', (td) => parseFloat(getComputedStyle(td).fontSize));
    // The lines a cell's text takes: one box per line of a text range.
    const lines = await page.$$eval('#plan-table td', (tds) => tds.map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    }));
    assert.ok(lines.every((n) => n <= 1), `${name}: every cell on one line (${lines})`);
    assert.ok(size >= 11, `${name}: table text ${size}px`);
    await context.close();
  });
}
