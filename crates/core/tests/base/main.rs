//! Native tests of the core crate (crates/core): calibration and accounting, the samplers, data
//! sets and the CSV loader, losses and projections, the reference solver and its certificate. One
//! test binary (CONTRIBUTING.md, "Tests"): each file is a module, so
//! `cargo test -p dp-playground-core --test base problem_csv::` runs one file. The tests of the
//! bottom layers that need the playground (its settings, a session) are the root's `tests/base/`.
//! The data they read (reference values, golden bits, the bad-CSV corpus) stay in the root's
//! `tests/data/` and `tests/bad_csv/`, which the playground's tests and the browser tests share.

#[path = "../common/mod.rs"]
mod common;
#[path = "../golden/mod.rs"]
mod golden;

mod privacy_calibration;
mod privacy_samplers;
mod problem_csv;
mod problem_data;
mod problem_golden;
mod problem_losses;
mod problem_reference;
mod problem_reference_tilted;
mod solver_certificate;
