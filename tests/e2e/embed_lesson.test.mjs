// Embed per lesson: a lesson names its main plots (`plots` in its JSON), and its
// embed shows those first, side by side, inside a 900 × 700 frame; a lesson that names none keeps
// the page's first two (the excess risk and the parameter view). Run inside a real <iframe> of
// a page served from another origin, as a course page embeds it, before and after a run; the
// frame's plots pass the legend look (look.mjs). Screenshot:
// target/screenshots/embed-lesson-frame.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launch, plotsDrawn, ready, serve } from './harness.mjs';
import { hostPage, legendProblems } from './look.mjs';

const SHOTS = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));
const FRAME = { width: 900, height: 700 };

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

/** The lesson `id` embedded in a 900 × 700 frame of a page of another origin: its frame. */
async function framed(id) {
  const host = await hostPage(`${base}?embed&lesson=${id}`, FRAME);
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  await page.goto(host.url);
  const inner = await (await page.waitForSelector('#embedded')).contentFrame();
  await ready(inner);
  assert.notEqual(new URL(inner.url()).origin, new URL(host.url).origin, 'the frame is of another origin');
  return { page, inner, close: async () => { await context.close(); await host.close(); } };
}

/** The canvas ids of the first two plots shown, in the order of the page. */
const firstPlots = (inner) => inner.$$eval('#plots > figure', (fs) => fs
  .filter((f) => f.getClientRects().length > 0).slice(0, 2).map((f) => f.querySelector('canvas').id));

/** Whether each of `ids` lies wholly inside the frame, with no scrolling. */
const fits = (inner, ids) => inner.evaluate(([ids, frame]) => ids.map((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return `${id}: ${r.left >= 0 && r.top >= 0 && r.right <= frame.width && r.bottom <= frame.height ? 'inside' : `[${[r.left, r.top, r.right, r.bottom].map(Math.round)}] outside`}`;
}), [ids, FRAME]);

test('a lesson that names its main plots shows them first in its embed, both inside the 900 × 700 frame, before and after a run', async () => {
  const { page, inner, close } = await framed('composition-over-steps');
  try {
    const main = ['privacy-plot', 'excess-plot'];
    assert.deepEqual(await firstPlots(inner), main, 'the lesson\'s plots come first');
    const inside = main.map((id) => `${id}: inside`);
    assert.deepEqual(await fits(inner, main), inside, 'fresh');
    await inner.click('#play');
    await released(inner);
    await plotsDrawn(inner);
    assert.deepEqual(await fits(inner, main), inside, 'after a run');
    // Drawn, not blank: the privacy plot's canvas holds the run's curve.
    const inked = await inner.$eval('#privacy-plot', (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n += 1;
      return n;
    });
    assert.ok(inked > 1000, `the privacy plot is drawn (${inked} inked pixels)`);
    assert.deepEqual(await legendProblems(inner), []);
    await page.screenshot({ path: `${SHOTS}embed-lesson-frame.png` });
  } finally {
    await close();
  }
});

test('a lesson that names no plots keeps the page\'s first two in its embed', async () => {
  const { inner, close } = await framed('noise-vs-epsilon');
  try {
    assert.deepEqual(await firstPlots(inner), ['excess-plot', 'path-plot']);
    assert.deepEqual(await fits(inner, ['excess-plot', 'path-plot']), ['excess-plot: inside', 'path-plot: inside']);
  } finally {
    await close();
  }
});
