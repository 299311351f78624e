// End to end: the page served by the README serve command, in real (headless) Chromium.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, openMoreSettings, plotsDrawn, session, snapshotCanvas } from './harness.mjs';

let lab;
let base;

before(async () => {
  lab = await session();
  base = lab.base;
});

after(async () => {
  await lab?.close();
});

/** A fresh page at `hash`, recording console errors, page errors and requests. */
const openPage = (hash = '') => lab.open(hash);

const excessValue = (page) => page.$eval('#excess', (el) => Number(el.dataset.value));

/** Waits for a prepared run, plays it to its release and returns the release and ledger text. */
async function runToRelease(page) {
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  return { w: await page.textContent('#release'), caveats: await page.textContent('#caveats') };
}

test('the page loads, the worker starts, and play draws a falling excess-risk curve', async () => {
  const { context, page, seen } = await openPage();
  // The worker is up once it has prepared a run: the status turns "ready".
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#guarantee-headline'), /ε = 1(\.00)?, δ = 1\.00e-6\)-DP/);
  // The three Gaussian calibrations side by side (classical applies at ε = 1).
  const calibrations = await page.$$eval('#calibrations tbody tr', (rows) => rows.map((r) => r.textContent));
  assert.equal(calibrations.length, 3);
  assert.ok(calibrations.every((r) => /\de-\d/.test(r)), calibrations.join(' | '));
  const canvases = ['#excess-plot', '#path-plot', '#noise-plot', '#privacy-plot'];
  await plotsDrawn(page);
  for (const c of canvases) await snapshotCanvas(page, c);

  // Step once: the first excess value is the one at w₀.
  await page.click('#step');
  await page.waitForFunction(() => document.querySelector('#excess').dataset.value !== '');
  const first = await excessValue(page);
  assert.ok(first > 0, `first excess ${first}`);

  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  // The plots redraw over the next animation frames.
  await plotsDrawn(page);
  const last = await excessValue(page);
  // DP-GD with the default ridge 0.1 settles at its noise floor, ≈ 0.3 of the start's excess
  // (measured 0.086 → 0.026 at the default seed); a curve that did not fall stays near 1.
  assert.ok(last < first / 2, `excess did not fall: first ${first}, last ${last}`);
  assert.match(await page.textContent('#release'), /^\(/);

  // Before the first step every plot showed empty axes; a drawn curve, path, histogram or
  // ε(t) curve changes well over 500 pixels, an unchanged canvas none.
  for (const c of canvases) {
    const changed = await changedPixels(page, c);
    assert.ok(changed > 500, `${c}: only ${changed} pixels changed`);
  }

  assert.deepEqual(seen.errors, [], 'console errors');
  const foreign = seen.requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'requests that left the local server');
  await context.close();
});

test('pause stops the run and step advances exactly one iterate', async () => {
  const { context, page, seen } = await openPage('#%7B%22steps%22%3A100000%2C%22n%22%3A20000%7D');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#step-count').textContent) > 20);
  await page.click('#play'); // pause
  await page.waitForTimeout(300); // batches already in flight land
  const paused = Number(await page.textContent('#step-count'));
  await page.waitForTimeout(300);
  assert.equal(Number(await page.textContent('#step-count')), paused, 'steps kept coming while paused');
  await page.click('#step');
  await page.waitForFunction((p) => Number(document.querySelector('#step-count').textContent) === p + 1, paused);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a bad seed gets a message next to the field, the last run stays on screen, and nothing runs until it is fixed', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  // The seed is in the "more settings" fold.
  await openMoreSettings(page);
  await page.click('#step');
  await page.waitForFunction(() => document.querySelector('#excess').dataset.value !== '');
  await page.fill('#seed', '-3');
  await page.press('#seed', 'Enter');
  await page.locator('#seed').blur();
  await page.waitForFunction(() => document.querySelector('#seed-error').textContent.length > 0);
  assert.match(await page.textContent('#seed-error'), /seed/);
  // The previous run is still the one on screen, but it does not go on under the refused seed
  // Play and Step are off, and beside Play the page says why.
  assert.equal(await page.textContent('#step-count'), '1');
  assert.equal(await page.isDisabled('#step'), true);
  assert.equal(await page.isDisabled('#play'), true);
  assert.match(await page.textContent('#play-blocked'), /^Play is off: .*seed/);
  // Fixed, a run with the new seed is prepared and steps.
  await page.fill('#seed', '4');
  await page.press('#seed', 'Enter');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await page.textContent('#play-blocked'), '');
  await page.click('#step');
  await page.waitForFunction(() => document.querySelector('#step-count').textContent === '1');
  assert.equal(JSON.parse(decodeURIComponent(await page.evaluate(() => location.hash.slice(1)))).seed, 4);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a corrupt link shows what was wrong and falls back to the defaults for that field only; an over-long one is not read', async () => {
  const hash = `#${encodeURIComponent('{"epsilon":-5,"seed":7,"repeats":"lots","l2":0.25}')}`;
  const { context, page } = await openPage(hash);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#epsilon-error'), /privacy ε.*default/);
  assert.match(await page.textContent('#repeats-error'), /repeats R.*default/);
  assert.match(await page.textContent('#guarantee-headline'), /ε = 1,/);
  // The fields that were fine are kept.
  assert.equal(await page.inputValue('#seed'), '7');
  assert.equal(await page.inputValue('#l2'), '0.25');
  assert.equal(await page.inputValue('#repeats'), '1');
  // Not JSON at all: everything falls back, with one message saying where it broke.
  const broken = await openPage('#%7B%22epsilon%22%3A1');
  await broken.page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await broken.page.textContent('#run-error'), /copy the link again.*damaged at character/);
  await broken.context.close();
  // A link far longer than any the page makes is not read at all, saying what to do.
  const long = await openPage(`#${encodeURIComponent(`{"seed":7,"pad":"${'x'.repeat(90_000)}"}`)}`);
  await long.page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await long.page.textContent('#run-error'), /link: copy the link again with "Copy link".*81920 bytes.*now 90\d{3} bytes/);
  assert.equal(await long.page.inputValue('#seed'), '1');
  await long.context.close();
  await context.close();
});

test('changing ε mid-run restarts with the new guarantee, and the old run\'s batches are dropped', async () => {
  // A long run, so that the old run is still streaming when ε changes.
  const { context, page, seen } = await openPage('#%7B%22steps%22%3A100000%2C%22n%22%3A20000%7D');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#step-count').textContent) > 5);
  await page.$eval('#epsilon', (el) => {
    el.value = '-1';
    el.dispatchEvent(new Event('input'));
    el.dispatchEvent(new Event('change'));
  });
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  // Batches the old run had in flight arrive now; none may reach the new run's readout.
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('#step-count'), '0');
  assert.equal(await page.textContent('#excess'), '–');
  assert.match(await page.textContent('#guarantee-headline'), /ε = 0\.1,/);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /"epsilon":0\.1/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('reset replays the same seeded run to the same release', async () => {
  const { context, page, seen } = await openPage();
  const first = await runToRelease(page);
  await page.click('#reset');
  assert.equal((await runToRelease(page)).w, first.w);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('fresh OS noise gives a different release each time, and the ledger drops the seeded caveat', async () => {
  const { context, page, seen } = await openPage();
  await openMoreSettings(page);
  const seeded = await runToRelease(page);
  assert.match(seeded.caveats, /seeded run/);
  await page.check('#unseeded');
  const first = await runToRelease(page);
  await page.click('#reset');
  const second = await runToRelease(page);
  assert.notEqual(first.w, second.w);
  assert.doesNotMatch(first.caveats, /seeded run/);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /"unseeded_noise":true/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('moving ε past 1 previews the new σ at once and the classical calibration refuses it', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  const before = await page.textContent('#guarantee-detail');
  // Dragging (input events only) updates the preview without starting a new run.
  await page.$eval('#epsilon', (el) => { el.value = '0.5'; el.dispatchEvent(new Event('input')); });
  assert.notEqual(await page.textContent('#guarantee-detail'), before);
  assert.match(await page.textContent('#guarantee-headline'), /ε = 3\.2,/);
  const classical = await page.$eval('#calibrations tbody tr', (r) => r.textContent);
  assert.match(classical, /n\/a.*privacy ε/);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'ready');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

/** Clicks `selector` and returns the file it downloads. */
async function saveDownload(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return { name: download.suggestedFilename(), bytes: Buffer.concat(chunks) };
}

test('exports: the run JSON (private part and diagnostics apart), the diagnostics CSV and every plot as PNG and SVG all download and parse', async () => {
  const { context, page, seen } = await openPage();
  await runToRelease(page);
  const save = (selector) => saveDownload(page, selector);
  const csv = await save('#export-csv');
  assert.equal(csv.name, 'dp-playground-diagnostics-NOT-PRIVATE.csv');
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  assert.equal(lines[0], 'algorithm,repeat,step,grad_evals,loss,excess,a,b,noise_norm,eps_spent,release_row');
  assert.equal(lines.length, 1 + 201, 'header, 200 steps and the release');
  const last = lines.at(-1).split(',');
  assert.equal(last[0], 'noisy_gd');
  assert.equal(last.at(-1), '1', 'the release row is flagged');
  assert.equal(Number(last[9]), 1, 'all of ε is spent at the release');
  assert.ok(lines.slice(1, -1).every((l) => l.endsWith(',0')));

  const file = await save('#export-json');
  assert.equal(file.name, 'dp-playground-run.json');
  const json = JSON.parse(file.bytes.toString('utf8'));
  assert.deepEqual(Object.keys(json).sort(), ['diagnostics', 'private']);
  assert.match(json.private.note, /^PRIVATE PART/);
  assert.match(json.diagnostics.note, /^NOT PRIVATE/);
  assert.equal(json.private.config.epsilon, 1);
  assert.equal(json.private.composed.releases, 1);
  assert.equal(json.private.composed.epsilon, 1);
  assert.equal(json.private.releases.length, 1);
  assert.deepEqual(Object.keys(json.private.releases[0]).sort(), ['algorithm', 'ledger', 'repeat', 'w']);
  assert.equal(json.private.releases[0].w.length, 2);
  // No noise realisation and no diagnostic in the private part.
  assert.doesNotMatch(JSON.stringify(json.private), /noise_norm|excess|"plane"|population|certificate/);
  assert.equal(json.diagnostics.releases[0].plane.length, 2);
  // The run's named diagnostics travel in the diagnostics part (DP-GD names none).
  assert.deepEqual(json.diagnostics.releases[0].diagnostics, {});

  for (const canvas of ['excess-plot', 'path-plot', 'noise-plot', 'privacy-plot', 'features-plot']) {
    const png = await save(`button.png[data-canvas="${canvas}"]`);
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], canvas);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();

  // Chromium lets a page start ten downloads in a row, then asks: the SVGs get a page of their own.
  const svgs = await openPage();
  await runToRelease(svgs.page);
  for (const plot of ['excess', 'path', 'noise', 'privacy', 'features']) {
    const svg = await saveDownload(svgs.page, `button.svg[data-plot="${plot}"]`);
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^(<\?xml[^>]*>\s*)?<svg/, plot);
    assert.match(text, /<\/svg>\s*$/, plot);
    // The plot and the run's key settings (www/drawing/figures.js, src/figure/context.rs).
    assert.match(svg.name, new RegExp(`^${plot}_dp-gd_eps1_delta[0-9e.-]+_n\\d+_R1\\.svg$`));
  }

  assert.deepEqual(svgs.seen.errors, []);
  await svgs.context.close();
});

test('a copied link, opened in a fresh page, restores the settings and the same release', async () => {
  const first = await openPage();
  await first.page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openMoreSettings(first.page);
  await first.page.$eval('#epsilon', (el) => { el.value = '-0.5'; el.dispatchEvent(new Event('change')); });
  await first.page.fill('#seed', '42');
  await first.page.press('#seed', 'Enter');
  await first.page.locator('#seed').blur();
  await first.page.waitForFunction(() => decodeURIComponent(location.hash).includes('"seed":42'));
  const released = await runToRelease(first.page);
  const link = await first.page.evaluate(() => location.href);
  await first.context.close();

  const second = await openPage(link.slice(link.indexOf('#')));
  // The controls show the link's values once the page has read it.
  await second.page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.equal(await second.page.inputValue('#seed'), '42');
  assert.equal(await second.page.textContent('#epsilon-output'), '0.32');
  assert.equal((await runToRelease(second.page)).w, released.w);
  assert.deepEqual(second.seen.errors, []);
  await second.context.close();
});

test('keyboard only: Tab to the algorithm and ε, arrows change them, Tab to Play and Enter runs it', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  const tabTo = async (id) => {
    for (let i = 0; i < 40; i++) {
      if (await page.evaluate(() => document.activeElement?.id) === id) return;
      await page.keyboard.press('Tab');
    }
    assert.fail(`Tab never reached #${id}`);
  };
  // The algorithm is chosen with the arrow keys on its menu, then ε on its slider.
  await tabTo('algorithm');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"algorithm":"dp_sgd"'));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await tabTo('epsilon');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"epsilon":0.79'));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await tabTo('play');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.match(await page.textContent('#guarantee-headline'), /ε = 0\.79,/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('objective perturbation states both of its noise draws and its budget split before Play, and its ledger the tolerance', async () => {
  const { context, page, seen } = await openPage();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.selectOption('#algorithm', 'objective_perturbation');
  await openMoreSettings(page);
  await page.selectOption('#domain', 'unconstrained');
  await page.fill('#l2', '0.1');
  await page.press('#l2', 'Enter');
  await page.locator('#l2').blur();
  await page.waitForFunction(() => document.querySelector('#algorithm-title').textContent.includes('objective perturbation'));
  const detail = await page.textContent('#guarantee-detail');
  // b and the residual noise of approximate minima perturbation, with ε split between them.
  assert.equal((detail.match(/ℓ2-Laplace scale/g) ?? []).length, 2, detail);
  assert.match(detail, /ε_res = /);
  assert.match(detail, /γ = /);
  await runToRelease(page);
  assert.match(await page.textContent('#caveats'), /‖∇J_b‖ ≤ γ = .* μ = /);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('output perturbation: a link without a ridge is refused with the reason; picked from the menu it gets one, with a note; it runs to one certified release', async () => {
  // A link restores exactly what it says: a ridge of 0 cannot be used with output perturbation,
  // and the page says why at the ridge, falling back to the default ridge (0.1 now)
  // for that field only, rather than adjusting it silently.
  const { context, page, seen } = await openPage(`#${encodeURIComponent(JSON.stringify({ algorithm: 'output_perturbation', l2: 0 }))}`);
  await page.waitForFunction(() => document.querySelector('#l2-error').textContent.length > 0);
  assert.match(await page.textContent('#l2-error'), /ridge λ.*strongly convex.*link's value was not used/);
  assert.equal(await page.textContent('#algorithm-note'), '');
  // The link's error shows as soon as the link is read; the title follows with the first
  // preview, a task later (it reads "…" until then).
  await page.waitForFunction(() => document.querySelector('#algorithm-title').textContent !== '…');
  assert.match(await page.textContent('#algorithm-title'), /output perturbation/);

  // With no ridge under another algorithm, picking output perturbation from the menu sets the
  // ridge it needs, and the note says why.
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openMoreSettings(page);
  await page.selectOption('#algorithm', 'dp_sgd');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.fill('#l2', '0');
  await page.press('#l2', 'Enter');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"l2":0'));
  await page.selectOption('#algorithm', 'output_perturbation');
  await page.waitForFunction(() => document.querySelector('#algorithm-title').textContent.includes('output perturbation'));
  assert.match(await page.textContent('#algorithm-note'), /ridge l2 set to 0\.1: .*strongly convex/);
  assert.equal(await page.inputValue('#l2'), '0.1');
  assert.equal(await page.textContent('#l2-error'), '');

  // The person chooses another ridge (in the "more settings" fold); picking again changes
  // nothing, and the note clears.
  await openMoreSettings(page);
  await page.fill('#l2', '0.05');
  await page.press('#l2', 'Enter');
  await page.locator('#l2').blur();
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"l2":0.05'));
  await page.selectOption('#algorithm', 'dp_sgd');
  await page.selectOption('#algorithm', 'output_perturbation');
  assert.equal(await page.textContent('#algorithm-note'), '');
  assert.equal(await page.inputValue('#l2'), '0.05');
  assert.match(await page.textContent('#guarantee-detail'), /One noise draw/);
  const released = await runToRelease(page);
  assert.match(released.w, /^\(/);
  assert.match(await page.textContent('#caveats'), /seeded run/);
  assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /"algorithm":"output_perturbation"/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
