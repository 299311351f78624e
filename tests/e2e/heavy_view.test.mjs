// End to end, issue 15 item 4's 2-D view (Lowy 2026, Algorithm 1 with Algorithm 4): a newcomer
// picks localized Double-OutputPert from the algorithm menu on a fresh page; the localisation view
// appears (W drawn before Play), and after Play it holds every phase's localisation balls, the
// candidates of each aggregation step, the centres in order and the release in red, with a
// caption saying what is private. DP-GD has no such view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, plotsDrawn, session, snapshotCanvas } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
const released = async (page) => {
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
};

/** Pixels of `canvas` in the release red (src/wasm/plot/mod.rs RELEASE_COLOR). */
const redPixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] === 214 && data[i + 1] === 39 && data[i + 2] === 40) n += 1;
  return n;
});

/** Pixels of `canvas` in phase 1's colour (the palette's blue, src/wasm/plot/mod.rs PALETTE[0]). */
const phaseOnePixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - 0) < 40 && Math.abs(data[i + 1] - 114) < 40 && Math.abs(data[i + 2] - 178) < 40) n += 1;
  }
  return n;
});

test('localized Double-OutputPert: the localisation view draws W, the balls, the candidates and the red release', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  assert.equal(await page.isVisible('#localisation-plot'), false, 'no localisation view for DP-GD, the default');

  await page.selectOption('#algorithm', 'localized_double_output_perturbation');
  await ready(page);
  await page.waitForSelector('#localisation-plot', { state: 'visible' });
  await plotsDrawn(page);
  // Before Play: W and the schedule, no call yet.
  const planned = await page.evaluate(() => window.__dp.spec('localisation'));
  assert.ok(planned.view.phases.length >= 2, `${planned.view.phases.length} phases`);
  assert.ok(planned.view.phases.every((p) => (p.calls ?? []).length === 0));
  assert.equal(planned.view.algorithm, 4);
  await snapshotCanvas(page, '#localisation-plot');
  // Before Play the only red is the legend's release dot.
  const redBefore = await redPixels(page, '#localisation-plot');
  const blueBefore = await phaseOnePixels(page, '#localisation-plot');
  assert.ok(redBefore < 60, `only the legend's red dot before Play: ${redBefore} pixels`);

  await page.click('#play');
  await released(page);
  await plotsDrawn(page);
  const spec = await page.evaluate(() => window.__dp.spec('localisation'));
  const { view } = spec;
  const config = await page.evaluate(() => JSON.parse(window.__dp.run().info.config));
  for (const p of view.phases) {
    assert.equal(p.calls.length, config.repetitions, `phase ${p.t}: one candidate per call`);
    assert.ok(p.calls.every((c) => c.ballCentre && c.candidate && c.certified), `phase ${p.t}`);
    assert.ok(Number.isInteger(p.picked), `phase ${p.t} picked a candidate`);
  }
  // The radii and the noise rings shrink phase by phase.
  for (let t = 1; t < view.phases.length; t++) {
    assert.ok(view.phases[t].ballRadius < view.phases[t - 1].ballRadius);
    assert.ok(view.phases[t].noiseRing < view.phases[t - 1].noiseRing);
  }
  // The red point is the run's release.
  const release = await page.evaluate(() => window.__dp.run().release.w);
  assert.deepEqual(view.release, release.slice(0, 2));

  const changed = await changedPixels(page, '#localisation-plot');
  assert.ok(changed > 1000, `localisation view: ${changed} pixels changed by the run`);
  const red = await redPixels(page, '#localisation-plot');
  assert.ok(red > redBefore + 40, `the release in red: ${red} pixels, ${redBefore} before Play`);
  const blue = await phaseOnePixels(page, '#localisation-plot');
  assert.ok(blue > blueBefore + 20, `phase 1’s candidate drawn in its colour: ${blue} pixels, ${blueBefore} before Play`);
  const caption = await page.textContent('#localisation-caption');
  assert.match(caption, /localisation ball W₀ = W ∩ B\(w_loc, r₀\)/);
  assert.match(caption, /noise realisation|its realisation, a diagnostic of the raw data, not private/);
  assert.match(caption, /measured on the raw data \(not private\)/);
  assert.match(caption, /the release in red/);
  // The plot's own texts: its title and legend name what is private, and none runs off the
  // canvas, on the page or in the SVG export.
  const drawn = await page.evaluate(async () => {
    const wasm = await import('/www/pkg/dp_playground.js');
    const canvas = document.getElementById('localisation-plot');
    const s = window.__dp.spec('localisation');
    const off = [];
    const texts = [];
    const check = (how) => {
      const { width, height, texts: boxes } = wasm.plotTextBoxes();
      for (const t of boxes) {
        texts.push(t.text);
        if (t.left < 0 || t.top < 0 || t.right > width || t.bottom > height) off.push(`${how}: "${t.text}"`);
      }
    };
    wasm.drawPlot('localisation', canvas, s);
    check('page');
    const svg = wasm.plotSvg('localisation', s, canvas.width, canvas.height);
    check('export');
    return { off, texts, svg: svg.length };
  });
  assert.deepEqual(drawn.off, []);
  assert.ok(drawn.texts.some((t) => /^localisation \(Lowy 2026, Algorithm 1 with Algorithm 4\)/.test(t)), drawn.texts.join(' | '));
  assert.ok(drawn.texts.includes('release (private)'), drawn.texts.join(' | '));
  assert.ok(drawn.texts.some((t) => /noise realisation \(a raw-data diagnostic, not private\)/.test(t)));
  assert.ok(drawn.svg > 1000, 'the SVG export draws the same figure');

  // Back to DP-GD: the view goes.
  await page.selectOption('#algorithm', 'noisy_gd');
  await ready(page);
  assert.equal(await page.isVisible('#localisation-plot'), false);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
