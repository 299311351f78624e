//! Drawing on the page's canvases with plotters-canvas. The main thread keeps the run history and
//! calls these at most once per animation frame.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

const FONT: &str = "sans-serif";
const PATH_COLOR: RGBColor = RGBColor(33, 102, 172);
const RELEASE_COLOR: RGBColor = RGBColor(214, 39, 40);

/// A short axis label: at most three significant digits, no trailing zeros, scientific only
/// when the magnitude needs it.
fn tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if (1e-3..1e5).contains(&a) {
        let s = format!("{:.*}", (2 - a.log10().floor() as i32).max(0) as usize, v);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{v:.1e}")
    }
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&format!("plot: {e}"))
}

fn area(canvas: HtmlCanvasElement) -> Result<DrawingArea<CanvasBackend, Shift>, JsValue> {
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| JsValue::from_str("plot: the canvas has no 2D context"))?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    Ok(root)
}

/// Excess empirical risk against gradient evaluations, both axes logarithmic. Non-positive values
/// (iterates at the certified optimum) cannot be shown on a log axis and are skipped.
#[wasm_bindgen(js_name = drawExcess)]
pub fn draw_excess(
    canvas: HtmlCanvasElement,
    grad_evals: &[f64],
    excess: &[f64],
) -> Result<(), JsValue> {
    let root = area(canvas)?;
    let points: Vec<(f64, f64)> = grad_evals
        .iter()
        .zip(excess)
        .map(|(&x, &y)| (x.max(1.0), y))
        .filter(|&(_, y)| y > 0.0 && y.is_finite())
        .collect();
    let x_max = points.iter().map(|p| p.0).fold(10.0f64, f64::max);
    let (y_min, y_max) = points.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    // At least one decade, so the log axis always has labelled ticks.
    let (y_min, y_max) = if points.is_empty() {
        (1e-4, 1.0)
    } else {
        ((y_min / 2.0).min(y_max / 10.0), y_max * 2.0)
    };
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .caption("excess empirical risk F(wₜ) − F* (non-private)", (FONT, 15))
        .build_cartesian_2d((1.0..x_max * 1.2).log_scale(), (y_min..y_max).log_scale())
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("gradient evaluations (full passes)")
        .y_desc("F(wₜ) − F*")
        .label_style((FONT, 12))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(230, 230, 230))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(js_err)?;
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            PATH_COLOR.stroke_width(2),
        ))
        .map_err(js_err)?;
    root.present().map_err(js_err)
}

/// The 2-D parameter view: loss contours (when `grid` is given, res × res over [−r, r]²), the
/// domain boundary, the non-private path, w* and the release.
#[wasm_bindgen(js_name = drawPath)]
pub fn draw_path(
    canvas: HtmlCanvasElement,
    path: &[f64],
    radius: f64,
    w_star: &[f64],
    release: Option<Vec<f64>>,
    grid: Option<Vec<f64>>,
) -> Result<(), JsValue> {
    let root = area(canvas)?;
    let r = radius * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .caption(
            "iterates w₁, w₂ (path non-private; red: release)",
            (FONT, 15),
        )
        .build_cartesian_2d(-r..r, -r..r)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style((FONT, 12))
        .draw()
        .map_err(js_err)?;

    if let Some(grid) = grid.filter(|g| g.len() >= 4) {
        let res = (grid.len() as f64).sqrt() as usize;
        if res * res == grid.len() {
            draw_contours(&mut chart, &grid, res, radius)?;
        }
    }

    let circle = (0..=200).map(|k| {
        let a = k as f64 / 200.0 * std::f64::consts::TAU;
        (radius * a.cos(), radius * a.sin())
    });
    chart
        .draw_series(LineSeries::new(circle, BLACK.stroke_width(1)))
        .map_err(js_err)?;

    let points: Vec<(f64, f64)> = path.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            PATH_COLOR.stroke_width(1),
        ))
        .map_err(js_err)?;
    if let Some(&last) = points.last() {
        chart
            .draw_series(std::iter::once(Circle::new(last, 3, PATH_COLOR.filled())))
            .map_err(js_err)?;
    }
    if w_star.len() >= 2 {
        let star = (w_star[0], w_star[1]);
        chart
            .draw_series(std::iter::once(Cross::new(star, 6, BLACK.stroke_width(2))))
            .map_err(js_err)?;
    }
    if let Some(rel) = release.filter(|r| r.len() >= 2) {
        chart
            .draw_series(std::iter::once(Circle::new(
                (rel[0], rel[1]),
                6,
                RELEASE_COLOR.filled(),
            )))
            .map_err(js_err)?;
    }
    root.present().map_err(js_err)
}

type PathChart<'a> = ChartContext<
    'a,
    CanvasBackend,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Shades each grid cell by the quantile of F there: dark near the minimum, light far away.
fn draw_contours(
    chart: &mut PathChart<'_>,
    grid: &[f64],
    res: usize,
    radius: f64,
) -> Result<(), JsValue> {
    // Bands of equal area (quantiles of F on the grid): even contours whatever the loss's scale.
    let mut sorted = grid.to_vec();
    sorted.sort_by(f64::total_cmp);
    let quantile = |v: f64| sorted.partition_point(|&u| u < v) as f64 / sorted.len() as f64;
    let step = 2.0 * radius / (res - 1) as f64;
    const BANDS: f64 = 12.0;
    let cells = (0..res)
        .flat_map(|i| (0..res).map(move |j| (i, j)))
        .map(|(i, j)| {
            let s = quantile(grid[i * res + j]);
            // Discrete bands read as contour lines; odd bands are a shade lighter to separate them.
            let band = (s * BANDS).floor().min(BANDS - 1.0);
            let odd = if band as i64 % 2 == 1 { 0.03 } else { 0.0 };
            let (x, y) = (-radius + j as f64 * step, -radius + i as f64 * step);
            Rectangle::new(
                [
                    (x - step / 2.0, y - step / 2.0),
                    (x + step / 2.0, y + step / 2.0),
                ],
                contour_color(band / (BANDS - 1.0) + odd).filled(),
            )
        });
    chart.draw_series(cells).map_err(js_err)?;
    Ok(())
}

/// Deep blue at the minimum (t = 0) to near-white far from it (t = 1).
fn contour_color(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(74.0, 246.0), lerp(125.0, 249.0), lerp(186.0, 255.0))
}

/// Histogram (as a density) of the noise norms ‖zₜ‖ a run added, against the density of σ·χ_d
/// that the calibration promises. A miscalibrated sampler shows as a histogram off the curve.
#[wasm_bindgen(js_name = drawNoise)]
pub fn draw_noise(
    canvas: HtmlCanvasElement,
    norms: &[f64],
    sigma: f64,
    d: usize,
) -> Result<(), JsValue> {
    const BINS: usize = 30;
    let root = area(canvas)?;
    let norms: Vec<f64> = norms
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    // The axis covers the bulk of σ·χ_d (mean ≈ σ√d) and every observed norm.
    let typical = sigma * ((d as f64).sqrt() + 3.0);
    let x_max = norms.iter().copied().fold(typical, f64::max);
    let width = x_max / BINS as f64;
    let mut counts = [0usize; BINS];
    for v in &norms {
        counts[((v / width) as usize).min(BINS - 1)] += 1;
    }
    let scale = 1.0 / (norms.len().max(1) as f64 * width);
    let density: Vec<(f64, f64)> = (0..=200)
        .map(|i| {
            let r = x_max * i as f64 / 200.0;
            (r, crate::noise::norm_density(r, sigma, d))
        })
        .collect();
    let y_max = counts
        .iter()
        .map(|&c| c as f64 * scale)
        .chain(density.iter().map(|p| p.1))
        .fold(1e-12, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .caption(
            format!(
                "noise norms ‖zₜ‖ ({} draws) vs σ·χ_{d} density",
                norms.len()
            ),
            (FONT, 15),
        )
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("‖zₜ‖")
        .y_desc("density")
        .label_style((FONT, 12))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(230, 230, 230))
        .y_label_formatter(&|v| tick(*v))
        .x_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(js_err)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, &c)| {
            let x0 = i as f64 * width;
            Rectangle::new(
                [(x0, 0.0), (x0 + width, c as f64 * scale)],
                PATH_COLOR.mix(0.45).filled(),
            )
        }))
        .map_err(js_err)?;
    chart
        .draw_series(LineSeries::new(density, RELEASE_COLOR.stroke_width(2)))
        .map_err(js_err)?;
    root.present().map_err(js_err)
}

/// ε spent against steps, rising by composition to the target ε (dashed).
#[wasm_bindgen(js_name = drawPrivacy)]
pub fn draw_privacy(
    canvas: HtmlCanvasElement,
    steps: &[f64],
    epsilon_spent: &[f64],
    epsilon: f64,
    total_steps: f64,
) -> Result<(), JsValue> {
    let root = area(canvas)?;
    let x_max = total_steps.max(1.0);
    let y_max = epsilon.max(1e-12) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .caption("privacy spent ε(t) at the run's δ", (FONT, 15))
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("steps (noisy gradient releases)")
        .y_desc("ε spent")
        .label_style((FONT, 12))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(230, 230, 230))
        .draw()
        .map_err(js_err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, epsilon), (x_max, epsilon)],
            8,
            5,
            RELEASE_COLOR.stroke_width(1),
        ))
        .map_err(js_err)?;
    let points = steps
        .iter()
        .zip(epsilon_spent)
        .map(|(&t, &e)| (t, e))
        .filter(|p| p.1.is_finite());
    chart
        .draw_series(LineSeries::new(points, PATH_COLOR.stroke_width(2)))
        .map_err(js_err)?;
    root.present().map_err(js_err)
}
