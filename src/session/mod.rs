//! A run, from a validated [`RunConfig`] to its releases, advanced in bounded slices so that a
//! worker can yield between them (docs/ARCHITECTURE.md).
//!
//! - [`problem`]: data, objective and certified reference, built once per run (the algorithms
//!   take it, so it lives below them: [`crate::algo::problem`]).
//! - [`prepare`](mod@prepare): each algorithm's promise (guarantee, noise), from the config alone.
//! - [`Session`]: one algorithm on one problem with one noise stream (a *lane*).
//! - [`Lab`]: every lane of a run — up to four compared algorithms × R repeats — on one problem.
//! - [`game_views`]: what a game's run adds to the saddle views, slice by slice.
//! - [`heavy_explorer`]: the numbers of the page's heavy-tail panel, from the config.
//! - [`readouts`]: which readouts of a run's length depend on the data (NOT PRIVATE).
//! - [`View`]: the square of the parameter plane the page draws, and F on a grid over it.
//! - [`export`]: the run JSON and diagnostics CSV the page and the terminal binary write.
//! - [`sweep`]: a grid of runs over ε and n, lane by lane, for the terminal binary.
//! - [`sweep_lanes`]: the same grid cut into tasks for the page's pool of workers.
//!
//! [`RunConfig`]: crate::config::RunConfig

#![deny(missing_docs)]

pub mod export;
pub mod game_views;
pub mod heavy_explorer;
pub mod heavy_rates;
pub mod plan_back;
pub mod prepare;
pub use crate::algo::problem;
pub mod publish;
pub mod readouts;
pub mod sweep;
pub mod sweep_lanes;

mod lab;
mod run;
mod view;

#[cfg(test)]
mod tests;

pub use crate::theory::curve::Curve;
pub use lab::{Lab, LaneBatch};
pub use prepare::{NoiseShape, Preview, preview};
pub use problem::{Plane, Problem, ProblemDeclaration};
pub use run::{Batch, Release, Session};
pub use view::{GRID_BUDGET, GameView, ProblemView, View};
