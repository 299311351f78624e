// The saddle views on the page, picked from the menus as a newcomer would: the ternary
// plot of rock–paper–scissors at d = 3, the vertices a vertex-sampling run draws (the public view)
// beside its dense iterate (the curator's view), Zhang et al.'s phase timeline, and the sentence
// saying why González et al.'s Algorithm 3 stopped.
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

const configInUse = (page) => page.evaluate(() => JSON.parse(window.__dp.run().info.config));
const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
const released = async (page) => {
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
};

/** Pixels of `canvas` in the release red (crates/wasm/src/wasm/plot/mod.rs RELEASE_COLOR). */
const redPixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] === 214 && data[i + 1] === 39 && data[i + 2] === 40) n += 1;
  return n;
});

/** A fresh page with the game posed and `kind` picked from the algorithm menu. */
async function picked(kind) {
  const opened = await lab.open();
  const { page } = opened;
  await ready(page);
  await openMoreSettings(page);
  await page.selectOption('#problem', 'saddle');
  await ready(page);
  await page.selectOption('#game', 'rock_paper_scissors');
  await page.fill('#d', '3');
  await page.dispatchEvent('#d', 'change');
  await page.selectOption('#algorithm', kind);
  await ready(page);
  const config = await configInUse(page);
  assert.deepEqual([config.problem, config.game, config.d, config.algorithm], ['saddle', 'rock_paper_scissors', 3, kind]);
  return opened;
}

test('rock–paper–scissors at d = 3 with private SMD: a ternary plot, and the public draws beside the dense iterate', async () => {
  const { context, page, seen } = await picked('private_smd');
  assert.ok(await page.isVisible('#players-plot'));
  assert.ok(await page.isVisible('#vertices-plot'), 'a vertex-sampling run shows its vertex view');
  await plotsDrawn(page);
  for (const c of ['#players-plot', '#vertices-plot']) await snapshotCanvas(page, c);
  await page.click('#play');
  await released(page);
  await plotsDrawn(page);
  // The players as two triangles: the path, the red release ring, the equilibrium.
  const players = await page.evaluate(() => window.__dp.spec('players'));
  assert.equal(players.ternary, true);
  assert.ok(players.pathX.length >= 6 && players.pathX.length % 3 === 0, `x path: ${players.pathX.length}`);
  assert.equal(players.pathY.length, players.pathX.length);
  assert.deepEqual(players.equilibriumX.map((v) => Number(v.toFixed(6))), [0.333333, 0.333333, 0.333333]);
  const changed = await changedPixels(page, '#players-plot');
  assert.ok(changed > 500, `players: ${changed} pixels changed`);
  const red = await redPixels(page, '#players-plot');
  assert.ok(red > 40, `two release rings: ${red} red pixels`);
  // The vertex view: every kept step's drawn vertex, and the dense iterate, both drawn.
  const vertices = await page.evaluate(() => window.__dp.spec('vertices'));
  assert.ok(vertices.steps.length > 10, `steps: ${vertices.steps.length}`);
  assert.equal(vertices.draws.length, 2 * vertices.steps.length);
  assert.equal(vertices.denseX.length, 3);
  assert.ok(Math.abs(vertices.denseX.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  const drawn = await changedPixels(page, '#vertices-plot');
  assert.ok(drawn > 300, `vertex view: ${drawn} pixels changed`);
  const caption = await page.textContent('#vertices-plot + figcaption');
  assert.match(caption, /what an outsider sees/);
  assert.match(caption, /curator/);
  assert.match(caption, /measured on the raw data \(not private\)/);
  assert.ok(!(await page.isVisible('#saddle-timeline')), 'no phases, no early stop: no timeline');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a phased Zhang et al. family shows its timeline before Play and fills it as it runs', async () => {
  const { context, page, seen } = await picked('byoa_minimax_phased');
  assert.ok(!(await page.isVisible('#vertices-plot')), 'no vertices drawn, no vertex view');
  assert.ok(await page.isVisible('#phase-table'));
  const states = () => page.$$eval('#phase-rows tr', (rows) => rows.map((r) => r.dataset.state));
  const planned = await states();
  assert.ok(planned.length >= 4, `${planned.length} phases`);
  assert.ok(planned.every((s) => s === 'waiting'), planned.join());
  const first = await page.$$eval('#phase-rows tr:first-child td', (tds) => tds.map((td) => td.textContent));
  assert.equal(first[0], '4', 'Algorithm 4 first');
  assert.equal(first[7], '–', 'no gradients used before the run');
  await page.click('#play');
  await released(page);
  const done = await states();
  assert.equal(done.length, planned.length);
  assert.ok(done.every((s) => s.startsWith('released')), done.join());
  const used = await page.$$eval('#phase-rows tr td:nth-child(8)', (tds) => tds.map((td) => Number(td.textContent)));
  assert.ok(used.every((v) => v > 0), used.join());
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('Algorithm 3 says when and why it stopped', async () => {
  const { context, page, seen } = await picked('bias_reduced_smd');
  assert.ok(!(await page.isVisible('#stop-reason')), 'nothing to say before the run');
  await page.click('#play');
  await released(page);
  assert.ok(await page.isVisible('#stop-reason'));
  const said = await page.textContent('#stop-words');
  assert.match(said, /^Stopped after \d+ steps: /);
  // When a privacy filter stops the run depends on the data: labelled so.
  assert.match(await page.textContent('#stop-reason'), /^NOT PRIVATE: when the run stopped is measured on the data/);
  assert.match(said, /privacy filter/);
  assert.match(said, /budget|records/);
  assert.ok(await page.isVisible('#vertices-plot'), 'Algorithm 3 samples vertices too');
  assert.deepEqual(seen.errors, []);
  await context.close();
});
