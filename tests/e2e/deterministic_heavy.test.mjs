// End to end (Lowy 2026, Theorem D.4): a newcomer picks the deterministic
// variant of Localized Double Output Perturbation from a fresh page's menu; picking it sets the
// absolute-value loss (polyhedral, Corollary D.7), the run plans before any data with a pure ε
// guarantee and runs to its release. Then the regression noise is made heavy-tailed (symmetric
// Pareto, in the data fold) and the same run releases again, the link carrying the noise law.
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
const hashConfig = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice(1))));
const release = async (page) => {
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"], #status[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#status', 'data-state'), 'released', await page.textContent('#run-error'));
};

test('the deterministic variant runs from a fresh page, also on heavy-tailed regression noise', async () => {
  const { context, page, seen } = await lab.open();
  await ready(page);
  await page.selectOption('#algorithm', 'deterministic_double_output_perturbation');
  await ready(page);
  const config = await hashConfig(page);
  assert.equal(config.algorithm, 'deterministic_double_output_perturbation');
  assert.equal(config.loss.kind, 'absolute', 'picking meets the polyhedral-loss need');
  assert.match(await page.textContent('#guarantee-headline'), /pure ε = 1-DP, replace-one/);
  await release(page);

  // Heavy-tailed regression noise: symmetric Pareto α = 3 at scale 0.5, in the data fold.
  await openMoreSettings(page);
  await page.selectOption('#noise_tail', 'pareto_radial');
  await page.fill('#label_noise', '0.5');
  await page.press('#label_noise', 'Enter');
  await page.waitForFunction(() => {
    const c = JSON.parse(decodeURIComponent(location.hash.slice(1)));
    return c.noise_tail.kind === 'pareto_radial' && c.noise_tail.alpha === 3 && c.label_noise === 0.5;
  });
  await ready(page);
  await release(page);
  assert.deepEqual(seen.errors, []);
  await context.close();
});
