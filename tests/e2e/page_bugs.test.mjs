// End to end, bugs a new user met on the page: a value typed
// and Play clicked at once, an invalid setting that ran the last valid one, log-axis labels below
// the first decade, and a band that bridged the gaps of its series.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openAlgorithmPanel, openMoreSettings, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
/** The settings of the run on screen (the config the worker was given). */
const runConfig = (page) => page.evaluate(() => JSON.parse(window.__dp.run().info.config));
/** How many messages of each type the page has had from the worker (stale ones too). */
const received = (page) => page.evaluate(() => window.__dp.received());
const hashConfig = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice(1))));

test('a value typed into a field and Play clicked at once (no Tab, no Enter) runs with that value', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  // The change is committed as the pointer goes down on Play, which starts a new run: the
  // click must not be lost on a button disabled meanwhile.
  await page.fill('#steps', '37');
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 30_000 });
  assert.equal((await runConfig(page)).steps, 37);
  assert.equal((await hashConfig(page)).steps, 37);
  assert.equal(await page.textContent('#step-count'), '37');
  assert.match(await page.textContent('#shown-settings'), /^The plots and readouts show: DP-GD, ε = 1,/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

/**
 * With a refused setting on screen: Play is off and says why beside it, with a link to the
 * field; the readouts say they show the last valid settings; a click on Play or Step sends
 * nothing to the worker. Then `fix` makes the settings valid again: the next message from the
 * worker is the new run's READY, and no batch came since `before` (the messages counted before
 * the setting was refused): the worker answers in order, so a PLAY or STEP posted meanwhile
 * would have sent its first batch before that READY.
 */
async function refusedThenFixed(page, before, { focused, label, message, fix }) {
  await page.waitForFunction(() => document.querySelector('#play').disabled);
  const blocked = await page.textContent('#play-blocked');
  assert.match(blocked, /^Play is off: /);
  assert.match(blocked, message);
  assert.match(blocked, label);
  for (const where of ['#shown-settings', '#plots-shown']) {
    assert.match(await page.textContent(where), /last valid settings, not the controls/);
  }
  // The link leads to the field without touching the hash (which holds the settings).
  const hash = await page.evaluate(() => location.hash);
  await page.click('#play-blocked a');
  assert.equal(await page.evaluate(focused), true, 'the link leads to the setting');
  assert.equal(await page.evaluate(() => location.hash), hash);
  // A link copied now would hold other settings than the controls show: it is refused.
  await page.click('#copy-link');
  assert.match(await page.textContent('#export-status'), /^Not copied/);

  const state = await page.getAttribute('#status', 'data-state');
  await page.click('#play', { force: true });
  await page.click('#step', { force: true });
  assert.equal(await page.getAttribute('#status', 'data-state'), state);
  await fix();
  await page.waitForFunction((n) => (window.__dp.received().ready ?? 0) > n, before.ready ?? 0, { timeout: 30_000 });
  const after = await received(page);
  assert.equal(after.batch ?? 0, before.batch ?? 0, 'a batch arrived for a run started while a setting was invalid');
  assert.equal(after.error ?? 0, before.error ?? 0);
  await ready(page);
  assert.equal(await page.textContent('#play-blocked'), '');
  assert.equal(await page.isDisabled('#play'), false);
  assert.doesNotMatch(await page.textContent('#shown-settings'), /last valid/);
}

test('λ = 0 typed under output perturbation turns Play off, says why beside it, and runs nothing', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  // The menu meets output perturbation's need for a ridge; the user then types λ = 0.
  await page.selectOption('#algorithm', 'output_perturbation');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"algorithm":"output_perturbation"'));
  await ready(page);
  const l2 = (await runConfig(page)).l2;
  assert.ok(l2 > 0, `the pick set λ = ${l2}`);
  await openMoreSettings(page);
  const before = await received(page);
  await page.fill('#l2', '0');
  // Play clicked straight after typing: the refusal, not the last valid run.
  await page.click('#play');
  assert.match(await page.textContent('#shown-settings'), new RegExp(`output perturbation.*ridge λ \\(strong convexity μ\\) = ${l2}`, 'i'));
  await refusedThenFixed(page, before, {
    focused: () => document.activeElement.id === 'l2',
    label: /Fix “ridge λ \(strong convexity μ\)”/,
    message: /λ|l2/,
    fix: async () => {
      await page.fill('#l2', '0.2');
      await page.press('#l2', 'Tab');
    },
  });
  assert.equal((await runConfig(page)).l2, 0.2);
  assert.equal((await runConfig(page)).algorithm, 'output_perturbation');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('comparing with output perturbation at λ = 0 turns Play off instead of running the last valid settings', async () => {
  const { context, page, seen } = await lab.open(`#${encodeURIComponent('{"l2":0}')}`);
  await ready(page);
  const before = await received(page);
  await openAlgorithmPanel(page);
  await page.check('#compare input[value="output_perturbation"]');
  await refusedThenFixed(page, before, {
    // Rust names the comparison, and says why: λ.
    focused: () => document.activeElement.value === 'output_perturbation',
    label: /Fix “compare with/,
    message: /^Play is off: compare with: .*ridge λ: raise it above 0/,
    fix: () => page.uncheck('#compare input[value="output_perturbation"]'),
  });
  assert.deepEqual((await runConfig(page)).compare, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

/** Plot `kind` of `spec` as SVG text, drawn by the page's own wasm (the export path). */
const svgOf = (page, kind, spec) => page.evaluate(async ([k, s]) => {
  const wasm = await import('./www/pkg/dp_playground.js');
  return wasm.plotSvg(k, s, 640, 400);
}, [kind, spec]);

test('a log axis labels the curve below its first decade', async () => {
  const { context, page } = await lab.open();
  await ready(page);
  // The excess plot at n = 10⁵: the curve falls from 3e-2 to 3e-3.
  const x = Array.from({ length: 60 }, (_, i) => i + 1);
  const mean = x.map((v) => 3e-2 * 10 ** (-Math.log10(v) / Math.log10(60)));
  const svg = await svgOf(page, 'excess', { series: [{ label: 'DP-GD', color: 0, x, mean }] });
  const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].trim());
  const yTicks = labels.filter((t) => /^\d(\.\d+)?e-\d+$/.test(t)).map(Number);
  assert.ok(yTicks.some((v) => v < 1e-2), `no labelled tick below 1e-2: ${yTicks.join(', ')}`);
  assert.ok(yTicks.includes(1e-2), yTicks.join(', '));
  assert.ok(yTicks.length >= 3, yTicks.join(', '));
  await context.close();
});

test('the min–max band over repeats spans only where its series have values', async () => {
  const { context, page } = await lab.open();
  await ready(page);
  // A one-release method's band: the start, no value while the solver runs, then the end.
  const x = Array.from({ length: 100 }, (_, i) => i + 1);
  const mean = x.map((v) => 1 / v);
  const gap = (v) => v > 1 && v < 90;
  const lo = x.map((v) => (gap(v) ? NaN : 0.5 / v));
  const hi = x.map((v) => (gap(v) ? NaN : 2 / v));
  const svg = await svgOf(page, 'excess', { series: [{ label: 'output perturbation', color: 0, x, mean, lo, hi }] });
  const xs = (points) => points.trim().split(/\s+/).map((p) => Number(p.split(',')[0]));
  const band = [...svg.matchAll(/<polygon[^>]*points="([^"]*)"/g)].flatMap((m) => xs(m[1]));
  const line = [...svg.matchAll(/<polyline[^>]*points="([^"]*)"/g)].flatMap((m) => xs(m[1]));
  assert.ok(band.length > 0, 'no band drawn');
  // On the log x axis, x = 90 lies far right of the middle of [1, 100]; x = 1 at the left end.
  const [left, right] = [Math.min(...line), Math.max(...line)];
  assert.ok(Math.min(...band) > (left + right) / 2, `the band reaches back to x = ${Math.min(...band)} px (the line spans ${left}–${right} px)`);
  await context.close();
});
