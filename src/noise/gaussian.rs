//! The Gaussian sampler N(0, σ²I).

use rand_distr::{Distribution, StandardNormal};

use super::check_scale;
use crate::error::Result;
use crate::rng::DpRng;

/// Isotropic Gaussian noise N(0, σ²I_d).
///
/// `rand_distr::StandardNormal` is the ziggurat method of Marsaglia & Tsang (2000), with its tail
/// and wedge corrections; its exp/ln go through libm, so draws are portable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gaussian {
    sigma: f64,
}

impl Gaussian {
    /// σ must be finite and > 0.
    pub fn new(sigma: f64) -> Result<Self> {
        check_scale("sigma", sigma)?;
        Ok(Self { sigma })
    }

    /// The standard deviation σ of each coordinate.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Per-coordinate variance σ² (shown as "expected noise" beside the budget).
    pub fn variance(&self) -> f64 {
        self.sigma * self.sigma
    }

    /// One draw of N(0, σ²).
    pub fn sample(&self, rng: &mut DpRng) -> f64 {
        let z: f64 = StandardNormal.sample(rng);
        self.sigma * z
    }

    /// Fills `out` with independent N(0, σ²) draws.
    pub fn fill(&self, rng: &mut DpRng, out: &mut [f64]) {
        fill_gaussian(rng, self.sigma, out);
    }
}

/// Fills `out` with independent N(0, σ²) draws. Unchecked σ: callers pass a σ from a calibration
/// that has already validated it (use [`Gaussian::new`] for user-facing values).
pub fn fill_gaussian(rng: &mut DpRng, sigma: f64, out: &mut [f64]) {
    for v in out.iter_mut() {
        let z: f64 = StandardNormal.sample(rng);
        *v = sigma * z;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::rng::{Stream, seeded};

    #[test]
    fn gaussian_draws_have_the_requested_scale() {
        // 2·10⁵ draws: the sample variance of N(0, σ²) has relative sd √(2/N) ≈ 0.0032, so a 2%
        // window is > 6 sd wide and would still reject a σ that is off by 2%.
        let g = Gaussian::new(0.37).unwrap();
        let mut draws = vec![0.0; 200_000];
        g.fill(&mut seeded(5, Stream::Noise), &mut draws);
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 6.0 * g.sigma() / (draws.len() as f64).sqrt());
        assert!((var / g.variance() - 1.0).abs() < 0.04, "var {var}");
    }

    #[test]
    fn rejects_bad_sigma() {
        for s in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(Gaussian::new(s), Err(Error::InvalidParameter { field, .. }) if field == "sigma")
            );
        }
    }
}
