//! # dp-playground
//!
//! The solver core of an in-browser laboratory for differentially private (DP) convex
//! optimisation. It compiles natively (tests, benchmarks, experiments) and to WebAssembly, where
//! the bindings crate (`crates/wasm`, `dp_wasm`) exposes a `Session` to a Web Worker and plotting
//! functions to the page.
//!
//! ## Privacy caveats
//! - Only an algorithm's **release** is private. Iterates, gradients, losses, excess risks, clip
//!   counts and the reference optimum are computed from the raw data and are not.
//! - Every noise-setting constant (feature bound, label bound, domain radius, Lipschitz constant) is
//!   declared in the [`config::RunConfig`], never measured from the data; data are clipped to the
//!   declared bounds.
//! - A seeded run is reproducible and therefore demonstrates a mechanism; it is not a private release.
//! - Noise is sampled in floating point: an idealisation (Mironov 2012).
//!
//! ## Module map
//! The modules from [`controls`] to [`theory`] that import none of `config`, `session` or `algo`
//! live in the core crate (`crates/core`, `dp_core`) and are re-exported here under their names;
//! [`algo`] lives in the algorithms crate (`crates/algorithms`, `dp_algorithms`), over the core
//! only, and is re-exported here too.
//! - [`config`]: the run configuration and all input validation.
//! - [`controls`]: the table of the page's controls (key, label, kind, range, help), one row per
//!   setting; it imports nothing of the crate.
//! - [`session`]: a run in slices: config → data → objective → reference → algorithm → release.
//! - [`algo`]: the private algorithms, one file per family, each citing its paper and declaring
//!   its family (card, settings, needs, data-free plan); [`algo::registry`] lists the families,
//!   and [`catalog`] serves their cards to the page.
//! - [`privacy`]: guarantees, calibration, conversions, composition, accountants, the ledger.
//!   [`noise`]: samplers. [`audit`]: empirical privacy audit. [`stats`]: special functions and
//!   exact tests behind them.
//! - [`solver`]: non-private base solvers and the accuracy certificate; [`theory`]: the bounds
//!   each algorithm promises.
//! - [`data`], [`loss`], [`domain`], [`objective`], [`reference`](mod@reference): the optimisation problem.
//!   [`minimax`]: two-block saddle problems and their duality gap.
//! - [`progress`]: how far the work before a run got (the page shows it while it waits).
//! - [`linalg`]: vector helpers and the fused kernel. [`rng`]: the seeded generator and its streams.
//! - [`figure`]: the geometry of the page's figures (log-axis ticks, bands, filled contours), with
//!   no drawing.
//! - [`plot_spec`]: the page's plot specs, parsed and checked (drawn by `dp_wasm::wasm`).
//! - [`bench`](mod@bench): the benchmark cases native code and the browser time alike.
//!
//! The bindings and the plotting (`wasm`, wasm32 only; the only module that names JavaScript types)
//! are the crate `crates/wasm` (`dp_wasm`), over this one.

pub mod audit;
pub mod bench;
pub mod catalog;
pub mod config;
pub mod figure;
pub mod lesson;
pub mod plot_spec;
pub mod session;

// The lower layer, from the core crate (crates/core): each module under its own name, so
// `crate::privacy::…` here and `dp_playground::privacy::…` in tests, benches and the binary name
// the items of `dp_core::privacy`.
pub use dp_core::{
    checks, controls, data, domain, error, fused, linalg, loss, minimax, noise, objective, privacy,
    progress, reference, rng, solver, stats, theory,
};

// The private algorithms, from the algorithms crate (crates/algorithms): `crate::algo::…` here and
// `dp_playground::algo::…` in tests, benches and the binary name the items of `dp_algorithms::algo`.
pub use dp_algorithms::algo;

pub use error::{Error, Result};
