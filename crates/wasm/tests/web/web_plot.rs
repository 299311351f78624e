//! Browser tests of the plotting layer (`drawPlot`, `plotSvg`): every kind drawn on a real canvas
//! from a realistic spec, each layer adding ink, SVG output, Array and Float64Array inputs giving
//! the same figure, and malformed specs rejected without a panic.
#![cfg(target_arch = "wasm32")]

use dp_wasm::wasm::{draw_plot, plot_svg};
use js_sys::{Array, Float64Array, JSON, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

const KINDS: [&str; 6] = ["excess", "path", "noise", "privacy", "features", "players"];

/// The release ring's colour (crates/wasm/src/wasm/plot/mod.rs `RELEASE_COLOR`).
const RED: [u8; 3] = [214, 39, 40];

fn js(json: &str) -> JsValue {
    JSON::parse(json).expect("valid JSON in a test fixture")
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).expect("property access on a plain object")
}

fn set(obj: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(obj, &JsValue::from_str(key), value).expect("set on a plain object");
}

/// A deep copy of `v` in which every non-empty array of numbers is a Float64Array.
fn typed(v: &JsValue) -> JsValue {
    if let Some(a) = v.dyn_ref::<Array>() {
        let numbers: Option<Vec<f64>> = a.iter().map(|x| x.as_f64()).collect();
        match numbers {
            Some(xs) if !xs.is_empty() => Float64Array::from(xs.as_slice()).into(),
            _ => a.iter().map(|x| typed(&x)).collect::<Array>().into(),
        }
    } else if v.is_object() {
        let out: JsValue = Object::new().into();
        for key in Object::keys(v.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap();
            set(&out, &key, &typed(&get(v, &key)));
        }
        out
    } else {
        v.clone()
    }
}

// ---- realistic specs: a 40-iterate run, 2 compared algorithms, 20 repeats ----

fn geometric(n: usize, from: f64, to: f64) -> Vec<f64> {
    (0..n)
        .map(|i| from * (to / from).powf(i as f64 / (n - 1) as f64))
        .collect()
}

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x}")).collect();
    format!("[{}]", items.join(","))
}

/// One excess series: mean from 1 down to 0.01 over 1..100 passes, optionally a band inside that
/// range (so the axes do not move) and a theory curve.
fn series(label: &str, color: usize, band: bool, theory: Option<f64>) -> String {
    let x = geometric(40, 1.0, 100.0);
    let mean = geometric(40, 1.0, 0.01);
    let mut s = format!(
        r#"{{"label":"{label}","color":{color},"x":{},"mean":{}"#,
        list(&x),
        list(&mean)
    );
    if band {
        let lo: Vec<f64> = mean.iter().map(|m| (m * 0.7).max(0.01)).collect();
        let hi: Vec<f64> = mean.iter().map(|m| (m * 1.4).min(1.0)).collect();
        s += &format!(r#","lo":{},"hi":{}"#, list(&lo), list(&hi));
    }
    if let Some(level) = theory {
        s += &format!(r#","theoryX":[1,100],"theoryY":[{level},{level}]"#);
    }
    s + "}"
}

fn excess(series: &[String]) -> JsValue {
    js(&format!(r#"{{"series":[{}]}}"#, series.join(",")))
}

/// A d = 2 path view: contours, an ℓ2 ball, a path towards w*, optional releases and ball.
fn path(releases: bool, sensitivity: bool) -> JsValue {
    let res = 21;
    let grid: Vec<f64> = (0..res * res)
        .map(|k| {
            let (i, j) = ((k / res) as f64, (k % res) as f64);
            let (x, y) = (-1.0 + j * 0.1 - 0.4, -1.0 + i * 0.1 - 0.3);
            x * x + 2.0 * y * y
        })
        .collect();
    let path: Vec<f64> = (0..30)
        .flat_map(|t| {
            let s = 1.0 - 0.9f64.powi(t);
            [-0.8 + 1.2 * s, 0.7 - 0.4 * s]
        })
        .collect();
    let cloud: Vec<f64> = (0..20)
        .flat_map(|k| {
            let a = k as f64 * 2.4;
            [0.4 + 0.15 * a.cos(), 0.3 + 0.15 * a.sin()]
        })
        .collect();
    let mut s = format!(
        r#"{{"extent":1,"grid":{},"domain":{{"kind":"l2_ball","radius":0.95}},
            "paths":[{{"color":0,"label":"DP-GD","xy":{}}}],"wStar":[0.4,0.3]"#,
        list(&grid),
        list(&path)
    );
    if releases {
        s += &format!(r#","releases":[{{"color":0,"xy":{}}}]"#, list(&cloud));
    }
    if sensitivity {
        s += r#","sensitivityRadius":0.2"#;
    }
    js(&(s + "}"))
}

/// 500 Gaussian-looking norms around σ√d (deterministic, spread over the bulk of σ·χ_d).
fn noise(with_law: bool) -> JsValue {
    let norms: Vec<f64> = (0..500)
        .map(|i| 0.1 * (10f64).sqrt() * (0.6 + 0.8 * ((i * 37 % 500) as f64 / 500.0)))
        .collect();
    let law = if with_law {
        r#","law":{"kind":"gaussian","sigma":0.1,"d":10}"#
    } else {
        ""
    };
    js(&format!(r#"{{"norms":{}{law}}}"#, list(&norms)))
}

fn privacy() -> JsValue {
    let x: Vec<f64> = (1..=50).map(f64::from).collect();
    let eps: Vec<f64> = x.iter().map(|t| (t / 100.0).sqrt()).collect();
    js(&format!(
        r#"{{"series":[{{"label":"DP-GD","color":0,"x":{},"eps":{}}},
                       {{"label":"output perturbation","color":1,"x":[1],"eps":[1]}}],
            "target":1,"span":100}}"#,
        list(&x),
        list(&eps)
    ))
}

fn features() -> JsValue {
    let norms: Vec<f64> = (0..2000)
        .map(|i| 0.2 * (1.0 + (i * 7919 % 2000) as f64 / 100.0))
        .collect();
    js(&format!(
        r#"{{"norms":{},"threshold":2,"clippedFraction":0.45}}"#,
        list(&norms)
    ))
}

/// A realistic spec of `kind` with every layer on.
fn full(kind: &str) -> JsValue {
    match kind {
        "excess" => excess(&[
            series("DP-GD", 0, true, Some(0.03)),
            series("output perturbation", 1, true, None),
        ]),
        "path" => path(true, true),
        "noise" => noise(true),
        "privacy" => privacy(),
        "features" => features(),
        "players" => players(true, true),
        _ => unreachable!(),
    }
}

/// Rock–paper–scissors in d = 5 mid-run: both players, with or without the release and the
/// equilibrium of the mean game.
fn players(release: bool, equilibrium: bool) -> JsValue {
    let mut spec = r#"{"x":[0.30,0.35,0.25,0.06,0.04],"y":[0.2,0.3,0.4,0.05,0.05]"#.to_string();
    if release {
        spec += r#","releaseX":[0.4,0.3,0.3,0,0],"releaseY":[0.2,0.2,0.2,0.2,0.2]"#;
    }
    if equilibrium {
        let third = 1.0 / 3.0;
        spec += &format!(
            r#","equilibriumX":[{third},{third},{third},0,0],"equilibriumY":[{third},{third},{third},0,0]"#
        );
    }
    js(&(spec + "}"))
}

/// The spec of `kind` with no data.
fn empty(kind: &str) -> JsValue {
    js(match kind {
        "excess" => r#"{"series":[]}"#,
        "path" => r#"{"extent":1}"#,
        "noise" => r#"{"norms":[]}"#,
        "privacy" => r#"{"series":[],"target":1}"#,
        "features" => r#"{"norms":[],"threshold":2,"clippedFraction":0}"#,
        "players" => r#"{"x":[],"y":[]}"#,
        _ => unreachable!(),
    })
}

// ---- canvas helpers ----

fn canvas(width: u32, height: u32) -> HtmlCanvasElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let c: HtmlCanvasElement = document
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    c.set_width(width);
    c.set_height(height);
    document.body().unwrap().append_child(&c).unwrap();
    c
}

fn pixels(c: &HtmlCanvasElement) -> Vec<u8> {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    ctx.get_image_data(0.0, 0.0, f64::from(c.width()), f64::from(c.height()))
        .unwrap()
        .data()
        .to_vec()
}

/// Pixels in rows [y0, y1) that are neither white nor fully transparent.
fn inked_rows(c: &HtmlCanvasElement, y0: u32, y1: u32) -> usize {
    let w = c.width() as usize;
    pixels(c)
        .chunks_exact(4)
        .enumerate()
        .filter(|(k, _)| (y0 as usize..y1 as usize).contains(&(k / w)))
        .filter(|(_, p)| p[3] != 0 && !(p[0] == 255 && p[1] == 255 && p[2] == 255))
        .count()
}

fn inked(c: &HtmlCanvasElement) -> usize {
    inked_rows(c, 0, c.height())
}

/// Pixels that differ between two images of the same canvas.
fn changed(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count()
}

fn coloured(c: &HtmlCanvasElement, rgb: [u8; 3]) -> usize {
    pixels(c).chunks_exact(4).filter(|p| p[..3] == rgb).count()
}

fn ink_of(kind: &str, spec: JsValue) -> usize {
    let c = canvas(480, 320);
    draw_plot(kind, c.clone(), spec).unwrap();
    inked(&c)
}

// ---- tests ----

#[wasm_bindgen_test]
fn every_kind_draws_its_data() {
    for kind in KINDS {
        let c = canvas(480, 320);
        assert_eq!(inked(&c), 0);
        draw_plot(kind, c.clone(), empty(kind)).unwrap();
        let axes = inked(&c);
        // Axes, ticks and a caption alone ink well over a thousand pixels of 480 × 320.
        assert!(axes > 1000, "{kind}: empty spec inks {axes}");
        draw_plot(kind, c.clone(), full(kind)).unwrap();
        let data = inked(&c);
        // The data add at least 5% of the canvas's ink on top of the axes (a curve of 40 points
        // 2 px wide alone is ~800 px; histograms and contours far more).
        assert!(data > axes + 500, "{kind}: data {data} vs axes {axes}");
    }
}

#[wasm_bindgen_test]
fn a_band_and_a_dashed_theory_curve_each_add_ink() {
    // Same axes in both: the band lies inside the mean's range.
    let plain = ink_of("excess", excess(&[series("DP-GD", 0, false, None)]));
    let banded = ink_of("excess", excess(&[series("DP-GD", 0, true, None)]));
    // The band is a polygon ~±0.2 decades wide along the curve: thousands of pixels.
    assert!(banded > plain + 1000, "band: {banded} vs {plain}");

    // The theory curve at y = 0.03 runs in the lower half; the legend it brings sits at the top,
    // so compare the lower half only.
    let c = canvas(480, 320);
    draw_plot(
        "excess",
        c.clone(),
        excess(&[series("DP-GD", 0, false, None)]),
    )
    .unwrap();
    let without = inked_rows(&c, 160, 320);
    draw_plot(
        "excess",
        c.clone(),
        excess(&[series("DP-GD", 0, false, Some(0.03))]),
    )
    .unwrap();
    let with = inked_rows(&c, 160, 320);
    // A dashed 2 px line across ~400 px, 60% duty cycle: ≳ 400 px.
    assert!(with > without + 300, "theory: {with} vs {without}");
}

#[wasm_bindgen_test]
fn releases_and_the_sensitivity_ball_each_add_ink() {
    // The contours ink the whole view, so count the pixels each layer changes.
    let c = canvas(480, 480);
    draw_plot("path", c.clone(), path(false, false)).unwrap();
    let base = pixels(&c);
    assert_eq!(coloured(&c, RED), 0, "nothing is red before a release");
    draw_plot("path", c.clone(), path(true, false)).unwrap();
    let cloud = pixels(&c);
    let red = coloured(&c, RED);
    // 20 rings of radius 5, 2 px wide (~60 px each), partly overlapping: exact red on ≥ 200.
    assert!(red >= 200, "release rings: {red} red pixels");
    let by_cloud = changed(&base, &cloud);
    // 20 discs of radius 6 (~110 px each), partly overlapping.
    assert!(by_cloud > 1000, "cloud changed {by_cloud} pixels");
    draw_plot("path", c.clone(), path(true, true)).unwrap();
    let ball = pixels(&c);
    // A dashed circle of radius 0.2 on a 2-wide view of ~420 px: 2π·42 ≈ 260 px of perimeter,
    // about half of it dashes, 1 px wide (plus antialiasing).
    let by_ball = changed(&cloud, &ball);
    assert!(by_ball > 100, "sensitivity ball changed {by_ball} pixels");
}

#[wasm_bindgen_test]
fn a_run_claiming_no_privacy_draws_no_claimed_line_and_says_so() {
    // A non-private baseline's ε is ∞: JSON carries it as null, and an infinite target is an
    // error (it used to reach the page as "[object Object]").
    let spec = js(r#"{"series":[{"label":"baseline","x":[1,2],"eps":[1,1]}],"target":null}"#);
    set(
        &get(&get(&spec, "series"), "0"),
        "eps",
        &Float64Array::from(&[f64::INFINITY; 2][..]).into(),
    );
    let svg = plot_svg("privacy", spec, 480, 320).unwrap();
    assert!(
        svg.contains("none claimed"),
        "{}",
        &svg[..200.min(svg.len())]
    );
    let infinite = privacy();
    set(&infinite, "target", &JsValue::from_f64(f64::INFINITY));
    assert!(plot_svg("privacy", infinite, 480, 320).is_err());
}

#[wasm_bindgen_test]
fn a_games_release_is_red_and_its_equilibrium_adds_ink() {
    let c = canvas(480, 320);
    draw_plot("players", c.clone(), players(false, false)).unwrap();
    let (bars, red) = (inked(&c), coloured(&c, RED));
    // Before the release nothing on the players plot is red: red means private.
    assert_eq!(red, 0);
    draw_plot("players", c.clone(), players(true, false)).unwrap();
    // Ten outlined bars, 2 px wide and at least ~10 px tall each.
    assert!(
        coloured(&c, RED) > 200,
        "release: {} red",
        coloured(&c, RED)
    );
    draw_plot("players", c.clone(), players(false, true)).unwrap();
    // Six black ticks 3 px thick across their slots (~50 px wide).
    assert!(inked(&c) > bars + 300, "{} vs {bars}", inked(&c));
}

#[wasm_bindgen_test]
fn the_noise_law_and_the_features_threshold_add_ink() {
    // The law moves the axes (to its 99.9% quantile), so compare the SVGs: the density is one
    // polyline of 241 points, which the bare histogram does not have.
    let bare = plot_svg("noise", noise(false), 480, 320).unwrap();
    let law = plot_svg("noise", noise(true), 480, 320).unwrap();
    let (bare, law) = (longest_polyline(&bare).len(), longest_polyline(&law).len());
    assert!(bare < 10, "{bare}");
    assert!(law > 200, "{law}");

    // Bars beyond the threshold (2) take the second palette colour.
    let c = canvas(480, 320);
    draw_plot("features", c.clone(), features()).unwrap();
    let orange = pixels(&c)
        .chunks_exact(4)
        .filter(|p| p[0] > 200 && p[1] > 150 && p[1] < 220 && p[2] < 140)
        .count();
    assert!(orange > 500, "clipped bars: {orange} orange pixels");
}

#[wasm_bindgen_test]
fn svg_output_of_every_kind() {
    let expected: [(&str, &str, &[&str]); 6] = [
        (
            "excess",
            "excess empirical risk (non-private)",
            &["<polyline", "<polygon"],
        ),
        ("path", "parameter view", &["<polyline", "<circle", "<rect"]),
        // The noise draws are diagnostics (with the path they name the dataset): labelled so.
        (
            "noise",
            "vs σ·χ_10 density · NON-PRIVATE",
            &["<polyline", "<rect"],
        ),
        ("privacy", "privacy spent", &["<polyline"]),
        ("features", "non-private statistic", &["<rect", "<polyline"]),
        ("players", "y (maximising player)", &["<rect", "<polyline"]),
    ];
    for (kind, title, elements) in expected {
        let svg = plot_svg(kind, full(kind), 640, 400).unwrap();
        assert!(
            svg.starts_with("<svg"),
            "{kind}: {}",
            &svg[..40.min(svg.len())]
        );
        assert!(svg.contains(r#"width="640""#) && svg.contains(r#"height="400""#));
        assert!(svg.trim_end().ends_with("</svg>"), "{kind}");
        assert!(svg.contains(title), "{kind}: no caption {title:?}");
        for e in elements {
            assert!(svg.contains(e), "{kind}: no {e}");
        }
    }
}

#[wasm_bindgen_test]
fn float64_arrays_and_arrays_give_the_same_figure() {
    for kind in KINDS {
        let plain = full(kind);
        let fast = typed(&plain);
        let plain_svg = plot_svg(kind, plain, 400, 300).unwrap();
        let fast_svg = plot_svg(kind, fast, 400, 300).unwrap();
        assert_eq!(plain_svg, fast_svg, "{kind}");
    }
    // The conversion really produced typed arrays (else the test above proves nothing).
    let fast = typed(&full("noise"));
    assert!(get(&fast, "norms").is_instance_of::<Float64Array>());
}

#[wasm_bindgen_test]
fn nan_and_zero_noise_norms_are_skipped() {
    let spec = noise(true);
    let norms: Array = get(&spec, "norms").unchecked_into();
    norms.push(&JsValue::from_f64(f64::NAN));
    // A step that drew no noise reports a norm of 0.
    norms.push(&JsValue::from_f64(0.0));
    let svg = plot_svg("noise", spec, 400, 300).unwrap();
    // The count in the caption excludes both.
    assert!(svg.contains("(500 draws)"), "NaN or 0 counted");
}

/// (kind, spec, a word the error message must contain)
fn bad_specs() -> Vec<(&'static str, JsValue, &'static str)> {
    let nan = |kind: &str, key: &str| {
        let s = full(kind);
        set(&s, key, &JsValue::from_f64(f64::NAN));
        s
    };
    let short_mean = excess(&[series("a", 0, false, None)]);
    let first = get(&get(&short_mean, "series"), "0");
    let mean: Array = get(&first, "mean").unchecked_into();
    mean.pop();
    vec![
        ("scatter", full("noise"), "kind"),
        ("excess", js("{}"), "series"),
        ("excess", js("42"), "excess"),
        ("excess", JsValue::UNDEFINED, "excess"),
        (
            "features",
            js(r#"{"norms":[1,2],"clippedFraction":0}"#),
            "threshold",
        ),
        ("excess", short_mean, "mean"),
        (
            "excess",
            js(r#"{"series":[{"label":"a","x":[1,2],"mean":[1,"x"]}]}"#),
            "mean",
        ),
        (
            "excess",
            js(r#"{"series":[{"label":"a","color":4,"x":[],"mean":[]}]}"#),
            "color",
        ),
        ("path", nan("path", "extent"), "extent"),
        ("path", js(r#"{"extent":1,"center":[]}"#), "center"),
        ("path", js(r#"{"extent":1,"wStar":[0,null]}"#), "wStar"),
        ("path", js(r#"{"extent":1,"grid":[1,2,3]}"#), "grid"),
        ("path", js(r#"{"extent":1,"paths":[{"xy":[1,2,3]}]}"#), "xy"),
        (
            "path",
            js(r#"{"extent":1,"sensitivityRadius":0.1}"#),
            "wStar",
        ),
        (
            "path",
            js(r#"{"extent":1,"domain":{"kind":"circle"}}"#),
            "domain",
        ),
        (
            "path",
            js(r#"{"extent":1,"domain":{"kind":"box","lo":0}}"#),
            "hi",
        ),
        (
            "path",
            js(r#"{"extent":1,"domain":{"kind":"polyline"}}"#),
            "xy",
        ),
        (
            "noise",
            js(r#"{"norms":[1],"law":{"kind":"gaussian","sigma":0,"d":3}}"#),
            "scale",
        ),
        (
            "noise",
            js(r#"{"norms":[1],"law":{"kind":"l2_laplace","scale":1,"d":0}}"#),
            "d",
        ),
        ("privacy", nan("privacy", "target"), "target"),
        ("features", nan("features", "threshold"), "threshold"),
        (
            "features",
            js(r#"{"norms":[],"threshold":1,"clippedFraction":2}"#),
            "clippedFraction",
        ),
        ("players", js(r#"{"x":[0.5,0.5]}"#), "y"),
        (
            "players",
            js(r#"{"x":[0.5,0.5],"y":[1],"releaseX":[1]}"#),
            "releaseX",
        ),
        ("players", js(r#"{"x":[0.5,null],"y":[1]}"#), "x"),
        (
            "players",
            js(&format!(r#"{{"x":{},"y":[]}}"#, list(&[0.0; 201]))),
            "x",
        ),
    ]
}

#[wasm_bindgen_test]
fn bad_specs_are_errors_and_leave_the_canvas_alone() {
    let c = canvas(300, 200);
    draw_plot("noise", c.clone(), full("noise")).unwrap();
    let before = pixels(&c);
    for (case, (kind, spec, word)) in bad_specs().into_iter().enumerate() {
        let err = draw_plot(kind, c.clone(), spec.clone())
            .err()
            .unwrap_or_else(|| panic!("case {case} ({kind}, {word}) was accepted"));
        let field = get(&err, "field").as_string().unwrap_or_default();
        let message = get(&err, "message").as_string().unwrap();
        assert!(
            message.contains(word) || field.contains(word),
            "{kind}: {message:?} should name {word:?}"
        );
        assert!(plot_svg(kind, spec, 300, 200).is_err(), "{kind}: {message}");
    }
    assert!(pixels(&c) == before, "a rejected spec drew on the canvas");
    assert!(plot_svg("noise", full("noise"), 0, 200).is_err());
}

#[wasm_bindgen_test]
fn lines_leaving_the_view_are_clipped_to_it() {
    // A path from far outside the view to its centre: every drawn vertex stays inside the SVG's
    // plotting area (plotters itself would draw it across the axes and the caption).
    let spec = js(r#"{"extent":1,"paths":[{"xy":[-50,40,0,0,0.5,0.5]}]}"#);
    let svg = plot_svg("path", spec, 400, 400).unwrap();
    let mut vertices = 0;
    for (x, y) in polylines(&svg).into_iter().flatten() {
        assert!(
            (48.0..=400.0).contains(&x) && (30.0..=364.0).contains(&y),
            "({x}, {y})"
        );
        vertices += 1;
    }
    assert!(vertices >= 3, "the path was drawn");
}

/// The vertices of every SVG polyline.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .map(|p| {
            let points = p
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            points
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// The vertices of the SVG polyline with the most points.
fn longest_polyline(svg: &str) -> Vec<(f64, f64)> {
    polylines(svg)
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn the_parameter_view_keeps_circles_round_on_any_canvas() {
    let spec = || js(r#"{"extent":1,"domain":{"kind":"l2_ball","radius":0.9}}"#);
    for (w, h) in [(640, 400), (300, 520), (400, 400)] {
        let circle = longest_polyline(&plot_svg("path", spec(), w, h).unwrap());
        assert!(circle.len() > 100, "{w}×{h}: the boundary was drawn");
        let span = |f: fn(&(f64, f64)) -> f64| {
            let v: Vec<f64> = circle.iter().map(f).collect();
            v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min)
        };
        let (across, up) = (span(|p| p.0), span(|p| p.1));
        // Pixel rounding of the view's edges: within 2 px.
        assert!((across - up).abs() <= 2.0, "{w}×{h}: {across} × {up}");
        assert!(across > 0.5 * f64::from(w.min(h)), "{w}×{h}: {across}");
    }
}

#[wasm_bindgen_test]
fn every_domain_shape_draws_its_boundary() {
    // (domain, vertices of its outline, whether it is a closed curve as wide as it is tall)
    let shapes = [
        (r#"{"kind":"l2_ball","radius":0.9}"#, 241, true),
        (r#"{"kind":"l1_ball","radius":0.9}"#, 5, true),
        (r#"{"kind":"box","lo":-0.5,"hi":0.5}"#, 5, true),
        (r#"{"kind":"simplex"}"#, 2, false),
        (r#"{"kind":"polyline","xy":[0,0,0.5,0,0.5,0.5]}"#, 4, false),
    ];
    for (domain, vertices, round) in shapes {
        let spec = js(&format!(r#"{{"extent":1,"domain":{domain}}}"#));
        let svg = plot_svg("path", spec.clone(), 400, 400).unwrap();
        // Inside the tagged domain object too, a Float64Array reads like an Array.
        assert_eq!(svg, plot_svg("path", typed(&spec), 400, 400).unwrap());
        let outline = longest_polyline(&svg);
        assert_eq!(outline.len(), vertices, "{domain}");
        let closed = outline.first() == outline.last();
        assert_eq!(closed, vertices > 2, "{domain}: closed");
        if round {
            let xs: Vec<f64> = outline.iter().map(|p| p.0).collect();
            let ys: Vec<f64> = outline.iter().map(|p| p.1).collect();
            let span = |v: &[f64]| {
                v.iter().copied().fold(f64::MIN, f64::max)
                    - v.iter().copied().fold(f64::MAX, f64::min)
            };
            assert!((span(&xs) - span(&ys)).abs() <= 2.0, "{domain}");
        }
    }
    let none = plot_svg(
        "path",
        js(r#"{"extent":1,"domain":{"kind":"none"}}"#),
        400,
        400,
    )
    .unwrap();
    assert!(
        longest_polyline(&none).len() < 5,
        "no boundary for an unconstrained domain"
    );
}

/// The p-quantile of Gamma(shape a, scale 1), by bisection on the regularised incomplete gamma.
fn gamma_quantile(a: f64, p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    while dp_playground::stats::gamma_p(a, hi) < p {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if dp_playground::stats::gamma_p(a, mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Histogram bars (x, top, width, height) of a noise-plot SVG, in pixels.
fn bars(svg: &str) -> Vec<(f64, f64, f64, f64)> {
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        tag.split(&key)
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    svg.split("<rect")
        .skip(1)
        .filter(|tag| tag.contains("fill=\"#0072B2\""))
        .map(|tag| {
            (
                attr(tag, "x"),
                attr(tag, "y"),
                attr(tag, "width"),
                attr(tag, "height"),
            )
        })
        .collect()
}

/// Draws the exact quantiles of a law (no sampling noise) against that law's density: every
/// bar's top must sit on the curve. A density with the wrong shape or scale (e.g. Gamma(d/2)
/// for the ℓ2-Laplace radius, or σ² for σ) misses by far more than the tolerance.
#[wasm_bindgen_test]
fn the_density_curve_sits_on_a_histogram_of_its_own_law() {
    let n = 20_000;
    let quantiles = |a: f64, map: &dyn Fn(f64) -> f64| -> Vec<f64> {
        (0..n)
            .map(|i| map(gamma_quantile(a, (i as f64 + 0.5) / n as f64)))
            .collect()
    };
    let (sigma, b, d) = (0.3, 0.05, 5usize);
    let cases = [
        // ‖z‖ = σ √(2G), G ~ Gamma(d/2, 1)
        (
            quantiles(d as f64 / 2.0, &|g| sigma * (2.0 * g).sqrt()),
            format!(r#"{{"kind":"gaussian","sigma":{sigma},"d":{d}}}"#),
        ),
        // ‖z‖ = b G, G ~ Gamma(d, 1)
        (
            quantiles(d as f64, &|g| b * g),
            format!(r#"{{"kind":"l2_laplace","scale":{b},"d":{d}}}"#),
        ),
    ];
    for (norms, law) in cases {
        let spec = js(&format!(r#"{{"norms":{},"law":{law}}}"#, list(&norms)));
        let svg = plot_svg("noise", spec, 800, 500).unwrap();
        let curve = longest_polyline(&svg);
        let bars = bars(&svg);
        assert!(bars.len() >= 40, "{law}: {} bars", bars.len());
        let tallest = bars.iter().map(|r| r.3).fold(0.0, f64::max);
        for &(x, top, width, _) in &bars {
            let centre = x + width / 2.0;
            let (_, y) = curve
                .iter()
                .copied()
                .min_by(|p, q| (p.0 - centre).abs().total_cmp(&(q.0 - centre).abs()))
                .unwrap();
            // A bar is the density's mean over its bin: off its midpoint value by the curvature
            // (≲ 1% of the peak at 60 bins) plus pixel rounding of both (≤ 2 px of ~400).
            assert!(
                (top - y).abs() <= 0.03 * tallest + 2.0,
                "{law}: bar at {centre} tops at {top}, curve at {y} (tallest {tallest})"
            );
        }
    }
}

#[wasm_bindgen_test]
fn long_lines_are_thinned_to_the_pixels_they_cover() {
    // 4000 points zig-zagging between 1/x and 3/x on a ~400-px-wide plot: at most 4 per pixel
    // column remain (M4), and each column still spans both curves.
    let x = geometric(4000, 1.0, 1000.0);
    let mean: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, x)| if i % 2 == 0 { 1.0 } else { 3.0 } / x)
        .collect();
    let spec = js(&format!(
        r#"{{"series":[{{"label":"a","x":{},"mean":{}}}]}}"#,
        list(&x),
        list(&mean)
    ));
    let line = longest_polyline(&plot_svg("excess", spec, 480, 320).unwrap());
    let mut columns: std::collections::BTreeMap<i64, (f64, f64)> = Default::default();
    for &(px, py) in &line {
        let c = columns.entry(px as i64).or_insert((py, py));
        *c = (c.0.min(py), c.1.max(py));
    }
    assert!(
        line.len() <= 4 * columns.len(),
        "{} points in {} columns",
        line.len(),
        columns.len()
    );
    assert!(columns.len() > 300, "{} columns", columns.len());
    // y spans 1e-3/1.5 .. 3·1.5, about 8.8 e-folds over ~250 px; ln 3 ≈ 1.1 e-folds is ~31 px.
    let spread = columns.values().filter(|(lo, hi)| hi - lo >= 25.0).count();
    assert!(
        spread * 10 >= columns.len() * 9,
        "{spread} of {} columns span both curves",
        columns.len()
    );
}

#[wasm_bindgen_test]
fn a_loose_bound_is_clamped_to_a_thousand_times_the_data() {
    // Data at most 1, a bound at 1e9: the y axis stops at 1e3 × 1 (× 1.5 air), so its top
    // label is 1e3 and the data keep most of the height; a tight bound moves nothing.
    let spec = |level: f64| {
        js(&format!(
            r#"{{"series":[{{"label":"a","x":[1,10,100],"mean":[1,0.1,0.01],
                 "theoryX":[1,100],"theoryY":[{level},{level}]}}]}}"#
        ))
    };
    let labels = |svg: &str| -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .map(|t| {
                t.split('>')
                    .nth(1)
                    .unwrap()
                    .split('<')
                    .next()
                    .unwrap()
                    .trim()
                    .to_string()
            })
            .collect()
    };
    let loose = labels(&plot_svg("excess", spec(1e9), 480, 320).unwrap());
    assert!(loose.contains(&"1e3".to_string()), "{loose:?}");
    assert!(!loose.iter().any(|l| l == "1e4" || l == "1e9"), "{loose:?}");
    let tight = labels(&plot_svg("excess", spec(0.5), 480, 320).unwrap());
    assert!(!tight.contains(&"1e1".to_string()), "{tight:?}");
}

#[wasm_bindgen_test]
fn nan_is_the_no_value_of_a_step_and_the_excess_plot_skips_it() {
    // A per-step column holds NaN where a step has no value (DP-SGD's loss on an
    // empty Poisson batch, the subgradient method's value before its first check, the excess
    // without a reference). NaN is that "no value": the plot skips it and breaks the line there.
    let spec = excess(&[series("a", 0, false, None)]);
    let first: JsValue = Array::from(&get(&spec, "series")).get(0);
    let mean: Array = get(&first, "mean").unchecked_into();
    for i in [0, 1, 17] {
        mean.set(i, JsValue::from_f64(f64::NAN));
    }
    let svg = plot_svg("excess", spec, 400, 300).unwrap();
    assert!(!svg.contains("NaN"), "a NaN reached the figure");
    let mut lengths: Vec<usize> = polylines(&svg)
        .iter()
        .filter(|p| p.len() > 2)
        .map(Vec::len)
        .collect();
    lengths.sort();
    // Steps 2–16 and 18–39: two pieces of 15 and 22 points, nothing drawn for the NaN steps.
    assert_eq!(lengths, [15, 22], "{svg}");
}

// ---- hostile specs ----

/// `full(kind)` with the value at `path` (keys and array indices) replaced by `value`.
fn with(kind: &str, path: &[&str], value: JsValue) -> JsValue {
    let spec = full(kind);
    let mut node = spec.clone();
    for key in &path[..path.len() - 1] {
        node = get(&node, key);
    }
    set(&node, path[path.len() - 1], &value);
    spec
}

/// A Float64Array of `n` ones: more values than any array of a spec may hold.
fn huge(n: u32) -> JsValue {
    let a = Float64Array::new_with_length(n);
    a.fill(1.0, 0, n);
    a.into()
}

/// Every hostile spec: (kind, spec, a word the error's field or message must contain).
fn hostile_specs() -> Vec<(&'static str, JsValue, &'static str)> {
    let mut cases = Vec::new();
    // Non-finite scalars, each at the key that sets a view, a law or a fixed point.
    let scalars: [(&str, &[&str]); 11] = [
        ("path", &["extent"]),
        ("path", &["wStar", "1"]),
        ("path", &["sensitivityRadius"]),
        ("path", &["domain", "radius"]),
        ("noise", &["law", "sigma"]),
        ("noise", &["law", "d"]),
        ("features", &["threshold"]),
        ("features", &["clippedFraction"]),
        ("privacy", &["target"]),
        ("privacy", &["span"]),
        ("excess", &["series", "0", "color"]),
    ];
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for (kind, path) in scalars {
            let word = path
                .iter()
                .rev()
                .find(|k| k.parse::<usize>().is_err())
                .unwrap();
            let word = if *word == "sigma" { "scale" } else { word };
            cases.push((kind, with(kind, path, JsValue::from_f64(v)), word));
        }
        cases.push((
            "players",
            with("players", &["x", "1"], JsValue::from_f64(v)),
            "x",
        ));
        let center = Array::of2(&JsValue::from_f64(v), &JsValue::from_f64(0.0));
        cases.push(("path", with("path", &["center"], center.into()), "center"));
    }
    // Negative and zero sizes and scales.
    for v in [-1.0, 0.0, -1e308] {
        cases.push((
            "path",
            with("path", &["extent"], JsValue::from_f64(v)),
            "extent",
        ));
        cases.push((
            "features",
            with("features", &["threshold"], JsValue::from_f64(v)),
            "threshold",
        ));
        cases.push((
            "noise",
            with("noise", &["law", "sigma"], JsValue::from_f64(v)),
            "scale",
        ));
    }
    // Empty specs: every kind names its first required key.
    for (kind, word) in [
        ("excess", "series"),
        ("path", "extent"),
        ("noise", "norms"),
        ("privacy", "series"),
        ("features", "norms"),
        ("players", "x"),
    ] {
        cases.push((kind, js("{}"), word));
        cases.push((kind, JsValue::NULL, kind));
        cases.push((kind, JsValue::from_str("{}"), kind));
        cases.push((kind, js("[1, 2]"), kind));
    }
    // 10⁷ points (as the Float64Array a caller would send them in), refused before the copy.
    let ten_million = 10_000_000;
    cases.push((
        "excess",
        with("excess", &["series", "0", "x"], huge(ten_million)),
        "x",
    ));
    cases.push((
        "noise",
        with("noise", &["norms"], huge(ten_million)),
        "norms",
    ));
    cases.push((
        "features",
        with("features", &["norms"], huge(ten_million)),
        "norms",
    ));
    cases.push((
        "path",
        with("path", &["paths", "0", "xy"], huge(ten_million)),
        "xy",
    ));
    cases.push(("path", with("path", &["grid"], huge(ten_million)), "grid"));
    cases.push((
        "privacy",
        with("privacy", &["series", "0", "eps"], huge(ten_million)),
        "eps",
    ));
    // Wrong types and missing fields.
    cases.push((
        "path",
        with("path", &["extent"], JsValue::from_str("1")),
        "extent",
    ));
    cases.push(("excess", with("excess", &["series"], js("{}")), "series"));
    cases.push((
        "excess",
        with("excess", &["series", "0", "mean"], JsValue::TRUE),
        "mean",
    ));
    cases.push((
        "noise",
        with("noise", &["norms"], js(r#"[1, "x"]"#)),
        "norms",
    ));
    cases.push((
        "noise",
        with("noise", &["law", "kind"], JsValue::from_str("cauchy")),
        "law",
    ));
    cases.push((
        "features",
        with("features", &["clippedFraction"], JsValue::NULL),
        "clippedFraction",
    ));
    cases.push((
        "players",
        with("players", &["y"], JsValue::from_f64(1.0)),
        "y",
    ));
    cases.push((
        "path",
        with("path", &["domain"], js(r#"{"kind":"l2_ball"}"#)),
        "radius",
    ));
    cases.push((
        "privacy",
        with("privacy", &["series", "0", "x"], JsValue::UNDEFINED),
        "x",
    ));
    cases
}

/// Hostile specs to `drawPlot` and `plotSvg` are errors naming the key at fault, never panics
/// (a panic in wasm kills the page's module); a valid spec still draws after all of them.
#[wasm_bindgen_test]
fn hostile_specs_are_errors_not_panics() {
    let c = canvas(300, 200);
    for (case, (kind, spec, word)) in hostile_specs().into_iter().enumerate() {
        let err = draw_plot(kind, c.clone(), spec.clone())
            .err()
            .unwrap_or_else(|| panic!("case {case} ({kind}, {word}) was drawn"));
        let field = get(&err, "field").as_string().unwrap_or_default();
        let message = get(&err, "message").as_string().unwrap_or_default();
        assert!(
            field.contains(word) || message.contains(word),
            "case {case} ({kind}): {field}: {message:?} should name {word:?}"
        );
        assert!(
            plot_svg(kind, spec, 300, 200).is_err(),
            "case {case} ({kind})"
        );
    }
    // Sizes: zero, and negative ones (JS passes −5 as 2³² − 5), and huge ones.
    for (w, h) in [
        (0, 200),
        (300, 0),
        ((-5i32) as u32, 200),
        (300, u32::MAX),
        (100_000, 100),
    ] {
        let err = plot_svg("noise", full("noise"), w, h).unwrap_err();
        assert_eq!(
            get(&err, "field").as_string().as_deref(),
            Some("size"),
            "{w} × {h}"
        );
    }
    // Non-finite data points are skipped, not drawn and not fatal (the page sends NaN excess
    // before a reference exists): every kind still draws its axes.
    for kind in ["excess", "path", "noise", "privacy", "features"] {
        let spec = full(kind);
        let poison = |v: &JsValue| {
            if let Some(a) = v.dyn_ref::<Array>() {
                for i in 0..a.length() {
                    let x = a.get(i);
                    if x.as_f64().is_some() {
                        let bad = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][i as usize % 3];
                        a.set(i, JsValue::from_f64(bad));
                    }
                }
            }
        };
        for key in ["norms", "grid"] {
            poison(&get(&spec, key));
        }
        for list in ["series", "paths", "releases"] {
            if let Some(layers) = get(&spec, list).dyn_ref::<Array>() {
                for layer in layers.iter() {
                    for key in ["x", "mean", "lo", "hi", "eps", "xy", "theoryY"] {
                        poison(&get(&layer, key));
                    }
                }
            }
        }
        let c = canvas(300, 200);
        draw_plot(kind, c.clone(), spec.clone())
            .unwrap_or_else(|e| panic!("{kind} with non-finite data: {:?}", get(&e, "message")));
        assert!(inked(&c) > 0, "{kind}: nothing drawn");
        assert!(plot_svg(kind, spec, 300, 200).is_ok(), "{kind}");
    }
    // Degenerate canvases: drawing on them is an error or a no-op, never a panic.
    for (w, h) in [(0, 0), (1, 1), (0, 300)] {
        let tiny = canvas(w, h);
        let _ = draw_plot("excess", tiny, full("excess"));
    }
    // The module survived: a valid spec still draws.
    for kind in KINDS {
        assert!(ink_of(kind, full(kind)) > 1000, "{kind} no longer draws");
    }
}

#[wasm_bindgen_test]
fn reference_bounds_are_drawn_dotted_grey_with_their_legend() {
    // A heavy-tail sweep's plot (www/panels/sweep.js) carries Lowy 2026's lower bound as a reference.
    let with_reference = |refs: &str| {
        js(&format!(
            r#"{{"series":[{}],"references":[{refs}]}}"#,
            series("localized", 0, false, None)
        ))
    };
    let reference = r#"{"label":"pure-DP lower bound (Lowy 2026, Thm 4.1), up to constants","x":[1,100],"y":[0.5,0.05]}"#;
    let svg = plot_svg("excess", with_reference(reference), 480, 320).unwrap();
    let bare = plot_svg("excess", with_reference(""), 480, 320).unwrap();
    // The legend wraps a long label into rows that fit the plot: read them back in order.
    let legend_text = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| Some(t[t.find('>')? + 1..t.find("</text>")?].to_string()))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        legend_text.contains("pure-DP lower bound (Lowy 2026, Thm 4.1), up to constants"),
        "no legend: {legend_text}"
    );
    // Grey RGB(110, 110, 110), only where a reference is drawn.
    assert!(svg.contains("#6E6E6E") && !bare.contains("#6E6E6E"));
    // On a canvas it adds ink in the plot's lower half (the legend sits at the top).
    let c = canvas(480, 320);
    draw_plot("excess", c.clone(), with_reference("")).unwrap();
    let without = inked_rows(&c, 160, 320);
    draw_plot("excess", c.clone(), with_reference(reference)).unwrap();
    assert!(inked_rows(&c, 160, 320) > without + 100);
    // A reference whose x and y differ in length is refused, naming it.
    let bad = r#"{"label":"x","x":[1,2],"y":[1]}"#;
    let err = draw_plot("excess", canvas(480, 320), with_reference(bad)).unwrap_err();
    let field = get(&err, "field").as_string().unwrap_or_default();
    assert!(field.contains("references[0]"), "{field}");
}
