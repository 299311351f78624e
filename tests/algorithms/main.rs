//! Native tests of the algorithms: the families run as the page runs them, their empirical privacy
//! audits (and `audit_coverage`, which maps every family to its audits), the neighbouring-pair
//! relations, the rate experiments (slopes, heavy tails, saddle problems) and the step bound. One
//! test binary (CONTRIBUTING.md, "Tests"): each file is a module, so
//! `cargo test --test algorithms saddle_audit::` runs one file.

#[path = "../common/mod.rs"]
mod common;
#[path = "../edges/mod.rs"]
mod edges;

mod adversarial_training_audit;
mod audit_coverage;
mod byoa;
mod byoa_minimax;
mod family_audits;
mod group_dro_audit;
mod group_dro_simplex;
mod heavy_audit;
mod heavy_hard_instance;
mod heavy_localisation_view;
mod heavy_slopes;
mod noise_streams;
mod output_perturbation;
mod output_perturbation_max_loss;
mod output_perturbation_slopes;
mod privacy_audit;
mod privacy_edges;
mod published_release;
mod record_gate;
mod relations;
mod release_through_noise;
mod saddle_auc;
mod saddle_audit;
mod saddle_filter;
mod saddle_problems;
mod saddle_slopes;
mod saddle_smd;
mod smd_ledger;
mod step_bound;
