// Regenerates the README's screenshots (docs/screenshot-wide.png, docs/screenshot-phone.png):
// the served page in headless Chromium, a compare run with a noise cloud played to its release.
//   node scripts/screenshots.mjs
import { launch, serve } from '../tests/e2e/harness.mjs';

const scene = {
  n: 2000, l2: 0.1, epsilon: 0.5, repeats: 12, tail: { kind: 'student_t', nu: 3 },
  compare: ['output_perturbation', 'dp_sgd'],
};
const server = serve();
const base = await server.url;
const browser = await launch();
for (const [name, viewport, fullPage] of [
  ['wide', { width: 1440, height: 1000 }, false],
  ['phone', { width: 390, height: 844 }, false],
]) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${base}#${encodeURIComponent(JSON.stringify(scene))}`);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
  await page.click('#play');
  await page.waitForSelector('#status[data-state="released"]', { timeout: 120_000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `docs/screenshot-${name}.png`, fullPage });
  await context.close();
}
await browser.close();
server.stop();
