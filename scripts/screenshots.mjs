// Regenerates the README's screenshots (docs/screenshot-wide.png, docs/screenshot-phone.png):
// the served page in headless Chromium, a compare run with a noise cloud played to its release.
//   node scripts/screenshots.mjs
import { plotsDrawn, session } from '../tests/e2e/harness.mjs';

const scene = {
  n: 2000, l2: 0.1, epsilon: 0.5, repeats: 12, tail: { kind: 'student_t', nu: 3 },
  compare: ['output_perturbation', 'dp_sgd'],
};
const lab = await session();
for (const [name, viewport] of [['wide', { width: 1440, height: 1000 }], ['phone', { width: 390, height: 844 }]]) {
  const { context, page } = await lab.open(`#${encodeURIComponent(JSON.stringify(scene))}`, viewport);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 120_000 });
  await plotsDrawn(page);
  await page.screenshot({ path: `docs/screenshot-${name}.png` });
  await context.close();
}
await lab.close();
