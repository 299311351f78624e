//! Browser tests (wasm-bindgen-test), run in headless Chromium and Firefox by the README test
//! command: the JS-facing Session API, config errors as the page sees them, and native/wasm
//! determinism. Drawing is tested in crates/wasm/tests/web/web_plot.rs.
#![cfg(target_arch = "wasm32")]

use crate::common;

use dp_wasm::wasm::{WasmSession, normalise_config, preview};
use js_sys::{Float64Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

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

/// A seeded DP-SGD run gives its native bits (its per-sample kernel is AVX2 natively, portable
/// in wasm).
#[wasm_bindgen_test]
fn dp_sgd_run_gives_the_native_bits() {
    assert_eq!(
        common::fingerprint(common::dp_sgd_golden_config()),
        common::DP_SGD_GOLDEN_RUN
    );
}

/// Each heavy-tail family (Lowy 2026) gives the native bits of its seeded run in the browser
/// (tests/playground/determinism.rs checks the same file natively).
#[wasm_bindgen_test]
fn heavy_tail_runs_give_the_native_bits() {
    let now = common::heavy_fingerprints();
    for (name, _) in common::HEAVY_FAMILIES {
        assert_eq!(
            common::heavy_section(&now, name),
            common::heavy_section(common::HEAVY_GOLDEN_RUNS, name),
            "{name}"
        );
    }
    assert_eq!(now, common::HEAVY_GOLDEN_RUNS);
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
        message.contains("privacy ε") && message.contains("-1"),
        "{message}"
    );

    let err = normalise_config("{not json").err().unwrap();
    assert!(get(&err, "field").is_null());
    assert!(get(&err, "message").as_string().unwrap().contains("line 1"));
}

#[wasm_bindgen_test]
fn preview_states_sigma_without_data() {
    let p = preview(r#"{"n": 10000, "steps": 100, "epsilon": 1, "delta": 1e-5}"#).unwrap();
    // Wang, Ye & Xu 2017 test vector: σ = 0.009801 for n = 1e4, T = 100, ε = 1, δ = 1e-5.
    let sigma = get(&p, "sigma").as_f64().unwrap();
    assert!((sigma - 0.009801).abs() < 5e-7, "{sigma}");
}
