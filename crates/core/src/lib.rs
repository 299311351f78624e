//! # dp-playground-core
//!
//! The lower layer of dp-playground: everything a private algorithm builds on, and nothing that
//! knows about the page's configuration, a session or an algorithm. The playground crate
//! (`dp_playground`) re-exports every module here under the same name, so `dp_playground::privacy`
//! is this crate's [`privacy`].
//!
//! No module here imports the playground's `config`, `session` or `algo`; `scripts/layers` draws
//! the graph between the modules of both crates and fails on an import cycle.
//!
//! ## Module map
//! - [`privacy`]: guarantees, calibration, conversions, composition, accountants, the ledger.
//!   [`noise`]: samplers. [`stats`]: special functions and exact tests behind them.
//! - [`theory`]: the bounds each algorithm promises (closed forms over [`privacy`] and
//!   [`stats`]; the algorithms cite them, they name no algorithm).
//! - [`solver`]: non-private base solvers and the accuracy certificate.
//! - [`data`], [`loss`], [`domain`], [`objective`], [`reference`](mod@reference): the
//!   optimisation problem. [`minimax`]: two-block saddle problems and their duality gap.
//! - [`linalg`]: vector helpers and the kernels of the fused pass; [`fused`]: the pass's inner
//!   step over a loss. [`rng`]: the seeded generator and its streams.
//! - [`progress`]: how far the work before a run got (the page shows it while it waits).
//! - [`controls`]: the table of the page's controls (key, label, kind, range, help), one row per
//!   setting; it imports nothing of the crate. [`error`]: the error type, which names a control.
//!   [`checks`]: a number checked against its control's range (`Control::check` and kin).

pub mod checks;
pub mod controls;
pub mod data;
pub mod domain;
pub mod error;
pub mod fused;
pub mod linalg;
pub mod loss;
pub mod minimax;
pub mod noise;
pub mod objective;
pub mod privacy;
pub mod progress;
pub mod reference;
pub mod rng;
pub mod solver;
pub mod stats;
pub mod theory;

pub use error::{Error, Result};
