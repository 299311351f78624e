//! Pure ε-DP convex optimisation with heavy-tailed gradients: A. Lowy, "Optimal Rates for Pure
//! ε-Differentially Private Stochastic Convex Optimization with Heavy Tails", 2026.
//!
//! The data need only a bounded k-th moment G_k of the sample-wise Lipschitz constant
//! A(z) = sup_W ‖∇f(w, z)‖ (L may be infinite). The paper's tool is the Lipschitz extension f_C
//! of the loss ([`extension`]), with the threshold C* = G_k (mε/d)^(1/k) from the declared G_k.
//!
//! Corrections to Lowy 2026: the GLM clipped-gradient identity holds
//! for the R^d extension only; the paper's Laplace tail bound (Lemma C.2) is false for d ≥ 2 and
//! is not used; δ in this paper is a failure probability, never a DP parameter.

pub mod approx_em;
pub mod call_declared;
pub mod clipped_gd;
pub mod deterministic;
pub mod em_pgm;
pub mod em_phases;
pub mod extension;
pub mod family;
pub mod joint;
pub mod localisation_view;
pub mod localised;
pub mod output_pert_localise;
pub mod rates;
pub mod single_stage;
pub mod subgradient;

pub use approx_em::FAMILY as FAMILY_APPROX_EM;
pub use deterministic::FAMILY as FAMILY_DETERMINISTIC;
pub use em_pgm::FAMILY as FAMILY_EM_PGM;
pub use extension::{
    Extension, declared_moment, declared_moments, derivative_bounds, extension_on_ball,
    outlier_probability, rare_outlier, threshold,
};
pub use family::{FAMILY_CLIPPED_GD, FAMILY_LOCALISED, FAMILY_SINGLE_STAGE};
pub use joint::HeavySolver;
pub use output_pert_localise::FAMILY_OUTPUT_PERT_LOCALISE;
