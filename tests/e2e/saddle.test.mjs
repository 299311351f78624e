// Saddle-point problems on the page: a newcomer opens the page, switches the problem menu to a game and presses
// Play. The switch picks an algorithm that solves games and gives rock–paper–scissors its three
// strategies, each with a note; the game's panel replaces the loss and data-source controls; the
// run releases both players, and the players plot draws them (the release in red).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changedPixels, configInUse, errorsShown, openGame, openMoreSettings, playGameToRelease, plotsDrawn, ready, session, snapshotCanvas,
} from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** Pixels of `canvas` in the release red (crates/wasm/src/wasm/plot/mod.rs RELEASE_COLOR). */
const redPixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] === 214 && data[i + 1] === 39 && data[i + 2] === 40) n += 1;
  return n;
});

test('a newcomer switches the problem menu to a game, presses Play, and sees both players released', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  assert.ok(!(await page.isVisible('#game')), 'no game panel while minimising');
  assert.ok(!(await page.isVisible('#players-plot')), 'no players plot while minimising');
  await openMoreSettings(page);

  await page.selectOption('#problem', 'saddle');
  await ready(page);
  const config = await configInUse(page);
  assert.equal(config.problem, 'saddle');
  assert.equal(config.d, 3, 'rock–paper–scissors gets its three strategies');
  const card = await page.evaluate((k) => window.__dp.run().info.cards[k], config.algorithm);
  assert.ok(card.solves.includes('saddle'), `${config.algorithm} solves games`);
  const note = await page.textContent('#algorithm-note');
  assert.match(note, /algorithm set to/, note);
  assert.match(note, /dimension d set to 3/, note);
  assert.deepEqual(await errorsShown(page), []);

  // The game's controls replace the minimisation's.
  for (const id of ['#game', '#records', '#entry_bound', '#mu_x', '#mu_y', '#players-plot']) {
    assert.ok(await page.isVisible(id), `${id} shows for a game`);
  }
  for (const id of ['#loss', '#wrap', '#l2', '#data', '#features-plot']) {
    assert.ok(!(await page.isVisible(id)), `${id} hides for a game`);
  }
  assert.match(await page.textContent('#problem-line'), /rock–paper–scissors embedded in 3 strategies/);
  assert.match(await page.textContent('#excess-metric'), /duality gap/);
  // The parameter view is x's plane, the declared equilibrium marked (a public property).
  assert.match(await page.textContent('#path-caption'), /equilibrium/);
  const marked = await page.evaluate(() => window.__dp.run().info.view.w_star);
  assert.deepEqual(marked.map((v) => Number(v.toFixed(6))), [0.333333, 0.333333]);
  // The menu offers only games' algorithms to compare with.
  const offered = await page.$$eval('#compare label:not([hidden]) input', (els) => els.map((el) => el.value));
  const cards = await page.evaluate(() => window.__dp.run().info.cards);
  for (const kind of offered) assert.ok(cards[kind].solves.includes('saddle'), `${kind} offered to compare`);

  // A falling gap curve and both players' bars: thousands of pixels each.
  await playGameToRelease(page);
  assert.match(await page.textContent('#excess-name'), /duality gap/);
  // The release is outlined in red: 2·d bars of 2-px outlines.
  const red = await redPixels(page, '#players-plot');
  assert.ok(red > 100, `release outlines: ${red} red pixels`);
  // The headline states a guarantee before and after; the private export carries y.
  assert.match(await page.textContent('#guarantee-headline'), /DP|NOT PRIVATE/);
  const release = await page.evaluate(() => window.__dp.run().release);
  assert.equal(release.y.length, 3);
  assert.equal(release.w.length, 3);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a game setting out of range is refused beside its control and the last run stays', async () => {
  const { context, page, seen } = await openGame(lab);
  const before = await configInUse(page);
  await page.fill('#entry_bound', '-1');
  await page.dispatchEvent('#entry_bound', 'change');
  await page.waitForFunction(() => document.getElementById('entry_bound-error').textContent !== '');
  assert.match(await page.textContent('#entry_bound-error'), /declared entry bound c: set it to a number/);
  assert.deepEqual(await configInUse(page), before, 'the last good run stays');
  // Fixed, it runs; and rock–paper–scissors in two strategies is refused at d.
  await page.fill('#entry_bound', '1');
  await page.fill('#d', '2');
  await page.dispatchEvent('#d', 'change');
  await page.waitForFunction(() => document.getElementById('d-error').textContent !== '');
  assert.match(await page.textContent('#d-error'), /three strategies|3/);
  // Back to minimisation: a minimisation algorithm again, the loss controls back.
  await page.fill('#d', '3');
  await page.selectOption('#problem', 'minimisation');
  // The status may still read ready for the last good run (the refused d = 2 kept it on screen):
  // wait for the run of the new settings itself.
  await page.waitForFunction(() => JSON.parse(window.__dp.run().info.config).problem === 'minimisation', null, { timeout: 30_000 });
  await ready(page);
  const config = await configInUse(page);
  assert.equal(config.problem, 'minimisation');
  const card = await page.evaluate((k) => window.__dp.run().info.cards[k], config.algorithm);
  assert.ok(card.solves.includes('minimisation'));
  assert.ok(await page.isVisible('#loss'));
  assert.ok(!(await page.isVisible('#game')));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('every game algorithm, picked from the menu on a fresh page, releases and draws its gap curve and both players', async () => {
  const { page: probe, context: probeContext } = await lab.open();
  await ready(probe);
  const cards = await probe.evaluate(() => window.__dp.run().info.cards);
  await probeContext.close();
  const games = Object.values(cards).filter((c) => c.solves.includes('saddle')).map((c) => c.kind);
  assert.ok(games.length >= 6, `game algorithms in the menu: ${games}`);
  for (const kind of games) {
    const { context, page, seen } = await lab.open();
    await ready(page);
    await page.selectOption('#algorithm', kind);
    await ready(page);
    assert.equal((await configInUse(page)).problem, 'saddle', kind);
    assert.ok(await page.isVisible('#players-plot'), kind);
    await plotsDrawn(page);
    for (const c of ['#excess-plot', '#players-plot', '#privacy-plot']) await snapshotCanvas(page, c);
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
    assert.deepEqual(await errorsShown(page), [], kind);
    await plotsDrawn(page);
    for (const c of ['#excess-plot', '#players-plot', '#privacy-plot']) {
      const changed = await changedPixels(page, c);
      assert.ok(changed > 300, `${kind} ${c}: ${changed} pixels changed`);
    }
    assert.ok(await redPixels(page, '#players-plot') > 50, `${kind}: the release is outlined`);
    assert.deepEqual(seen.errors, [], kind);
    await context.close();
  }
});
