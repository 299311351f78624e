// In the browser, every algorithm in the menu runs as picked. A newcomer opens the
// page (no link), picks an algorithm from the menu and presses Play: picking it meets what it needs
// (a ridge, a domain, a step count …) and a note beside the menu says what changed and why; the
// run then reaches its release with no error anywhere. The settings panel shows what it reads.
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

/**
 * Families whose needs the default settings do not meet (DP-SVRG++'s epochs; objective
 * perturbation's unconstrained domain). The default's ridge meets every family's need of one.
 */
const ADJUSTED = ['dp_svrg_plus_plus', 'objective_perturbation'];

/** The words a note uses for each setting a pick may change. */
const NAMED = {
  l2: /ridge l2/, l1: /lasso l1/, domain: /domain/, steps: /steps/, loss: /loss/, wrap: /aggregation/,
  d: /dimension d/, delta: /δ/, leak: /pitfall/, problem: /problem/,
};

/**
 * How far a release shown must be from the start, in its largest shown coordinate: 10⁻³. The
 * readout prints four significant digits of coordinates of order 0.1–1 (rounding ≤ 5·10⁻⁴), and
 * every family's picked run moves at least 2·10⁻² from its start (tests/playground/
 * picked_defaults.rs); measured here from the path's first point, the least is SMD's baseline's
 * 2·10⁻² (the C-SC variant's 8·10⁻³ was the page's phases failing at their start: their
 * safeguard bound wrapped to 0 in wasm32's usize; it now moves 0.29, as in the terminal).
 */
const MOVED = 1e-3;

/**
 * Where the main run started, from what the page drew: the first point of the parameter plot's
 * path (w for d ≤ 2, a game's x₁, x₂), and a ternary game's y where its path kept step 0 (the
 * path keeps evenly spaced rows, not always the first).
 */
const startOf = (page) => page.evaluate(() => {
  const main = window.__dp.run().main;
  const path = main.views?.simplexPath ?? [];
  const y = main.views?.steps?.[0] === 0 && path.length >= 6 ? Array.from(path.slice(3, 6)) : [];
  return { x: Array.from(main.path.slice(0, 2)), y };
});

/** The largest difference between the coordinates the release readout shows and the start's. */
function movedBy(shown, start) {
  const numbers = (text) => (text.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) ?? []).map(Number);
  const part = (name) => shown.match(new RegExp(`${name} = \\(([^)]*)\\)`))?.[1];
  const x = numbers(part('x') ?? shown.match(/^\(([^)]*)\)/)?.[1] ?? '');
  const y = numbers(part('y') ?? '');
  const diff = (a, b) => a.slice(0, Math.min(a.length, b.length)).map((v, i) => Math.abs(v - b[i]));
  return Math.max(0, ...diff(x, start.x), ...diff(y, start.y));
}
movedBy.seen = {};

/** The text of every error element that has one (id: text). */
const errorsShown = (page) => page.$$eval('.error', (els) => els
  .filter((el) => el.textContent.trim() !== '')
  .map((el) => `${el.id}: ${el.textContent}`));

/** The config the page's run uses (as Rust normalised it). */
const configInUse = (page) => page.evaluate(() => JSON.parse(window.__dp.run().info.config));

test('every algorithm picked from the menu on a fresh page runs to a release away from its start, with a note exactly when the pick changed a setting', async () => {
  const { page: probe, context: probeContext } = await lab.open();
  await probe.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  const menu = await probe.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  await probeContext.close();
  assert.ok(menu.length >= 11, `the menu offers every algorithm: ${menu}`);
  const timings = {};
  const noted = [];
  for (const algorithm of menu) {
    const started = Date.now();
    const { context, page, seen } = await lab.open();
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    const before = await configInUse(page);
    // As a person does: the menu (selectOption fires input and change), nothing else.
    await page.selectOption('#algorithm', algorithm);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
    const after = await configInUse(page);
    assert.equal(after.algorithm, algorithm);
    assert.deepEqual(await errorsShown(page), [], `${algorithm}: picked, nothing is refused`);

    // The note is visible and names each change exactly when the pick changed a setting.
    const changed = Object.keys(after)
      .filter((k) => !['algorithm', 'compare'].includes(k) && JSON.stringify(after[k]) !== JSON.stringify(before[k]));
    const note = (await page.textContent('#algorithm-note')).trim();
    if (changed.length) {
      assert.ok(await page.isVisible('#algorithm-note'), `${algorithm}: the note is visible`);
      for (const key of changed) {
        if (key in NAMED) assert.match(note, NAMED[key], `${algorithm}: the note names ${key}`);
      }
      noted.push(algorithm);
    } else {
      assert.equal(note, '', `${algorithm}: nothing changed, so no note`);
    }

    // The settings panel shows what this algorithm reads, in its own words, and nothing else.
    const card = await page.evaluate((k) => window.__dp.run().info.cards[k], algorithm);
    for (const s of card.settings) {
      assert.ok(await page.isVisible(`#${s.key}-field`), `${algorithm}: ${s.key} shows`);
      assert.equal((await page.textContent(`#${s.key}-label`)).trim(), s.label, `${algorithm}: ${s.key}'s label`);
    }
    const hidden = await page.$$eval('[id$="-field"][hidden]', (els) => els.map((el) => el.id.replace(/-field$/, '')));
    for (const key of hidden) assert.ok(!card.settings.some((s) => s.key === key), `${algorithm}: ${key} hidden though read`);
    assert.ok(await page.isVisible('#repeats'), 'repeats always shows');
    assert.equal(await page.isVisible('#leak'), card.demonstration, `${algorithm}: the pitfall toggle shows only with a demonstration`);

    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
    assert.deepEqual(await errorsShown(page), [], `${algorithm}: runs to its release`);
    assert.equal(await page.getAttribute('#status', 'data-state'), 'released', algorithm);
    // A point w, or both players of a game.
    const shown = await page.textContent('#release');
    assert.match(shown, /^\(|^x = \(/, algorithm);
    // The release shown is away from where the run started (the picked settings give every
    // family a run that moves: González et al.'s boosted Algorithm 4 showed the uniform start).
    const start = await startOf(page);
    const moved = movedBy(shown, start);
    assert.ok(moved > MOVED, `${algorithm}: the release shown, ${shown}, is its start ${JSON.stringify(start)} (moved ${moved})`);
    // Only what the run released is shown: the C-SC variant releases x alone.
    if (algorithm === 'byoa_minimax_csc') {
      assert.doesNotMatch(shown, /y =/, `${algorithm} releases only x: ${shown}`);
      assert.equal((await page.textContent('#release-name')).trim(), 'released x', algorithm);
    }
    movedBy.seen[algorithm] = moved;
    assert.deepEqual(seen.errors, [], algorithm);
    await context.close();
    timings[algorithm] = Date.now() - started;
  }
  for (const algorithm of ADJUSTED) assert.ok(noted.includes(algorithm), `${algorithm}: its pick shows a note`);
  console.log('ms per algorithm (fresh page, pick, Play, release):', JSON.stringify(timings));
  console.log('release moved from its start (largest shown coordinate):', JSON.stringify(movedBy.seen));
});

test('the problem kind is a control: a link posing a game to an algorithm that cannot solve it is refused beside a control', async () => {
  // A link restores exactly what it says (never adjusted like a pick): DP-GD on a game, in d = 3.
  const hash = `#${encodeURIComponent(JSON.stringify({ problem: 'saddle', d: 3 }))}`;
  const { context, page, seen } = await lab.open(hash);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#problem-error'), /problem.*saddle/i);
  assert.ok(await page.isVisible('#problem-error'));
  assert.equal(await page.textContent('#run-error'), '');
  assert.deepEqual(seen.errors, []);
  await context.close();
});
