//! Noise samplers. Every sampler draws from [`crate::rng::DpRng`], seeded
//! ([`crate::rng::seeded`]) or keyed from the OS ([`crate::rng::from_os`]).
//!
//! | sampler | law | used for |
//! |---|---|---|
//! | [`Gaussian`] | N(0, σ²I) | (ε, δ)/zCDP/RDP mechanisms |
//! | [`Laplace`] | i.i.d. Laplace(b) per coordinate | pure ε with ℓ1 sensitivity |
//! | [`L2Laplace`] | density ∝ exp(−‖t‖₂/b) on R^d | pure ε with ℓ2 sensitivity (Lowy & Razaviyayn 2021) |
//! | [`ExponentialMechanism`] | P(j) ∝ exp(ε u_j / (2Δ_u)) | pure ε selection over a finite set |
//!
//! Caveat shown in every ledger: these are floating-point samplers, i.e. idealised; they do not
//! defend against the floating-point attacks of Mironov (2012). Transcendental functions come
//! from `libm` (directly, or through `rand_distr` without `std_math`), so a seed gives the same
//! bits natively and in the browser.

#![deny(missing_docs)]

mod exponential;
mod gaussian;
mod laplace;

pub use exponential::{ExponentialMechanism, gumbel_max, sample_cdf};
pub use gaussian::{Gaussian, fill_gaussian, norm_density};
pub use laplace::{L2Laplace, Laplace};

use crate::error::{Error, Result};

/// Checks a noise scale: finite and > 0 (a zero scale would silently release the exact value).
pub(crate) fn check_scale(field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(field, "a finite number > 0", value))
    }
}

/// ε must be finite and > 0.
pub fn check_epsilon(epsilon: f64) -> Result<()> {
    if epsilon.is_finite() && epsilon > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("epsilon", "a finite number > 0", epsilon))
    }
}

/// A sensitivity Δ must be finite and > 0.
pub fn check_sensitivity(sensitivity: f64) -> Result<()> {
    if sensitivity.is_finite() && sensitivity > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            "sensitivity",
            "a finite number > 0",
            sensitivity,
        ))
    }
}
