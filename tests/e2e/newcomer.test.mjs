// End to end, the way a newcomer meets the page: what the words mean
// (tooltips on hover and on keyboard focus, and in the card), ε typed as well as slid, controls
// that stay where they are while a run is prepared, stale plots marked as such, and a new noise
// draw that is a new release, kept in the link and counted in the total.
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
const released = (page) => page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
const hashConfig = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice(1))));

/** The tooltip `anchor` names in its aria-describedby: its text, and whether it is shown. */
async function tooltipOf(page, anchor) {
  return page.$eval(anchor, (el) => {
    const tip = (el.getAttribute('aria-describedby') ?? '').split(' ')
      .map((id) => document.getElementById(id)).find((t) => t?.getAttribute('role') === 'tooltip');
    if (!tip) return null;
    const box = tip.getBoundingClientRect();
    return { text: tip.textContent, visible: !tip.hidden && box.width > 0 && box.height > 0 };
  });
}

test('a word is explained on hover and on keyboard focus, in a role="tooltip" element, and in the card', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  // G in the preview of the noise.
  const g = '#guarantee-detail [data-term="G"]';
  assert.match(await page.textContent(g), /^G = /);
  assert.equal((await tooltipOf(page, g)).visible, false, 'hidden until asked for');
  await page.hover(g);
  const shown = await tooltipOf(page, g);
  assert.ok(shown.visible, 'hovering G shows its tooltip');
  assert.match(shown.text, /^G: G is the declared Lipschitz bound/);
  await page.mouse.move(0, 0);
  assert.equal((await tooltipOf(page, g)).visible, false);
  // Keyboard: Tab reaches the word (it is focusable), and focus shows the tooltip.
  for (let i = 0; i < 80 && !(await page.evaluate(() => document.activeElement?.dataset.term === 'G')); i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.term), 'G', 'Tab reaches G');
  assert.ok((await tooltipOf(page, g)).visible, 'focusing G shows its tooltip');
  await page.keyboard.press('Escape');
  assert.equal((await tooltipOf(page, g)).visible, false, 'Escape hides it');

  // The readout's population excess, the clipping count and the two clip controls.
  await page.focus('#population-term');
  assert.match((await tooltipOf(page, '#population-term')).text, /fresh\s+sample.*not private/s);
  assert.match(await page.textContent('#problem-line [data-term="clipped"]'), /^clipping shortened \d+ of them$/);
  // The declared bound lives in the "more settings" fold, which a person opens first.
  await openMoreSettings(page);
  await page.focus('#feature_bound');
  const bound = await tooltipOf(page, '#feature_bound');
  assert.ok(bound.visible);
  assert.match(bound.text, /^declared ‖x‖ bound: Data side/);
  // The grey badge says what it means (the NOT PRIVATE length badges stay hidden for DP-GD,
  // whose length the settings fix).
  const badges = await page.$$eval('.np', (els) => [...new Set(els.filter((el) => el.checkVisibility()).map((el) => el.textContent))]);
  assert.deepEqual(badges, ['measured on the raw data (not private)']);
  // The card explains the words it uses: DP-GD's says PL and zCDP (once its text has arrived),
  // in its fold, which a person opens first.
  await openAlgorithmPanel(page);
  await page.waitForSelector('#card[data-kind="noisy_gd"]');
  const meanings = await page.$$eval('#card-body dt', (dts) => dts.filter((dt) => dt.textContent === 'meaning')
    .map((dt) => dt.nextElementSibling.textContent));
  assert.ok(meanings.some((m) => m.startsWith('PL: Polyak–Łojasiewicz')), meanings.join(' | '));
  assert.ok(meanings.some((m) => m.startsWith('zCDP: zero-concentrated')), meanings.join(' | '));

  // DP-SGD shows the gradient clip, explained as the algorithm's side of clipping.
  await page.selectOption('#algorithm', 'dp_sgd');
  await ready(page);
  await page.hover('#clip');
  const clip = await tooltipOf(page, '#clip');
  assert.ok(clip.visible);
  assert.match(clip.text, /^gradient clip C: Algorithm side/);

  // Output perturbation waits for its certificate; the released run's ledger has the
  // floating-point caveat; both explained where they appear.
  await page.selectOption('#algorithm', 'output_perturbation');
  await ready(page);
  await page.hover('#guarantee-detail [data-term="certificate"]');
  assert.match((await tooltipOf(page, '#guarantee-detail [data-term="certificate"]')).text, /^certificate: /);
  await page.click('#play');
  await released(page);
  await page.hover('#caveats [data-term="floatingPoint"]');
  const fp = await tooltipOf(page, '#caveats [data-term="floatingPoint"]');
  assert.ok(fp.visible);
  assert.match(fp.text, /Mironov, "On Significance of the Least Significant Bits for Differential Privacy", 2012/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('ε can be typed: 8 runs at ε = 8, the slider follows, and a refused value is named beside the field', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.fill('#epsilon-typed', '8');
  await page.press('#epsilon-typed', 'Enter');
  await page.waitForFunction(() => JSON.parse(decodeURIComponent(location.hash.slice(1))).epsilon === 8);
  assert.match(await page.textContent('#guarantee-headline'), /\(ε = 8, δ = 1\.00e-6\)-DP/);
  assert.equal(await page.textContent('#epsilon-output'), '8');
  assert.ok(Math.abs(Number(await page.inputValue('#epsilon')) - Math.log10(8)) < 0.01);
  await ready(page);
  await page.click('#play');
  await released(page);
  assert.equal((await page.evaluate(() => JSON.parse(window.__dp.run().info.config))).epsilon, 8);

  // The slider types its value into the field.
  await page.$eval('#epsilon', (el) => { el.value = '-0.5'; el.dispatchEvent(new Event('input')); });
  assert.equal(await page.inputValue('#epsilon-typed'), '0.32');

  // A value Rust refuses (above its 100) is named beside ε, and Play is off.
  await page.fill('#epsilon-typed', '500');
  await page.press('#epsilon-typed', 'Enter');
  await page.waitForFunction(() => document.querySelector('#epsilon-error').textContent !== '');
  assert.match(await page.textContent('#epsilon-error'), /^privacy ε/);
  assert.ok(await page.$eval('#play', (b) => b.disabled));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('over a settings change, Play and the algorithm menu stay put at every frame, and the old plots are marked stale', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.click('#play');
  await released(page);
  assert.equal(await page.$eval('section.plots', (el) => el.dataset.stale ?? 'false'), 'false');
  // Every animation frame from the change until the new run is ready (and a few after): where
  // Play and the menu are. The change and the first sample are in one task, so no frame is missed.
  const stale = await page.evaluate(() => {
    const where = () => ['#play', '#algorithm'].map((s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return [r.x, r.y];
    });
    window.__boxes = [where()];
    let after = 0;
    const sample = () => {
      window.__boxes.push(where());
      if (document.querySelector('#status').dataset.state === 'ready') after += 1;
      if (after < 10) requestAnimationFrame(sample);
      else window.__sampled = true;
    };
    const n = document.querySelector('#n');
    n.value = '2100';
    n.dispatchEvent(new Event('change'));
    requestAnimationFrame(sample);
    const plots = document.querySelector('section.plots');
    return { stale: plots.dataset.stale, faded: plots.classList.contains('stale'), label: !document.querySelector('#stale-label').hidden };
  });
  assert.deepEqual(stale, { stale: 'true', faded: true, label: true });
  await page.waitForFunction(() => window.__sampled === true, null, { timeout: 30_000 });
  const boxes = await page.evaluate(() => window.__boxes);
  assert.ok(boxes.length > 2, `${boxes.length} frames`);
  const moved = boxes.map((b) => Math.max(...b.flatMap((xy, i) => xy.map((v, j) => Math.abs(v - boxes[0][i][j])))));
  assert.ok(Math.max(...moved) <= 1, `Play or the menu moved by ${Math.max(...moved)} px at some frame: ${moved.join(' ')}`);
  // Ready, the plots still show the old run: stale until the new one's first batch.
  assert.equal(await page.$eval('section.plots', (el) => el.dataset.stale), 'true');
  assert.match(await page.textContent('#stale-label'), /settings changed — press Play/i);
  await page.click('#play');
  await page.waitForFunction(() => document.querySelector('section.plots').dataset.stale === 'false');
  assert.ok(await page.$eval('#stale-label', (el) => el.hidden));
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a new noise draw is another release on the same data: in the link, and counted in the stated total', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  const composed = () => page.$eval('#composed-guarantee', (el) => ({
    epsilon: Number(el.dataset.epsilon), releases: Number(el.dataset.releases), text: el.textContent,
  }));
  const one = await composed();
  assert.equal(one.releases, 1);
  await page.click('#play');
  await released(page);
  const first = await page.textContent('#release');
  // Seeded: Play is off after the release, and Reset → Play gives the identical run.
  assert.ok(await page.$eval('#play', (b) => b.disabled));
  await page.click('#reset');
  await ready(page);
  await page.click('#play');
  await released(page);
  assert.equal(await page.textContent('#release'), first);

  await page.click('#new-draw');
  await ready(page);
  const hash = await hashConfig(page);
  assert.equal(hash.noise_draw, 1);
  assert.equal(hash.seed, 1, 'the data seed stays');
  await page.click('#play');
  await released(page);
  const second = await page.textContent('#release');
  assert.notEqual(second, first, 'a new draw releases another point');
  // The total counts both releases on these data.
  const two = await composed();
  assert.equal(two.releases, 2);
  assert.ok(two.epsilon > one.epsilon, `${two.epsilon} after two draws, ${one.epsilon} after one`);
  assert.match(two.text, /with the 1 earlier noise draw on the same data/);

  // The link reproduces the second draw, and states the same total.
  const link = await page.evaluate(() => location.hash);
  const again = await lab.open(link);
  await ready(again.page);
  assert.deepEqual(await again.page.$eval('#composed-guarantee', (el) => Number(el.dataset.epsilon)), two.epsilon);
  await again.page.click('#play');
  await released(again.page);
  assert.equal(await again.page.textContent('#release'), second);
  assert.deepEqual(again.seen.errors, []);
  await again.context.close();
  assert.deepEqual(seen.errors, []);
  await context.close();
});
