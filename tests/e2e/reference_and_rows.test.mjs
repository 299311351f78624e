// End to end: a run whose (non-private) reference optimum is unavailable
// still releases and says so on the excess plot; under add/remove neighbours a CSV of any size
// runs with the declared n, and the preview does not depend on its row count.
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

async function saveDownload(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** A CSV of `rows` records, d = 2, ±1 labels. */
function csvOf(rows) {
  const lines = ['x1,x2,label'];
  for (let i = 0; i < rows; i++) {
    const x = [Math.sin(i) / 2, Math.cos(3 * i) / 2];
    lines.push(`${x.map((v) => v.toFixed(4)).join(',')},${x[0] + x[1] > 0.1 * Math.sin(5 * i) ? 1 : -1}`);
  }
  return { name: `rows-${rows}.csv`, mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) };
}

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });

test('a run whose reference optimum is unavailable still releases, and the excess plot says "reference unavailable"', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await openMoreSettings(page);
  // R^d without a ridge: DP-GD runs (the logistic loss is Lipschitz), but the certified
  // reference needs λ₂ > 0 there. The old page refused the whole run.
  // (The default has ridge 0.1 now: take it off first.)
  await page.fill('#l2', '0');
  await page.press('#l2', 'Enter');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"l2":0'));
  await page.selectOption('#domain', 'unconstrained');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"domain":"unconstrained"'));
  await ready(page);
  assert.match(await page.textContent('#excess'), /reference unavailable/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  const release = await page.textContent('#release');
  assert.match(release, /^\(/, 'the release is shown');
  assert.match(release, /reference unavailable/);
  const svg = await saveDownload(page, 'button.svg[data-plot="excess"]');
  assert.match(svg, /reference unavailable/);
  assert.match(svg, /regularizer\.l2/, 'and why');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('add/remove: a CSV of n ± 1 rows runs with the declared n and the same preview; replace-one takes n from the file', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await openMoreSettings(page);
  await page.selectOption('#relation', 'add_remove');
  await page.fill('#n', '300');
  await page.press('#n', 'Enter');
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"n":300'));
  await ready(page);
  const previews = [];
  for (const rows of [300, 301, 299]) {
    await page.setInputFiles('#csv-file', csvOf(rows));
    await page.waitForFunction((r) => document.querySelector('#export-status').textContent.includes(`rows-${r}.csv`), rows);
    await ready(page);
    assert.match(await page.textContent('#problem-line'), /your CSV file, n = 300, d = 2/);
    previews.push([await page.textContent('#guarantee-headline'), await page.textContent('#guarantee-detail')]);
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
    assert.match(await page.textContent('#release'), /^\(/);
  }
  assert.deepEqual(previews[1], previews[0], '301 rows: the preview of n = 300');
  assert.deepEqual(previews[2], previews[0], '299 rows: the preview of n = 300');

  // Replace-one: n is public, the file's row count. The 299-row file loaded with n = 300 is
  // refused at n, naming the file's rows; a file chosen now sets n to its rows.
  await page.selectOption('#relation', 'replace_one');
  await page.waitForFunction(() => document.querySelector('#n-error').textContent.includes('299 rows'));
  await page.setInputFiles('#csv-file', csvOf(301));
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"n":301'));
  await ready(page);
  assert.match(await page.textContent('#problem-line'), /n = 301/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
