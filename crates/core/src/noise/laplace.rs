//! Laplace samplers: coordinate-wise Laplace and the d-dimensional "ℓ2-Laplace" (isotropic
//! Laplace) of Lowy & Razaviyayn 2021 / Lowy 2026.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Open01, StandardNormal};

use super::check_scale;
use crate::error::{Error, Result};
use crate::rng::DpRng;

/// One Laplace(0, b) draw: a random sign times an Exp(b) magnitude, −b·ln U with U ∈ (0, 1).
fn laplace_draw(rng: &mut DpRng, scale: f64) -> f64 {
    let u: f64 = Open01.sample(rng);
    let magnitude = -scale * libm::log(u);
    // The sign uses a separate word so that it is independent of the magnitude.
    if rng.next_u32() & 1 == 0 {
        magnitude
    } else {
        -magnitude
    }
}

/// Independent Laplace(0, b) noise on each coordinate, density (1/2b) exp(−|t|/b).
///
/// # Privacy
/// With b = Δ₁/ε for an ℓ1-sensitivity Δ₁ this is ε-DP (Dwork & Roth 2014, Thm 3.6). It is **not**
/// ε-DP for an ℓ2 sensitivity Δ₂ at b = Δ₂/ε (only about √d·ε, Lowy 2026); for ℓ2 use
/// [`L2Laplace`], or b = √d·Δ₂/ε since ‖·‖₁ ≤ √d‖·‖₂.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Laplace {
    scale: f64,
}

impl Laplace {
    /// b must be finite and > 0.
    pub fn new(scale: f64) -> Result<Self> {
        check_scale("scale", scale)?;
        Ok(Self { scale })
    }

    /// The scale b.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Per-coordinate variance 2b².
    pub fn variance(&self) -> f64 {
        2.0 * self.scale * self.scale
    }

    /// The CDF F(t) = ½e^{t/b} for t < 0, 1 − ½e^{−t/b} otherwise.
    pub fn cdf(&self, t: f64) -> f64 {
        if t < 0.0 {
            0.5 * libm::exp(t / self.scale)
        } else {
            1.0 - 0.5 * libm::exp(-t / self.scale)
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut DpRng) -> f64 {
        laplace_draw(rng, self.scale)
    }

    /// Fills `out` with independent draws.
    pub fn fill(&self, rng: &mut DpRng, out: &mut [f64]) {
        for v in out.iter_mut() {
            *v = laplace_draw(rng, self.scale);
        }
    }
}

/// The d-dimensional isotropic ("ℓ2") Laplace law, density ∝ exp(−‖t‖₂/b) on R^d.
///
/// # Sampler
/// In polar coordinates the density factors into a radius with density ∝ r^{d−1}e^{−r/b}, i.e.
/// ‖t‖ ~ Gamma(shape d, scale b), and a direction uniform on the sphere S^{d−1}, independent of it
/// (Lowy & Razaviyayn 2021, footnote 2). The direction is a
/// normalised N(0, I_d) vector, redrawn in the (probability-zero, but possible in floating point)
/// event that its norm is 0. Gamma is `rand_distr::Gamma` (Marsaglia & Tsang 2000), valid for
/// every shape including large d.
///
/// # Privacy
/// With b = Δ₂/ε for an ℓ2 sensitivity Δ₂ it is ε-DP: p(s−a)/p(s−a′) = exp((‖s−a′‖ − ‖s−a‖)/b)
/// ≤ exp(‖a−a′‖/b) ≤ e^ε (Lowy & Razaviyayn 2021).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct L2Laplace {
    scale: f64,
}

impl L2Laplace {
    /// b must be finite and > 0.
    pub fn new(scale: f64) -> Result<Self> {
        check_scale("scale", scale)?;
        Ok(Self { scale })
    }

    /// The scale b (E‖t‖ = d·b, E‖t‖² = d(d+1)b², Lowy & Razaviyayn 2021).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Per-coordinate variance in dimension d: E‖t‖²/d = (d+1)b².
    pub fn variance(&self, d: usize) -> f64 {
        (d as f64 + 1.0) * self.scale * self.scale
    }

    /// Fills `out` (dimension d = `out.len()` ≥ 1) with one draw.
    pub fn fill(&self, rng: &mut DpRng, out: &mut [f64]) -> Result<()> {
        let d = out.len();
        if d == 0 {
            return Err(Error::invalid("dimension", "d ≥ 1", 0));
        }
        // Shape d ≥ 1 and scale > 0 were checked, so Gamma::new cannot fail; map the error anyway
        // instead of unwrapping.
        let gamma = Gamma::new(d as f64, self.scale)
            .map_err(|e| Error::invalid("scale", "a valid Gamma scale", e.to_string()))?;
        let radius: f64 = gamma.sample(rng);
        let norm = loop {
            for v in out.iter_mut() {
                *v = StandardNormal.sample(rng);
            }
            let n = out.iter().map(|v| v * v).sum::<f64>().sqrt();
            if n > 0.0 {
                break n;
            }
        };
        let factor = radius / norm;
        for v in out.iter_mut() {
            *v *= factor;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn l2_laplace_mean_norm_is_d_times_b() {
        // ‖t‖ ~ Gamma(d, b): mean db, sd √d·b. Over 20 000 draws with d = 5 the sample mean has sd
        // √5·b/√20000 ≈ 0.0158b; a ±0.1b window is > 6 sd and rejects a scale off by 2%.
        let (d, b) = (5, 0.8);
        let lap = L2Laplace::new(b).unwrap();
        let mut rng = seeded(1, Stream::Noise);
        let mut t = vec![0.0; d];
        let mut sum = 0.0;
        for _ in 0..20_000 {
            lap.fill(&mut rng, &mut t).unwrap();
            sum += t.iter().map(|v| v * v).sum::<f64>().sqrt();
        }
        let mean = sum / 20_000.0;
        assert!((mean - d as f64 * b).abs() < 0.1 * b, "{mean}");
    }

    #[test]
    fn rejects_empty_output_and_bad_scale() {
        let lap = L2Laplace::new(1.0).unwrap();
        assert!(lap.fill(&mut seeded(1, Stream::Noise), &mut []).is_err());
        assert!(L2Laplace::new(-1.0).is_err());
        assert!(Laplace::new(f64::NAN).is_err());
    }
}
