//! Plotting where there is no document: inside a dedicated Web Worker, plotters cannot measure
//! text, so the plot functions must refuse with an error rather than panic.
#![cfg(target_arch = "wasm32")]

use dp_wasm::wasm::plot_svg;
use js_sys::{JSON, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn plotting_in_a_worker_is_an_error_not_a_panic() {
    assert!(js_sys::global().is_instance_of::<web_sys::DedicatedWorkerGlobalScope>());
    let spec = JSON::parse(r#"{"series":[],"target":1}"#).unwrap();
    let err = plot_svg("privacy", spec, 300, 200).expect_err("no document in a worker");
    let message = Reflect::get(&err, &JsValue::from_str("message"))
        .unwrap()
        .as_string()
        .unwrap();
    assert!(message.contains("main thread"), "{message}");
    // A bad spec is still reported as such first: the spec is checked before the document.
    let err = plot_svg("pie", JsValue::NULL, 300, 200).unwrap_err();
    let field = Reflect::get(&err, &JsValue::from_str("field")).unwrap();
    assert_eq!(field.as_string().as_deref(), Some("kind"));
}
