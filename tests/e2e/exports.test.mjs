// End to end: figures fit for slides. An exported SVG or PNG carries the run's
// settings inside the figure and in its file name; a PNG is drawn at 1×, 2× or 3×; no text of any
// plot runs off its canvas; the parameter view names each thing once and marks releases in red.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { plotsDrawn, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });

async function runToRelease(page) {
  await ready(page);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  await plotsDrawn(page);
}

/** Clicks `selector` and resolves with the download's suggested name and bytes. */
async function saveDownload(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return { name: download.suggestedFilename(), bytes: Buffer.concat(chunks) };
}

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** The texts of an SVG document, in order. */
const svgTexts = (svg) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].trim());

test('an exported SVG names the algorithm and ε inside the figure; another ε is another file name; PNG at 2× is twice the size', async () => {
  const { context, page, seen } = await lab.open();
  await runToRelease(page);

  const first = await saveDownload(page, 'button.svg[data-plot="excess"]');
  const svg = first.bytes.toString('utf8');
  const texts = svgTexts(svg).join('\n');
  assert.match(texts, /DP-GD/, 'the algorithm, in the figure');
  assert.match(texts, /ε = 1\b/, 'ε, in the figure');
  assert.match(texts, /δ = 1e-6/, 'δ, in the figure');
  assert.match(texts, /n = \d+/, 'n, in the figure');
  assert.match(texts, /one run|R = \d+ repeats/, 'the repeats, in the figure');
  assert.match(first.name, /^excess_dp-gd_eps1_delta1e-6_n\d+_R\d+\.svg$/);
  assert.match(first.name, /^[a-z0-9._-]+$/i, 'safe characters only');
  // One algorithm still gets a legend: the figure names what it shows.
  assert.ok(svgTexts(svg).includes('DP-GD'), texts);

  // The PNG at 2× (the menu's default) and at 1×: drawn at the scale, twice the pixels of the
  // figure's designed size (the canvas itself is drawn at the size it is shown).
  const { width, height } = await page.$eval('#excess-plot', (c) => ({ width: Number(c.dataset.designedWidth), height: Number(c.dataset.designedHeight) }));
  const scaleMenu = page.locator('figure:has(#excess-plot) select.png-scale');
  await scaleMenu.selectOption('2');
  const twice = await saveDownload(page, 'button.png[data-canvas="excess-plot"]');
  assert.deepEqual(pngSize(twice.bytes), [2 * width, 2 * height]);
  assert.match(twice.name, /^excess_dp-gd_eps1_delta1e-6_n\d+_R\d+_2x\.png$/);
  await scaleMenu.selectOption('1');
  const once = await saveDownload(page, 'button.png[data-canvas="excess-plot"]');
  assert.deepEqual(pngSize(once.bytes), [width, height]);

  // Another ε: another file name, and the figure says so.
  await page.$eval('#epsilon', (el) => { el.value = '-0.5'; el.dispatchEvent(new Event('change')); });
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"epsilon":0.32'));
  await runToRelease(page);
  const second = await saveDownload(page, 'button.svg[data-plot="excess"]');
  assert.notEqual(second.name, first.name);
  assert.match(second.name, /^excess_dp-gd_eps0\.3[0-9]*_/);
  assert.match(svgTexts(second.bytes.toString('utf8')).join('\n'), /ε = 0\.3/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('the parameter view names DP-GD once, marks its releases red, and its caption names only what is drawn', async () => {
  const { context, page, seen } = await lab.open();
  // Five repeats: five releases in the cloud.
  await ready(page);
  await page.fill('#repeats', '5');
  await page.press('#repeats', 'Enter');
  await page.locator('#repeats').blur();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"repeats":5'));
  await runToRelease(page);
  const { bytes } = await saveDownload(page, 'button.svg[data-plot="path"]');
  const svg = bytes.toString('utf8');
  const texts = svgTexts(svg);
  assert.equal(texts.filter((t) => t === 'DP-GD').length, 1, `DP-GD once in the legend: ${texts.join(' | ')}`);
  assert.ok(texts.includes('DP-GD release (private)'), texts.join(' | '));
  // Release dots in the release red (the players plot's red outlines, the red of "private").
  // (Before, a dot in DP-GD's blue inside a red ring: no red fill at all.)
  const red = svg.match(/<circle[^>]*fill="#D62728"/g) ?? [];
  assert.ok(red.length >= 2 && red.length <= 5 + 1, `the releases in view and the legend's: ${red.length}`);
  // The caption leaves the ball to the legend, which names it only where it is drawn
  // (src/plot_spec/path.rs, PathSpec::ball_visible).
  const words = await page.textContent('#path-words');
  assert.match(words, /sensitivity ball \(dashed, named in the legend where it is large enough to see\)/);
  assert.match(words, /red dots, private/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('no text of any plot runs off its canvas, on the page and in an export with its context line', async () => {
  const { context, page, seen } = await lab.open();
  await runToRelease(page);
  const off = await page.evaluate(async () => {
    const wasm = await import('/www/pkg/dp_playground.js');
    const { spec } = await import('/www/drawing/plots.js');
    const { plotter, run } = window.__dp;
    const found = [];
    const check = (kind, how) => {
      const { width, height, texts } = wasm.plotTextBoxes();
      for (const t of texts) {
        if (t.left < 0 || t.top < 0 || t.right > width || t.bottom > height) found.push(`${kind} (${how}): "${t.text}" at [${t.left}, ${t.top}, ${t.right}, ${t.bottom}] in ${width} × ${height}`);
      }
      return texts.length;
    };
    const counts = {};
    let pathTitle = null;
    for (const kind of ['excess', 'path', 'noise', 'privacy', 'features']) {
      const canvas = document.getElementById(`${kind}-plot`);
      const s = spec(run(), kind, plotter().theories);
      wasm.drawPlot(kind, canvas, s);
      counts[kind] = check(kind, 'page');
      if (kind === 'path') pathTitle = wasm.plotTextBoxes().texts.find((t) => t.text.startsWith('parameter view'));
      const { caption } = wasm.figureContext(kind, run().info.config);
      wasm.plotSvg(kind, { ...s, context: caption }, canvas.width, canvas.height);
      check(kind, 'export');
    }
    return { found, counts, pathTitle };
  });
  assert.deepEqual(off.found, []);
  // The parameter view's title (cut at both ends before) was among the texts measured.
  assert.ok(off.pathTitle, 'the parameter view has a title');
  for (const [kind, n] of Object.entries(off.counts)) assert.ok(n >= 5, `${kind}: ${n} texts measured`);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('the phased run (Zhang et al. 2022, Algorithm 2) shows its step count as a short number', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.selectOption('#algorithm', 'byoa_phased');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"algorithm":"byoa_phased"'));
  await runToRelease(page);
  // Its passes over chunks of n̄ records add up to 3 up to rounding: it read 3.000000000000001.
  const steps = await page.textContent('#step-count');
  assert.match(steps, /^\d+(\.\d{1,4})?$/, steps);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a figure exported on a phone has the designed size, not the size the phone fits the canvas to', async () => {
  const { context, page, seen } = await lab.open('', { width: 390, height: 844 });
  await runToRelease(page);
  const shown = await page.$eval('#excess-plot', (c) => [c.width, c.height]);
  const designed = await page.$eval('#excess-plot', (c) => [Number(c.dataset.designedWidth), Number(c.dataset.designedHeight)]);
  // index.html's size, and the phone draws narrower than it.
  assert.deepEqual(designed, [640, 460]);
  assert.ok(shown[0] < designed[0], `fitted to the phone: ${shown}`);
  await page.locator('figure:has(#excess-plot) select.png-scale').selectOption('1');
  const png = await saveDownload(page, 'button.png[data-canvas="excess-plot"]');
  assert.deepEqual(pngSize(png.bytes), designed);
  const svg = (await saveDownload(page, 'button.svg[data-plot="excess"]')).bytes.toString('utf8');
  assert.match(svg, /<svg[^>]*width="640"[^>]*height="460"/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
