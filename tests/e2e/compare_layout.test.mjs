// The compare readout as a person reads it (issue: cramped in the
// 400 px left column, a few letters a line, scrolling sideways). At 1280 × 800, 1440 × 900,
// 1920 × 1080 and on a 390 × 844 phone, after a run of DP-GD compared with DP-SGD, pinned, and
// run again on n = 500 (four rows): the table does not scroll sideways, every value is on one line or at
// least 120 px wide, and on a wide screen it spans the plots' column (at least 600 px) instead of
// the settings' column. Screenshots: target/screenshots/compare-<size>.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launch, openAlgorithmPanel, plotsDrawn, ready, serve } from './harness.mjs';
import { READOUT_MIN } from './look.mjs';

const SHOTS = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));
const SIZES = [
  { name: '1280', viewport: { width: 1280, height: 800 } },
  { name: '1440', viewport: { width: 1440, height: 900 } },
  { name: '1920', viewport: { width: 1920, height: 1080 } },
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
];
/** The least width of the table on a wide screen: the settings' column is 400 px at most. */
const WIDE_MIN = 600;

let server;
let browser;
let base;

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  server = serve();
  base = await server.url;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const released = (page) => page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });

/** The table's geometry: its width, whether it scrolls sideways, and its cramped values. */
const geometry = (page, least) => page.evaluate((least) => {
  const box = document.getElementById('compare-readout');
  const cramped = [];
  for (const td of box.querySelectorAll('tbody td')) {
    // A cell holding a control (Unpin) is not a value.
    if (td.getClientRects().length === 0 || td.textContent.trim() === '' || td.querySelector('button')) continue;
    const range = document.createRange();
    range.selectNodeContents(td);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
    const width = td.getBoundingClientRect().width;
    if (lines.size > 1 && width < least) cramped.push(`“${td.textContent.trim().slice(0, 40)}”: ${lines.size} lines in ${width.toFixed(0)} px`);
  }
  const rows = box.querySelectorAll('tbody tr').length;
  return { width: box.getBoundingClientRect().width, scroll: box.scrollWidth - box.clientWidth, window: window.innerWidth, rows, cramped };
}, least);

for (const size of SIZES) {
  test(`${size.name}: the compare readout reads without sideways scrolling, every value on one line or ≥ ${READOUT_MIN} px wide`, async () => {
    const { viewport, deviceScaleFactor = 1, isMobile = false, hasTouch = false } = size;
    const context = await browser.newContext({ viewport, deviceScaleFactor, isMobile, hasTouch });
    const page = await context.newPage();
    try {
      await page.goto(base);
      await ready(page);
      await openAlgorithmPanel(page);
      await page.check('#compare input[value="dp_sgd"]');
      await ready(page);
      await page.click('#play');
      await released(page);
      await page.click('#pin');
      // The next run on half the data (a released run plays again only once a setting changes).
      await page.fill('#n', '500');
      await page.press('#n', 'Tab');
      await ready(page);
      await page.click('#play');
      await released(page);
      await plotsDrawn(page);
      await page.evaluate(() => document.getElementById('compare-readout').scrollIntoView());
      await page.screenshot({ path: `${SHOTS}compare-${size.name}.png` });
      const g = await geometry(page, READOUT_MIN);
      assert.equal(g.rows, 4, 'two algorithms, run and pinned');
      assert.ok(g.scroll <= 1, `the table scrolls sideways by ${g.scroll} px in ${g.width.toFixed(0)} px`);
      assert.deepEqual(g.cramped, []);
      if (size.name === 'phone') {
        assert.ok(g.width <= g.window, `the table (${g.width} px) fits the ${g.window} px screen`);
      } else {
        assert.ok(g.width >= WIDE_MIN, `the table is ${g.width.toFixed(0)} px wide (at least ${WIDE_MIN}): it has the plots' column`);
      }
    } finally {
      await context.close();
    }
  });
}
