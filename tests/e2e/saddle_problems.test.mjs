// The saddle problems on the page: the worst-group (group DRO) problems and Zhang et al.'s ℓ1 system
// fit in the game menu, and AUC maximisation. A newcomer on a fresh page switches the problem menu
// to a game and picks each new one: mirror descent, which needs simplices, gives way to an
// algorithm that runs it, with a note saying why; picking a saddle algorithm that meets the assumptions (Zhang et al.'s
// SC-SC output perturbation) runs to a release, and the gap and players plots draw.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { configInUse, errorsShown, openGame, playGameToRelease, ready, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** Each new problem, the words of its problem line, and y's length at the page's d. */
const PROBLEMS = [
  ['group_dro_logistic', /worst-group logistic regression/, () => 3],
  ['group_dro_squares', /worst-group least squares/, () => 3],
  ['l1_system_fit', /ℓ1 system fit min ‖Āx − b̄‖₁/, (d) => d],
];

for (const [game, words, yLength] of PROBLEMS) {
  test(`${game}: picked from the game menu on a fresh page, refused where it must be, played to a release with both plots drawn`, async () => {
    const { context, page, seen } = await openGame(lab);
    const offered = await page.$$eval('#game option', (os) => os.map((o) => o.value));
    assert.ok(offered.includes(game), `the game menu offers ${game}: ${offered}`);

    // The first game algorithm is mirror descent with vertex sampling: it needs simplices, so
    // picking the game gives way to an algorithm that runs it, and the note says why.
    await page.selectOption('#game', game);
    await page.waitForFunction(() => /cannot run/.test(document.getElementById('algorithm-note').textContent));
    assert.match(await page.textContent('#algorithm-note'), /simplices/);
    assert.notEqual(await page.inputValue('#algorithm'), 'private_smd');

    // A saddle algorithm whose assumptions the problem meets: picking it meets its needs (μx, μy).
    await page.selectOption('#algorithm', 'byoa_minimax');
    await ready(page);
    // Fewer records keep the file quick (each solver pass regenerates every record).
    await page.fill('#n', '500');
    await page.dispatchEvent('#n', 'change');
    await page.waitForFunction(() => JSON.parse(window.__dp.run().info.config).n === 500, null, { timeout: 30_000 });
    await ready(page);
    assert.deepEqual(await errorsShown(page), []);
    const config = await configInUse(page);
    assert.equal(config.game, game);
    assert.ok(config.mu_x > 0 && config.mu_y > 0, 'the pick set the moduli');
    assert.match(await page.textContent('#problem-line'), words);
    assert.match(await page.textContent('#excess-metric'), /duality gap/);

    await playGameToRelease(page);
    const release = await page.evaluate(() => window.__dp.run().release);
    assert.equal(release.y.length, yLength(config.d), 'y: the groups, or the equations');
    assert.equal(release.w.length, config.d);
    assert.deepEqual(seen.errors, []);
    await context.close();
  });
}

// Group DRO with x on the simplex: a newcomer picks it from the game menu and then private
// stochastic mirror descent (González, Guzmán & Paquette 2024, Algorithm 1) from the algorithm
// menu; nothing is refused, Play runs to a release on both simplices, and the gap plot draws.
test('group DRO with x on the simplex runs private mirror descent (Algorithm 1) to a release', async () => {
  const { context, page, seen } = await openGame(lab);
  await page.selectOption('#game', 'group_dro_logistic_simplex');
  await page.selectOption('#algorithm', 'private_smd');
  await page.waitForFunction(() => {
    const c = JSON.parse(window.__dp.run().info.config);
    return c.game === 'group_dro_logistic_simplex' && c.algorithm === 'private_smd';
  }, null, { timeout: 30_000 });
  await ready(page);
  assert.deepEqual(await errorsShown(page), []);
  assert.match(await page.textContent('#problem-line'), /worst-group logistic regression: x on the simplex/);
  assert.match(await page.textContent('#excess-metric'), /duality gap/);

  await playGameToRelease(page);
  const config = await configInUse(page);
  const release = await page.evaluate(() => window.__dp.run().release);
  assert.equal(release.w.length, config.d);
  assert.equal(release.y.length, 3);
  // Both released points lie on their simplices (averages of drawn vertices).
  for (const v of [release.w, release.y]) {
    assert.ok(v.every((p) => p >= 0), `${v}`);
    assert.ok(Math.abs(v.reduce((a, b) => a + b, 0) - 1) < 1e-9, `${v}`);
  }
  assert.deepEqual(seen.errors, []);
  await context.close();
});

// AUC maximisation (Ying, Wen & Lyu 2016; Zhang et al. 2022's C-SC game): picked from the game
// menu on a fresh page, it picks the C-SC variant, which runs it to a release with both plots drawn.
// Its moduli are its own (μx = 0, μy = 2p(1 − p) at the declared prior p = 0.3): the μx, μy
// fields hide while it is picked and come back with another game. Its release shows the AUC of
// the released w and of the reference saddle point, labelled non-private.
test('auc_maximisation: picked from the game menu on a fresh page, it picks an algorithm that runs it to a release and shows its AUC', async () => {
  const { context, page, seen } = await openGame(lab);
  const muFields = async () => [await page.isVisible('#mu_x'), await page.isVisible('#mu_y')];
  assert.deepEqual(await muFields(), [true, true], 'μx, μy apply to rock–paper–scissors');
  assert.ok(!(await page.isVisible('#game-readout')), 'no AUC row for rock–paper–scissors');
  await page.selectOption('#game', 'auc_maximisation');
  await page.waitForFunction(() => JSON.parse(window.__dp.run().info?.config ?? '{}').game === 'auc_maximisation', null, { timeout: 30_000 });
  assert.equal(await page.inputValue('#algorithm'), 'byoa_minimax_csc');
  assert.match(await page.textContent('#algorithm-note'), /cannot run AUC maximisation/);
  await page.fill('#n', '500');
  await page.dispatchEvent('#n', 'change');
  await page.waitForFunction(() => JSON.parse(window.__dp.run().info.config).n === 500, null, { timeout: 30_000 });
  await ready(page);
  assert.deepEqual(await errorsShown(page), []);
  assert.match(await page.textContent('#problem-line'), /AUC maximisation .*labels ±1/);
  assert.match(await page.textContent('#problem-line'), /declared class prior p = 0\.3/);
  assert.match(await page.textContent('#excess-metric'), /duality gap/);
  assert.deepEqual(await muFields(), [false, false], 'μx, μy hide: the game declares its own moduli');
  assert.ok(await page.isVisible('#game-readout'), 'the AUC row shows before Play');
  assert.match(await page.textContent('#game-readout-term'), /^AUC measured on the raw data \(not private\)$/);
  assert.equal(await page.textContent('#game-readout'), '–');

  await playGameToRelease(page);
  const release = await page.evaluate(() => window.__dp.run().release);
  const config = await configInUse(page);
  assert.equal(release.w.length, config.d + 2, 'x = (w, s, t)');
  // The C-SC variant releases x alone (Zhang et al. 2022, Section 4.3): no y is published or shown.
  assert.equal(release.y, undefined, 'only x is released');
  assert.doesNotMatch(await page.textContent('#release'), /y =/);
  assert.match(await page.textContent('#release'), /^x = \(.*only x is released/);
  // The AUC readout: the released w's and the reference saddle point's, each in [0, 1].
  const shown = await page.textContent('#game-readout');
  assert.match(shown, /^(0|1|0\.\d+) at the released x; (0|1|0\.\d+) at the reference saddle point/);
  const { released, reference } = release.readout;
  assert.equal(release.readout.name, 'AUC');
  for (const v of [released, reference]) assert.ok(v >= 0 && v <= 1, `AUC ${v}`);
  assert.equal(Number(await page.getAttribute('#game-readout', 'data-released')), released);
  assert.ok(shown.startsWith(String(Number(released.toPrecision(4)))), shown);

  // Another game: μx, μy apply again, and the AUC row goes.
  await page.selectOption('#game', 'random_matrix');
  await page.waitForFunction(() => JSON.parse(window.__dp.run().info.config).game === 'random_matrix', null, { timeout: 30_000 });
  await ready(page);
  assert.deepEqual(await muFields(), [true, true]);
  assert.ok(!(await page.isVisible('#game-readout')));
  assert.deepEqual(await errorsShown(page), []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
