// The plots read the right way to a person. A one-shot
// method's excess plot shows its release, not its non-private solver's fall to 10⁻⁷; a noisy
// curve keeps every step on its log axis (a value under the axis drawn at its floor and marked);
// a fresh page draws the default algorithm's bound; a game's plot names the duality gap; an
// empty noise plot says why; the vertex view, the sweep and the audit chart are legible at the
// size they are displayed; a pin's label names the setting that differs.
// Screenshots go to target/screenshots/ for a person to look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openGame, plotsDrawn, ready, session } from './harness.mjs';
import { legendProblems } from './look.mjs';

const shots = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));
mkdirSync(shots, { recursive: true });

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const link = (config) => `#${encodeURIComponent(JSON.stringify(config))}`;

async function playToRelease(page) {
  await ready(page);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 90_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  await plotsDrawn(page);
}

/** Draws plot `kind` of the page's run again on its canvas and returns every text it drew. */
const drawnTexts = (page, kind, extra = {}) => page.evaluate(async ({ kind, extra }) => {
  const wasm = await import('/www/pkg/dp_playground.js');
  wasm.drawPlot(kind, document.getElementById(`${kind}-plot`), { ...window.__dp.spec(kind), ...extra });
  return wasm.plotTextBoxes().texts.map((t) => t.text);
}, { kind, extra });

/** Pixels of a canvas in the release red (crates/wasm/src/wasm/plot/mod.rs RELEASE_COLOR), as drawn by the page. */
const redPixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - 214) < 8 && Math.abs(data[i + 1] - 39) < 8 && Math.abs(data[i + 2] - 40) < 8) n += 1;
  }
  return n;
});

test('item 4: output perturbation beside DP-GD shows its release as the salient mark, its solver path faint and named', async () => {
  const { context, page, seen } = await lab.open(
    link({ algorithm: 'noisy_gd', compare: ['output_perturbation'], l2: 0.1 }), { width: 1440, height: 1000 });
  await playToRelease(page);
  const spec = await page.evaluate(() => window.__dp.spec('excess'));
  const [gd, op] = spec.series;
  assert.equal(gd.solverPath, false, 'DP-GD’s every iterate is noisy: its curve is its own');
  assert.equal(op.solverPath, true, 'output perturbation’s curve is its non-private solver’s');
  const released = await page.evaluate(() => window.__dp.run().lanes[1][0].release.excess);
  assert.equal(op.release.y, released, 'the release mark sits at the released excess');
  // The path stops before the release: no hairline from the solver's 10⁻⁷ up to the release.
  assert.ok(op.mean.length < (await page.evaluate(() => window.__dp.run().lanes[1][0].excess.length)));
  // The release is on the plot, and above the solver's last point (the plot used to read the
  // other way round).
  const axes = await page.evaluate(() => window.__dp.axes('excess'));
  assert.ok(op.release.y > axes.y[0] && op.release.y < axes.y[1], `${op.release.y} within ${axes.y}`);
  assert.ok(op.release.y > op.mean[op.mean.length - 1], 'the release above the solver’s end');
  // What a person sees: the release dots in the release red, and the legend's words.
  assert.ok(await redPixels(page, '#excess-plot') > 40, 'the releases are drawn as red-ringed dots');
  await page.locator('#excess-plot').screenshot({ path: `${shots}one-shot-beside-dp-gd.png` });
  const texts = await drawnTexts(page, 'excess');
  // An entry may wrap onto two lines (seven entries since output perturbation's class lower
  // bound joined them): read as a person reads it, line after line.
  const read = texts.join(' ');
  assert.ok(read.includes(`${op.label}: solver path (not released)`), texts.join(' | '));
  assert.ok(read.includes(`${op.label} release (private)`), texts.join(' | '));
  assert.ok(read.includes(`${gd.label} release (private)`), texts.join(' | '));
  assert.ok(texts.includes('lower bound (worst case, constant 1)'), texts.join(' | '));
  // Seven legend entries beside two algorithms: inside the plot, over no axis text, note or
  // release, and off the curves (look.mjs).
  assert.deepEqual(await legendProblems(page), []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('item 4: a dip or a zero of a noisy curve is drawn at the axis floor and marked, not dropped and not stretching the axis', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  const out = await page.evaluate(async () => {
    const wasm = await import('/www/pkg/dp_playground.js');
    // 200 steps around 10⁻², one excess of 0 (the certified floor) and one of 10⁻⁹.
    const x = Array.from({ length: 200 }, (_, i) => i + 1);
    const mean = x.map((i) => 1e-2 * (1 + 0.5 * Math.sin(i)));
    mean[80] = 0;
    mean[150] = 1e-9;
    const spec = { series: [{ label: 'DP-GD', x, mean }] };
    const canvas = document.getElementById('excess-plot');
    wasm.drawPlot('excess', canvas, spec);
    return { axes: wasm.plotAxes('excess', spec), texts: wasm.plotTextBoxes().texts.map((t) => t.text) };
  });
  assert.ok(out.axes.y[0] > 1e-4, `the axis stops near the curve, not at the dip: ${out.axes.y}`);
  assert.ok(out.texts.includes('▼ under the axis: drawn at its floor'), out.texts.join(' | '));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('item 10: a fresh page draws the default algorithm’s bound; without a ridge the caption says which control would', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  const info = await page.evaluate(() => window.__dp.run().info);
  assert.equal(JSON.parse(info.config).algorithm, 'noisy_gd');
  assert.ok(info.theories[0]?.x?.length > 0, 'DP-GD’s bound applies to the default settings');
  assert.equal(await page.textContent('#excess-bound-words'), 'the theory bound dashed');
  await playToRelease(page);
  const spec = await page.evaluate(() => window.__dp.spec('excess'));
  assert.ok(spec.series[0].theoryY.length > 1, 'the bound is in the plot');
  await page.locator('#excess-plot').screenshot({ path: `${shots}fresh-page-bound.png` });
  await context.close();

  const bare = await lab.open(link({ l2: 0 }));
  await ready(bare.page);
  assert.match(await bare.page.textContent('#excess-bound-words'),
    /^no theory bound applies to these settings; to draw DP-GD’s, set the ridge λ above 0 \(ridge λ, under More settings\)/);
  assert.deepEqual([...seen.errors, ...bare.seen.errors], []);
  await bare.context.close();
});

test('item 11: a game’s excess plot reads “duality gap”; mirror descent’s empty noise plot says why; the vertex view’s text is ≥ 10 CSS px', async () => {
  const opened = await openGame(lab);
  const { page, context, seen } = opened;
  await page.selectOption('#game', 'rock_paper_scissors');
  await page.fill('#d', '3');
  await page.dispatchEvent('#d', 'change');
  await page.selectOption('#algorithm', 'private_smd');
  await playToRelease(page);
  const excess = await drawnTexts(page, 'excess');
  assert.ok(excess.includes('duality gap'), excess.join(' | '));
  assert.ok(!excess.includes('F(w) − F*'), excess.join(' | '));
  const noise = (await drawnTexts(page, 'noise')).join(' ');
  assert.match(noise, /adds no Gaussian or Laplace noise/);
  // The vertex view at the size it is displayed: each text's height in CSS pixels.
  await page.evaluate(() => window.__dp.plotter().redraw(document.getElementById('vertices-plot')));
  await plotsDrawn(page);
  const sizes = await page.evaluate(async () => {
    const wasm = await import('/www/pkg/dp_playground.js');
    const canvas = document.getElementById('vertices-plot');
    const { displayedSize } = await import('/www/drawing/fit.js');
    const size = displayedSize(canvas);
    wasm.drawPlotScaled('vertices', canvas, window.__dp.spec('vertices'), size.width, size.height, size.scale);
    const { width, texts } = wasm.plotTextBoxes();
    const css = canvas.getBoundingClientRect().width / width;
    return texts.map((t) => ({ text: t.text, px: (t.bottom - t.top) * css }));
  });
  assert.ok(sizes.length >= 6, JSON.stringify(sizes));
  const small = sizes.filter((s) => s.px < 10);
  assert.deepEqual(small, [], 'every text of the vertex view is at least 10 CSS px tall');
  await page.locator('#vertices-plot').screenshot({ path: `${shots}vertex-view.png` });
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('item 11: the audit chart is drawn at its displayed size × devicePixelRatio, at 1× and 2×', async () => {
  for (const deviceScaleFactor of [1, 2]) {
    const { context, page } = await lab.open('', { width: 1440, height: 900 }, { deviceScaleFactor });
    await ready(page);
    await page.click('#audit-panel > summary');
    await page.selectOption('#audit_scenario', 'gaussian_mean');
    await page.check('input[name="audit_bug"][value="none"]');
    await page.click('#audit-run');
    await page.waitForFunction(() => document.getElementById('audit-status').textContent === 'done', null, { timeout: 60_000 });
    // Its content box as displayed (the CSS border is outside the drawing).
    const c = await page.$eval('#audit-plot', (el) => ({
      width: el.width, height: el.height, shown: { width: el.clientWidth, height: el.clientHeight }, dpr: window.devicePixelRatio,
    }));
    assert.equal(c.dpr, deviceScaleFactor);
    assert.ok(Math.abs(c.width - c.shown.width * c.dpr) <= 2, `backing ${c.width} for ${c.shown.width} CSS px at ${c.dpr}×`);
    assert.ok(Math.abs(c.height - c.shown.height * c.dpr) <= 2, `backing ${c.height} for ${c.shown.height} CSS px at ${c.dpr}×`);
    if (deviceScaleFactor === 2) await page.locator('#audit-plot').screenshot({ path: `${shots}audit-2x.png` });
    await context.close();
  }
});

test('item 11: a pin’s label names the setting that differs (C = 0.1)', async () => {
  const { context, page, seen } = await lab.open(link({ algorithm: 'dp_sgd', clip: 0.1, steps: 20 }));
  await playToRelease(page);
  await page.click('#pin');
  // The next run differs only in its clip C.
  await page.fill('#clip', '0.5');
  await page.dispatchEvent('#clip', 'change');
  await ready(page);
  const labels = await page.evaluate(() => window.__dp.spec('excess').pinned.map((p) => p.label));
  assert.deepEqual(labels, ['pinned: ε = 1, DP-SGD, C = 0.1']);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
