//! Private stochastic mirror descent for saddle problems on simplices: González, Guzmán &
//! Paquette 2024, "Mirror Descent Algorithms with Nearly Dimension-Independent Rates for
//! Differentially-Private Stochastic Saddle-Point Problems".
//!
//! No Gaussian or Laplace noise is added anywhere: an entropic mirror-descent iterate is a Gibbs
//! law over the simplex's vertices, and drawing one vertex from it is the exponential mechanism.
//! Gradients are taken only at averages of drawn vertices, so the points they are taken at are
//! themselves private releases.
//!
//! - [`primitives`]: the log-domain mirror step, vertex sampling, sparse Maurey averages, the
//!   truncated geometric law, the accountant (ACC) and its privacy filter (González, Guzmán & Paquette 2024).
//! - [`private_smd`]: Algorithm 1 with the three presets of Theorem 3.1, the non-private
//!   baseline and the leaky demonstration (González, Guzmán & Paquette 2024).
//! - [`bias_reduced`]: Algorithm 2 (the bias-reduced gradient) and Algorithm 3 (Algorithm 1 with
//!   it and a privacy filter), with Theorem 3.14's parameters (González, Guzmán & Paquette 2024).
//! - [`boosted`]: Algorithm 4, boosting Algorithm 3 to high probability by private selection
//!   among candidates run on disjoint parts (González, Guzmán & Paquette 2024), with its registry entry.
//! - [`family`]: their entries in [`crate::algo::registry`]: Algorithm 1 (with its leaky
//!   demonstration), the non-private baseline, Algorithm 3 and Algorithm 5.
//! - [`sco`]: Algorithm 5, DP-SCO on the simplex by private SMD with anytime online-to-batch
//!   (González, Guzmán & Paquette 2024).

pub mod bias_reduced;
pub mod boosted;
pub mod family;
pub mod primitives;
pub mod private_smd;
pub mod sco;

#[cfg(test)]
mod test_games;

pub use bias_reduced::{BiasReducedParams, BiasReducedSmd, theorem_3_14};
pub use private_smd::{PrivateSmd, Regime, SmdMode, SmdParams, SmdPlan, theory_bound};
