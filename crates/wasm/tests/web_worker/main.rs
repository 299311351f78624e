//! Browser tests inside a dedicated Web Worker (`run_in_dedicated_worker`): a binary of its own,
//! since wasm-bindgen-test runs a whole binary in one context and the tests in `web` need a
//! document. `CHROMEDRIVER=$(command -v chromedriver) cargo test --target wasm32-unknown-unknown
//! --test web_worker`.
#![cfg(target_arch = "wasm32")]

mod web_plot_worker;
mod web_worker;
