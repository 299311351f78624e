//! Native tests of the bottom layers: calibration and accounting, the samplers, data sets and the
//! CSV loader, losses and projections, the reference solver and its certificate, and the parsers
//! and settings under hostile numbers. One test binary (CONTRIBUTING.md, "Tests"): each file is a
//! module, so `cargo test --test base problem_csv::` runs one file.

#[path = "../common/mod.rs"]
mod common;
#[path = "../golden/mod.rs"]
mod golden;

mod hostile_numbers;
mod hostile_numeric;
mod hostile_parsers;
mod privacy_calibration;
mod privacy_samplers;
mod problem_csv;
mod problem_data;
mod problem_golden;
mod problem_losses;
mod problem_reference;
mod problem_reference_tilted;
mod regression_noise;
mod solver_certificate;
