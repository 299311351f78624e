// Regenerates the README's screenshots: docs/screenshot-wide.png (1440 × 1000) and
// docs/screenshot-phone.png (390 × 844), the served page (the README serve command, through the
// e2e harness) in headless Chromium, on a fresh page after a default run played to its release.
//   node scripts/screenshots.mjs
import { plotsDrawn, session } from '../tests/e2e/harness.mjs';

const lab = await session();
try {
  for (const [name, viewport] of [['wide', { width: 1440, height: 1000 }], ['phone', { width: 390, height: 844 }]]) {
    const { context, page, seen } = await lab.open('', viewport);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
    await page.click('#play');
    await page.waitForSelector('#status[data-state="released"]', { timeout: 120_000 });
    await plotsDrawn(page);
    // Wide: the first screen. Phone: its first two screens, down to the end of the first plot
    // (which starts within the second screen).
    const clip = name === 'phone'
      ? { x: 0, y: 0, width: viewport.width, height: await page.$eval('#excess-plot', (c) => Math.ceil(c.getBoundingClientRect().bottom + window.scrollY + 8)) }
      : undefined;
    await page.screenshot({ path: `docs/screenshot-${name}.png`, fullPage: Boolean(clip), clip });
    if (seen.errors.length) throw new Error(`${name}: the page reported ${seen.errors.join('; ')}`);
    await context.close();
  }
} finally {
  await lab.close();
}
