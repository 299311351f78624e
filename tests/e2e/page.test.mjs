// End to end, the playground's wider surface: every algorithm from the UI, compare and repeats,
// your own CSV, and the frame rate while a large run computes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, openMoreSettings, plotsDrawn, session, snapshotCanvas } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** A fresh page at `hash`, recording console errors, page errors and requests. */
const openPage = (hash = '') => lab.open(hash);

const link = (config) => `#${encodeURIComponent(JSON.stringify(config))}`;
const PLOTS = ['#excess-plot', '#path-plot', '#noise-plot', '#privacy-plot'];

/** Settings under which each algorithm of the core applies (d = 2 by default). */
const EVERY_ALGORITHM = {
  noisy_gd: {},
  dp_sgd: {},
  dp_svrg: { l2: 0.1, steps: 3 },
  dp_svrg_plus_plus: { steps: 3 },
  dp_accmd: { steps: 50 },
  objective_perturbation: { l2: 0.1, domain: 'unconstrained' },
  output_perturbation: { l2: 0.1 },
  regularised_output_perturbation: {},
  byoa: { l2: 0.1 },
  byoa_phased: {},
  exponential_grid: {},
  localisation: {},
  localised_exponential: {},
  private_sco: { domain: 'simplex' },
  localized_double_output_perturbation: {},
  localized_output_perturbation: {},
  pure_clipped_gd: {},
  output_perturbation_lipschitz_extension: {},
  em_pgm: {},
  localized_approx_em: {},
  deterministic_double_output_perturbation: { loss: { kind: 'absolute' } },
};

test('every algorithm of the core runs from the page and draws on every plot it should', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  // Every minimisation algorithm of the menu (the games have tests/e2e/saddle.test.mjs).
  const cards = await page.evaluate(() => window.__dp.run().info.cards);
  const menu = await page.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  const minimisers = menu.filter((kind) => cards[kind].solves.includes('minimisation'));
  assert.deepEqual(minimisers.sort(), Object.keys(EVERY_ALGORITHM).sort(), 'the menu offers every algorithm');
  for (const [algorithm, extra] of Object.entries(EVERY_ALGORITHM)) {
    await page.evaluate((h) => { location.hash = h; }, link({ algorithm, ...extra }));
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    assert.equal(await page.inputValue('#algorithm'), algorithm);
    await plotsDrawn(page);
    for (const sel of PLOTS) await snapshotCanvas(page, sel);
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
    await plotsDrawn(page);
    // The excess curve, the path or release, ε spent, and (with added noise) the noise histogram.
    // Mechanisms that add no noise (the exponential mechanism, vertex sampling) draw no histogram.
    const noiseless = await page.evaluate(() => window.__dp.run().info.previews[0].noise.kind === 'none');
    const plots = noiseless ? PLOTS.filter((p) => p !== '#noise-plot') : PLOTS;
    for (const sel of plots) {
      const changed = await changedPixels(page, sel);
      assert.ok(changed > 50, `${algorithm}: ${sel} changed only ${changed} pixels`);
    }
    assert.match(await page.textContent('#release'), /^\(/, algorithm);
    const certified = ['output_perturbation', 'regularised_output_perturbation', 'byoa', 'localisation', 'localised_exponential',
      'localized_double_output_perturbation', 'localized_output_perturbation',
      'output_perturbation_lipschitz_extension', 'localized_approx_em', 'deterministic_double_output_perturbation'];
    if (certified.includes(algorithm)) {
      // The release waited for its certificate, and the readout shows it against its threshold;
      // the run's other named diagnostics follow as name = value.
      assert.match(await page.textContent('#certificate'), /‖w − w\*‖ ≤ .* \(the release needs ≤ .*\): met; certificate_sensitivity = /, algorithm);
      const diagnostics = await page.evaluate(() => window.__dp.run().main.diagnostics);
      assert.equal(diagnostics.certificate_met, 1, algorithm);
    } else {
      assert.match(await page.textContent('#certificate'), /^none/, algorithm);
    }
    // Lowy & Razaviyayn 2021's families on ERM draw their class's lower bound, labelled as one,
    // below their upper bound; the other families draw none.
    const references = await page.evaluate(() => window.__dp.spec('excess').references);
    const floors = ['output_perturbation', 'regularised_output_perturbation', 'exponential_grid',
      'localisation', 'localised_exponential'];
    if (floors.includes(algorithm)) {
      assert.equal(references.length, 1, algorithm);
      assert.match(references[0].label, /^lower bound/, algorithm);
      const theory = await page.evaluate(() => window.__dp.run().info.theories[0]);
      assert.ok(references[0].y[0] > 0 && references[0].y[0] < theory.y[0], `${algorithm}: ${references[0].y[0]} vs ${theory.y[0]}`);
    } else {
      assert.deepEqual(references, [], algorithm);
    }
    // The excess plot is titled with the metric the session measures.
    assert.match(await page.getAttribute('#excess-plot', 'aria-label'), /^excess empirical risk F\(w\) − F\*/);
    assert.equal(await page.textContent('#excess-metric'), 'excess empirical risk F(w) − F*');
    assert.equal(await page.textContent('#card-body dd'), (await page.evaluate(() => window.__dp.run().info.cards[document.querySelector('#algorithm').value].source)));
    assert.equal(await page.textContent('#run-error'), '', algorithm);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a leaky demonstration runs with the same claim and its ledger says NOT PRIVATE', async () => {
  const config = { algorithm: 'dp_sgd', leak: true, tail: { kind: 'pareto_radial', alpha: 1.5 } };
  const { context, page, seen } = await openPage(link(config));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.isChecked('#leak'), true);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.match(await page.textContent('#caveats li.leak'), /NOT PRIVATE/);
  // Picking an algorithm without a demonstration turns the pitfall off, says so, and hides it.
  await page.selectOption('#algorithm', 'output_perturbation');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#algorithm-note'), /pitfall demonstration turned off/);
  assert.equal(await page.isChecked('#leak'), false);
  assert.equal(await page.isVisible('#leak'), false);
  assert.doesNotMatch(await page.textContent('#guarantee-headline'), /NOT PRIVATE/);
  assert.deepEqual(seen.errors, []);
  await context.close();
  // A link is not adjusted: where it cannot apply, the reason is at the field; the page runs the default meanwhile.
  const opened = await openPage(link({ ...config, algorithm: 'output_perturbation', l2: 0.1 }));
  await opened.page.waitForFunction(() => document.querySelector('#leak-error').textContent !== '');
  assert.match(await opened.page.textContent('#leak-error'), /demonstrate the pitfall: untick it/);
  assert.ok(await opened.page.isVisible('#leak-error'), 'an error beside a hidden setting shows');
  assert.deepEqual(opened.seen.errors, []);
  await opened.context.close();
});

test('tilted ERM runs under output perturbation; an algorithm that cannot take it says so at the loss', async () => {
  const config = { algorithm: 'output_perturbation', l2: 0.1, wrap: { kind: 'tilted', tau: 0.5 } };
  const { context, page, seen } = await openPage(link(config));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.inputValue('#wrap'), 'tilted');
  assert.equal(await page.inputValue('#wrap-param'), '0.5');
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  // Picked from the menu, DP-SGD gets the plain mean it needs, and the note says why.
  await page.selectOption('#algorithm', 'dp_sgd');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#algorithm-note'), /aggregation set to plain ERM: .*tilted/);
  assert.equal(await page.inputValue('#wrap'), 'none');
  assert.deepEqual(seen.errors, []);
  await context.close();
  // A link is not adjusted: DP-SGD on tilted ERM cannot be used, and the page says why.
  const opened = await openPage(link({ ...config, algorithm: 'dp_sgd' }));
  await opened.page.waitForFunction(() => document.querySelector('#algorithm-error').textContent !== '');
  assert.match(await opened.page.textContent('#algorithm-error'), /tilted/i);
  assert.equal(await opened.page.textContent('#algorithm-note'), '');
  assert.deepEqual(opened.seen.errors, []);
  await opened.context.close();
});

test('sparse high-dimensional data run DP-AccMD over the ℓ1 ball from the page', async () => {
  const config = { data: 'sparse', n: 200, d: 400, sparsity: 5, algorithm: 'dp_accmd', domain: 'l1_ball', radius: 1, steps: 30 };
  const { context, page, seen } = await openPage(link(config));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#problem-line'), /sparse high-dimensional data \(5 non-zeros/);
  assert.match(await page.textContent('#path-caption'), /released points/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.match(await page.textContent('#population'), /n\/a/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('compare and repeats: several algorithms on the same data, R noise draws each, with progress and cancel', async () => {
  const config = { l2: 0.1, compare: ['output_perturbation', 'dp_sgd'], repeats: 6 };
  const { context, page, seen } = await openPage(link(config));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.$eval('#progress', (p) => p.max), 18);
  assert.equal(await page.isChecked('#compare input[value="dp_sgd"]'), true);
  assert.equal(await page.$$eval('#compare-guarantees li', (l) => l.length), 2);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.equal(await page.$eval('#progress', (p) => p.value), 18);
  const releases = await page.evaluate(() => [...window.__dp.run().allLanes()].filter((l) => l.lane.release).length);
  assert.equal(releases, 18);
  // Output perturbation's six releases are six different noise draws around one certified point.
  const cloud = await page.evaluate(() => window.__dp.run().lanes[1].map((l) => l.release.w.join()));
  assert.equal(new Set(cloud).size, 6);

  // Cancel stops a long run: nothing more arrives, and the page says so.
  await page.evaluate((h) => { location.hash = h; }, link({ n: 50000, d: 20, steps: 2000, repeats: 4 }));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#step-count').textContent) > 0);
  await page.click('#cancel');
  await page.waitForSelector('#status[data-state="cancelled"]');
  await page.waitForTimeout(300);
  const stopped = await page.textContent('#step-count');
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('#step-count'), stopped);
  assert.ok(await page.$eval('#progress', (p) => p.value < p.max));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('your own CSV: it loads with a preview and runs; a corrupt one names line and column and the run stays', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openMoreSettings(page);
  const rows = ['x1,x2,x3,label'];
  for (let i = 0; i < 300; i++) {
    const x = [Math.sin(i), Math.cos(3 * i), Math.sin(7 * i) / 2];
    rows.push(`${x.map((v) => v.toFixed(4)).join(',')},${x[0] + x[1] > 0 ? 1 : -1}`);
  }
  await page.setInputFiles('#csv-file', { name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"data":"csv"'));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#problem-line'), /your CSV file, n = 300, d = 3/);
  assert.equal(await page.$$eval('#csv-preview tr', (r) => r.length), 5);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  const release = await page.textContent('#release');

  await page.setInputFiles('#csv-file', { name: 'broken.csv', mimeType: 'text/csv', buffer: Buffer.from('x1,x2,label\n0.1,0.2,1\n0.3,oops,-1\n') });
  await page.waitForFunction(() => document.querySelector('#csv-error').textContent !== '');
  const message = await page.textContent('#csv-error');
  assert.match(message, /broken\.csv/);
  assert.match(message, /line 3, column 2/);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  assert.equal(await page.textContent('#release'), release);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('the page stays responsive while n = 10⁵, d = 100 runs: median frame rate', async () => {
  const { context, page, seen } = await openPage(link({ n: 100000, d: 100, steps: 3000 }));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 120_000 });
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#step-count').textContent) > 2);
  // Frame intervals over 3 s of the run, measured in the page.
  const intervals = await page.evaluate(() => new Promise((resolve) => {
    const times = [];
    const tick = (t) => {
      times.push(t);
      if (t - times[0] < 3000) requestAnimationFrame(tick);
      else resolve(times.slice(1).map((v, i) => v - times[i]));
    };
    requestAnimationFrame(tick);
  }));
  const sorted = [...intervals].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const fps = 1000 / median;
  const drawn = await page.evaluate(() => window.__dp.plotter().draws);
  const mean = 1000 * intervals.length / intervals.reduce((a, b) => a + b, 0);
  console.log(`# frame rate while n = 1e5, d = 100 runs: median ${fps.toFixed(1)} fps, mean ${mean.toFixed(1)} fps over ${intervals.length} frames; ${drawn} plot draws so far`);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'running', 'the run was still going');
  assert.ok(fps >= 55, `median ${fps.toFixed(1)} fps`);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
