//! Native tests of what the page and the terminal show: the terminal binary, the lessons and their
//! predictions, error placement, readouts and exports, the hostile corpus, paper names, planning
//! backwards, the sweep lanes, the teaching tools and the golden run. One test binary
//! (CONTRIBUTING.md, "Tests"): each file is a module, so `cargo test --test playground lessons::`
//! runs one file.

#[path = "../common/mod.rs"]
mod common;
#[path = "../edges/mod.rs"]
mod edges;

mod attack_view;
mod cli;
mod data_dependent_readouts;
mod determinism;
mod error_controls;
mod finite_or_refused;
mod fuzz_findings;
mod hostile_corpus;
mod lessons;
mod noise_norm_attack;
mod output_perturbation_cards;
mod paper_names;
mod picked_defaults;
mod plan_backwards;
mod reference_optional;
mod saddle_views;
mod sweep_lanes;
mod teaching_audits;
