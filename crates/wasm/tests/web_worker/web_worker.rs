//! The Session as the page's worker runs it: inside a dedicated Web Worker, in time-bounded slices.
#![cfg(target_arch = "wasm32")]

use dp_wasm::wasm::WasmSession;
use js_sys::{Float64Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// Steps in all lanes of a slice (a single-algorithm run has one lane).
fn steps_in(slice: &JsValue) -> usize {
    let lanes: js_sys::Array = Reflect::get(slice, &JsValue::from_str("lanes"))
        .unwrap()
        .dyn_into()
        .unwrap();
    lanes
        .iter()
        .map(|lane| {
            Reflect::get(&lane, &JsValue::from_str("t"))
                .unwrap()
                .dyn_into::<Float64Array>()
                .unwrap()
                .length() as usize
        })
        .sum()
}

#[wasm_bindgen_test]
fn runs_in_a_worker_in_time_bounded_slices() {
    // Confirm the context really is a dedicated worker, not a window.
    let global = js_sys::global();
    assert!(global.is_instance_of::<web_sys::DedicatedWorkerGlobalScope>());

    let mut s = WasmSession::new(r#"{"n": 20000, "steps": 400}"#, None, None).unwrap();
    // A zero budget still makes progress (one step per slice), so a slice can never spin forever.
    let one = s.advance(usize::MAX, 0.0).unwrap();
    assert_eq!(steps_in(&one), 1);
    let mut slices = 1;
    let mut total = 1;
    while !s.is_done() {
        let b = s.advance(usize::MAX, 8.0).unwrap();
        total += steps_in(&b);
        slices += 1;
    }
    // 400 steps plus the release entry; 400 steps over n = 20000 take far more than one 8 ms
    // slice in a debug build, so the budget must have split the run.
    assert_eq!(total, 401);
    assert!(slices > 2, "the run was not sliced: {slices} slices");
}
