// End to end (Lowy 2026, heavy tails under pure ε): a newcomer picks a heavy-tail
// algorithm and Pareto-radial data from the menus; the heavy-tail panel shows G₁, G₂, G_k and L
// from the closed forms, and they, C* and its marker move *while* the tail-index, k and C sliders
// move (input events); the threshold explorer and the f vs f_C plot draw; the knobs that set the
// noise are marked apart from the utility-only ones; the readout holds the ledger per stage.
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

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
const hashConfig = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice(1))));

/** Moves a range input to `value` as a drag does: the value, then an input event (no change). */
function slide(page, selector, value) {
  return page.$eval(selector, (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
}

/** Pixels of a canvas that are not white (drawn). */
function inkOf(page, selector) {
  return page.$eval(selector, (c) => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250) n += 1;
    return n;
  });
}

const text = (page, id) => page.textContent(`#${id}`);

test('the heavy-tail panel: live G_k, C* and its marker, the explorer, f vs f_C, the knobs and the ledger', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  assert.equal(await page.isVisible('#heavy-panel'), false, 'hidden for DP-GD, the default');

  // Picked from the menus as a newcomer does.
  await page.selectOption('#algorithm', 'localized_double_output_perturbation');
  await page.selectOption('#tail', 'pareto_radial');
  await ready(page);
  // The declared ‖x‖ bound (1 by default) would clip the tail away: a generous one, in the fold.
  await openMoreSettings(page);
  await page.fill('#feature_bound', '1000');
  await page.press('#feature_bound', 'Enter');
  await page.waitForFunction(() => JSON.parse(decodeURIComponent(location.hash.slice(1))).feature_bound === 1000);
  await ready(page);
  await page.waitForSelector('#heavy-panel', { state: 'visible' });
  const config = await hashConfig(page);
  assert.equal(config.algorithm, 'localized_double_output_perturbation');
  assert.deepEqual(config.tail, { kind: 'pareto_radial', alpha: 3 });
  assert.equal(config.moment_k, 2);

  // The readouts at α = 3, k = 2 (logistic: G_j = scale·(E ρ^j)^(1/j), E ρ² = α/(α − 2) = 3).
  const scale = config.feature_scale;
  const g2 = Number(await text(page, 'heavy-g2'));
  assert.ok(Math.abs(g2 - scale * Math.sqrt(3)) < 1e-3 * g2, `G₂ = ${g2}`);
  assert.equal(await text(page, 'heavy-gk'), await text(page, 'heavy-g2'), 'G_k = G₂ at k = 2');
  assert.match(await text(page, 'heavy-l'), /^∞ for the raw law/);
  // The k slider stays below α.
  assert.equal(Number(await page.getAttribute('#heavy-k', 'max')), 2.95);

  // k moves (input only): G_k, C* and the marker move, and the run's settings do not (yet).
  const before = {
    gk: await text(page, 'heavy-gk'),
    cstar: await text(page, 'heavy-cstar'),
    mark: await page.$eval('#heavy-cstar-mark', (m) => m.style.left),
  };
  await slide(page, '#heavy-k', 2.5);
  assert.notEqual(await text(page, 'heavy-gk'), before.gk, 'G_k follows k while it moves');
  assert.notEqual(await text(page, 'heavy-cstar'), before.cstar, 'C* follows k');
  assert.notEqual(await page.$eval('#heavy-cstar-mark', (m) => m.style.left), before.mark, 'the C* marker moves');
  assert.equal(await text(page, 'heavy-g2'), before.gk, 'G₂ does not depend on k');
  assert.equal((await hashConfig(page)).moment_k, 2, 'nothing runs while the slider moves');

  // α moves below k: k is pulled under it, and G₂ follows α.
  await slide(page, '#heavy-index', 2.4);
  assert.equal(Number(await page.$eval('#heavy-k', (el) => el.value)), 2.35);
  assert.notEqual(await text(page, 'heavy-g2'), before.gk, 'G₂ follows α');
  // Released: the page's settings take both, and a run is prepared with them.
  await page.$eval('#heavy-index', (el) => el.dispatchEvent(new Event('change', { bubbles: true })));
  await page.waitForFunction(() => JSON.parse(decodeURIComponent(location.hash.slice(1))).tail.alpha === 2.4);
  assert.equal((await hashConfig(page)).moment_k, 2.35);
  await ready(page);

  // The threshold explorer: C moves (input), the readout and the plot follow; the measured
  // fraction is labelled non-private.
  await page.waitForFunction(() => /of \d+ \(/.test(document.getElementById('heavy-measured-above').textContent));
  const terms = await text(page, 'heavy-terms');
  const measured = await text(page, 'heavy-measured-above');
  assert.match(measured, /measured on the raw data \(not private\)/);
  const cstar = Number((await text(page, 'heavy-cstar')).match(/C\* = ([\d.e+-]+)/)[1]);
  await slide(page, '#heavy-c', Math.log10(cstar / 20));
  assert.notEqual(await text(page, 'heavy-terms'), terms, 'the terms follow C');
  assert.notEqual(await text(page, 'heavy-measured-above'), measured, 'more records are above a smaller C');
  assert.ok((await inkOf(page, '#heavy-threshold-plot')) > 2000, 'the explorer draws');

  // f vs f_C for the record with the largest ‖x‖: they part there.
  await page.click('#heavy-largest');
  assert.match(await text(page, 'heavy-record-words'), /> C = [\d.e+-]+: f_C follows f/);
  assert.ok((await inkOf(page, '#heavy-record-plot')) > 2000, 'the record plot draws');
  // A record index beyond n is refused at its field.
  await page.fill('#heavy-record', String(config.n));
  await page.$eval('#heavy-record', (el) => el.dispatchEvent(new Event('input')));
  assert.match(await text(page, 'heavy-record-error'), /record index from 0 to n − 1/);

  // The knobs: k and C set the noise; J and λ₁ only the utility.
  for (const key of ['moment_k', 'clip']) assert.ok(await page.$eval(`#${key}-field`, (f) => f.classList.contains('knob-noise')), key);
  for (const key of ['repetitions', 'lambda1']) assert.ok(await page.$eval(`#${key}-field`, (f) => f.classList.contains('knob-utility')), key);
  // The ledger per stage, in the readout: each phase's ε share and noise scale.
  const rows = await page.$$eval('#heavy-ledger tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.ok(rows.length >= 2, `${rows.length} phases`);
  assert.match(rows[0][0], /^phase 1/);
  assert.equal(Number(rows[0][3]), 0.5, 'each draw spends ε/2');
  assert.ok(Number(rows[1][7]) < Number(rows[0][7]), 'the noise shrinks phase after phase');

  // Another family: the clipped GD baseline's ledger is T steps at ε/T.
  await page.selectOption('#algorithm', 'pure_clipped_gd');
  await ready(page);
  await page.waitForFunction(() => /^steps 1–/.test(document.querySelector('#heavy-ledger tbody tr td')?.textContent ?? ''));
  assert.ok(await page.$eval('#steps-field', (f) => f.classList.contains('knob-noise')), 'T sets the noise');
  assert.ok(await page.$eval('#step_size-field', (f) => f.classList.contains('knob-utility')));
  // Back to a light-tailed algorithm: the panel and the marks go.
  await page.selectOption('#algorithm', 'noisy_gd');
  await ready(page);
  assert.equal(await page.isVisible('#heavy-panel'), false);
  assert.equal(await page.$$eval('.knob-noise, .knob-utility', (els) => els.length), 0);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('the grid families (EM-PGM, the localised exponential mechanism) picked from the menu show the panel, their ledger per phase and a release', async () => {
  for (const algorithm of ['em_pgm', 'localized_approx_em']) {
    const started = Date.now();
    const { context, page, seen } = await lab.open();
    await ready(page);
    assert.equal(await page.isVisible('#heavy-panel'), false, 'hidden for DP-GD, the default');
    // Picked from the menus as a newcomer does: the pick sets d ≤ 2 as the family needs.
    await page.selectOption('#algorithm', algorithm);
    await page.selectOption('#tail', 'pareto_radial');
    await ready(page);
    await page.waitForSelector('#heavy-panel', { state: 'visible' });
    const config = await hashConfig(page);
    assert.equal(config.algorithm, algorithm);
    assert.ok(config.d <= 2, `${algorithm}: d = ${config.d}`);
    // The readouts and the threshold explorer serve it: G_k and C* of phase 1's calls.
    assert.match(await text(page, 'heavy-gk'), /^[\d.e+-]+$/);
    assert.match(await text(page, 'heavy-cstar'), /C\* = [\d.e+-]+/);
    assert.ok((await inkOf(page, '#heavy-threshold-plot')) > 2000, `${algorithm}: the explorer draws`);
    // The knobs: k and C set the noise; λ₁, J and the grid only the utility.
    for (const key of ['moment_k', 'clip']) assert.ok(await page.$eval(`#${key}-field`, (f) => f.classList.contains('knob-noise')), `${algorithm}: ${key}`);
    for (const key of ['lambda1', 'repetitions', 'grid_resolution']) assert.ok(await page.$eval(`#${key}-field`, (f) => f.classList.contains('knob-utility')), `${algorithm}: ${key}`);
    // The ledger per stage: Algorithm 1's phases, each call ε-DP on its own block.
    await page.waitForFunction(() => /^phase 1/.test(document.querySelector('#heavy-ledger tbody tr td')?.textContent ?? ''));
    const rows = await page.$$eval('#heavy-ledger tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.ok(rows.length >= 2, `${algorithm}: ${rows.length} rows`);
    assert.match(rows[0][0], /^phase 1/);
    assert.match(rows[rows.length - 1][0], /^phase [2-9]/, `${algorithm}: more than one phase`);
    assert.match(await text(page, 'heavy-composition'), /parallel composition/);
    // Play: the run reaches its release, pure ε.
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
    assert.equal(await page.getAttribute('#status', 'data-state'), 'released', algorithm);
    assert.match(await page.textContent('#release'), /^\(/, algorithm);
    assert.deepEqual(seen.errors, [], algorithm);
    await context.close();
    console.log(`${algorithm}: fresh page, pick, Play, release in ${Date.now() - started} ms`);
  }
});
