// End to end: a sweep of the released excess risk against ε, run through the
// panel's controls across the page's pool of workers. Output perturbation at δ = 0 releases with
// ℓ2-Laplace noise of scale ∝ 1/ε, so its excess risk falls as ε⁻²: the fitted slope must be −2
// within ±0.15. The progress bar reaches 100%, the CSV has one row per point, and Cancel stops a
// sweep mid-way (no more progress) with the page still usable.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMoreSettings, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });

/** Types `value` into the control `selector` and commits it as a person would (Tab). */
async function set(page, selector, value) {
  await page.fill(selector, value);
  await page.press(selector, 'Tab');
}

async function saveDownload(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return { name: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
}

const progress = (page) => page.$eval('#sweep-progress', (p) => p.value);

test('a sweep of 5 ε values × R = 10 for output perturbation (δ = 0): progress to 100%, slope −2 ± 0.15, CSV of 5 points; Cancel stops the next one', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.selectOption('#algorithm', 'output_perturbation');
  await ready(page);
  await openMoreSettings(page);
  await set(page, '#delta', '0');
  await ready(page);
  await set(page, '#n', '500');
  await ready(page);

  // The panel opens from a button beside Play, its defaults from the settings (5 values of ε around 1).
  await page.click('#open-sweep');
  assert.equal(await page.$eval('#sweep-panel', (d) => d.open), true);
  assert.equal(await page.inputValue('#sweep-values'), '0.25, 0.5, 1, 2, 4');
  const ticked = await page.$$eval('#sweep-algorithms input:checked', (l) => l.map((b) => b.value));
  assert.deepEqual(ticked, ['output_perturbation']);
  await set(page, '#sweep-values', '0.25, 0.5, 1, 2, 4');
  await set(page, '#sweep-repeats', '10');
  // A bad value is refused at its control before anything runs.
  await set(page, '#sweep-values', '1');
  assert.match(await page.textContent('#sweep-values-error'), /sweep values: enter 2 to 12 values/);
  assert.equal(await page.isDisabled('#sweep-run'), true);
  await set(page, '#sweep-values', '0.25, 0.5, 1, 2, 4');
  assert.equal(await page.textContent('#sweep-values-error'), '');

  // What the sweep publishes, before it runs: 50 pure-ε releases on the same data add up.
  await page.waitForFunction(() => document.querySelector('#sweep-privacy').dataset.releases === '50');
  assert.match(await page.textContent('#sweep-privacy'),
    /publishes 50 releases \(5 points × 10 repeats\)\. Every point draws its data from the same seed.*together pure ε = 77\.5-DP/);

  await page.click('#sweep-run');
  await page.waitForFunction(() => /^Done/.test(document.querySelector('#sweep-status').textContent), null, { timeout: 80_000 });
  assert.equal(await progress(page), 1);
  assert.match(await page.textContent('#sweep-status'), /Done: 50 runs on \d+ workers? in [\d.]+ s\./);
  const slope = Number(await page.getAttribute('#sweep-slopes tr[data-algorithm="output_perturbation"]', 'data-slope'));
  assert.ok(Math.abs(slope + 2) <= 0.15, `fitted slope ${slope}`);
  // The theorem's slope is stated beside it (the bound is ∝ ε⁻² up to the certified solver's error).
  const theory = Number(await page.getAttribute('#sweep-slopes tr[data-algorithm="output_perturbation"]', 'data-theory'));
  assert.ok(Math.abs(theory + 2) <= 0.15, `theorem's slope ${theory}`);
  // The plot is drawn: the canvas is not blank.
  const inked = await page.$eval('#sweep-plot', (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n += 1;
    return n;
  });
  assert.ok(inked > 2000, `${inked} inked pixels`);

  // CSV (Rust's, the terminal's file) with one row per point; SVG of the plot.
  const csv = await saveDownload(page, '#sweep-csv');
  assert.equal(csv.name, 'dp-playground-sweep.csv');
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'algorithm,epsilon,n,repeats_scored,mean,sd,min,max');
  assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 4).join(',')),
    ['0.25', '0.5', '1.0', '2.0', '4.0'].map((e) => `output_perturbation,${e},500,10`));
  const svg = await saveDownload(page, '#sweep-svg');
  assert.match(svg.text, /^<svg/);
  assert.match(svg.text, /privacy ε/);
  // The figure and its file name carry the sweep's settings, as a slide needs.
  assert.match(svg.name, /^sweep_output-perturbation_eps0\.25to4_delta[0-9e.-]+_n500_R10\.svg$/);
  assert.match(svg.text, /ε = 0\.25 … 4 \(5 values\)/);
  assert.ok(svg.text.includes(`fitted slope ${String(Number(slope.toPrecision(3)))}`), 'the legend gives the fitted slope');
  // Both ends of the swept axis carry their value (every swept ε is a tick),
  // and the legend says what a shaded band is.
  const texts = [...svg.text.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].trim());
  for (const end of ['0.25', '4']) assert.ok(texts.includes(end), `the axis end ${end} is labelled: ${texts.join(' | ')}`);
  assert.ok(texts.includes('shaded: min–max over the 10 repeats at each point'), texts.join(' | '));

  // A long sweep (over n up to 10⁵, 500 runs), cancelled mid-way: no more progress, the last
  // finished sweep stays.
  await page.selectOption('#sweep-axis', 'n');
  assert.equal(await page.inputValue('#sweep-values'), '125, 250, 500, 1000, 2000');
  await set(page, '#sweep-values', '20000, 40000, 60000, 80000, 100000');
  await set(page, '#sweep-repeats', '100');
  await page.click('#sweep-run');
  await page.waitForFunction(() => {
    const v = document.querySelector('#sweep-progress').value;
    return v > 0 && v < 1;
  }, null, { timeout: 60_000 });
  await page.click('#sweep-cancel');
  const stopped = await progress(page);
  assert.ok(stopped > 0 && stopped < 1, `${stopped}`);
  assert.match(await page.textContent('#sweep-status'), /^Cancelled after \d+ of 500 runs; the plot keeps the last finished sweep\.$/);
  await page.waitForTimeout(1500);
  assert.equal(await progress(page), stopped);
  assert.match(await page.textContent('#sweep-status'), /^Cancelled/);
  assert.equal(await page.isEnabled('#sweep-run'), true);
  assert.equal(await page.isEnabled('#sweep-csv'), true);
  assert.equal((await saveDownload(page, '#sweep-csv')).text, csv.text);
  // The page is still usable: a run plays to its release.
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.deepEqual(seen.errors, []);
  await context.close();
});
