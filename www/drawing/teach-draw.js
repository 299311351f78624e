// Canvas drawings of the teaching tools (the neighbouring view and the audit tab): overlaid
// histograms with a density, and curves on a log-x axis. Plain 2-D canvas: these figures are
// small and their data come ready from Rust (audit::neighbours), so they need no plot spec.

import { displayedSize, fitForScreen } from './fit.js';

export const COLORS = { d: '#0969da', dPrime: '#cf222e', theory: '#1a7f37', marker: '#8250df', grid: '#d0d7de', text: '#24292f' };
const PAD = { left: 52, right: 12, top: 24, bottom: 38 };

function frame(canvas) {
  // Drawn at its displayed size × the screen's pixel ratio (www/drawing/fit.js): the 11 px text is
  // 11 CSS px on screen and sharp, not a 640 px drawing stretched over the width of the page.
  fitForScreen(canvas);
  const { width, height, scale } = displayedSize(canvas) ?? { width: canvas.width, height: canvas.height, scale: 1 };
  const ctx = canvas.getContext('2d');
  ctx.setTransform(canvas.width / width, 0, 0, canvas.height / height, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, width, height);
  ctx.font = '11px sans-serif';
  const w = width - PAD.left - PAD.right;
  const h = height - PAD.top - PAD.bottom;
  // Its logical size, for the tests (the backing store is `scale` times as large).
  Object.assign(canvas.dataset, { drawnWidth: width, drawnHeight: height, drawnScale: scale });
  return { ctx, w, h };
}

function niceTicks(lo, hi, count = 5) {
  const step0 = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0) ?? step0;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12 * Math.abs(hi); t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(0) : String(Number(v.toPrecision(3))));

function axes(ctx, w, h, x, y, xlabel, ylabel, xticks, yticks) {
  ctx.strokeStyle = COLORS.grid;
  ctx.fillStyle = COLORS.text;
  ctx.lineWidth = 1;
  ctx.textAlign = 'center';
  for (const t of xticks) {
    ctx.beginPath();
    ctx.moveTo(x(t.v), PAD.top);
    ctx.lineTo(x(t.v), PAD.top + h);
    ctx.stroke();
    ctx.fillText(t.label, x(t.v), PAD.top + h + 14);
  }
  ctx.textAlign = 'right';
  for (const t of yticks) {
    ctx.beginPath();
    ctx.moveTo(PAD.left, y(t.v));
    ctx.lineTo(PAD.left + w, y(t.v));
    ctx.stroke();
    ctx.fillText(t.label, PAD.left - 4, y(t.v) + 4);
  }
  ctx.strokeStyle = COLORS.text;
  ctx.strokeRect(PAD.left, PAD.top, w, h);
  ctx.textAlign = 'center';
  ctx.fillText(xlabel, PAD.left + w / 2, PAD.top + h + 30);
  ctx.save();
  ctx.translate(12, PAD.top + h / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(ylabel, 0, 0);
  ctx.restore();
}

function legend(ctx, w, items) {
  ctx.textAlign = 'left';
  let at = PAD.left + 4;
  for (const { label, color, dashed } of items) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 3;
    ctx.setLineDash(dashed ? [5, 3] : []);
    ctx.beginPath();
    ctx.moveTo(at, 12);
    ctx.lineTo(at + 16, 12);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS.text;
    ctx.fillText(label, at + 20, 16);
    at += 28 + ctx.measureText(label).width;
    if (at > PAD.left + w) break;
  }
}

/**
 * Histograms of `series` ({ counts, color, label }) on equal bins over [lo, hi], as densities
 * (each series integrates to its share of `total`), with an optional density curve `curve`
 * ([[x, density]…]) and `atoms` ([[x, probability]…], drawn as stems scaled like one bin).
 */
export function drawHistograms(canvas, { lo, hi, series, curve = [], atoms = [], xlabel, ylabel = 'density', curveLabel }) {
  const { ctx, w, h } = frame(canvas);
  const bins = series[0].counts.length;
  const width = (hi - lo) / bins;
  const densities = series.map((s) => {
    const n = s.total ?? s.counts.reduce((a, b) => a + b, 0);
    return s.counts.map((c) => (n > 0 ? c / (n * width) : 0));
  });
  const atomHeights = atoms.map(([, p]) => p / width);
  const top = Math.max(...densities.flat(), ...curve.map((p) => p[1]), ...atomHeights, 1e-12) * 1.08;
  const x = (v) => PAD.left + ((v - lo) / (hi - lo)) * w;
  const y = (v) => PAD.top + h - (v / top) * h;
  axes(ctx, w, h, x, y, xlabel, ylabel,
    niceTicks(lo, hi).map((v) => ({ v, label: fmt(v) })), niceTicks(0, top, 4).map((v) => ({ v, label: fmt(v) })));
  series.forEach((s, k) => {
    ctx.fillStyle = s.color;
    ctx.globalAlpha = 0.45;
    densities[k].forEach((d, i) => {
      if (d > 0) ctx.fillRect(x(lo + i * width), y(d), Math.max(1, x(lo + (i + 1) * width) - x(lo + i * width) - 0.5), y(0) - y(d));
    });
    ctx.globalAlpha = 1;
  });
  ctx.strokeStyle = COLORS.theory;
  ctx.lineWidth = 2;
  ctx.setLineDash([6, 3]);
  if (curve.length) {
    ctx.beginPath();
    curve.forEach(([cx, cy], i) => (i ? ctx.lineTo(x(cx), y(cy)) : ctx.moveTo(x(cx), y(cy))));
    ctx.stroke();
  }
  for (let i = 0; i < atoms.length; i++) {
    ctx.beginPath();
    ctx.moveTo(x(atoms[i][0]), y(0));
    ctx.lineTo(x(atoms[i][0]), y(atomHeights[i]));
    ctx.stroke();
  }
  ctx.setLineDash([]);
  legend(ctx, w, [
    ...series.map((s) => ({ label: s.label, color: s.color })),
    ...(curveLabel ? [{ label: curveLabel, color: COLORS.theory, dashed: true }] : []),
  ]);
}

/**
 * Curves ({ points: [[x, y]…], color, label, dashed }) against a log-10 x axis (x > 0; points
 * with a non-finite y are skipped), with `markers` ({ x, y, color, label }) drawn as dots.
 */
export function drawLogXCurves(canvas, { curves, markers = [], xlabel, ylabel }) {
  const { ctx, w, h } = frame(canvas);
  const pts = [...curves.flatMap((c) => c.points), ...markers.map((m) => [m.x, m.y])].filter(([px, py]) => px > 0 && Number.isFinite(py));
  const lx = pts.map(([px]) => Math.log10(px));
  const lo = Math.floor(Math.min(...lx));
  const hi = Math.ceil(Math.max(...lx));
  const top = Math.max(...pts.map(([, py]) => py), 1e-3) * 1.1;
  const x = (v) => PAD.left + ((Math.log10(v) - lo) / Math.max(hi - lo, 1)) * w;
  const y = (v) => PAD.top + h - (v / top) * h;
  const xticks = [];
  for (let e = lo; e <= hi; e += Math.max(1, Math.ceil((hi - lo) / 8))) xticks.push({ v: 10 ** e, label: `1e${e}` });
  axes(ctx, w, h, x, y, xlabel, ylabel, xticks, niceTicks(0, top, 4).map((v) => ({ v, label: fmt(v) })));
  for (const c of curves) {
    ctx.strokeStyle = c.color;
    ctx.lineWidth = 2;
    ctx.setLineDash(c.dashed ? [6, 3] : []);
    ctx.beginPath();
    let pen = false;
    for (const [px, py] of c.points) {
      if (!(px > 0 && Number.isFinite(py))) { pen = false; continue; }
      if (pen) ctx.lineTo(x(px), y(py));
      else ctx.moveTo(x(px), y(py));
      pen = true;
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);
  for (const m of markers) {
    if (!(m.x > 0 && Number.isFinite(m.y))) continue;
    ctx.fillStyle = m.color;
    ctx.beginPath();
    ctx.arc(x(m.x), y(m.y), 5, 0, 2 * Math.PI);
    ctx.fill();
  }
  legend(ctx, w, [...curves.map((c) => ({ label: c.label, color: c.color, dashed: c.dashed })), ...markers.map((m) => ({ label: m.label, color: m.color }))]);
}

/**
 * Curves ({ points: [[x, y]…], color, label, dashed }) on linear axes (points with a non-finite
 * y are skipped): the heavy-tail panel's f against f_C (www/panels/heavy.js).
 */
export function drawCurves(canvas, { curves, xlabel, ylabel }) {
  const { ctx, w, h } = frame(canvas);
  const pts = curves.flatMap((c) => c.points).filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py));
  if (!pts.length) return;
  const lo = Math.min(...pts.map(([px]) => px));
  const hi = Math.max(...pts.map(([px]) => px), lo + 1e-12);
  const bottom = Math.min(...pts.map(([, py]) => py), 0);
  const top = Math.max(...pts.map(([, py]) => py), bottom + 1e-3) * 1.1;
  const x = (v) => PAD.left + ((v - lo) / (hi - lo)) * w;
  const y = (v) => PAD.top + h - ((v - bottom) / (top - bottom)) * h;
  axes(ctx, w, h, x, y, xlabel, ylabel, niceTicks(lo, hi).map((v) => ({ v, label: fmt(v) })),
    niceTicks(bottom, top, 4).map((v) => ({ v, label: fmt(v) })));
  for (const c of curves) {
    ctx.strokeStyle = c.color;
    ctx.lineWidth = 2;
    ctx.setLineDash(c.dashed ? [6, 3] : []);
    ctx.beginPath();
    let pen = false;
    for (const [px, py] of c.points) {
      if (!Number.isFinite(py)) { pen = false; continue; }
      if (pen) ctx.lineTo(x(px), y(py));
      else ctx.moveTo(x(px), y(py));
      pen = true;
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);
  legend(ctx, w, curves.map((c) => ({ label: c.label, color: c.color, dashed: c.dashed })));
}

/** Horizontal bars: the claimed ε and the audit's lower bound ε̂ (`bars`: { label, value, color }). */
export function drawBars(canvas, { bars, xlabel }) {
  const { ctx, w, h } = frame(canvas);
  const top = Math.max(...bars.map((b) => b.value), 1e-3) * 1.15;
  const x = (v) => PAD.left + (v / top) * w;
  const band = h / bars.length;
  axes(ctx, w, h, x, () => PAD.top, xlabel, '', niceTicks(0, top).map((v) => ({ v, label: fmt(v) })), []);
  bars.forEach((b, i) => {
    ctx.fillStyle = b.color;
    ctx.fillRect(x(0), PAD.top + i * band + band * 0.2, Math.max(2, x(b.value) - x(0)), band * 0.6);
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'left';
    ctx.fillText(`${b.label} = ${b.value.toFixed(2)}`, x(0) + 6, PAD.top + i * band + band * 0.5 + 4);
  });
}
