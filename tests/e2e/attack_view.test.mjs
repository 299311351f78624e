// End to end: the attacker's view of every algorithm in the menu. On a fresh page, a newcomer
// picks each algorithm from the menu in turn, opens the attacker's view and presses Attack: the ROC and
// the allowed curve are drawn (pixels of the ROC's blue and of the allowed curve's black dashes
// inside the plotting area, not just a canvas), and the measured TPR at 1 % FPR does not exceed
// what the guarantee allows beyond sampling error (the view's Clopper–Pearson check, audit::attack).
// The pitfall switch of DP-GD and of DP-SGD (clipping skipped) and of DP-SVRG++ (step sizes
// from exact gradients) visibly crosses the allowed curve. Seeded (the page's seed 1): the draws are fixed. The test draws 100
// runs a side (the page's default is 100 to 4000 by family): the figure's code is the same.
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

/** Pixels of the ROC canvas near the palette's blue (the measured ROC) and near black (dashes). */
const colours = (page) => page.$eval('#attack-roc', (c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let blue = 0;
  let dark = 0;
  let red = 0;
  for (let i = 0; i < d.length; i += 4) {
    const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
    if (Math.abs(r - 0) < 40 && Math.abs(g - 114) < 40 && Math.abs(b - 178) < 40) blue += 1;
    if (r < 60 && g < 60 && b < 60) dark += 1;
    if (r > 180 && g < 80 && b < 80) red += 1;
  }
  return { blue, dark, red, width: c.width, height: c.height };
});

async function attack(page, runs = '100') {
  await page.evaluate(() => { document.getElementById('attack-panel').open = true; });
  await page.selectOption('#attack_runs', runs);
  await page.$eval('#attack-roc', (c) => c.getContext('2d').clearRect(0, 0, c.width, c.height));
  await page.click('#attack-run');
  await page.waitForFunction(() => ['done', ''].includes(document.getElementById('attack-status').textContent)
    && document.getElementById('attack-run').disabled === false, null, { timeout: 60_000 });
  const error = await page.textContent('#attack-error');
  assert.equal(error, '', error);
  return page.evaluate(() => window.__teach.attack());
}

test('every algorithm picked from the menu of a fresh page shows its attacker view, within the allowed curve', async () => {
  // One fresh page, each algorithm picked from its menu in turn as a person would (a page per
  // algorithm would spend most of the test loading pages).
  const { context, page, seen } = await lab.open();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  const menu = await page.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  assert.ok(menu.length >= 20, `the menu offers every algorithm: ${menu}`);
  const times = {};
  for (const algorithm of menu) {
    const started = Date.now();
    await page.selectOption('#algorithm', algorithm);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    const v = await attack(page);
    assert.equal(v.runs, 100, algorithm);
    // Drawn: the measured staircase (blue) and the allowed dashes (black) inside the figure.
    const px = await colours(page);
    assert.ok(px.blue > 300, `${algorithm}: the ROC is drawn (${px.blue} blue pixels)`);
    assert.ok(px.dark > 1500, `${algorithm}: the allowed curve and axes are drawn (${px.dark} dark pixels)`);
    assert.ok(v.allowed_tpr.length > 100 && v.allowed_tpr.every((t, i) => t >= v.allowed_fpr[i] - 1e-12 && t <= 1), algorithm);
    // Within the guarantee at 1 % FPR, beyond sampling error.
    const one = v.at[0];
    assert.equal(one.target, 0.01);
    assert.ok(!one.exceeds, `${algorithm}: TPR ≥ ${one.tpr_lower} exceeds ${one.allowed_at_upper} at FPR 1 %: ${JSON.stringify(one)}`);
    assert.equal(await page.$eval('#attack-table tbody tr', (tr) => tr.dataset.exceeds), 'false');
    assert.match(await page.textContent('#attack-summary'), /right at most .* of the time .* lower bound/s);
    assert.deepEqual(seen.errors, [], algorithm);
    times[algorithm] = Date.now() - started;
  }
  console.log('ms per algorithm', JSON.stringify(times));
  await context.close();
});

test('the pitfalls of DP-GD and DP-SGD (clipping skipped) and DP-SVRG++ (BB steps from exact gradients) cross the allowed curve, the figure exports as SVG, a draw can be cancelled', async () => {
  for (const algorithm of ['noisy_gd', 'dp_sgd', 'dp_svrg_plus_plus']) {
    const { context, page, seen } = await lab.open();
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    await page.selectOption('#algorithm', algorithm);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    await page.check('#leak');
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    const v = await attack(page, '500');
    const one = v.at[0];
    assert.ok(one.exceeds, `${algorithm}: the leak crosses at FPR 1 %: ${JSON.stringify(one)}`);
    assert.ok(v.leaks.length > 0, algorithm);
    assert.equal(await page.$eval('#attack-summary', (p) => p.dataset.verdict), 'crosses');
    assert.match(await page.textContent('#attack-summary'), /crosses the allowed curve.*NOT PRIVATE/s);
    // Visibly: the red ring at FPR 1 %, and a row that says so.
    const px = await colours(page);
    assert.ok(px.red > 30, `${algorithm}: the crossing is marked (${px.red} red pixels)`);
    assert.equal(await page.$eval('#attack-table tbody tr', (tr) => tr.dataset.exceeds), 'true');
    // The figure as SVG is the same drawing: the title, both legend entries, the ring.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#attack-svg')]);
    const chunks = [];
    for await (const c of await download.createReadStream()) chunks.push(c);
    const svg = Buffer.concat(chunks).toString();
    assert.match(download.suggestedFilename(), /roc.*\.svg$/);
    assert.match(svg, /^<svg[\s\S]*the attacker/);
    assert.match(svg, /allowed \(ε, δ; Gaussian μ/);
    assert.match(svg, /<circle/);
    // Cancel: a larger draw stops between chunks and says so; the last view stays.
    await page.selectOption('#attack_runs', '5000');
    await page.evaluate(() => {
      document.getElementById('attack-run').click();
      document.getElementById('attack-cancel').click();
    });
    await page.waitForFunction(() => document.getElementById('attack-status').textContent === 'cancelled', null, { timeout: 30_000 });
    assert.equal((await page.evaluate(() => window.__teach.attack())).runs, 500);
    assert.deepEqual(seen.errors, [], algorithm);
    await context.close();
  }
});

test('the attacker view is legible at wide, laptop and phone widths (screenshots in target/screenshots/attack-*.png)', async () => {
  const { mkdir } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const { canvasProblems, overflow, recordCanvasText, smallText } = await import('./look.mjs');
  const shots = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));
  await mkdir(shots, { recursive: true });
  const sizes = [
    { name: 'wide', viewport: { width: 1920, height: 1080 }, options: {} },
    { name: 'laptop', viewport: { width: 1280, height: 800 }, options: {} },
    { name: 'phone', viewport: { width: 390, height: 844 }, options: { deviceScaleFactor: 2, isMobile: true, hasTouch: true } },
  ];
  for (const { name, viewport, options } of sizes) {
    // The leaky DP-GD: both curves and the red ring, the table's "yes" row, the longest summary.
    const hash = `#${encodeURIComponent(JSON.stringify({ algorithm: 'noisy_gd', leak: true }))}`;
    const { context, page, seen } = await lab.open('', viewport, options);
    await context.addInitScript(recordCanvasText);
    await page.goto(`${lab.base}${hash}`);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    await page.click('#attack-panel > summary');
    const v = await attack(page, '500');
    assert.ok(!v.within, name);
    await page.$eval('#attack-panel', (el) => el.scrollIntoView());
    await (await page.$('#attack-panel')).screenshot({ path: `${shots}attack-${name}.png` });
    const wide = (await overflow(page)).filter((s) => /attack/.test(s));
    assert.deepEqual(wide, [], `${name}: nothing of the panel is wider than it`);
    assert.deepEqual((await canvasProblems(page)).filter((s) => /attack/.test(s)), [], `${name}: the ROC is drawn at its displayed size`);
    assert.deepEqual((await smallText(page)).filter((s) => /attack/.test(s)), [], name);
    // Every text the plot drew lies inside its figure.
    const boxes = await page.evaluate(async () => (await import('/www/pkg/dp_playground.js')).plotTextBoxes());
    for (const t of boxes.texts) {
      assert.ok(t.left >= -1 && t.top >= -1 && t.right <= boxes.width + 1 && t.bottom <= boxes.height + 1, `${name}: “${t.text}” runs off the figure`);
    }
    assert.deepEqual(seen.errors, [], name);
    await context.close();
  }
});
