// What a person sees: measurements of the page as laid out and as
// drawn, shared by look.test.mjs. Each returns a list of problems, in words, empty when the page
// passes: an assertion on it prints what is wrong and where.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

/** The smallest text the issue accepts, in CSS pixels. */
export const SMALLEST = 10;
/** The narrowest a readout value may be when it takes more than one line, in CSS pixels. */
export const READOUT_MIN = 120;
/** The largest share of a plot's drawn data its legend may cover. */
export const LEGEND_SHARE = 0.05;

/**
 * Records, for every canvas, the smallest font it drew text with in CSS pixels of its backing
 * store (the font's size times the drawing's scale) and the backing width it drew at; both
 * start again when the canvas is resized. For `context.addInitScript`.
 */
export function recordCanvasText() {
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function record(text, ...rest) {
    const c = this.canvas;
    const px = Number(/([\d.]+)px/.exec(this.font)?.[1]);
    const t = this.getTransform();
    if (c.__drawnWidth !== c.width || c.__drawnHeight !== c.height) {
      Object.assign(c, { __drawnWidth: c.width, __drawnHeight: c.height, __smallestFont: Infinity });
    }
    if (String(text).trim() !== '') c.__smallestFont = Math.min(c.__smallestFont, px * Math.hypot(t.a, t.b));
    return fillText.call(this, text, ...rest);
  };
}

/** Horizontal overflow: of the document, and of anything beyond the panel it sits in. */
export const overflow = (page) => page.evaluate(() => {
  const found = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) found.push(`the document is ${doc.scrollWidth} px wide in a ${doc.clientWidth} px window`);
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  const panels = [...document.querySelectorAll('main > section, .lessons, .teaching, details.panel, .guarantee, figure, #embed-controls, #embed-facts, header, footer')]
    .filter(shown);
  for (const panel of panels) {
    const p = panel.getBoundingClientRect();
    for (const el of panel.querySelectorAll('*')) {
      if (!shown(el)) continue;
      // Inside a box that scrolls sideways (a wide table), overflow is that box's own.
      let inner = el.parentElement;
      while (inner !== panel && !scrolls(inner)) inner = inner.parentElement;
      if (inner !== panel) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.right > p.right + 1 || r.left < p.left - 1) {
        found.push(`${name(el)} “${el.textContent.trim().slice(0, 30)}” spans ${r.left.toFixed(0)}–${r.right.toFixed(0)} px, outside ${name(panel)} (${p.left.toFixed(0)}–${p.right.toFixed(0)})`);
      }
    }
  }
  // Each element once, under its innermost panel's words: the first few say enough.
  return [...new Set(found)].slice(0, 20);
});

/** Readout values (the run's readout, `dl.readout dd`) that take several lines yet are under 120 px wide. */
export const cramped = (page, least = READOUT_MIN) => page.evaluate((least) => {
  const found = [];
  for (const dd of document.querySelectorAll('.readout dd')) {
    if (dd.getClientRects().length === 0 || dd.textContent.trim() === '') continue;
    const range = document.createRange();
    range.selectNodeContents(dd);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
    const width = dd.getBoundingClientRect().width;
    if (lines.size > 1 && width < least) found.push(`#${dd.id} “${dd.textContent.trim().slice(0, 40)}”: ${lines.size} lines in ${width.toFixed(0)} px`);
  }
  return found;
}, least);

/** Visible text under 10 CSS px (an element's own text, at its computed size). */
export const smallText = (page, least = SMALLEST) => page.evaluate((least) => {
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== '');
    if (!ownText || el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('option, select')) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < least) found.push(`${el.tagName.toLowerCase()}#${el.id} “${el.textContent.trim().slice(0, 30)}”: ${size} px`);
  }
  return found;
}, least);

/**
 * Every displayed canvas that drew text: drawn at its displayed size × devicePixelRatio (its
 * backing store, within a pixel of each), at the size it has now, and its smallest text at
 * least 10 CSS px as displayed. Needs `recordCanvasText` installed before the page loaded.
 */
export const canvasProblems = (page, least = SMALLEST) => page.evaluate((least) => {
  const found = [];
  const dpr = window.devicePixelRatio;
  for (const c of document.querySelectorAll('canvas')) {
    if (c.getClientRects().length === 0 || !Number.isFinite(c.__smallestFont)) continue;
    const want = { width: c.clientWidth * dpr, height: c.clientHeight * dpr };
    if (Math.abs(c.width - want.width) > dpr + 0.5 || Math.abs(c.height - want.height) > dpr + 0.5) {
      found.push(`#${c.id}: drawn at ${c.width} × ${c.height}, shown at ${c.clientWidth} × ${c.clientHeight} CSS px × ${dpr}`);
    }
    if (c.__drawnWidth !== c.width || c.__drawnHeight !== c.height) {
      found.push(`#${c.id}: its text was drawn at ${c.__drawnWidth} × ${c.__drawnHeight}, not its present ${c.width} × ${c.height}`);
    }
    const css = (c.__smallestFont * c.clientWidth) / c.width;
    if (css < least - 0.05) found.push(`#${c.id}: smallest text ${css.toFixed(1)} CSS px`);
  }
  return found;
}, least);

/** The notes a plot draws inside its plotting area (crates/wasm/src/wasm/plot/excess.rs). */
const NOTES = /^(▼ under the axis|band cut below)/;

/**
 * The legends and notes of the run's plots on screen: each plot is drawn again, once as the
 * page draws it and once with every label blank (so no legend entry), each at its logical size
 * on a spare canvas. The legend's rows are the texts only the first drawing has (plotTextBoxes,
 * measured by the browser's font code); its box is theirs widened by plotters' frame and the
 * entries' marks on the left. The box and every note must lie inside the figure, overlap no
 * other text (tick labels, axis names, the title) nor each other, nor a key mark the plot names
 * (w*, a release: `marks`); and the legend may hide at most `share` of the data's coloured
 * pixels of the drawing without it (the parameter view's drawn without its loss contours: a
 * background, not data).
 */
export const legendProblems = (page, share = LEGEND_SHARE) => page.evaluate(async ([share, notePattern]) => {
  const wasm = await import('/www/pkg/dp_playground.js');
  const { plotter } = window.__dp;
  const isNote = (t) => t.role === 'note' || new RegExp(notePattern).test(t.text);
  const found = [];
  const blank = (value) => {
    if (Array.isArray(value)) return value.map(blank);
    if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'label' && typeof v === 'string' ? '' : blank(v)]));
    }
    return value;
  };
  const labelled = (value) => {
    if (Array.isArray(value)) return value.some(labelled);
    if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      return Object.entries(value).some(([k, v]) => (k === 'label' && typeof v === 'string' ? v !== '' : labelled(v)));
    }
    return false;
  };
  // Boxes overlap when they share more than a pixel each way (a glyph's box may touch the next).
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const where = (b) => `[${[b.left, b.top, b.right, b.bottom].map((v) => Math.round(v)).join(', ')}]`;
  const inside = (b, width, height) => b.left >= 0 && b.top >= 0 && b.right <= width && b.bottom <= height;
  // Coloured (saturated) pixels: the data's palette and the releases' red, not grey grid or text.
  const coloured = (d, i) => Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60;
  for (const [kind, canvas] of Object.entries(plotter().canvases)) {
    if (canvas.getClientRects().length === 0) continue;
    const spec = plotter().spec(kind);
    if (!spec) continue;
    const width = canvas.clientWidth;
    const height = Math.round((canvas.clientWidth * canvas.height) / canvas.width);
    const spare = Object.assign(document.createElement('canvas'), { width, height });
    wasm.drawPlot(kind, spare, spec);
    const drawn = wasm.plotTextBoxes();
    // The loss contours under the parameter view are its background, not data a legend hides
    // (the legend's frame lets them through): its data are the paths, releases and w*.
    wasm.drawPlot(kind, spare, blank(kind === 'path' ? { ...spec, grid: null } : spec));
    const bare = new Map();
    for (const t of wasm.plotTextBoxes().texts) bare.set(t.text, (bare.get(t.text) ?? 0) + 1);
    // The legend's rows: those the plot names so (`role`); from a build that does not name
    // them, what the labels added (each text of the bare drawing matched once) and the texts
    // aligned with those in the same column (an entry with no label of the spec's, the band's).
    let rows;
    if (drawn.texts.some((t) => 'role' in t)) {
      rows = drawn.texts.filter((t) => t.role === 'legend');
    } else {
      rows = labelled(spec) ? drawn.texts.filter((t) => {
        const n = bare.get(t.text) ?? 0;
        if (n > 0) bare.set(t.text, n - 1);
        return n === 0 && !isNote(t);
      }) : [];
      const lefts = new Set(rows.map((t) => t.left));
      const [top, bottom] = [Math.min(...rows.map((t) => t.top)) - 20, Math.max(...rows.map((t) => t.bottom)) + 20];
      rows.push(...drawn.texts.filter((t) => !rows.includes(t) && !isNote(t) && lefts.has(t.left) && t.top >= top && t.bottom <= bottom));
    }
    const notes = drawn.texts.filter(isNote);
    const others = drawn.texts.filter((t) => !rows.includes(t) && !notes.includes(t));
    const marks = drawn.marks ?? [];
    // plotters puts each entry's mark left of its text, inside the legend's frame.
    const box = rows.length === 0 ? null : {
      left: Math.min(...rows.map((t) => t.left)) - 30,
      top: Math.min(...rows.map((t) => t.top)) - 4,
      right: Math.max(...rows.map((t) => t.right)) + 4,
      bottom: Math.max(...rows.map((t) => t.bottom)) + 4,
    };
    if (box) {
      if (!inside(box, width, height)) found.push(`${kind}: its legend ${where(box)} runs off the ${width} × ${height} figure`);
      for (const t of rows) {
        if (!inside(t, width, height)) found.push(`${kind}: the legend's “${t.text}” ${where(t)} is cut at the ${width} × ${height} figure's edge`);
      }
      for (const t of others) {
        if (overlap(box, t)) found.push(`${kind}: its legend ${where(box)} covers the text “${t.text}” ${where(t)}`);
      }
      for (const m of marks) {
        if (overlap(box, m)) found.push(`${kind}: its legend ${where(box)} covers ${m.name} ${where(m)}`);
      }
    }
    for (const note of notes) {
      if (!inside(note, width, height)) found.push(`${kind}: the note “${note.text}” ${where(note)} runs off the figure`);
      if (box && overlap(box, note)) found.push(`${kind}: the note “${note.text}” ${where(note)} lies under the legend ${where(box)}`);
      for (const t of [...others, ...notes.filter((n) => n !== note)]) {
        if (overlap(note, t)) found.push(`${kind}: the note “${note.text}” ${where(note)} overlaps “${t.text}” ${where(t)}`);
      }
      for (const m of marks) {
        if (overlap(note, m)) found.push(`${kind}: the note “${note.text}” covers ${m.name} ${where(m)}`);
      }
    }
    if (!box) continue;
    const d = spare.getContext('2d').getImageData(0, 0, width, height).data;
    let all = 0;
    let under = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!coloured(d, 4 * (y * width + x))) continue;
        all += 1;
        if (x >= box.left && x < box.right && y >= box.top && y < box.bottom) under += 1;
      }
    }
    if (all > 0 && under / all > share) {
      found.push(`${kind}: its legend covers ${(100 * under / all).toFixed(1)} % of the drawn data (at most ${100 * share} %)`);
    }
  }
  return found;
}, [share, NOTES.source]);

const require = createRequire(import.meta.url);
let axeSource = null;

/**
 * axe-core's serious and critical violations on the page as it is (WCAG rules and best
 * practices), as `rule: the elements`.
 */
export async function axeViolations(page) {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).join(', ')}`);
}

/**
 * A second server, on another port (so another origin), serving one page that holds the
 * playground's `src` in an <iframe> of `width` × `height`: a course page embedding it.
 */
export async function hostPage(src, { width = 900, height = 700 } = {}) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title></head>
<body style="margin: 8px; font-family: sans-serif"><p>A course page from another origin.</p>
<iframe id="embedded" src="${src.replace(/"/g, '&quot;')}" width="${width}" height="${height}" title="dp-playground lesson"></iframe></body></html>`;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}
