//! Lowy & Razaviyayn 2021: excess-risk bounds of output perturbation, transcribed from
//! Lowy & Razaviyayn 2021 (checked against the paper's statements; corrections noted per function).
//!
//! Two kinds of curves:
//! - **computable bounds** taken from the proofs (Lowy & Razaviyayn 2021): they use the run's own Δ_T, α
//!   and noise law, so they are the tightest exact-constant curves and are drawn beside a run;
//! - **closed forms** with the theorems' constants and the **lower bounds** in terms
//!   of the privacy ratio r (`algo::output_perturbation::privacy_ratio`) for sweeps over
//!   ε or n. Every bound is to be read as min{LR, ·} (Remark 2.1: outputting 0 costs ≤ LR), which
//!   [`cap`] applies.
//!
//! Read them as expectations over the noise, for the empirical risk (ERM) unless a function says
//! population.

use serde::{Deserialize, Serialize};

use crate::privacy::calibration::GaussianMethod;
use crate::stats::ln_gamma;

/// The noise added to the certified point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoiseLaw {
    /// Density ∝ exp(−‖z‖/b), b = Δ_T/ε (Lowy & Razaviyayn 2021, Eq. 4, Prop 2.1).
    L2Laplace {
        /// b.
        scale: f64,
    },
    /// N(0, σ²I).
    Gaussian {
        /// σ.
        sigma: f64,
        /// Which calibration produced σ.
        method: GaussianMethod,
    },
}

impl NoiseLaw {
    /// E‖z‖² in dimension d: d(d+1)b² (Lemma B.3) or dσ².
    pub fn mean_square_norm(&self, d: usize) -> f64 {
        let d = d as f64;
        match *self {
            NoiseLaw::L2Laplace { scale } => d * (d + 1.0) * scale * scale,
            NoiseLaw::Gaussian { sigma, .. } => d * sigma * sigma,
        }
    }
}

/// E‖z‖ for the noise law in dimension d: d·b for the ℓ2-Laplace (‖z‖ ~ Gamma(d, b)); for the
/// Gaussian the exact σ√2·Γ((d+1)/2)/Γ(d/2) (the mean of σ·χ_d), which is ≤ σ√d as the paper uses.
pub fn mean_norm(noise: &NoiseLaw, d: usize) -> f64 {
    let d = d as f64;
    match *noise {
        NoiseLaw::L2Laplace { scale } => d * scale,
        NoiseLaw::Gaussian { sigma, .. } => {
            sigma
                * core::f64::consts::SQRT_2
                * libm::exp(ln_gamma((d + 1.0) / 2.0) - ln_gamma(d / 2.0))
        }
    }
}

/// Thm 3.2 proof (smooth, unprojected): E F(w_A) − F* ≤ α + (β/2)·E‖z‖², for a point with
/// F(w_T) − F* ≤ α (the subgradient method's Prop 3.2, Algorithm 3's duality gap). The
/// gradient-mapping certificate bounds the **distance** ‖w_T − w*‖ ≤ ρ = √(2α/μ) instead, which gives
/// F(w_T) − F* ≤ (β/2)ρ² = κα: pass κα here, or use
/// `algo::output_perturbation::theory_bound`, which does.
pub fn smooth_unprojected(alpha: f64, smoothness: f64, noise: &NoiseLaw, d: usize) -> f64 {
    alpha + 0.5 * smoothness * noise.mean_square_norm(d)
}

/// Thm 3.1 proof (Lipschitz, projected): E F(w_A) − F* ≤ α + L·E‖z‖, for F(w_T) − F* ≤ α (with a
/// distance certificate, L·ρ takes α's place: see `algo::output_perturbation::theory_bound`).
pub fn lipschitz_projected(alpha: f64, lipschitz: f64, noise: &NoiseLaw, d: usize) -> f64 {
    alpha + lipschitz * mean_norm(noise, d)
}

/// Thm 3.4 proof (Algorithm 6, Lipschitz, projected), excess of the **unregularised** F:
/// (L + λR)(√(2α/λ) + E‖z‖) + λR²/2.
pub fn regularised_lipschitz(
    alpha: f64,
    lipschitz: f64,
    lambda: f64,
    radius: f64,
    noise: &NoiseLaw,
    d: usize,
) -> f64 {
    (lipschitz + lambda * radius) * (libm::sqrt(2.0 * alpha / lambda) + mean_norm(noise, d))
        + 0.5 * lambda * radius * radius
}

/// Thm 3.5 proof (Algorithm 6, smooth, unprojected), excess of the unregularised F:
/// α + ((β + λ)/2)·E‖z‖² + λR²/2. The paper's final line drops the /2 of the last term; we
/// keep it, as the line before it has it.
pub fn regularised_smooth(
    alpha: f64,
    smoothness: f64,
    lambda: f64,
    radius: f64,
    noise: &NoiseLaw,
    d: usize,
) -> f64 {
    alpha + 0.5 * (smoothness + lambda) * noise.mean_square_norm(d) + 0.5 * lambda * radius * radius
}

/// Whether a closed form is for δ = 0 or δ > 0 (the constants differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// δ = 0 (ℓ2-Laplace).
    Pure,
    /// δ > 0 (Gaussian).
    Approx,
}

/// The function classes of Lowy & Razaviyayn 2021, §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// F_{μ,L,R}: strongly convex, Lipschitz.
    StronglyConvex,
    /// H_{β,μ,L,R}: strongly convex, smooth, Lipschitz.
    StronglyConvexSmooth,
    /// G_{L,R}: convex, Lipschitz.
    Convex,
    /// J_{β,L,R}: convex, smooth, Lipschitz.
    ConvexSmooth,
}

/// The declared constants a closed form depends on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoundConstants {
    /// L.
    pub lipschitz: f64,
    /// μ (strongly convex classes).
    pub strong_convexity: f64,
    /// β (smooth classes).
    pub smoothness: f64,
    /// R.
    pub radius: f64,
}

/// The practical (Theorems 3.1, 3.2, 3.4, 3.5 / Cor 3.1–3.8) upper bound with the theorems'
/// constants, Lowy & Razaviyayn 2021, as a function of the privacy ratio r (ERM: r includes 1/n):
///
/// | class | δ = 0 | δ > 0 |
/// |---|---|---|
/// | F | 9(L²/μ)r | 6(L²/μ)r (Thm 3.1; Cor 3.1 says 9) |
/// | H | 26κ(L²/μ)r² | 13.5κ(L²/μ)r² |
/// | G | 49·LR√r | 25·LR√r |
/// | J | 65·β^{1/3}L^{2/3}R^{4/3}r^{2/3} | 127·β^{1/3}L^{2/3}R^{4/3}r^{2/3} |
///
/// Valid when r ≤ 1 (F, H, G) or r² ≤ L/(Rβ) (J); not capped (see [`cap`]).
pub fn practical_upper(class: Class, regime: Regime, c: &BoundConstants, r: f64) -> f64 {
    let (l, mu, beta, rad) = (c.lipschitz, c.strong_convexity, c.smoothness, c.radius);
    let pure = regime == Regime::Pure;
    match class {
        Class::StronglyConvex => (if pure { 9.0 } else { 6.0 }) * l * l / mu * r,
        Class::StronglyConvexSmooth => {
            (if pure { 26.0 } else { 13.5 }) * (beta / mu) * l * l / mu * r * r
        }
        Class::Convex => (if pure { 49.0 } else { 25.0 }) * l * rad * libm::sqrt(r),
        Class::ConvexSmooth => {
            (if pure { 65.0 } else { 127.0 })
                * libm::cbrt(beta)
                * libm::pow(l, 2.0 / 3.0)
                * libm::pow(rad, 4.0 / 3.0)
                * libm::pow(r, 2.0 / 3.0)
        }
    }
}

/// The conceptual (exact minimiser) bounds of Cor 2.1, 2.2, Prop 2.5, 2.8 (Lowy & Razaviyayn 2021):
/// F: 2(L²/μ)r (δ = 0) or √2(L²/μ)r; H: 4κ(L²/μ)r²; G: 8.5·LR√r; J: 48.5·β^{1/3}L^{2/3}R^{4/3}r^{2/3}.
pub fn conceptual_upper(class: Class, regime: Regime, c: &BoundConstants, r: f64) -> f64 {
    let (l, mu, beta, rad) = (c.lipschitz, c.strong_convexity, c.smoothness, c.radius);
    match class {
        Class::StronglyConvex => {
            (if regime == Regime::Pure {
                2.0
            } else {
                core::f64::consts::SQRT_2
            }) * l
                * l
                / mu
                * r
        }
        Class::StronglyConvexSmooth => 4.0 * (beta / mu) * l * l / mu * r * r,
        Class::Convex => 8.5 * l * rad * libm::sqrt(r),
        Class::ConvexSmooth => {
            48.5 * libm::cbrt(beta)
                * libm::pow(l, 2.0 / 3.0)
                * libm::pow(rad, 4.0 / 3.0)
                * libm::pow(r, 2.0 / 3.0)
        }
    }
}

/// ERM lower bounds (Lowy & Razaviyayn 2021), up to an unknown absolute constant (plotted with constant
/// 1 as the "floor" shape), with s = d/(εn) for δ = 0 and s = √d/(εn) for δ = o(1/n):
/// - strongly convex (F^ERM, Bassily, Smith & Thakurta 2014; H^ERM with L = 2βR, Prop 2.7): LR·min{1, s²};
/// - convex (G^ERM, J^ERM, Bassily, Smith & Thakurta 2014): LR·min{1, s}.
///
/// No lower bound is known for the non-ERM classes (the paper's open question): `None`.
pub fn erm_lower(class: Class, c: &BoundConstants, s: f64, erm: bool) -> Option<f64> {
    if !erm {
        return None;
    }
    let lr = c.lipschitz * c.radius;
    Some(match class {
        Class::StronglyConvex | Class::StronglyConvexSmooth => lr * (s * s).min(1.0),
        Class::Convex | Class::ConvexSmooth => lr * s.min(1.0),
    })
}

/// The lower bound's ratio s: d/(εn) for δ = 0, √d/(εn) for δ > 0 (no K_δ factor).
pub fn lower_ratio(d: usize, n: usize, epsilon: f64, regime: Regime) -> f64 {
    let d = d as f64;
    let num = if regime == Regime::Pure {
        d
    } else {
        libm::sqrt(d)
    };
    num / (epsilon * n as f64)
}

/// min{LR, bound}: the trivial algorithm that outputs 0 has excess ≤ LR (Remark 2.1).
pub fn cap(bound: f64, c: &BoundConstants) -> f64 {
    bound.min(c.lipschitz * c.radius)
}

/// Section 4 (SCO): the regularisation λ for the population loss, which adds a 1/√n term to the
/// ERM λ (Lowy & Razaviyayn 2021): class G (Prop 4.3) (L/R)(√r + 1/√n); class J (Prop 4.4)
/// (βL²/R²)^{1/3}(r^{2/3} + 1/√n). Use with Algorithm 6 (`algo::output_perturbation::Regularised`).
pub fn sco_lambda(class: Class, c: &BoundConstants, r: f64, n: usize) -> Option<f64> {
    let inv_sqrt_n = 1.0 / libm::sqrt(n as f64);
    match class {
        Class::Convex => Some(c.lipschitz / c.radius * (libm::sqrt(r) + inv_sqrt_n)),
        Class::ConvexSmooth => Some(
            libm::cbrt(c.smoothness * c.lipschitz * c.lipschitz / (c.radius * c.radius))
                * (libm::pow(r, 2.0 / 3.0) + inv_sqrt_n),
        ),
        Class::StronglyConvex | Class::StronglyConvexSmooth => None,
    }
}

/// Section 4 (SCO): expected excess **population** loss, practical bounds with the corollaries'
/// constants (Lowy & Razaviyayn 2021), r the ERM privacy ratio:
///
/// | class | δ = 0 | δ > 0 |
/// |---|---|---|
/// | F (Cor 4.1) | (L²/μ)(5/n + 9r) | (L²/μ)(5/n + 6r) |
/// | H (Cor 4.2) | (L²/μ)(5/n + 26κr²) | (L²/μ)(5/n + 13.5κr²) |
/// | G (Cor 4.3) | 32·LR(√r + 1/√n) | 32·LR(√r + 1/√n) |
/// | J (Cor 4.4) | 128·β^{1/3}L^{2/3}R^{4/3}(1/√n + r^{2/3}) | same |
pub fn sco_practical_upper(
    class: Class,
    regime: Regime,
    c: &BoundConstants,
    r: f64,
    n: usize,
) -> f64 {
    let (l, mu, beta, rad) = (c.lipschitz, c.strong_convexity, c.smoothness, c.radius);
    let nf = n as f64;
    let pure = regime == Regime::Pure;
    match class {
        Class::StronglyConvex => l * l / mu * (5.0 / nf + if pure { 9.0 } else { 6.0 } * r),
        Class::StronglyConvexSmooth => {
            l * l / mu * (5.0 / nf + if pure { 26.0 } else { 13.5 } * (beta / mu) * r * r)
        }
        Class::Convex => 32.0 * l * rad * (libm::sqrt(r) + 1.0 / libm::sqrt(nf)),
        Class::ConvexSmooth => {
            128.0
                * libm::cbrt(beta)
                * libm::pow(l, 2.0 / 3.0)
                * libm::pow(rad, 4.0 / 3.0)
                * (1.0 / libm::sqrt(nf) + libm::pow(r, 2.0 / 3.0))
        }
    }
}

/// The generalisation (uniform-stability) term added to an empirical bound to get a population
/// bound (Lemma 4.1/4.2, Lowy & Razaviyayn 2021): 2L²/(μn) for the exact minimiser, L·Δ_T for the
/// practical release (the release is L·Δ_T-uniformly stable).
pub fn stability_term(
    lipschitz: f64,
    strong_convexity: f64,
    n: usize,
    total_sensitivity: Option<f64>,
) -> f64 {
    match total_sensitivity {
        Some(delta_t) => lipschitz * delta_t,
        None => 2.0 * lipschitz * lipschitz / (strong_convexity * n as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::calibration::GaussianMethod;

    #[test]
    fn sco_terms_add_the_non_private_rate() {
        let c = BoundConstants {
            lipschitz: 1.0,
            strong_convexity: 0.1,
            smoothness: 0.5,
            radius: 2.0,
        };
        // As r → 0 the population bounds keep the non-private rate: 5L²/(μn) for F and H,
        // 32LR/√n for G, 128β^{1/3}L^{2/3}R^{4/3}/√n for J.
        let n = 10_000;
        assert!(
            (sco_practical_upper(Class::StronglyConvex, Regime::Pure, &c, 0.0, n) - 5e-3).abs()
                < 1e-15
        );
        assert!(
            (sco_practical_upper(Class::Convex, Regime::Pure, &c, 0.0, n) - 0.64).abs() < 1e-12
        );
        // λ of Prop 4.3 at r = 0 is (L/R)/√n.
        assert!((sco_lambda(Class::Convex, &c, 0.0, n).unwrap() - 0.005).abs() < 1e-15);
        assert!(sco_lambda(Class::StronglyConvex, &c, 0.1, n).is_none());
        // Stability: 2L²/(μn) = 2e-3 conceptually; L·Δ_T for a release.
        assert!((stability_term(1.0, 0.1, n, None) - 2e-3).abs() < 1e-15);
        assert_eq!(stability_term(2.0, 0.1, n, Some(0.01)), 0.02);
    }

    #[test]
    fn mean_norms_match_closed_forms() {
        // Gamma(d, b) has mean db; σχ_d has mean σ√2Γ((d+1)/2)/Γ(d/2): σ√(2/π) for d = 1 and
        // σ√π/√2 for d = 2; always ≤ σ√d.
        let lap = NoiseLaw::L2Laplace { scale: 0.5 };
        assert_eq!(mean_norm(&lap, 4), 2.0);
        let g = NoiseLaw::Gaussian {
            sigma: 2.0,
            method: GaussianMethod::Zwb,
        };
        assert!((mean_norm(&g, 1) - 2.0 * libm::sqrt(2.0 / core::f64::consts::PI)).abs() < 1e-12);
        assert!((mean_norm(&g, 2) - 2.0 * libm::sqrt(core::f64::consts::PI / 2.0)).abs() < 1e-12);
        for d in 1..50 {
            assert!(mean_norm(&g, d) <= 2.0 * libm::sqrt(d as f64));
        }
        // (β/2)E‖z‖² with E‖z‖² = d(d+1)b² (Lemma B.3): d = 2, b = 0.5, β = 4 → 2·1.5 = 3.
        assert!((smooth_unprojected(0.0, 4.0, &lap, 2) - 3.0).abs() < 1e-15);
    }

    #[test]
    fn closed_forms_scale_as_the_tables_say_and_sit_above_the_floor() {
        let c = BoundConstants {
            lipschitz: 1.0,
            strong_convexity: 0.1,
            smoothness: 0.5,
            radius: 2.0,
        };
        // H is quadratic in r, F linear, G square root, J power 2/3: halving r divides them by
        // 4, 2, √2 and 2^{2/3}.
        for (class, factor) in [
            (Class::StronglyConvexSmooth, 4.0),
            (Class::StronglyConvex, 2.0),
            (Class::Convex, core::f64::consts::SQRT_2),
            (Class::ConvexSmooth, libm::pow(2.0, 2.0 / 3.0)),
        ] {
            for regime in [Regime::Pure, Regime::Approx] {
                let ratio = practical_upper(class, regime, &c, 0.02)
                    / practical_upper(class, regime, &c, 0.01);
                assert!((ratio - factor).abs() < 1e-12, "{class:?}");
                assert!(
                    conceptual_upper(class, regime, &c, 0.01)
                        < practical_upper(class, regime, &c, 0.01)
                );
            }
            // The floor (constant 1) stays below the capped upper bound (r = s for δ = 0).
            for n in [100, 1000, 10_000] {
                let s = lower_ratio(3, n, 1.0, Regime::Pure);
                let lower = erm_lower(class, &c, s, true).unwrap();
                assert!(lower <= cap(practical_upper(class, Regime::Pure, &c, s), &c) + 1e-15);
            }
            assert!(erm_lower(class, &c, 0.1, false).is_none());
        }
        assert_eq!(
            practical_upper(Class::StronglyConvex, Regime::Pure, &c, 0.01),
            9.0 * 10.0 * 0.01
        );
    }
}
