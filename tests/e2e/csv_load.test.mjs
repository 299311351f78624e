// End to end, loading a CSV file of a few MB: the worker reads it in chunks with
// a progress bar and a Cancel beside the file input, the page states the size limit, and a
// cancelled load leaves the data and run on screen as they were.
//
// To see the bar mid-way without a timing race, the test holds the worker's reads: it wraps
// Blob.prototype.arrayBuffer inside the worker (Playwright evaluates in the worker's scope) so that
// every read after the first waits until the test opens a gate. The page's code is unchanged.
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

/** A CSV of `rows` records, d = 2, ±1 labels, numbers at full precision (about 40 bytes a row). */
function csvOf(name, rows) {
  const lines = ['x1,x2,label'];
  for (let i = 0; i < rows; i++) {
    const a = Math.sin(i) * 0.9;
    const b = Math.cos(1.3 * i) * 0.9;
    lines.push(`${a},${b},${a + b > 0 ? 1 : -1}`);
  }
  return { name, mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) };
}

/** A page ready to run, and its solver worker with reads after the first `free` held at a gate. */
async function pageWithHeldReads(free) {
  const { context, page, seen } = await lab.open();
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await openMoreSettings(page);
  // The picker shows once the data source is "my CSV file", as a person does it.
  await page.selectOption('#data', 'csv');
  const [worker] = page.workers();
  assert.ok(worker, 'the solver worker runs');
  await worker.evaluate((passing) => {
    const read = Blob.prototype.arrayBuffer;
    let open;
    const gate = new Promise((resolve) => { open = resolve; });
    self.__held = { reads: 0, open, pending: null };
    Blob.prototype.arrayBuffer = function held() {
      self.__held.reads += 1;
      const pass = self.__held.reads <= passing;
      self.__held.pending = pass ? read.call(this) : gate.then(() => read.call(this));
      return self.__held.pending;
    };
  }, free);
  // Reads started so far, once the worker has done all it does when the held read returns (it
  // continues in microtasks: the next read, if any, starts before a timer task runs).
  const settledReads = () => worker.evaluate(async () => {
    await self.__held.pending;
    await new Promise((resolve) => { setTimeout(resolve, 0); });
    return self.__held.reads;
  });
  return { context, page, seen, worker, openGate: () => worker.evaluate(() => self.__held.open()), settledReads };
}

/** The progress bar, once it shows the first chunk read. */
async function progressMidway(page) {
  await page.waitForFunction(() => {
    const bar = document.querySelector('#csv-progress');
    return bar.checkVisibility() && bar.value > 0;
  });
  return page.$eval('#csv-progress', (bar) => ({ value: bar.value, max: bar.max, text: document.querySelector('#csv-progress-text').textContent }));
}

test('a CSV of a few MB loads in the worker with a progress bar, previews, and plays to a release; the size limit is stated', async () => {
  const { context, page, seen, openGate } = await pageWithHeldReads(1);
  assert.match(await page.textContent('#csv-limit'), /^Files up to 1 GiB/);
  const file = csvOf('big.csv', 100_000);
  assert.ok(file.buffer.length > 3e6, `${file.buffer.length} bytes`);
  await page.setInputFiles('#csv-file', file);
  const bar = await progressMidway(page);
  assert.equal(bar.max, file.buffer.length);
  assert.equal(bar.value, 1 << 20, 'one chunk of 1 MiB read, the next held');
  assert.match(bar.text, /^reading big\.csv: 1\.0 of [\d.]+ MB$/);
  assert.equal(await page.isVisible('#csv-cancel'), true);

  await openGate();
  await page.waitForFunction(() => document.querySelector('#export-status').textContent.includes('big.csv'), null, { timeout: 60_000 });
  assert.equal(await page.isVisible('#csv-loading'), false);
  assert.match(await page.textContent('#export-status'), /big\.csv: 100000 rows, 2 features loaded/);
  assert.equal(await page.$$eval('#csv-preview tr', (r) => r.length), 5);
  assert.equal(await page.$eval('#csv-preview td', (td) => td.textContent), '1', 'row 1: label first (sin 0 + cos 0 > 0)');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
  assert.match(await page.textContent('#problem-line'), /your CSV file, n = 100000, d = 2/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 120_000 });
  assert.equal(await page.textContent('#csv-error'), '');
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('cancelling a load stops the worker reading and leaves the loaded file, its preview and the run as they were', async () => {
  const { context, page, seen, openGate, settledReads } = await pageWithHeldReads(2);
  // The data on screen before: a small file (one read, not held), run to its release.
  await page.setInputFiles('#csv-file', csvOf('small.csv', 300));
  await page.waitForFunction(() => document.querySelector('#export-status').textContent.includes('small.csv'));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  const before = await page.evaluate(() => ({
    hash: location.hash,
    problem: document.querySelector('#problem-line').textContent,
    preview: document.querySelector('#csv-preview').innerHTML,
    release: document.querySelector('#release').textContent,
    budget: document.querySelector('#csv-budget').textContent,
  }));
  assert.match(before.problem, /your CSV file, n = 300, d = 2/);

  await page.setInputFiles('#csv-file', csvOf('big.csv', 100_000));
  await progressMidway(page);
  await page.click('#csv-cancel');
  assert.equal(await page.isVisible('#csv-loading'), false);
  assert.match(await page.textContent('#export-status'), /^Loading big\.csv cancelled: the file loaded before stays\.$/);
  assert.equal(await page.$eval('#csv-file', (input) => input.files.length), 0, 'the input no longer names the cancelled file');

  // The held read returns; the worker starts no other (the file has 4 chunks of 1 MiB): the reads
  // were the small file's, the big file's first and its held second.
  await openGate();
  assert.equal(await settledReads(), 3);
  const afterCancel = await page.evaluate(() => ({
    hash: location.hash,
    problem: document.querySelector('#problem-line').textContent,
    preview: document.querySelector('#csv-preview').innerHTML,
    release: document.querySelector('#release').textContent,
    budget: document.querySelector('#csv-budget').textContent,
  }));
  assert.deepEqual(afterCancel, before);
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
  // The kept file still runs: Reset and Play release again on its 300 rows.
  await page.click('#reset');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  assert.match(await page.textContent('#problem-line'), /your CSV file, n = 300, d = 2/);
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 60_000 });
  assert.equal(await page.textContent('#csv-error'), '');
  assert.deepEqual(seen.errors, []);
  await context.close();
});
