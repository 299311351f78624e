//! Native tests of the bottom layers that need the playground: the parsers and settings under
//! hostile numbers, and the regression noise through a session. One test binary
//! (CONTRIBUTING.md, "Tests"): each file is a module, so `cargo test --test base
//! hostile_parsers::` runs one file. The tests of the core crate's modules alone (calibration,
//! samplers, data, losses, the reference solver) are in crates/core/tests/base/.

mod hostile_numbers;
mod hostile_numeric;
mod hostile_parsers;
mod regression_noise;
