//! Browser tests (wasm-bindgen-test), run in headless Chromium and Firefox by the README test
//! command: the JS-facing Session API, config errors as the page sees them, drawing on a real
//! canvas, and native/wasm determinism.
#![cfg(target_arch = "wasm32")]

mod common;

use dp_playground::wasm::{
    WasmSession, draw_excess, draw_noise, draw_path, draw_privacy, normalize_config, preview,
};
use js_sys::{Float64Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).expect("property access on a plain object")
}

fn column(batch: &JsValue, key: &str) -> Vec<f64> {
    get(batch, key)
        .dyn_into::<Float64Array>()
        .expect("a Float64Array column")
        .to_vec()
}

#[wasm_bindgen_test]
fn same_bits_as_native() {
    assert_eq!(
        common::fingerprint(common::golden_config()),
        common::GOLDEN_RUN
    );
}

/// The first lane of a slice (a single-algorithm, single-repeat run has only it).
fn lane0(slice: &JsValue) -> JsValue {
    js_sys::Array::from(&get(slice, "lanes")).get(0)
}

#[wasm_bindgen_test]
fn session_streams_typed_columns_and_ends_with_a_release() {
    let mut s = WasmSession::new(r#"{"n": 300, "steps": 25}"#, None, None).unwrap();
    let first = lane0(&s.advance(10, f64::INFINITY).unwrap());
    assert_eq!(column(&first, "excess").len(), 10);
    assert_eq!(column(&first, "path").len(), 20);
    assert!(get(&first, "release").is_null());
    let slice = s.advance(1000, f64::INFINITY).unwrap();
    let rest = lane0(&slice);
    assert_eq!(column(&rest, "gradEvals").last().copied(), Some(25.0));
    assert_eq!(get(&rest, "done").as_bool(), Some(true));
    assert_eq!(get(&slice, "done").as_bool(), Some(true));
    let release = get(&rest, "release");
    let ledger = get(&release, "ledger");
    let epsilon = get(&get(&ledger, "guarantee"), "epsilon").as_f64();
    assert_eq!(epsilon, Some(1.0));
    assert!(s.is_done());
}

#[wasm_bindgen_test]
fn errors_reach_js_as_field_and_message() {
    let err = WasmSession::new(r#"{"epsilon": -1}"#, None, None)
        .err()
        .expect("ε < 0 is rejected");
    assert_eq!(get(&err, "field").as_string().as_deref(), Some("epsilon"));
    let message = get(&err, "message").as_string().unwrap();
    assert!(
        message.contains("epsilon") && message.contains("-1"),
        "{message}"
    );

    let err = normalize_config("{not json").err().unwrap();
    assert!(get(&err, "field").is_null());
    assert!(get(&err, "message").as_string().unwrap().contains("line 1"));
}

#[wasm_bindgen_test]
fn preview_states_sigma_without_data() {
    let p = preview(r#"{"n": 10000, "steps": 100, "epsilon": 1, "delta": 1e-5}"#).unwrap();
    // Digest 002 / REVIEW-002 §2a test vector: σ = 0.009801 for n = 1e4, T = 100, ε = 1, δ = 1e-5.
    let sigma = get(&p, "sigma").as_f64().unwrap();
    assert!((sigma - 0.009801).abs() < 5e-7, "{sigma}");
}

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

/// Pixels that are neither white nor fully transparent.
fn inked_pixels(c: &HtmlCanvasElement) -> usize {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let data = ctx
        .get_image_data(0.0, 0.0, f64::from(c.width()), f64::from(c.height()))
        .unwrap()
        .data();
    data.chunks_exact(4)
        .filter(|p| p[3] != 0 && !(p[0] == 255 && p[1] == 255 && p[2] == 255))
        .count()
}

#[wasm_bindgen_test]
fn plots_draw_on_a_real_canvas() {
    let c = canvas(400, 300);
    assert_eq!(inked_pixels(&c), 0);
    draw_excess(c.clone(), &[1.0, 2.0, 4.0, 8.0], &[1.0, 0.3, 0.05, 0.01]).unwrap();
    let axes_and_curve = inked_pixels(&c);
    // Axes, labels and a four-segment curve on 400×300 ink well over 1000 pixels.
    assert!(axes_and_curve > 1000, "{axes_and_curve}");
    // The curve itself is drawn: the same axes with no data ink fewer pixels.
    draw_excess(c.clone(), &[], &[]).unwrap();
    assert!(inked_pixels(&c) < axes_and_curve);

    let p = canvas(300, 300);
    let grid: Vec<f64> = (0..16).map(f64::from).collect();
    draw_path(
        p.clone(),
        &[0.0, 0.0, 0.5, 0.5],
        1.0,
        &[0.6, 0.6],
        Some(vec![0.4, 0.5]),
        Some(grid),
    )
    .unwrap();
    let ctx: CanvasRenderingContext2d = p.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    // The release is a filled red disc at (0.4, 0.5): find its colour somewhere on the canvas.
    let data = ctx.get_image_data(0.0, 0.0, 300.0, 300.0).unwrap().data();
    let red = data
        .chunks_exact(4)
        .filter(|px| px[0] == 214 && px[1] == 39 && px[2] == 40)
        .count();
    assert!(red > 50, "release disc: {red} red pixels");

    let n = canvas(300, 200);
    draw_noise(n.clone(), &[0.1, 0.2, 0.15, f64::NAN], 0.1, 2).unwrap();
    assert!(inked_pixels(&n) > 1000);
    let q = canvas(300, 200);
    draw_privacy(q.clone(), &[1.0, 2.0, 3.0], &[0.3, 0.5, 0.6], 1.0, 10.0).unwrap();
    assert!(inked_pixels(&q) > 1000);
}
