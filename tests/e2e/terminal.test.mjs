// End to end: the terminal `run` reproduces the release of a link made on the
// page, bit for bit. A person sets a few controls on a fresh page, plays the run to its release,
// copies the link and saves the run JSON and the diagnostics CSV; the binary, given that link,
// releases the same bits and writes byte-identical files (both made by src/session/export.rs).
//
// The binary is built here in the dev profile (`cargo build --bin dp-playground`, which the native
// tests of `scripts/test` have already built, so CI pays no second, optimised build) and run from
// target/debug. The profile changes no bit: the arithmetic is the same IEEE operations in the same
// order (tests/playground/cli.rs checks the dev build against the golden run the release wasm also matches).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAlgorithmPanel, openMoreSettings, session } from './harness.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'target', 'debug', 'dp-playground');
let lab;
let out;

before(async () => {
  execFileSync('cargo', ['build', '--bin', 'dp-playground'], { cwd: root, stdio: 'inherit' });
  out = mkdtempSync(join(tmpdir(), 'dp-playground-terminal-'));
  lab = await session();
});

after(async () => {
  await lab?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

async function saveDownload(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** A number's IEEE-754 bits as 16 hex digits. */
const hex = (v) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

/** Types `value` into the number field `id` as a person does: fill, Enter, leave it. */
async function type(page, id, value) {
  await page.fill(`#${id}`, value);
  await page.press(`#${id}`, 'Enter');
  await page.locator(`#${id}`).blur();
}

test('dp-playground run <the copied link> releases the page\'s bits and writes the page\'s run JSON and CSV byte for byte', async () => {
  const { context, page, seen } = await lab.open();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  // A few controls, set as a person would: ε on its slider, the seed, n, and a compared algorithm
  // (so the link carries more than one lane).
  await page.$eval('#epsilon', (el) => { el.value = '-0.3'; el.dispatchEvent(new Event('change')); });
  // The seed sits in the "more settings" fold, which a person opens first.
  await openMoreSettings(page);
  await type(page, 'seed', '4242');
  await type(page, 'n', '600');
  await openAlgorithmPanel(page);
  await page.check('#compare input[value="dp_sgd"]');
  await page.waitForFunction(() => {
    const h = decodeURIComponent(location.hash);
    return h.includes('"seed":4242') && h.includes('"n":600') && h.includes('"compare":["dp_sgd"]');
  });
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });

  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#export-status').textContent !== '');
  const link = await page.evaluate(() => location.href);
  const copied = await page.evaluate(() => navigator.clipboard.readText().catch(() => null));
  if (copied !== null) assert.equal(copied, link, 'Copy link copies the address');
  // The released points as the worker sent them (Float64 bits), main algorithm and compared one.
  const pageBits = await page.evaluate(() => [...window.__dp.run().allLanes()]
    .map(({ lane }) => lane.release.w));
  const pageJson = await saveDownload(page, '#export-json');
  const pageCsv = await saveDownload(page, '#export-csv');
  assert.deepEqual(seen.errors, []);
  await context.close();

  const stdout = execFileSync(bin, ['run', link, '--out', out], { encoding: 'utf8' });
  assert.match(stdout, /guarantee of every release together: ε = /);
  const cliJson = readFileSync(join(out, 'dp-playground-run.json'), 'utf8');
  const cliCsv = readFileSync(join(out, 'dp-playground-diagnostics-NOT-PRIVATE.csv'), 'utf8');

  const released = JSON.parse(cliJson).private.releases;
  assert.equal(released.length, 2, 'DP-GD and DP-SGD each released');
  assert.deepEqual(released.map((r) => r.w.map(hex)), pageBits.map((w) => w.map(hex)), 'the released coordinates, bit for bit');
  assert.deepEqual(JSON.parse(pageJson).private.releases.map((r) => r.w.map(hex)), pageBits.map((w) => w.map(hex)));
  assert.equal(cliJson, pageJson, 'the run JSON, byte for byte');
  assert.equal(cliCsv, pageCsv, 'the diagnostics CSV, byte for byte');
});
