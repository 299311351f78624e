// End to end, the heavy-tail 2-D view (Lowy 2026, Algorithm 1 with Algorithm 4): a newcomer
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

/** Pixels of `canvas` in the release red (crates/wasm/src/wasm/plot/mod.rs RELEASE_COLOR). */
const redPixels = (page, selector) => page.$eval(selector, (c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] === 214 && data[i + 1] === 39 && data[i + 2] === 40) n += 1;
  return n;
});

/** Pixels of `canvas` in phase 1's colour (the palette's blue, crates/wasm/src/wasm/plot/mod.rs PALETTE[0]). */
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

// The grid families run inside Algorithm 1's phases too (Theorems E.2 and F.6); the
// view draws their phases: each call's grid ball (EM-PGM: W ∩ B(w̄_t, r_t) around the phase's
// centre; Algorithm 7: W₀ around its localisation's output), the draw on it, the median trick's
// pick, the centres and the release, labelled as for the Laplace families.
test('the grid families: fresh page, pick, Play, and the view draws their phases', async () => {
  for (const [algorithm, number] of [['em_pgm', 5], ['localized_approx_em', 7]]) {
    const started = Date.now();
    const { context, page, seen } = await lab.open();
    await ready(page);
    await page.selectOption('#algorithm', algorithm);
    await ready(page);
    await page.waitForSelector('#localisation-plot', { state: 'visible' });
    await plotsDrawn(page);
    const planned = (await page.evaluate(() => window.__dp.spec('localisation'))).view;
    assert.equal(planned.algorithm, number);
    assert.ok(planned.phases.length >= 2, `${algorithm}: ${planned.phases.length} phases before Play`);
    assert.ok(planned.phases.every((p) => (p.calls ?? []).length === 0 && p.ballRadius > 0));
    // The schedule is public and shown before Play: EM-PGM draws no ℓ2-Laplace noise.
    assert.ok(planned.phases.every((p) => (number === 5) === (p.noiseRing == null)), algorithm);
    await snapshotCanvas(page, '#localisation-plot');

    await page.click('#play');
    await released(page);
    await plotsDrawn(page);
    const { view } = await page.evaluate(() => window.__dp.spec('localisation'));
    const config = await page.evaluate(() => JSON.parse(window.__dp.run().info.config));
    for (const p of view.phases) {
      assert.equal(p.calls.length, config.repetitions, `${algorithm} phase ${p.t}: one draw per call`);
      assert.ok(p.calls.every((c) => c.ballCentre && c.candidate), `${algorithm} phase ${p.t}`);
      assert.ok(p.calls.every((c) => (number === 7) === Boolean(c.certified)), `${algorithm} phase ${p.t}`);
      assert.ok(Number.isInteger(p.picked), `${algorithm} phase ${p.t} picked a candidate`);
      if (number === 5) assert.ok(p.calls.every((c) => c.ballCentre.join() === p.centre.join()), 'around the centre');
    }
    const release = await page.evaluate(() => window.__dp.run().release.w);
    assert.deepEqual(view.release, release.slice(0, 2));
    const changed = await changedPixels(page, '#localisation-plot');
    assert.ok(changed > 1000, `${algorithm}: ${changed} pixels changed by the run`);
    assert.ok((await redPixels(page, '#localisation-plot')) > 60, `${algorithm}: the release in red`);
    const texts = await page.evaluate(async () => {
      const wasm = await import('/www/pkg/dp_playground.js');
      wasm.drawPlot('localisation', document.getElementById('localisation-plot'), window.__dp.spec('localisation'));
      const { width, height, texts: boxes } = wasm.plotTextBoxes();
      return boxes.map((t) => ({ text: t.text, off: t.left < 0 || t.top < 0 || t.right > width || t.bottom > height }));
    });
    const all = texts.map((t) => t.text).join(' | ');
    assert.deepEqual(texts.filter((t) => t.off).map((t) => t.text), [], `${algorithm}: no text off the canvas`);
    assert.ok(texts.some((t) => t.text.startsWith(`localisation (Lowy 2026, Algorithm 1 with Algorithm ${number})`)), all);
    assert.ok(texts.some((t) => /^grid ball .*\(non-private\)$/.test(t.text)), all);
    assert.ok(texts.some((t) => t.text === 'grid draw: ball centre → point drawn (non-private)'), all);
    assert.ok(texts.some((t) => t.text === 'release (private)'), all);
    assert.equal(texts.some((t) => /^noise ring/.test(t.text)), number === 7, all);
    assert.match(await page.textContent('#localisation-caption'), /grid families \(EM-PGM, the localised exponential mechanism\)/);
    assert.deepEqual(seen.errors, [], algorithm);
    await context.close();
    console.log(`${algorithm}: fresh page, pick, Play, view drawn in ${Date.now() - started} ms`);
  }
});
