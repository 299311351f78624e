//! Browser tests (wasm-bindgen-test), run in headless Chromium and Firefox by the README test
//! command: the Session API as the worker uses it, config errors as the page sees them, drawing on
//! a real canvas, and native/wasm determinism.
#![cfg(target_arch = "wasm32")]

use dp_playground::config::RunConfig;
use dp_playground::session::Session;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn session_runs_to_a_release() {
    let config = RunConfig {
        n: 300,
        steps: 20,
        ..RunConfig::default()
    };
    let mut s = Session::new(config).unwrap();
    let b = s.advance(usize::MAX, || true);
    assert!(b.done);
    assert!(b.release.is_some());
}
