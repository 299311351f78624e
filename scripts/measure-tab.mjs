// Measures the page as a visitor meets it: a report, not a test (no thresholds).
//
//   node scripts/measure-tab.mjs [first-visit] [large] [--repeats N] [--mbit M --latency MS]
//   node scripts/measure-tab.mjs first-visit --dist ...   (the static site: scripts/serve --dist)
//   MEASURE_URL=http://127.0.0.1:8000/ node scripts/measure-tab.mjs   (a page served elsewhere)
//
// first-visit: a fresh browser (new profile, empty caches) per repeat opens the page served by
//   scripts/serve; prints the time from navigation to the first plot drawn, min and median, and
//   what the page's own requests transferred (count and bytes on the wire). `--mbit 10 --latency
//   40` emulates a 10 Mbit/s link with 40 ms latency (Chrome DevTools Protocol network
//   emulation, cache off) for the page's requests; a worker's own requests are not throttled, so
//   compare runs in which the workers fetch the same things.
// large: on the default page, types n = 1000000 and d = 20 as a newcomer would, then measures
//   the time until the run is ready (data generated, reference certified or given up), the
//   progress messages the worker sent meanwhile, the main thread's frame rate (requestAnimationFrame
//   timestamps) and its longest task; then presses Play and measures the frame rate while it runs.
import { launch, openMoreSettings, serve } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
/** The number after option `name`, or null. */
const option = (name) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : null);
const VALUED = ['--repeats', '--mbit', '--latency'];
const repeats = option('--repeats') ?? 5;
const mbit = option('--mbit');
const latency = option('--latency') ?? 0;
const wanted = args.filter((a, i) => !a.startsWith('--') && !VALUED.includes(args[i - 1]));
const run = (name) => wanted.length === 0 || wanted.includes(name);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms) => `${ms.toFixed(0)} ms`;

/** Frame rate and longest task on the main thread, recorded inside the page from now on. */
function startRecording(page) {
  return page.evaluate(() => {
    const rec = { frames: [], longest: 0, stop: false };
    window.__rec = rec;
    const tick = (t) => {
      rec.frames.push(t);
      if (!rec.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) rec.longest = Math.max(rec.longest, e.duration);
    }).observe({ type: 'longtask' });
  });
}

function stopRecording(page) {
  return page.evaluate(() => {
    const rec = window.__rec;
    rec.stop = true;
    const gaps = rec.frames.slice(1).map((t, i) => t - rec.frames[i]).sort((a, b) => a - b);
    const med = gaps.length ? gaps[Math.floor(gaps.length / 2)] : NaN;
    return { frames: rec.frames.length, medianFps: 1000 / med, worstGapMs: gaps.at(-1) ?? NaN, longestTaskMs: rec.longest };
  });
}

// MEASURE_URL: measure a page served elsewhere (e.g. another checkout, to compare before/after).
// --dist: the static site as a course would host it (built by scripts/dist, precompressed,
// served by scripts/serve --dist), rather than the development loop.
const server = process.env.MEASURE_URL
  ? { url: Promise.resolve(process.env.MEASURE_URL), stop: () => {} }
  : serve(args.includes('--dist') ? ['--dist'] : []);
const base = await server.url;
try {
  if (run('first-visit')) {
    const drawn = [];
    const ready = [];
    const steps = { loaded: [], ready: [] };
    const transfers = [];
    for (let i = 0; i < repeats; i++) {
      const browser = await launch();
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      if (mbit) {
        const bytesPerSecond = (mbit * 1e6) / 8;
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false, latency, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond,
        });
      }
      const wire = { requests: 0, bytes: 0 };
      cdp.on('Network.loadingFinished', (e) => { wire.requests += 1; wire.bytes += e.encodedDataLength; });
      await page.goto(base);
      // When the worker said LOADED (the page then asks for a run) and READY, and the first draw.
      const at = async (fn) => {
        await page.waitForFunction(fn, null, { polling: 'raf', timeout: 30_000 });
        return page.evaluate(() => performance.now());
      };
      steps.loaded.push(await at(() => (window.__dp?.received().loaded ?? 0) > 0));
      steps.ready.push(await at(() => (window.__dp?.received().ready ?? 0) > 0));
      drawn.push(await at(() => (window.__dp?.plotter().draws ?? 0) > 0));
      ready.push(await page.evaluate(() => performance.getEntriesByType('resource')
        .filter((e) => e.name.endsWith('.wasm')).map((e) => e.responseEnd).reduce((a, b) => Math.max(a, b), 0)));
      transfers.push({ ...wire });
      await browser.close();
    }
    const last = transfers.at(-1);
    console.log(`network: ${mbit ? `${mbit} Mbit/s, ${latency} ms latency` : 'loopback'}, cache off; `
      + `the page's requests until the first plot: ${last.requests}, ${(last.bytes / 1e6).toFixed(2)} MB on the wire`);
    console.log(`first visit → first plot drawn (${repeats} fresh browsers): min ${fmt(Math.min(...drawn))}, median ${fmt(median(drawn))}`
      + `  [median: last .wasm byte ${fmt(median(ready))}, worker loaded ${fmt(median(steps.loaded))}, run ready ${fmt(median(steps.ready))}]`);
  }
  if (run('large')) {
    const browser = await launch();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(base);
    await page.waitForFunction(() => window.__dp?.run()?.info && window.__dp.plotter().idle, null, { timeout: 30_000 });
    const before = await page.evaluate(() => window.__dp.received());
    await startRecording(page);
    const t0 = Date.now();
    // A newcomer types the two numbers; each change starts a new run.
    await page.fill('#n', '1000000');
    await page.$eval('#n', (input) => input.blur());
    await openMoreSettings(page);
    await page.fill('#d', '20');
    await page.$eval('#d', (input) => input.blur());
    // The status line as it changes (the worker's progress reports), with the time since typing.
    const stages = [];
    const watch = setInterval(async () => {
      const text = await page.textContent('#status').catch(() => '');
      const stage = text.replace(/, \d+%$/, '');
      if (stages.at(-1)?.stage !== stage) stages.push({ at: Date.now() - t0, stage });
    }, 50);
    await page.waitForFunction(() => {
      const info = window.__dp.run()?.info;
      return info && JSON.parse(info.config).n === 1000000 && JSON.parse(info.config).d === 20;
    }, null, { timeout: 300_000, polling: 100 });
    const readyMs = Date.now() - t0;
    clearInterval(watch);
    for (const { at, stage } of stages) console.log(`  ${String(at).padStart(6)} ms  ${stage}`);
    const prep = await stopRecording(page);
    const after = await page.evaluate(() => window.__dp.received());
    const reference = await page.evaluate(() => document.querySelector('#problem-line')?.textContent ?? '');
    console.log(`n = 10⁶, d = 20 typed → ready: ${fmt(readyMs)}; messages meanwhile: ${JSON.stringify(
      Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)])))}`);
    console.log(`  while preparing: median ${prep.medianFps.toFixed(1)} fps over ${prep.frames} frames, worst frame gap ${fmt(prep.worstGapMs)}, longest task ${fmt(prep.longestTaskMs)}`);
    console.log(`  problem line: ${reference.slice(0, 300)}`);
    await startRecording(page);
    await page.click('#play');
    await page.waitForTimeout(5000);
    const playing = await stopRecording(page);
    const progress = await page.evaluate(() => document.querySelector('#progress')?.value);
    console.log(`  5 s of Play: median ${playing.medianFps.toFixed(1)} fps over ${playing.frames} frames, worst frame gap ${fmt(playing.worstGapMs)}, longest task ${fmt(playing.longestTaskMs)}, progress ${progress}`);
    await browser.close();
  }
} finally {
  server.stop();
}
