// The page as a person sees it, at 1280 × 800, 1440 × 900,
// 1920 × 1080 and on a 390 × 844 phone (device scale 2), on a fresh page, after a run and with
// every panel open, and embedded in an <iframe> of a page from another origin: nothing wider
// than the screen or its panel, every readout value readable (one line, or at least 120 px
// wide), no text under 10 CSS px on the page or drawn on a canvas, every canvas drawn at its
// displayed size × devicePixelRatio, legends and notes inside their plot, off the axis labels,
// each other, w* and the release and off the data (look.mjs legendProblems), and no serious
// or critical axe-core violation. Items 1 (the readout), 2 (the phone), 3 (Share and embed) and 9
// (the long page) each have their own test below. Screenshots of every state go to
// target/screenshots/look-*.png for a person to review.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { launch, plotsDrawn, serve } from './harness.mjs';
import {
  axeViolations, canvasProblems, cramped, hostPage, legendProblems, overflow, recordCanvasText, smallText,
} from './look.mjs';

const SHOTS = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));
const SIZES = [
  { name: '1280', viewport: { width: 1280, height: 800 } },
  { name: '1440', viewport: { width: 1440, height: 900 } },
  { name: '1920', viewport: { width: 1920, height: 1080 } },
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
];
const LESSON = 'noise-vs-epsilon';

let server;
let base;
let browser;
/** What each size and state measured: seen[size][state] = { overflow, cramped, small, canvases, legends, axe }. */
const seen = {};
/** Console and page errors, by where they came from. */
const errors = [];

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
const released = (page) => page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });

async function newPage(size, extra = {}) {
  const { viewport, deviceScaleFactor = 1, isMobile = false, hasTouch = false } = size;
  const context = await browser.newContext({ viewport, deviceScaleFactor, isMobile, hasTouch, ...extra });
  await context.addInitScript(recordCanvasText);
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${size.name}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`${size.name}: ${e}`));
  return { context, page };
}

/** Everything looked at in one state; `plots` also checks the run's legends. */
async function measure(page, { plots = false } = {}) {
  return {
    overflow: await overflow(page),
    cramped: await cramped(page),
    small: await smallText(page),
    canvases: await canvasProblems(page),
    legends: plots ? await legendProblems(page) : [],
    axe: await axeViolations(page),
  };
}

/** On a phone the plots are tabs: each one's canvas is looked at with its tab picked. */
async function eachTab(page, look) {
  const tabs = await page.$$eval('[role="tab"]', (ts) => ts.filter((t) => t.getClientRects().length > 0).map((t) => t.id));
  if (tabs.length === 0) return look();
  const found = [];
  for (const tab of tabs) {
    await page.click(`#${tab}`);
    await plotsDrawn(page);
    found.push(...(await look()).map((p) => `(${tab}) ${p}`));
  }
  await page.click(`#${tabs[0]}`);
  return found;
}

const shot = (page, name, fullPage = false) => page.screenshot({ path: `${SHOTS}look-${name}.png`, fullPage });

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  server = serve();
  base = await server.url;
  browser = await launch();
  // One pass over every size and state; the tests below read what it saw.
  for (const size of SIZES) {
    const { context, page } = await newPage(size);
    await page.goto(`${base}?lesson=${LESSON}`);
    await ready(page);
    const at = { fresh: await measure(page) };
    await shot(page, `${size.name}-fresh`);
    await page.click('#play');
    await released(page);
    await plotsDrawn(page);
    at.run = await measure(page, { plots: true });
    if (size.name === 'phone') {
      at.run.canvases = await eachTab(page, () => canvasProblems(page));
      at.run.legends = await eachTab(page, () => legendProblems(page));
    }
    await shot(page, `${size.name}-run`);
    await page.evaluate(() => document.querySelector('.readout').scrollIntoView());
    await shot(page, `${size.name}-run-readout`);
    // Every panel open, the teaching panels' figures drawn.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await page.selectOption('#neighbour_runs', '500');
    await page.click('#neighbours-run');
    await page.waitForFunction(() => document.getElementById('neighbours-status').textContent === 'done', null, { timeout: 60_000 });
    await page.click('#audit-run');
    await page.waitForFunction(() => !document.getElementById('audit-run').disabled
      && document.getElementById('audit-result').textContent !== '', null, { timeout: 60_000 });
    await plotsDrawn(page);
    at.panels = await measure(page);
    if (size.name === 'phone') at.panels.canvases = await eachTab(page, () => canvasProblems(page));
    await shot(page, `${size.name}-panels`, true);
    seen[size.name] = at;
    await context.close();
  }
});

after(async () => {
  await browser?.close();
  server?.stop();
});

/** The problems of `what` in every listed size and state, as one list naming where each is. */
function problems(what, sizes = Object.keys(seen), states = ['fresh', 'run', 'panels']) {
  return sizes.flatMap((size) => states.flatMap((state) => (seen[size]?.[state]?.[what] ?? [`${size} ${state}: not measured`])
    .map((p) => `${size} ${state}: ${p}`)));
}

test('item 1: on wide screens every readout value is on one line or at least 120 px wide, before and after a run', () => {
  assert.deepEqual(problems('cramped', ['1280', '1440', '1920'], ['fresh', 'run', 'panels']), []);
});

test('item 2: on a 390 × 844 phone nothing is wider than the screen or its panel, and the readout is readable', () => {
  assert.deepEqual(problems('overflow', ['phone']), []);
  assert.deepEqual(problems('cramped', ['phone']), []);
});

test('at every size: no horizontal overflow of the document or of any panel', () => {
  assert.deepEqual(problems('overflow'), []);
});

test('at every size: no text under 10 CSS px, on the page or drawn on a canvas; every canvas drawn at its displayed size × devicePixelRatio', () => {
  assert.deepEqual(problems('small'), []);
  assert.deepEqual(problems('canvases'), []);
});

test('axe-core: no serious or critical violation at any size or state', () => {
  assert.deepEqual(problems('axe'), []);
});

test('no console or page error in any state', () => {
  assert.deepEqual(errors, []);
});

test('item 3: Share gives the link, the embed link and an <iframe>; embedded in a page of another origin, a 900 × 700 frame shows the guarantee with its noise scale, the readout, the question and the main plots', async () => {
  const wide = SIZES[0];
  const { context, page } = await newPage(wide, { permissions: ['clipboard-read', 'clipboard-write'] });
  await page.goto(`${base}?lesson=${LESSON}`);
  await ready(page);
  await page.click('#share > summary');
  // The fields fill on the fold's toggle event, a task after the click.
  await page.waitForFunction(() => document.getElementById('share-link').value !== '');
  const link = await page.evaluate(() => location.href);
  assert.equal(await page.inputValue('#share-link'), link);
  const embedLink = await page.inputValue('#share-embed');
  assert.equal(embedLink, link.replace(`?lesson=${LESSON}`, `?embed&lesson=${LESSON}`), 'the embed link is the link with ?embed');
  const snippet = await page.inputValue('#share-iframe');
  const frame = await page.evaluate((html) => {
    const f = new DOMParser().parseFromString(html, 'text/html').querySelector('iframe');
    return f && { src: f.getAttribute('src'), width: f.getAttribute('width'), height: f.getAttribute('height'), title: f.getAttribute('title') };
  }, snippet);
  assert.deepEqual(frame, { src: embedLink, width: '900', height: '700', title: 'dp-playground: Noise against ε' });
  await page.click('#share button[data-copy="share-iframe"]');
  await page.waitForFunction(() => document.getElementById('share-status').textContent !== '');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet, 'Copy puts the snippet on the clipboard');
  assert.match(await page.textContent('#share-status'), /^Copied the <iframe>/);
  await context.close();

  // The snippet's link, framed by a page of another origin (another port), as a course page would.
  const host = await hostPage(embedLink);
  try {
    const framed = await newPage({ name: 'embed', viewport: { width: 1000, height: 800 } });
    await framed.page.goto(host.url);
    const handle = await framed.page.waitForSelector('#embedded');
    const inner = await handle.contentFrame();
    await ready(inner);
    assert.notEqual(new URL(inner.url()).origin, new URL(host.url).origin, 'the frame is of another origin');
    const shown = (selector) => inner.locator(selector).first().isVisible();
    for (const selector of ['#guarantee-headline', '#guarantee-detail', '#status', '#excess', '#release', '#embed-question', '#epsilon', '#play', '#excess-plot', '#path-plot']) {
      assert.equal(await shown(selector), true, `${selector} is shown in the frame`);
    }
    assert.match(await inner.textContent('#guarantee-headline'), /ε = 0\.2/);
    assert.match(await inner.textContent('#guarantee-detail'), /ℓ2-Laplace scale/);
    assert.match(await inner.textContent('#embed-question'), /Move ε from 0\.2 to 2/);
    // The main plots inside the frame's first screen, with no scrolling, before and after a run.
    const mainPlotsFit = async (when) => {
      for (const selector of ['#excess-plot', '#path-plot']) {
        const r = await inner.$eval(selector, (el) => el.getBoundingClientRect().toJSON());
        assert.ok(r.top >= 0 && r.bottom <= 700 && r.left >= 0 && r.right <= 900, `${when}: ${selector} lies in the 900 × 700 frame: ${JSON.stringify(r)}`);
      }
    };
    await mainPlotsFit('fresh');
    await inner.click('#play');
    await released(inner);
    await plotsDrawn(inner);
    await mainPlotsFit('after a run');
    assert.match(await inner.textContent('#release'), /\d/);
    assert.match(await inner.textContent('#excess'), /\d/);
    await shot(framed.page, 'embed-frame');
    // Every look in the frame; its legends are checked with the others' (the last test).
    const { legends, ...looked } = await measure(inner, { plots: true });
    seen.embed = { run: { legends } };
    assert.deepEqual(Object.values(looked).flat(), [], 'the frame passes every look');
    await framed.context.close();
  } finally {
    await host.close();
  }
  assert.deepEqual(errors, []);
});

test('item 9: links at the top reach the readout, the exports and the audit; the card and the compare boxes start folded, their summary saying what is compared', async () => {
  const { context, page } = await newPage(SIZES[0]);
  await page.goto(base);
  await ready(page);
  const hash = await page.evaluate(() => location.hash);
  const inView = (selector) => page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return r.top >= -1 && r.top < window.innerHeight && r.height > 0;
  });
  for (const [link, target] of [['Readout', '#readout'], ['Export and share', '#exports'], ['Audit', '#audit-panel > summary']]) {
    await page.evaluate(() => window.scrollTo(0, 0));
    const top = await page.$eval('nav.jump', (n) => n.getBoundingClientRect().top);
    assert.ok(top >= 0 && top < 200, `the links are at the top: ${top}`);
    await page.click(`nav.jump >> text=${link}`);
    assert.equal(await inView(target), true, `“${link}” brings ${target} into view`);
    assert.equal(await page.evaluate(() => location.hash), hash, 'the settings in the address stay');
  }
  assert.equal(await page.$eval('#audit-panel', (d) => d.open), true, 'the audit link opens its panel');
  // Folded: the card and the 27 boxes, the summary naming what is compared.
  assert.equal(await page.$eval('#algorithm-panel', (d) => d.open), false);
  assert.equal(await page.isVisible('#compare input'), false);
  assert.equal(await page.isVisible('#card-body'), false);
  assert.match(await page.textContent('#algorithm-panel > summary'), /compared with none/);
  await page.click('#algorithm-panel > summary');
  await page.check('#compare input[value="dp_sgd"]');
  await ready(page);
  assert.match(await page.textContent('#algorithm-panel > summary'), /compared with DP-SGD/);
  // A link that compares says so in the folded summary too.
  const withCompare = await page.evaluate(() => location.href);
  await page.goto('about:blank');
  await page.goto(withCompare);
  await ready(page);
  assert.equal(await page.$eval('#algorithm-panel', (d) => d.open), false);
  assert.match(await page.textContent('#algorithm-panel > summary'), /compared with DP-SGD/);
  await context.close();
  assert.deepEqual(errors, []);
});

test('at every size and in the frame: each legend and note lies inside its plot, over no tick label, title, note or key mark (w*, a release), and covers at most 5 % of the drawn data', () => {
  assert.deepEqual(problems('legends', Object.keys(seen), ['run']), []);
});
