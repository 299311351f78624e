// End to end: the audit tab runs the Clopper–Pearson audit in the teaching
// worker with progress, flags "σ halved" (ε̂ above the claim) and passes the correct mechanism
// (ε̂ ≤ the claim), and preselects the page's algorithm. Seeded (the page's seed 1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedPixels, session, snapshotCanvas } from './harness.mjs';

let lab;
const link = (config) => `#${encodeURIComponent(JSON.stringify(config))}`;

before(async () => {
  lab = await session();
});

after(async () => {
  await lab?.close();
});

async function audit(page, scenario, bug) {
  await page.selectOption('#audit_scenario', scenario);
  await page.check(`input[name="audit_bug"][value="${bug}"]`);
  await page.click('#audit-run');
  await page.waitForFunction(() => document.getElementById('audit-status').textContent === 'done', null, { timeout: 60_000 });
  return page.evaluate(() => window.__teach.audit());
}

test('the audit tab flags σ halved and passes the correct Gaussian mechanism', async () => {
  const { context, page, seen } = await lab.open('');
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#audit-panel > summary');
  // The page's algorithm (DP-GD by default) is preselected.
  assert.equal(await page.inputValue('#audit_scenario'), 'noisy_gd');
  // It says what an audit can and cannot show.
  assert.match(await page.textContent('#audit-panel'), /lower bound.*nothing is proved/s);
  await snapshotCanvas(page, '#audit-plot');
  const bad = await audit(page, 'gaussian_mean', 'noise_halved');
  assert.ok(bad.violation && bad.epsilon_lower > bad.claimed.epsilon, JSON.stringify(bad));
  assert.equal(await page.getAttribute('#audit-result', 'data-verdict'), 'violation');
  assert.match(await page.textContent('#audit-result'), /CAUGHT: ε̂ = \d+\.\d+ > claimed ε = 3/);
  assert.ok(await changedPixels(page, '#audit-plot') > 500, 'the bars are drawn');
  assert.equal(await page.evaluate(() => document.getElementById('audit-progress').value), 1);
  const ok = await audit(page, 'gaussian_mean', 'none');
  assert.ok(!ok.violation && ok.epsilon_lower <= ok.claimed.epsilon, JSON.stringify(ok));
  assert.equal(await page.getAttribute('#audit-result', 'data-verdict'), 'pass');
  assert.match(await page.textContent('#audit-result'), /Passed: .*proves nothing/);
  assert.deepEqual(seen.errors, []);
  await context.close();
});

test('a whole algorithm: output perturbation preselected, its skipped certificate caught', async () => {
  const { context, page, seen } = await lab.open(link({ algorithm: 'output_perturbation', l2: 0.1 }));
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 30_000 });
  await page.click('#audit-panel > summary');
  assert.equal(await page.inputValue('#audit_scenario'), 'output_perturbation');
  assert.match(await page.textContent('#audit_bug'), /certificate skipped/);
  const bad = await audit(page, 'output_perturbation', 'certificate_skipped');
  assert.ok(bad.violation, JSON.stringify(bad));
  assert.deepEqual(seen.errors, []);
  await context.close();
});
