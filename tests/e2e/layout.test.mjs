// The layout in the browser, served as the README serves: on a wide screen the
// essentials are in view beside Play on a fresh page, each algorithm shows exactly the settings
// its registry entry lists, everything else waits in a closed "more settings" fold that opens
// itself for an error, and no menu cuts its choice; on a phone the run controls, the guarantee
// and the first plot come first, the other plots are tabs, and no text is under 10 px, neither
// on the page nor in the plots drawn on canvas.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, openMoreSettings, plotsDrawn, session, snapshotCanvas } from './harness.mjs';

const WIDE = { width: 1440, height: 1000 };
const PHONE = { width: 390, height: 844 };
/** The smallest text the issue accepts, in CSS pixels. */
const SMALLEST = 10;

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
const released = (page) => page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });

/** The box of `selector` in viewport coordinates (the page is not scrolled). */
const box = (page, selector) => page.$eval(selector, (el) => {
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
});

test('wide screen: algorithm, ε, tails, n and repeats are in view beside Play on a fresh page, the plots beside them', async () => {
  const { context, page, seen } = await lab.open('', WIDE);
  await ready(page);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  for (const selector of ['#algorithm', '#epsilon', '#tail', '#n', '#repeats', '#play']) {
    assert.ok(await page.isVisible(selector), `${selector} is shown`);
    const b = await box(page, selector);
    assert.ok(b.top >= 0 && b.bottom <= WIDE.height && b.left >= 0 && b.right <= WIDE.width,
      `${selector} lies inside the 1440 × 1000 viewport: ${JSON.stringify(b)}`);
  }
  // Two columns: the first plot starts on the first screen, to the right of the controls.
  const plot = await box(page, '#excess-plot');
  const controls = await box(page, '.controls');
  assert.ok(plot.top < WIDE.height / 2, `the first plot starts high: top ${plot.top}`);
  assert.ok(plot.left >= controls.right, 'the plots are beside the controls');
  // Everything else waits, folded.
  assert.equal(await page.$eval('#more-settings', (d) => d.open), false, 'the "more settings" fold starts closed');
  for (const selector of ['#delta', '#relation', '#seed', '#csv-file', '#grid_resolution', '#domain']) {
    assert.equal(await page.isVisible(selector), false, `${selector} is not among the essentials`);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('every algorithm in the menu shows exactly the settings its registry entry lists, without opening a fold', async () => {
  const { context, page, seen } = await lab.open('', WIDE);
  await ready(page);
  const cards = await page.evaluate(() => window.__dp.run().info.cards);
  const menu = await page.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  assert.deepEqual([...menu].sort(), Object.keys(cards).sort(), 'the menu is the registry');
  // Every field some family reads, named `<key>-field` after its config key.
  const allKeys = [...new Set(Object.values(cards).flatMap((c) => c.settings.map((s) => s.key)))];
  for (const kind of menu) {
    await page.selectOption('#algorithm', kind);
    const shown = await page.evaluate((keys) => keys.filter((k) => {
      const field = document.getElementById(`${k}-field`);
      return field !== null && field.getClientRects().length > 0;
    }), allKeys);
    const listed = cards[kind].settings.map((s) => s.key);
    assert.deepEqual([...shown].sort(), [...listed].sort(), `${kind}: the settings shown are its registry entry's`);
    // …and they sit together under the guarantee, not in a fold, with the entry's own labels.
    const outside = await page.$$eval('#algorithm-settings .field', (fields) => fields
      .filter((f) => f.getClientRects().length > 0 && f.querySelector('input, select'))
      .map((f) => f.id.replace(/-field$/, ''))
      .filter((k) => k !== ''));
    assert.deepEqual([...outside].sort(), [...listed].sort(), `${kind}: the settings block holds those and no other field`);
    for (const s of cards[kind].settings) {
      assert.equal((await page.textContent(`#${s.key}-label`)).trim(), s.label, `${kind}: ${s.key}'s label`);
    }
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});

/**
 * The selects whose chosen text is cut (`everyOption`: true, or the id of one select, whose every
 * option is tried): each is compared with a copy of itself holding only the
 * chosen option, laid out at its natural width (text, padding and arrow), beside it.
 */
const cutSelects = (page, { everyOption }) => page.evaluate((every) => {
  const cut = [];
  for (const select of document.querySelectorAll('select')) {
    if (select.getClientRects().length === 0) continue;
    const all = every === true || every === select.id;
    const indices = all ? [...Array(select.options.length).keys()] : [select.selectedIndex];
    for (const i of indices) {
      const probe = select.cloneNode(false);
      probe.append(select.options[i].cloneNode(true));
      probe.style.cssText = 'width: auto; min-width: 0; max-width: none; position: absolute; visibility: hidden';
      select.parentElement.append(probe);
      const needs = probe.getBoundingClientRect().width;
      probe.remove();
      const has = select.getBoundingClientRect().width;
      if (needs > has + 0.5) cut.push(`#${select.id} “${select.options[i].text}”: needs ${needs.toFixed(0)} px, has ${has.toFixed(0)}`);
    }
  }
  return cut;
}, everyOption);

test('no menu cuts its text: every option of every select on a wide screen; on a phone every algorithm and the chosen entry of every other menu', async () => {
  const { context, page, seen } = await lab.open('', WIDE);
  await ready(page);
  // Every fold open, so that every select is laid out (the page's own folds, the teaching panels).
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  assert.deepEqual(await cutSelects(page, { everyOption: true }), []);
  // A game shows its own menus (the game, its records, the minimax solver).
  await page.selectOption('#problem', 'saddle');
  await ready(page);
  assert.deepEqual(await cutSelects(page, { everyOption: true }), []);
  await context.close();

  const phone = await lab.open('', PHONE);
  await ready(phone.page);
  await phone.page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  assert.deepEqual(await cutSelects(phone.page, { everyOption: 'algorithm' }), []);
  assert.deepEqual([...seen.errors, ...phone.seen.errors], []);
  await phone.context.close();
});

test('an error inside the closed "more settings" fold opens it, and the link beside Play reaches the field', async () => {
  // A link with a value out of range, for a field in the fold: its message shows, the fold open.
  const { context, page, seen } = await lab.open(`#${encodeURIComponent(JSON.stringify({ delta: 0.9 }))}`, WIDE);
  await ready(page);
  assert.notEqual(await page.textContent('#delta-error'), '');
  assert.equal(await page.$eval('#more-settings', (d) => d.open), true, 'the fold opened itself');
  assert.ok(await page.isVisible('#delta-error'));
  await context.close();

  // A refused setting in the fold, the fold closed again by hand: the link beside Play still
  // leads to the field. Output perturbation needs a ridge; λ = 0 typed is refused.
  const fresh = await lab.open('', WIDE);
  await ready(fresh.page);
  assert.equal(await fresh.page.$eval('#more-settings', (d) => d.open), false, 'closed on a fresh page');
  await fresh.page.selectOption('#algorithm', 'output_perturbation');
  await ready(fresh.page);
  await openMoreSettings(fresh.page);
  await fresh.page.fill('#l2', '0');
  await fresh.page.dispatchEvent('#l2', 'change');
  await fresh.page.waitForFunction(() => document.querySelector('#play').disabled);
  await fresh.page.click('#more-settings > summary');
  assert.equal(await fresh.page.isVisible('#l2'), false);
  await fresh.page.click('#play-blocked a');
  assert.equal(await fresh.page.evaluate(() => document.activeElement?.id), 'l2');
  assert.ok(await fresh.page.isVisible('#l2'));
  assert.deepEqual([...seen.errors, ...fresh.seen.errors], []);
  await fresh.context.close();
});

test('phone: the run controls, the guarantee and the first plot come first, the other plots are tabs, panels folded', async () => {
  const { context, page, seen } = await lab.open('', PHONE);
  await ready(page);
  for (const selector of ['#algorithm', '#epsilon', '#play']) {
    const b = await box(page, selector);
    assert.ok(b.bottom <= PHONE.height, `${selector} is on the first screen: ${JSON.stringify(b)}`);
  }
  const guarantee = await box(page, '#guarantee');
  const plot = await box(page, '#excess-plot');
  assert.ok(guarantee.top < plot.top, 'the guarantee comes before the plots');
  assert.ok(plot.top < 2 * PHONE.height, `the first plot starts within the second screen: top ${plot.top}`);
  assert.deepEqual(await page.$$eval('details.panel[open]', (ds) => ds.map((d) => d.id || d.querySelector('summary').textContent)), [],
    'every panel starts folded');
  // One plot at a time: the others are a tab away, and drawn when their tab is picked.
  assert.equal(await page.isVisible('#path-plot'), false);
  await page.click('#play');
  await released(page);
  await plotsDrawn(page);
  await snapshotCanvas(page, '#path-plot');
  await page.click('[role="tab"][aria-controls="path-plot-figure"]');
  assert.equal(await page.getAttribute('[role="tab"][aria-controls="path-plot-figure"]', 'aria-selected'), 'true');
  assert.ok(await page.isVisible('#path-plot'));
  assert.equal(await page.isVisible('#excess-plot'), false);
  await plotsDrawn(page);
  assert.ok(await changedPixels(page, '#path-plot') > 1000, 'the parameter view is drawn when its tab shows it');
  // The keyboard reaches the next tab (arrow keys, as in any tab list).
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls')), 'noise-plot-figure');
  assert.ok(await page.isVisible('#noise-plot'));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('phone: no visible text under 10 px, on the page and in every plot as drawn on its canvas', async () => {
  const { context, page, seen } = await lab.open('', PHONE);
  // Every text a plot draws is recorded with its font, in canvas pixels, and the canvas's width
  // when drawn (plotters-canvas sets `font` and calls fillText).
  await page.addInitScript(() => {
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function record(text, ...rest) {
      const c = this.canvas;
      const px = Number(/([\d.]+)px/.exec(this.font)?.[1]);
      if (c.__drawnWidth !== c.width) Object.assign(c, { __drawnWidth: c.width, __smallestFont: Infinity });
      if (String(text).trim() !== '') c.__smallestFont = Math.min(c.__smallestFont, px);
      return fillText.call(this, text, ...rest);
    };
  });
  await page.reload();
  await ready(page);
  // Open everything a person can open, so the folds' text is checked too.
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await page.click('#play');
  await released(page);
  await plotsDrawn(page);
  const small = await page.evaluate((least) => {
    const found = [];
    for (const el of document.body.querySelectorAll('*')) {
      const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== '');
      if (!ownText || el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < least) found.push(`${el.tagName.toLowerCase()}#${el.id} “${el.textContent.trim().slice(0, 30)}”: ${size} px`);
    }
    return found;
  }, SMALLEST);
  assert.deepEqual(small, [], 'text on the page under 10 px');
  // Every plot, by its tab: the smallest font it drew with, at the scale the canvas is shown.
  const tabs = await page.$$eval('[role="tab"]', (ts) => ts.filter((t) => t.getClientRects().length > 0).map((t) => t.id));
  assert.ok(tabs.length >= 5, `the plots' tabs: ${tabs}`);
  for (const tab of tabs) {
    await page.click(`#${tab}`);
    await plotsDrawn(page);
    const drawn = await page.$eval(`#${tab.replace(/-tab$/, '')}`, (c) => ({
      font: c.__smallestFont, scale: c.clientWidth / c.__drawnWidth, width: c.width, drawnWidth: c.__drawnWidth,
    }));
    assert.ok(Number.isFinite(drawn.font), `${tab}: the plot drew text (${JSON.stringify(drawn)})`);
    assert.equal(drawn.drawnWidth, drawn.width, `${tab}: drawn at the canvas's present size`);
    assert.ok(drawn.font * drawn.scale >= SMALLEST,
      `${tab}: its smallest text is ${drawn.font} canvas px shown at ×${drawn.scale.toFixed(2)}, ${(drawn.font * drawn.scale).toFixed(1)} CSS px`);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('phone: the teaching panels draw at their displayed size, so their 11 px text stays at least 10 px on screen', async () => {
  const { context, page, seen } = await lab.open('', PHONE);
  await ready(page);
  await page.click('#neighbours-panel > summary');
  await page.selectOption('#neighbour_runs', '500');
  await page.click('#neighbours-run');
  await page.waitForFunction(() => document.getElementById('neighbours-status').textContent === 'done', null, { timeout: 60_000 });
  for (const id of ['neighbours-releases', 'neighbours-loss', 'neighbours-profile']) {
    const { width, shown, designed } = await page.$eval(`#${id}`, (c) => ({
      width: c.width, shown: c.clientWidth, designed: Number(c.dataset.designedWidth),
    }));
    // teach-draw.js writes 11 canvas px; shown at shown / width of that.
    const css = (11 * shown) / width;
    assert.ok(css >= SMALLEST, `${id}: 11 canvas px shown at ${css.toFixed(1)} CSS px (${width} drawn, ${shown} shown)`);
    assert.ok(width < designed, `${id}: drawn narrower than its designed ${designed} on a phone`);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});
