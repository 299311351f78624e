//! Noise samplers. Every sampler draws from [`crate::rng::DpRng`].
//!
//! Caveat shown in every ledger: these are floating-point samplers, i.e. idealised; they do not
//! defend against the floating-point attacks of Mironov (2012).

use rand_distr::{Distribution, StandardNormal};

use crate::rng::DpRng;

/// Fills `out` with independent N(0, σ²) draws.
pub fn fill_gaussian(rng: &mut DpRng, sigma: f64, out: &mut [f64]) {
    for v in out.iter_mut() {
        let z: f64 = StandardNormal.sample(rng);
        *v = sigma * z;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn gaussian_draws_have_the_requested_scale() {
        // 2·10⁵ draws: the sample variance of N(0, σ²) has relative sd √(2/N) ≈ 0.0032, so a 2%
        // window is > 6 sd wide and would still reject a σ that is off by 2%.
        let sigma = 0.37;
        let mut draws = vec![0.0; 200_000];
        fill_gaussian(&mut seeded(5, Stream::Noise), sigma, &mut draws);
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 6.0 * sigma / (draws.len() as f64).sqrt());
        assert!((var.sqrt() / sigma - 1.0).abs() < 0.02, "sd {}", var.sqrt());
    }
}
