// The lessons in the browser, served as the README serves: every lesson loads from
// its link, runs to its release and its question unfolds; a lesson picked from the menu loads in
// one click; embed mode shows the plots and the lesson's few controls only; and no visible text
// (every algorithm card picked from the menu, every lesson, the references) names a paper by the
// project's file numbers, while every card lists its papers in full (venue or arXiv id).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { session } from './harness.mjs';

const root = new URL('../../', import.meta.url);
const ids = JSON.parse(readFileSync(new URL('lessons/index.json', root))).lessons;
const lessons = ids.map((id) => JSON.parse(readFileSync(new URL(`lessons/${id}.json`, root))));
// Internal names for the papers' summaries, spelled in pieces so that this file passes the same
// check (tests/playground/paper_names.rs).
const INTERNAL = [/seed 0\d\d/i, new RegExp('dig' + 'est', 'i')];

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { state: 'attached', timeout: 30_000 });
const released = (page) => page.waitForSelector('#status[data-state="released"]', { state: 'attached', timeout: 60_000 });

/**
 * Each preset setting that has a control of its name shows in that control (the page restored
 * the preset, not just put it in the URL); the compared algorithms are ticked.
 */
async function assertPreset(page, lesson) {
  const wrong = await page.evaluate((preset) => {
    const out = [];
    for (const [key, value] of Object.entries(preset)) {
      const el = document.getElementById(key);
      if (key === 'epsilon') {
        // The slider is log10 ε in steps of 0.01; the page reads it to two digits.
        const eps = Number((10 ** Number(el.value)).toPrecision(2));
        if (eps !== value) out.push(`${key}: ${eps}`);
      } else if (key === 'compare') {
        const ticked = [...document.querySelectorAll('#compare input:checked')].map((i) => i.value);
        if (JSON.stringify(ticked.sort()) !== JSON.stringify([...value].sort())) out.push(`compare: ${ticked}`);
      } else if (el?.type === 'checkbox') {
        if (el.checked !== value) out.push(`${key}: ${el.checked}`);
      } else if (el && typeof value === 'number') {
        if (Number(el.value) !== value) out.push(`${key}: ${el.value}`);
      } else if (el && typeof value === 'string') {
        if (el.value !== value) out.push(`${key}: ${el.value}`);
      }
    }
    return out;
  }, lesson.preset);
  assert.deepEqual(wrong, [], `${lesson.id}: controls that do not show the preset`);
}

/** Every visible text of the page that names a paper by an internal number. */
async function internalNumbers(page, where) {
  const text = await page.evaluate(() => document.body.innerText);
  return INTERNAL.filter((re) => re.test(text)).map((re) => `${where}: ${text.match(re)[0]}`);
}

test('every lesson loads from its link, runs to its release, and its question unfolds', async () => {
  const { context, page, seen } = await lab.open();
  const found = [];
  for (const lesson of lessons) {
    await page.goto(`${lab.base}?lesson=${lesson.id}`);
    await ready(page);
    assert.equal(await page.textContent('#lesson-title'), lesson.title);
    assert.equal(await page.inputValue('#lesson'), lesson.id);
    await assertPreset(page, lesson);
    assert.equal(await page.textContent('#lesson-error'), '', lesson.id);
    await page.click('#play');
    await released(page);
    assert.notEqual(await page.textContent('#release'), 'not yet', lesson.id);
    // The answer is hidden until the question is opened.
    const answer = page.locator('#lesson-body details.lesson-question p');
    assert.equal(await answer.isVisible(), false, `${lesson.id}: the answer shows before the question is opened`);
    await page.click('#lesson-body details.lesson-question summary');
    assert.equal(await answer.isVisible(), true, lesson.id);
    assert.equal(await answer.textContent(), lesson.answer);
    // After the release the readout holds the ledger's words too.
    found.push(...await internalNumbers(page, `lesson ${lesson.id} after its release`));
  }
  assert.deepEqual(found, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a lesson picked from the menu loads its settings in one click, and Play runs them', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  const lesson = lessons.find((l) => l.id === 'composition-over-steps') ?? lessons[0];
  await page.selectOption('#lesson', lesson.id);
  await page.waitForFunction((id) => new URLSearchParams(location.search).get('lesson') === id, lesson.id);
  await assertPreset(page, lesson);
  assert.equal(await page.textContent('#lesson-title'), lesson.title);
  assert.equal(await page.inputValue('#steps'), String(lesson.preset.steps));
  await ready(page);
  await page.click('#play');
  await released(page);
  // Changing a setting keeps the lesson in the URL, and "load again" restores the preset.
  await page.fill('#steps', '50');
  await page.press('#steps', 'Enter');
  await page.waitForFunction(() => JSON.parse(decodeURIComponent(location.hash.slice(1))).steps === 50);
  assert.match(page.url(), new RegExp(`\\?lesson=${lesson.id}#`));
  await page.click('#lesson-reload');
  await page.waitForFunction((s) => JSON.parse(decodeURIComponent(location.hash.slice(1))).steps === s, lesson.preset.steps);
  assert.equal(await page.inputValue('#steps'), String(lesson.preset.steps));
  // A link to a lesson that does not exist says so beside the menu, and the page still runs.
  await page.goto(`${lab.base}?lesson=no-such-lesson`);
  await ready(page);
  assert.match(await page.textContent('#lesson-error'), /no lesson “no-such-lesson”: pick one from the Lessons menu/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('embed mode shows the plots, the lesson\'s controls, the guarantee, the readout and the question, and hides the rest', async () => {
  const lesson = lessons.find((l) => l.id === 'noise-vs-epsilon') ?? lessons[0];
  const { context, page, seen } = await lab.open(`?embed&lesson=${lesson.id}`);
  await ready(page);
  const visible = (selector) => page.locator(selector).first().isVisible();
  // The guarantee, the key readout numbers and the question stay.
  for (const selector of ['#excess-plot', '#path-plot', '#noise-plot', '#privacy-plot', '#play', '#guarantee-headline', '#status', '#excess', '#release', '#embed-question', ...lesson.controls.map((c) => `#${c}`)]) {
    assert.equal(await visible(selector), true, `${selector} is shown`);
  }
  const kept = new Set(lesson.controls);
  const hidden = ['header', '#lessons', '#references', '#algorithm', '#seed', '#n', '#copy-link', '#card', '#delta', '#steps', '#calibrations', '#certificate']
    .filter((s) => !kept.has(s.slice(1)));
  for (const selector of hidden) {
    assert.equal(await visible(selector), false, `${selector} is hidden`);
  }
  await assertPreset(page, lesson);
  await page.click('#play');
  await released(page);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('no visible text names a paper by an internal number: every card, every lesson, the references', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  const found = [];
  // Every <details> open, so the card, the calibrations and the answers are all visible text.
  const openAll = () => page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  const kinds = await page.$$eval('#algorithm option', (os) => os.map((o) => o.value));
  assert.ok(kinds.length >= 20, `${kinds.length} algorithms in the menu`);
  for (const kind of kinds) {
    // The pick shows the algorithm's guarantee and card at once (the data follow in the worker).
    await page.selectOption('#algorithm', kind);
    await page.waitForFunction((k) => document.querySelector('#algorithm').value === k
      && document.querySelector('#card-body dd') !== null, kind);
    await openAll();
    found.push(...await internalNumbers(page, kind));
    // The card's papers in full, from the references list: with a venue or an arXiv id.
    const references = await page.evaluate(() => {
      const dt = [...document.querySelectorAll('#card-body dt')].find((d) => d.textContent === 'references');
      return dt?.nextElementSibling.textContent ?? '';
    });
    assert.match(references, /arXiv:\d{4}\.\d{4,5}|NeurIPS|COLT|CCS|Journal/, `${kind}: its card's references`);
  }
  for (const lesson of lessons) {
    await page.selectOption('#lesson', lesson.id);
    await page.waitForFunction((id) => document.querySelector('#lesson-body').dataset.lesson === id, lesson.id);
    await openAll();
    found.push(...await internalNumbers(page, `lesson ${lesson.id}`));
  }
  assert.ok((await page.textContent('#references')).includes('arXiv:2102.04704'));
  assert.deepEqual(found, []);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
