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

/// Density of ‖z‖ for z ~ N(0, σ²I_d): σ times a χ_d variable,
/// p(r) = r^(d−1) exp(−r²/(2σ²)) / (2^(d/2−1) Γ(d/2) σ^d), r ≥ 0.
///
/// Drawn beside the histogram of the noise norms a run actually added. Evaluated in log space so
/// that large d neither overflows r^(d−1) nor underflows the normaliser.
pub fn norm_density(r: f64, sigma: f64, d: usize) -> f64 {
    if r < 0.0 || d == 0 || sigma <= 0.0 {
        return 0.0;
    }
    if r == 0.0 {
        // The half-normal's mode for d = 1; r^(d−1) vanishes for d > 1.
        return if d == 1 {
            (2.0 / std::f64::consts::PI).sqrt() / sigma
        } else {
            0.0
        };
    }
    let k = d as f64;
    let log_p = (k - 1.0) * libm::log(r)
        - r * r / (2.0 * sigma * sigma)
        - (k / 2.0 - 1.0) * std::f64::consts::LN_2
        - crate::stats::ln_gamma(k / 2.0)
        - k * libm::log(sigma);
    libm::exp(log_p)
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
    fn norm_density_integrates_to_one_with_mean_sigma_sqrt_d() {
        // Trapezoid rule on [0, 12σ√d + 12σ]; the χ_d mass beyond is below 1e-20, so the only
        // error is the rule's (h = 1e-4·range gives < 1e-7).
        for (sigma, d) in [(0.5, 1usize), (2.0, 2), (0.1, 10), (3.0, 200)] {
            let hi = 12.0 * sigma * ((d as f64).sqrt() + 1.0);
            let m = 10_000;
            let h = hi / m as f64;
            let (mut mass, mut second) = (0.0, 0.0);
            for i in 0..=m {
                let r = i as f64 * h;
                let w = if i == 0 || i == m { 0.5 } else { 1.0 };
                let p = norm_density(r, sigma, d);
                mass += w * h * p;
                second += w * h * p * r * r;
            }
            assert!((mass - 1.0).abs() < 1e-6, "σ={sigma} d={d}: mass {mass}");
            // E‖z‖² = dσ².
            let want = d as f64 * sigma * sigma;
            assert!(
                (second / want - 1.0).abs() < 1e-6,
                "σ={sigma} d={d}: {second} vs {want}"
            );
        }
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
