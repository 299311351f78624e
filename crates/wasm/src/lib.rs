//! # dp-playground-wasm
//!
//! The page's WebAssembly bindings (`wasm`): the worker's session, the plots and the page's
//! lists, over the playground (`dp_playground`). wasm32 only: natively the crate is empty (so
//! this page names its items without links). `build_pkg` in scripts/setup.sh turns its `.wasm`
//! into `www/pkg` under the names `dp_playground.js` and `dp_playground_bg.wasm`.
#![cfg(target_arch = "wasm32")]

pub mod wasm;

// The playground's modules the bindings name, each under its own name, so `crate::session::…`
// in `wasm` names the items of `dp_playground::session`, as it did when `wasm` was a module of
// the playground (the way the algorithms crate re-exports the core's modules).
pub use dp_playground::{
    algo, audit, bench, catalog, config, data, error, figure, lesson, noise, plot_spec, progress,
    session, stats,
};
