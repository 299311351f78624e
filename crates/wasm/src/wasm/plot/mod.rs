//! The page's plots, drawn by plotters from plain JS "spec" objects.
//!
//! Each plot kind's spec is parsed and checked by [`crate::plot_spec`] (target-independent, so
//! fuzzed natively) before anything is drawn; here one drawing function per kind, generic over
//! plotters' [`DrawingBackend`], serves the two entry points [`draw_plot`] (an
//! `HtmlCanvasElement`, plotters-canvas) and [`plot_svg`] (a standalone SVG document, plotters'
//! SVG backend), so a figure exported as SVG is the figure on the page. A malformed spec is an
//! `Err` (a `{ field, message }` object like every other error of the wasm API) and leaves the
//! canvas as it was.

mod excess;
mod features;
mod frame;
mod legend;
mod localisation;
mod noise;
mod overlay;
mod path;
mod players;
mod privacy;
mod roc;
mod surface;
mod ternary;
mod vertices;

use plotters::coord::Shift;
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::error::Error;
use crate::figure::context::Shown;
use crate::figure::log_ticks;
use crate::plot_spec::{PALETTE_SIZE, Spec};
use frame::{Frame, titled};
use surface::Surface;

/// The only font: the page loads no web fonts (its Content-Security-Policy forbids them).
const FONT: &str = "sans-serif";

/// Okabe & Ito's colour-blind-safe palette (blue, orange, bluish green, reddish purple), indexed
/// by a series' `color`.
const PALETTE: [RGBColor; PALETTE_SIZE] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
];

/// Private releases, and nothing else, are marked in red.
pub(crate) const RELEASE_COLOR: RGBColor = RGBColor(214, 39, 40);

/// Light grid lines on every chart.
const GRID_COLOR: RGBColor = RGBColor(230, 230, 230);

/// Draws plot `kind` on a canvas. `kind` is one of "excess", "path", "noise", "privacy",
/// "features", "players", "vertices", "localisation", "roc"; `spec` is that kind's spec object (see the module docs). The spec is checked
/// before the canvas is touched. A spec's optional `context` string (the run's settings, from
/// [`figure_context`]) is drawn along the figure's bottom.
#[wasm_bindgen(js_name = drawPlot)]
pub fn draw_plot(kind: &str, canvas: HtmlCanvasElement, spec: JsValue) -> Result<(), JsValue> {
    let context = context_of(&spec);
    let spec = parse(kind, spec)?;
    need_document()?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| PlotError::Draw("the canvas has no 2D context".into()))?;
    let root = Frame::native(Surface::Canvas(backend)).into_drawing_area();
    Ok(render(&spec, &root, context.as_deref())?)
}

/// Most a figure is scaled: 3× a figure of [`crate::plot_spec::MAX_SIDE`] / 3 pixels is as
/// large as a canvas may be.
const MAX_SCALE: f64 = 3.0;

/// Draws plot `kind` as a figure of `width` × `height` (logical) pixels at `scale` (1 to 3, not
/// necessarily whole: a screen's devicePixelRatio) onto `canvas`, which is resized to `scale` ×
/// that, rounded: fonts, lines and markers are drawn at the scale, not upscaled pixels (for a
/// PNG fit for a slide, and for the page's plots drawn at their displayed size × the screen's
/// pixel ratio, so a 12 px label is 12 CSS px and sharp).
#[wasm_bindgen(js_name = drawPlotScaled)]
pub fn draw_plot_scaled(
    kind: &str,
    canvas: HtmlCanvasElement,
    spec: JsValue,
    width: u32,
    height: u32,
    scale: f64,
) -> Result<(), JsValue> {
    if !(1.0..=MAX_SCALE).contains(&scale) {
        return Err(PlotError::Spec(Error::invalid(
            "scale",
            format!("a scale of 1 to {MAX_SCALE}"),
            scale,
        ))
        .into());
    }
    // At most 3 × 16384 each: well inside u32 and f64's exact integers.
    let scaled = |v: u32| (f64::from(v) * scale).round() as u32;
    let (w, h) = (scaled(width), scaled(height));
    crate::plot_spec::check_size(w, h).map_err(PlotError::from)?;
    let context = context_of(&spec);
    let spec = parse(kind, spec)?;
    need_document()?;
    canvas.set_width(w);
    canvas.set_height(h);
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| PlotError::Draw("the canvas has no 2D context".into()))?;
    // The exact ratio of the rounded backing size, so the figure fills it.
    let (sx, sy) = (
        f64::from(w) / f64::from(width.max(1)),
        f64::from(h) / f64::from(height.max(1)),
    );
    ctx.set_transform(sx, 0.0, 0.0, sy, 0.0, 0.0)
        .map_err(|_| PlotError::Draw("the canvas refused its scale".into()))?;
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| PlotError::Draw("the canvas has no 2D context".into()))?;
    let root = Frame::new(Surface::Canvas(backend), (width, height)).into_drawing_area();
    Ok(render(&spec, &root, context.as_deref())?)
}

/// The same plot as a standalone SVG document of `width` × `height` pixels (each 1 to
/// [`crate::plot_spec::MAX_SIDE`]), with the spec's `context` line like [`draw_plot`].
#[wasm_bindgen(js_name = plotSvg)]
pub fn plot_svg(kind: &str, spec: JsValue, width: u32, height: u32) -> Result<String, JsValue> {
    crate::plot_spec::check_size(width, height).map_err(PlotError::from)?;
    let context = context_of(&spec);
    let spec = parse(kind, spec)?;
    need_document()?;
    let mut svg = String::new();
    {
        let svg = SVGBackend::with_string(&mut svg, (width, height));
        let root = Frame::native(Surface::Svg(svg)).into_drawing_area();
        render(&spec, &root, context.as_deref())?;
    }
    Ok(svg)
}

/// Where every text of the last drawn plot landed: `{ width, height, texts: [{ text, left,
/// top, right, bottom }] }` in the figure's logical pixels. For the page's tests: no text of a
/// plot may run off its canvas.
#[wasm_bindgen(js_name = plotTextBoxes)]
pub fn plot_text_boxes() -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(&frame::text_boxes())
        .map_err(|e| PlotError::Draw(e.to_string()).into())
}

/// What an exported figure of plot `plot` says about the run of `config` (the run's settings as
/// JSON): `{ caption, stem }`, the context line drawn inside the figure and the file name
/// without its extension (see [`crate::figure::context`]).
#[wasm_bindgen(js_name = figureContext)]
pub fn figure_context(plot: &str, config: &str) -> Result<JsValue, JsValue> {
    figure_context_of(plot, &Shown::run(&read_config(config)?))
}

/// The run's settings, read as every other entry point reads them (one copy of the parser in
/// the module: a second `serde_json` reader of `RunConfig` cost 9 KB of the gzipped wasm).
fn read_config(config: &str) -> Result<crate::config::RunConfig, PlotError> {
    crate::config::RunConfig::from_json(config).map_err(PlotError::Spec)
}

/// [`figure_context`] for the sweep panel's plot: `request` is the sweep as the panel sent it
/// (its axis, values, algorithms and repeats), `config` the settings around which it swept.
#[wasm_bindgen(js_name = sweepFigureContext)]
pub fn sweep_figure_context(config: &str, request: &str) -> Result<JsValue, JsValue> {
    let config = read_config(config)?;
    let request = read_json("request", "the sweep's request as JSON", request)?;
    figure_context_of("sweep", &Shown::sweep(&config, &request))
}

fn read_json<T: serde::de::DeserializeOwned>(
    field: &str,
    what: &str,
    text: &str,
) -> Result<T, PlotError> {
    serde_json::from_str(text).map_err(|e| PlotError::Spec(Error::invalid(field, what, e)))
}

fn figure_context_of(plot: &str, shown: &Shown) -> Result<JsValue, JsValue> {
    let name = shown.file_name(plot, "x");
    let out = FigureContext {
        caption: shown.caption(),
        stem: name.strip_suffix(".x").unwrap_or(&name).to_string(),
    };
    serde_wasm_bindgen::to_value(&out).map_err(|e| PlotError::Draw(e.to_string()).into())
}

/// [`figure_context`]'s answer.
#[derive(serde::Serialize)]
struct FigureContext {
    caption: String,
    stem: String,
}

/// The optional `context` string of a spec (the run's settings, drawn under an exported plot).
fn context_of(spec: &JsValue) -> Option<String> {
    js_sys::Reflect::get(spec, &JsValue::from_str("context"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|s| !s.is_empty())
}

/// plotters measures text by laying out a `<span>` in `document.body` and unwraps every step, so
/// drawing in a Worker (no document) would panic: refuse it with an error instead.
fn need_document() -> Result<(), PlotError> {
    let body = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("document"))
        .ok()
        .filter(|d| d.is_object())
        .and_then(|d| js_sys::Reflect::get(&d, &JsValue::from_str("body")).ok())
        .filter(|b| b.is_object());
    match body {
        Some(_) => Ok(()),
        None => Err(PlotError::Draw(
            "plots measure text in the page's document.body: draw on the main thread, not in a \
             worker"
                .into(),
        )),
    }
}

/// Reads and checks a spec from its JS value.
fn parse(kind: &str, spec: JsValue) -> Result<Spec, PlotError> {
    Ok(Spec::parse(
        kind,
        serde_wasm_bindgen::Deserializer::from(spec),
    )?)
}

fn render<DB: DrawingBackend>(
    spec: &Spec,
    root: &DrawingArea<DB, Shift>,
    context: Option<&str>,
) -> Result<(), PlotError> {
    root.fill(&WHITE)?;
    let area = match context {
        Some(text) => frame::with_context(root, text)?,
        None => root.clone(),
    };
    let root = &area;
    match spec {
        Spec::Excess(s) => excess::draw(root, s)?,
        Spec::Path(s) => path::draw(root, s)?,
        Spec::Noise(s) => noise::draw(root, s)?,
        Spec::Privacy(s) => privacy::draw(root, s)?,
        Spec::Features(s) => features::draw(root, s)?,
        Spec::Players(s) if s.ternary => ternary::draw(root, s)?,
        Spec::Players(s) => players::draw(root, s)?,
        Spec::Vertices(s) => vertices::draw(root, s)?,
        Spec::Localisation(s) => localisation::draw(root, s)?,
        Spec::Roc(s) => roc::draw(root, s)?,
    }
    root.present()?;
    Ok(())
}

/// Why a plot was not drawn: a bad spec (shown next to the field) or a failing backend.
#[derive(Debug)]
pub(crate) enum PlotError {
    Spec(Error),
    Draw(String),
}

impl From<Error> for PlotError {
    fn from(e: Error) -> Self {
        PlotError::Spec(e)
    }
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Draw(e.to_string())
    }
}

impl From<PlotError> for JsValue {
    fn from(e: PlotError) -> JsValue {
        match e {
            PlotError::Spec(e) => super::to_js_error(&e),
            // Not a setting the person chose: the reason is shown whole, not echoed as a value.
            PlotError::Draw(message) => super::js_error(
                Some("canvas"),
                &format!("The plot could not be drawn: {message}."),
            ),
        }
    }
}

fn color(i: usize) -> RGBColor {
    // Indices were checked at parse time; the modulo only keeps this total.
    PALETTE[i % PALETTE.len()]
}

fn pairs(xy: &[f64]) -> impl Iterator<Item = (f64, f64)> + Clone + '_ {
    xy.chunks_exact(2).map(|p| (p[0], p[1]))
}

// ---- drawing helpers shared by the plots ----

/// A pinned run's colour: its algorithm's, faded, so the current run stands out over it.
fn faded(i: usize) -> RGBAColor {
    color(i).mix(PINNED_ALPHA)
}

/// The opacity of pinned runs' marks.
const PINNED_ALPHA: f64 = 0.4;

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

/// The look of every x–y chart: a light grid, small sans-serif labels, short tick numbers.
fn draw_axes<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<(), PlotError>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, 12))
        .light_line_style(WHITE)
        .bold_line_style(GRID_COLOR)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(y_label)
        .draw()?;
    Ok(())
}

/// Point `p` in the pixels of the chart's plotting area (origin at its top left).
fn px<DB, X, Y>(chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>, p: (f64, f64)) -> (f64, f64)
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (x, y) = chart.backend_coord(&p);
    let (x0, y0) = chart.plotting_area().get_base_pixel();
    (f64::from(x - x0), f64::from(y - y0))
}

/// The pixels along a polyline (in [`px`] pixels), one at most every 3 px: what a legend's
/// corner is weighed against.
fn trace<DB, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    piece: &[(f64, f64)],
) -> Vec<(f64, f64)>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let points: Vec<(f64, f64)> = piece.iter().map(|p| px(chart, *p)).collect();
    crate::figure::legend::densify(&points, 3.0)
}

/// Thins a polyline to what the chart can show (M4, Jugel et al. 2014): of each run of
/// consecutive points in one pixel column it keeps the first, lowest, highest and last, in
/// order. The thinned line covers the same pixels as the full one, with at most four points per
/// column: a 4000-point series costs a few hundred canvas calls instead of 4000.
fn thin<DB, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: Vec<(f64, f64)>,
) -> Vec<(f64, f64)>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let column = |p: &(f64, f64)| chart.backend_coord(p).0;
    let mut out = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let (start, col) = (i, column(&points[i]));
        let (mut lo, mut hi) = (i, i);
        while i < points.len() && column(&points[i]) == col {
            if points[i].1 < points[lo].1 {
                lo = i;
            }
            if points[i].1 > points[hi].1 {
                hi = i;
            }
            i += 1;
        }
        let mut keep = [start, lo, hi, i - 1];
        keep.sort_unstable();
        let mut last = None;
        for k in keep {
            if last != Some(k) {
                out.push(points[k]);
                last = Some(k);
            }
        }
    }
    out
}

/// A log axis over [lo, hi] labelled at [`log_ticks`]: every decade in range, and more where
/// decades are few (plotters' own ticks start at the first decade and leave the values below it
/// unlabelled).
fn log_axis((lo, hi): (f64, f64)) -> WithKeyPoints<LogCoord<f64>> {
    (lo..hi).log_scale().with_key_points(log_ticks(lo, hi))
}

/// Widens a positive range to at least one decade around its geometric middle, so a log axis
/// always carries a labelled tick.
fn at_least_a_decade(lo: f64, hi: f64) -> (f64, f64) {
    if hi / lo >= 10.0 {
        return (lo, hi);
    }
    let mid = (lo * hi).sqrt();
    let half = 10f64.sqrt();
    (lo.min(mid / half), hi.max(mid * half))
}

/// The (min, max) of the finite values (with `keep`), or `None` when there are none.
fn finite_range(
    values: impl IntoIterator<Item = f64>,
    keep: impl Fn(f64) -> bool,
) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite() && keep(*v))
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// The finite values > 0 of `values`: what a norm histogram can count.
fn positive_finite(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect()
}

/// An axis-aligned rectangle [x0, x1] × [y0, y1] in data coordinates.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    x: (f64, f64),
    y: (f64, f64),
}

impl Bounds {
    /// The axes a plot with pins holds: each the union of these and the pinned runs' own
    /// (`crate::plot_spec::pinned::hold`).
    fn hold(self, pinned: Option<Bounds>) -> Bounds {
        use crate::plot_spec::pinned::hold;
        Bounds {
            x: hold(self.x, pinned.map(|p| p.x)),
            y: hold(self.y, pinned.map(|p| p.y)),
        }
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        (self.x.0..=self.x.1).contains(&x) && (self.y.0..=self.y.1).contains(&y)
    }
}

/// The visible pieces of a polyline inside `b` (plotters does not clip to the plotting area, so a
/// line leaving the view would be drawn over the axes). A non-finite point breaks the line.
/// Each segment is clipped by Liang & Barsky (1984).
fn clip_polyline(points: impl IntoIterator<Item = (f64, f64)>, b: Bounds) -> Vec<Vec<(f64, f64)>> {
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    // Whether the last piece ends at `prev` unclipped, so the next segment continues it.
    let mut open = false;
    for p in points {
        if !(p.0.is_finite() && p.1.is_finite()) {
            prev = None;
            open = false;
            continue;
        }
        if let Some(q) = prev {
            match clip_segment(q, p, b) {
                Some(seg) => {
                    match pieces.last_mut() {
                        Some(last) if open && !seg.start_moved => last.push(seg.to),
                        _ => pieces.push(vec![seg.from, seg.to]),
                    }
                    open = !seg.end_moved;
                }
                None => open = false,
            }
        } else if b.contains(p) {
            // A lone first point is a piece of its own until a segment extends it.
            pieces.push(vec![p]);
            open = true;
        }
        prev = Some(p);
    }
    pieces.retain(|piece| piece.len() >= 2);
    pieces
}

/// The visible part of a segment, and whether each end was moved onto the boundary.
struct Clipped {
    from: (f64, f64),
    to: (f64, f64),
    start_moved: bool,
    end_moved: bool,
}

/// The part of segment p→q inside `b`.
fn clip_segment(p: (f64, f64), q: (f64, f64), b: Bounds) -> Option<Clipped> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (den, num) in [
        (-dx, p.0 - b.x.0),
        (dx, b.x.1 - p.0),
        (-dy, p.1 - b.y.0),
        (dy, b.y.1 - p.1),
    ] {
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| (p.0 + t * dx, p.1 + t * dy);
    Some(Clipped {
        from: at(t0),
        to: at(t1),
        start_moved: t0 > 0.0,
        end_moved: t1 < 1.0,
    })
}

/// [`clip_polyline`] on log-log axes: clipping is done on (ln x, ln y), where the drawn lines
/// are straight. Non-positive points break the line.
fn clip_polyline_loglog(
    points: impl IntoIterator<Item = (f64, f64)>,
    b: Bounds,
) -> Vec<Vec<(f64, f64)>> {
    let ln = |v: f64| if v > 0.0 { v.ln() } else { f64::NAN };
    let lb = Bounds {
        x: (ln(b.x.0), ln(b.x.1)),
        y: (ln(b.y.0), ln(b.y.1)),
    };
    clip_polyline(points.into_iter().map(|(x, y)| (ln(x), ln(y))), lb)
        .into_iter()
        .map(|piece| piece.into_iter().map(|(x, y)| (x.exp(), y.exp())).collect())
        .collect()
}

/// A circle of `radius` around `c` as a closed polyline (fine enough to look round at any size
/// the page uses).
fn circle_points(c: (f64, f64), radius: f64) -> Vec<(f64, f64)> {
    (0..=240)
        .map(|k| {
            let a = k as f64 / 240.0 * std::f64::consts::TAU;
            (c.0 + radius * a.cos(), c.1 + radius * a.sin())
        })
        .collect()
}

/// `text` in lines of at most `width` characters, broken at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
