//! Browser tests (wasm-bindgen-test) on the main thread of a page, in headless Chromium and
//! Firefox: `CHROMEDRIVER=$(command -v chromedriver) cargo test --target wasm32-unknown-unknown
//! --test web` (scripts/test runs `--test 'web*'`, this binary and `web_worker`). Each file is a
//! module and configures `run_in_browser` itself.
#![cfg(target_arch = "wasm32")]

#[path = "../../../../tests/common/mod.rs"]
mod common;
#[path = "../../../core/tests/golden/mod.rs"]
mod golden;

mod web;
mod web_page_api;
mod web_plot;
mod web_privacy;
mod web_problem;
