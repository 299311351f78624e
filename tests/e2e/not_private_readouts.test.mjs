// A readout measured on the data says NOT PRIVATE where the
// page shows it — the step counter and the privacy-spent plot of a run whose length depends on
// the data (output perturbation's certified solver, Zhang et al.'s BYOA minimax) — and stays
// unlabelled where the settings fix it (DP-GD: T full passes); and the composed guarantee of a
// seeded run says it is no private release.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { configInUse, openMoreSettings, ready, session } from './harness.mjs';

let lab;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

/** Whether the label `id` is shown (not hidden). */
const shown = (page, id) => page.$eval(`#${id}`, (el) => !el.hidden);

/** Plays the page's run to its release. */
async function release(page) {
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released');
}

test('a certified solver\'s step counter and privacy plot say NOT PRIVATE; DP-GD\'s do not', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  assert.equal((await configInUse(page)).algorithm, 'noisy_gd');
  await release(page);
  assert.equal(await shown(page, 'step-np'), false, 'DP-GD runs T steps whatever the data');
  assert.equal(await shown(page, 'privacy-np'), false);
  // The composed line of a seeded run carries the seeded caveat.
  assert.match(await page.textContent('#composed-guarantee'), /demonstrate the mechanism and are not a private release/);

  await openMoreSettings(page);
  await page.selectOption('#algorithm', 'output_perturbation');
  await ready(page);
  await release(page);
  assert.equal(await shown(page, 'step-np'), true, 'the solver runs until its certificate holds');
  assert.equal(await shown(page, 'privacy-np'), true);
  assert.match(await page.textContent('#step-np'), /^NOT PRIVATE/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('BYOA minimax (iterations to certify) labels its step counter NOT PRIVATE', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await openMoreSettings(page);
  await page.selectOption('#problem', 'saddle');
  await ready(page);
  await page.selectOption('#algorithm', 'byoa_minimax');
  await ready(page);
  assert.equal((await configInUse(page)).algorithm, 'byoa_minimax');
  await release(page);
  assert.equal(await shown(page, 'step-np'), true);
  assert.equal(await shown(page, 'privacy-np'), true);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
