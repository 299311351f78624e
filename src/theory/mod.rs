//! Theory bounds as functions of the declared constants, for the plots' "theory curve" overlays
//! and the step-size presets. Nothing here reads data.
//!
//! - [`gradient_perturbation`]: seed 002's DP-GD (PL and non-convex) and DP-SVRG bounds, with
//!   the digest's corrected step-size conditions.

pub mod gradient_perturbation;
