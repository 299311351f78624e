//! The bounds each algorithm promises, as plain functions of the declared constants, so the page can
//! draw them as dashed curves beside the measured excess risk and fill in step-size presets. Every
//! function names the theorem (or the proof line) it transcribes and any correction we made to
//! it. Nothing here reads data.
//!
//! - [`output_perturbation`], [`byoa`]: Lowy & Razaviyayn 2021 and Zhang et al. 2022.
//! - [`gradient_perturbation`]: Wang, Ye & Xu 2017's DP-GD (PL and non-convex), DP-SVRG, DP-SVRG++ and
//!   DP-AccMD bounds, with corrected step-size conditions, and the objective
//!   perturbation baseline's (Chaudhuri et al. 2011).
//! - [`heavy_tails`]: Lowy 2026's pure-DP upper and lower bounds and the approximate-DP rate
//!   (Lowy 2026), for the sweep's curves against n and ε.

pub mod byoa;
pub mod curve;
pub mod gradient_perturbation;
pub mod heavy_tails;
pub mod output_perturbation;
