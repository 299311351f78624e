// Lessons that check a prediction, in the browser as a newcomer meets them: a fresh page, the
// lesson picked from the Lessons menu, an answer typed (or a choice picked) before Play, Play, and
// the verdict read as the page shows it. Each of the six lessons that ask for a prediction is
// tried with a right answer (before Play: the verdict comes as the run releases) and then a wrong
// one (checked against the same run with "Check my prediction"). The answers are the ones
// tests/playground/lessons.rs checks natively (PREDICTIONS there); the verdicts are computed by
// Rust from what the run released, so a change of the runs would change them here too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { session } from './harness.mjs';

const root = new URL('../../', import.meta.url);
const lessonOf = (id) => JSON.parse(readFileSync(new URL(`lessons/${id}.json`, root)));

/** [lesson id, right answer, wrong answer]: a number typed, or the index of a choice. */
const PREDICTIONS = [
  ['noise-vs-epsilon', '0.016', '0.0016'],
  ['composition-over-steps', '0.21', '0.43'],
  ['clipping-bias', '2', '0'],
  ['output-vs-gradient', '0', '1'],
  ['certificate-black-box', '1', '2'],
  ['many-releases', '1.2', '5'],
];

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

const ready = (page) => page.waitForSelector('#status[data-state="ready"]', { state: 'attached', timeout: 30_000 });

/** Types the number or clicks the choice, as a person does. */
async function answer(page, lesson, value) {
  if (lesson.predict.within) await page.fill('input#lesson-prediction', value);
  else await page.locator('#lesson-prediction label').nth(Number(value)).click();
}

/** The verdict once it is shown, with whether it is on screen (inside the viewport's width). */
async function verdict(page) {
  await page.waitForSelector('#lesson-verdict[data-held="true"], #lesson-verdict[data-held="false"]', { timeout: 90_000 });
  return page.$eval('#lesson-verdict', (el) => {
    const r = el.getBoundingClientRect();
    return { text: el.innerText, held: el.dataset.held, visible: r.width > 0 && r.height > 0 && r.right <= window.innerWidth + 1 };
  });
}

for (const [id, right, wrong] of PREDICTIONS) {
  test(`${id}: the prediction is judged by the run, right and wrong`, async () => {
    const lesson = lessonOf(id);
    assert.ok(lesson.predict, `${id} asks for a prediction`);
    const { context, page, seen } = await lab.open();
    await ready(page);
    await page.selectOption('#lesson', id);
    await page.waitForSelector('#lesson-predict');
    assert.equal(await page.textContent('#lesson-prompt'), lesson.predict.prompt);
    await ready(page);
    await answer(page, lesson, right);
    await page.click('#play');
    const yes = await verdict(page);
    assert.equal(yes.held, 'true', `${id}: ${yes.text}`);
    assert.match(yes.text, /^✓?\s*Your prediction held: /);
    assert.ok(yes.text.includes(lesson.predict.why), `${id}: the reason is given: ${yes.text}`);
    assert.ok(yes.visible, `${id}: the verdict is on screen`);
    // A verdict that quotes an excess measured on the raw data is labelled so (and only then).
    const measured = ['mean_excess', 'lowest_excess'].includes(lesson.predict.quantity);
    assert.equal(yes.text.includes('measured on the raw data (not private)'), measured, `${id}: ${yes.text}`);
    await answer(page, lesson, wrong);
    await page.click('#lesson-check');
    await page.waitForSelector('#lesson-verdict[data-held="false"]', { timeout: 10_000 });
    const no = await verdict(page);
    assert.match(no.text, /^✗?\s*Your prediction did not hold: /, `${id}: ${no.text}`);
    assert.deepEqual(seen.errors, []);
    await context.close();
  });
}

test('an answer that is no number is refused beside the prediction, naming it', async () => {
  const { context, page } = await lab.open('?lesson=many-releases');
  await ready(page);
  await page.fill('input#lesson-prediction', 'about two');
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { state: 'attached', timeout: 60_000 });
  await page.click('#lesson-check');
  await page.waitForFunction(() => document.getElementById('lesson-prediction-error').textContent !== '');
  assert.match(await page.textContent('#lesson-prediction-error'), /^your prediction: enter a number/);
  assert.equal(await page.getAttribute('#lesson-verdict', 'data-held'), '');
  await context.close();
});

for (const [name, viewport] of [['wide', { width: 1920, height: 1080 }], ['laptop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the prediction box and its verdict are legible at ${name} width`, async () => {
    const { context, page } = await lab.open('?lesson=clipping-bias', viewport);
    await ready(page);
    await page.locator('#lesson-prediction label').nth(2).click();
    await page.click('#play');
    await verdict(page);
    await page.locator('#lesson-predict').scrollIntoViewIfNeeded();
    await page.locator('#lesson-predict').screenshot({ path: `/tmp/predict-${name}.png` });
    const boxes = await page.evaluate(() => ['lesson-predict', 'lesson-prompt', 'lesson-prediction', 'lesson-check', 'lesson-verdict']
      .map((id) => { const r = document.getElementById(id).getBoundingClientRect(); return { id, left: r.left, right: r.right, width: r.width, height: r.height }; }));
    for (const b of boxes) {
      assert.ok(b.width > 0 && b.height > 0, `${name}: #${b.id} is shown`);
      assert.ok(b.left >= 0 && b.right <= viewport.width + 1, `${name}: #${b.id} [${b.left}, ${b.right}] inside the ${viewport.width} px screen`);
    }
    // Every choice on its own line, its whole label inside the box.
    const labels = await page.$$eval('#lesson-prediction label', (ls) => ls.map((l) => { const r = l.getBoundingClientRect(); return { top: r.top, right: r.right }; }));
    const box = boxes.find((b) => b.id === 'lesson-predict');
    assert.equal(new Set(labels.map((l) => Math.round(l.top))).size, 3, `${name}: one choice a line`);
    for (const l of labels) assert.ok(l.right <= box.right + 1, `${name}: a choice's label inside the box`);
    const size = await page.$eval('#lesson-verdict', (el) => parseFloat(getComputedStyle(el).fontSize));
    assert.ok(size >= 14, `${name}: verdict text ${size}px`);
    await context.close();
  });
}
