// Figures for slides: each plot exported as SVG, or as PNG drawn at 1×, 2× or 3× (fonts and lines
// drawn at that scale, not upscaled pixels), with the run's settings drawn inside the figure and
// in its file name. The context line and the name come from Rust (src/figure/context.rs), the
// drawing from the same plot code as the page's canvases.

import { drawPlotScaled, figureContext, plotSvg } from '../pkg/dp_playground.js';
import { download } from './export.js';

/** The PNG scales offered. */
export const PNG_SCALES = [1, 2, 3];

/**
 * The spec of plot `kind` with the run's context line, and the file name stem. `config` is the
 * run's settings as JSON (the run info's `config`).
 */
function framed(kind, baseSpec, config) {
  const { caption, stem } = figureContext(kind, config);
  return { spec: { ...baseSpec, context: caption }, stem };
}

/**
 * The size a figure is exported at: the canvas's designed size (index.html's), not the size a
 * phone fits it to (www/drawing/fit.js), so a figure made on a phone is the figure made on a desktop.
 */
export function figureSize(canvas) {
  const { designedWidth, designedHeight } = canvas.dataset;
  return designedWidth ? [Number(designedWidth), Number(designedHeight)] : [canvas.width, canvas.height];
}

/** Downloads plot `kind` as an SVG document the (designed) size of its canvas. */
export function exportSvg(kind, baseSpec, config, canvas) {
  const { spec, stem } = framed(kind, baseSpec, config);
  const svg = plotSvg(kind, spec, ...figureSize(canvas));
  download(`${stem}.svg`, new Blob([svg], { type: 'image/svg+xml' }));
}

/** Downloads plot `kind` as a PNG of `scale` × its canvas's (designed) size, drawn at that scale. */
export function exportPng(kind, baseSpec, config, canvas, scale) {
  const { spec, stem } = framed(kind, baseSpec, config);
  const offscreen = document.createElement('canvas');
  drawPlotScaled(kind, offscreen, spec, ...figureSize(canvas), scale);
  const name = scale === 1 ? `${stem}.png` : `${stem}_${scale}x.png`;
  offscreen.toBlob((blob) => download(name, blob), 'image/png');
}

/**
 * Puts a scale menu (1×, 2×, 3×) before every `button.png` under `root`, labelled for the
 * button's own plot; `pngScale(button)` reads it.
 */
export function mountScaleMenus(root = document) {
  for (const button of root.querySelectorAll('button.png')) {
    if (button.previousElementSibling?.classList.contains('png-scale')) continue;
    const menu = document.createElement('select');
    menu.className = 'png-scale';
    const what = (button.getAttribute('aria-label') ?? 'the plot as PNG').replace(/^Download /, '');
    menu.setAttribute('aria-label', `PNG scale for ${what}`);
    for (const s of PNG_SCALES) menu.append(new Option(`${s}×`, String(s), s === 2, s === 2));
    button.before(menu);
  }
}

/** The scale chosen beside a PNG button (2 where there is no menu). */
export function pngScale(button) {
  const menu = button.previousElementSibling;
  return menu?.classList.contains('png-scale') ? Number(menu.value) : 2;
}
