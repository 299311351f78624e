// End to end: a newcomer runs at ε = 0.1, pins it, runs at ε = 5, and sees
// both runs on the excess and parameter plots with the axes held, a compare readout with every
// algorithm's final excess, and the composed total of everything on screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openAlgorithmPanel, plotsDrawn, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** Moves the ε slider (log10 scale) as a person would, committing the value. */
async function slideEpsilon(page, log10) {
  await page.$eval('#epsilon', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input'));
    el.dispatchEvent(new Event('change'));
  }, log10);
}

async function playToRelease(page) {
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  await plotsDrawn(page);
}

/**
 * How many pixels of plot `kind`'s canvas differ from the same spec drawn without its pinned
 * layers on a fresh canvas of the same size: 0 when no pin is drawn.
 */
function pixelsOfPins(page, kind) {
  return page.evaluate(async (kind) => {
    const { drawPlot } = await import('./www/pkg/dp_playground.js');
    const shown = document.getElementById(`${kind}-plot`);
    const bare = Object.assign(document.createElement('canvas'), { width: shown.width, height: shown.height });
    document.body.append(bare);
    drawPlot(kind, bare, { ...window.__dp.spec(kind), pinned: [] });
    const a = shown.getContext('2d').getImageData(0, 0, shown.width, shown.height).data;
    const b = bare.getContext('2d').getImageData(0, 0, bare.width, bare.height).data;
    bare.remove();
    let n = 0;
    for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n += 1;
    return n;
  }, kind);
}

const labels = (page, kind) => page.evaluate((kind) => (window.__dp.spec(kind).pinned ?? []).map((p) => p.label), kind);
const axes = (page, kind) => page.evaluate((kind) => window.__dp.axes(kind), kind);
const rows = (page) => page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
  cells: [...tr.cells].map((td) => td.textContent),
  final: tr.dataset.final,
})));

test('a run pinned at ε = 0.1 stays on the plots beside a run at ε = 5, with held axes and a compare readout', async () => {
  // Without the default's ridge: no bound is drawn, so the excess axis is the runs' data alone
  // (a bound is the current run's only, never a pin's, and would move the top with ε).
  const { context, page, seen } = await lab.open(`#${encodeURIComponent('{"l2":0}')}`, { width: 1440, height: 1000 });
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.isDisabled('#pin'), true, 'Pin is on before anything was released');

  await slideEpsilon(page, -1);
  await playToRelease(page);
  assert.match(await page.textContent('#guarantee-headline'), /ε = 0\.1,/);
  assert.equal(await pixelsOfPins(page, 'excess'), 0, 'nothing pinned yet, yet the plot differs');
  const alone = { excess: await axes(page, 'excess'), path: await axes(page, 'path') };

  await page.click('#pin');
  await plotsDrawn(page);
  assert.deepEqual(await labels(page, 'excess'), ['pinned: ε = 0.1, DP-GD']);
  assert.deepEqual(await labels(page, 'path'), ['pinned: ε = 0.1, DP-GD']);
  const pinnedOnly = { excess: await axes(page, 'excess'), path: await axes(page, 'path') };
  // Pinning the run on screen changes no axis (the union of a range with itself).
  assert.deepEqual(pinnedOnly, alone);

  // ε = 5 (log10 5 = 0.69897), as far right as the slider's step reaches it, and Play.
  await slideEpsilon(page, 0.69897);
  await playToRelease(page);
  assert.match(await page.textContent('#guarantee-headline'), /ε = 5,/);

  // Both runs are drawn: the pinned layers change many pixels of the excess and parameter plots.
  assert.deepEqual(await labels(page, 'excess'), ['pinned: ε = 0.1, DP-GD']);
  assert.deepEqual(await labels(page, 'path'), ['pinned: ε = 0.1, DP-GD']);
  for (const kind of ['excess', 'path']) {
    const n = await pixelsOfPins(page, kind);
    assert.ok(n > 200, `${kind}: the pinned run changes only ${n} pixels`);
  }

  // The axes are held: the parameter view (same data) and the passes axis are exactly as the
  // pinned-only draw had them; the excess axis still holds all of the pinned run's range.
  const after = { excess: await axes(page, 'excess'), path: await axes(page, 'path') };
  assert.deepEqual(after.path, pinnedOnly.path);
  assert.deepEqual(after.excess.x, pinnedOnly.excess.x);
  assert.ok(after.excess.y[0] <= pinnedOnly.excess.y[0] && after.excess.y[1] >= pinnedOnly.excess.y[1],
    `the excess axis ${after.excess.y} dropped part of the pinned one ${pinnedOnly.excess.y}`);
  // … and it is not the new run's own: without the pin the axis would be another.
  const own = await page.evaluate(async () => {
    const { plotAxes } = await import('./www/pkg/dp_playground.js');
    return plotAxes('excess', { ...window.__dp.spec('excess'), pinned: [] });
  });
  assert.notDeepEqual(own.y, after.excess.y, 'the ε = 5 run alone sets the same axis: the test proves nothing');

  // The compare readout: a row for this run's algorithm and one for the pinned run's, each with
  // its ε and a final excess.
  const table = await rows(page);
  assert.equal(table.length, 2, JSON.stringify(table));
  assert.match(table[0].cells[0], /this run/);
  assert.equal(table[0].cells[1], 'DP-GD');
  assert.equal(table[0].cells[2], '5');
  assert.match(table[1].cells[0], /pinned: ε = 0\.1/);
  assert.equal(table[1].cells[2], '0.1');
  for (const r of table) assert.ok(Number(r.final) > 0, `no final excess: ${JSON.stringify(r)}`);
  // The two finals are the two runs' own (the readout above shows this run's).
  assert.equal(Number(table[0].final), Number(await page.$eval('#excess', (el) => el.dataset.value)));
  assert.notEqual(table[0].final, table[1].final);

  // Everything on screen counts: both runs' releases composed (in zCDP here, so at twice the
  // δ: ε = 0.1 and ε = 5 at δ = 1e-6 each give a total at δ = 2e-6), not this run's alone.
  const composed = await page.$eval('#pins-composed', (el) => ({ text: el.textContent, epsilon: Number(el.dataset.epsilon) }));
  assert.match(composed.text, /On screen together: 1 pinned run and this one, 2 releases, together \(ε = [\d.]+, δ = 2\.00e-6\)-DP/);
  const single = await page.$eval('#composed-guarantee', (el) => Number(el.dataset.epsilon));
  assert.equal(single, 5);
  assert.ok(composed.epsilon > 0.1 && composed.epsilon !== single, composed.text);

  // Unpinning empties the overlay and the readout's pinned rows.
  await page.click('#compare-table button.unpin');
  await plotsDrawn(page);
  assert.deepEqual(await labels(page, 'excess'), []);
  assert.equal((await rows(page)).length, 1);
  assert.equal(await page.textContent('#pins-composed'), '');
  assert.deepEqual(seen.errors, [], 'console errors');
  await context.close();
});

test('a compared algorithm gets its own row; pins of both algorithms are labelled apart, and Clear pins removes them', async () => {
  const { context, page, seen } = await lab.open('', { width: 1440, height: 1000 });
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openAlgorithmPanel(page);
  await page.check('#compare input[value="dp_sgd"]');
  await playToRelease(page);
  await page.click('#pin');
  await plotsDrawn(page);
  assert.deepEqual(await labels(page, 'excess'), ['pinned: ε = 1, DP-GD', 'pinned: ε = 1, DP-SGD']);
  // Still pinned with the next run's settings, the label names what differs.
  await page.fill('#n', '500');
  await page.press('#n', 'Tab');
  await playToRelease(page);
  assert.deepEqual(await labels(page, 'privacy'), ['pinned: ε = 1, DP-GD, n = 2000', 'pinned: ε = 1, DP-SGD, n = 2000']);
  const table = await rows(page);
  assert.deepEqual(table.map((r) => r.cells[1]), ['DP-GD', 'DP-SGD', 'DP-GD', 'DP-SGD']);
  for (const r of table) assert.ok(Number(r.final) > 0, `no final excess: ${JSON.stringify(r)}`);
  assert.match(await page.textContent('#pins-composed'), /1 pinned run and this one, 4 releases/);
  await page.click('#clear-pins');
  await plotsDrawn(page);
  assert.deepEqual(await labels(page, 'excess'), []);
  assert.equal(await page.isHidden('#clear-pins'), true);
  assert.deepEqual(seen.errors, [], 'console errors');
  await context.close();
});
