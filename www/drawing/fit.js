// Canvases drawn at their displayed size × the screen's pixel scale, so that the plots' text keeps
// its size in CSS pixels and nothing is blurred; and the narrow (phone) layout's media query,
// which decides how some plots are drawn.

import { drawPlotScaled } from '../pkg/dp_playground.js';

/** The narrow (phone) layout of style.css: one column, one plot at a time. */
export const NARROW = window.matchMedia('(max-width: 800px)');

/**
 * Sizes `canvas` for the screen before it is drawn: at the size it is displayed × the screen's
 * pixel ratio ([`displayedSize`]), so a plot's fonts, set in logical pixels, keep their size in
 * CSS pixels instead of shrinking or stretching with the canvas. Returns whether the size
 * changed (which clears the canvas). A canvas not displayed (another tab, a closed panel) is
 * left as it is.
 */
export function fitForScreen(canvas) {
  const size = displayedSize(canvas);
  if (!size) return false;
  const width = Math.round(size.width * size.scale);
  const height = Math.round(size.height * size.scale);
  if (width === canvas.width && height === canvas.height) return false;
  canvas.width = width;
  canvas.height = height;
  return true;
}

/**
 * The size a canvas's figure is drawn at: `width` × `height` logical pixels (its displayed CSS
 * width, and its designed height scaled alike, never taller than designed unless its
 * `data-min-height` asks for more) at `scale` canvas
 * pixels per CSS pixel (the screen's devicePixelRatio, 1 to 3), so a figure's 12 px text is
 * 12 CSS px on screen and sharp; `null` for a canvas not displayed. Records the designed size
 * (index.html's) for exports (www/drawing/figures.js `figureSize`).
 */
export function displayedSize(canvas) {
  if (!canvas.dataset.designedWidth) {
    Object.assign(canvas.dataset, { designedWidth: canvas.width, designedHeight: canvas.height });
  }
  const w = Number(canvas.dataset.designedWidth);
  const h = Number(canvas.dataset.designedHeight);
  const width = Math.floor(canvas.clientWidth);
  if (width === 0) return null;
  // A plot that needs room for its panels (the vertex view stacks its four when narrow) sets a
  // least height in CSS px (`data-min-height`).
  const height = Math.max(Math.round(h * Math.min(1, width / w)), Number(canvas.dataset.minHeight ?? 0));
  const scale = Math.min(3, Math.max(1, window.devicePixelRatio || 1));
  return { width, height, scale };
}

/**
 * Draws plot `kind` from `spec` on `canvas` at its displayed size × the screen's pixel ratio
 * (`fitForScreen`, `displayedSize`): fonts and lines are drawn at that scale, not upscaled.
 */
export function drawFitted(kind, canvas, spec) {
  fitForScreen(canvas);
  const size = displayedSize(canvas);
  if (size) drawPlotScaled(kind, canvas, spec, size.width, size.height, size.scale);
}
