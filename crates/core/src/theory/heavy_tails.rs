//! The excess population risk bounds of pure ε-DP stochastic convex optimisation with heavy
//! tails (A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization
//! with Heavy Tails", 2026), as Lowy 2026 lists them for plotting beside measurements.
//!
//! The paper never gives its absolute constants, so every function sets them to 1: the curves are
//! "up to constants" and say so. δ here is a **failure probability** (the bounds hold with
//! probability ≥ 1 − δ, or ≥ δ for the lower bound), never a DP parameter (Lowy 2026);
//! the approximate-DP reference omits its polylog(1/δ_DP) factor.
//!
//! | curve | formula (c = 1) | source |
//! |---|---|---|
//! | [`pure_upper`] | G_k·D·(d·ln(1/δ)/(nε))^(1−1/k) + G₂·D·√(ln(1/δ)/n) | Theorem 3.1 |
//! | [`pure_lower`] | D·min{G₁, G₂·√(ln(1/δ)/n) + G_k·((d + ln(1/δ))/(nε))^(1−1/k)}, ε ≤ 1 | Theorem 4.1 |
//! | [`pure_lower_in_expectation`] | G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n | Barber–Duchi 2014 |
//! | [`approximate_dp`] | G₂·D/√n + G_k·D·(√d/(nε))^(1−1/k) | Asi–Liu–Tian 2024, Lowy–Razaviyayn 2025 |
//! | [`trivial`] | D·G₁ | any fixed point |
//!
//! Against n on log-log axes every private term has slope −(1 − 1/k) (−1 for bounded gradients);
//! pure DP pays d/(nε) inside the power where approximate DP pays √d/(nε). Nothing here reads
//! data: every argument is declared.

/// The declared numbers the bounds are functions of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// n, the sample size.
    pub n: f64,
    /// d, the dimension.
    pub d: f64,
    /// ε (pure DP).
    pub epsilon: f64,
    /// The moment order k ≥ 2.
    pub k: f64,
    /// G₁ = E A(z), the mean per-record Lipschitz constant.
    pub g1: f64,
    /// G₂ = (E A(z)²)^(1/2).
    pub g2: f64,
    /// G_k = (E A(z)^k)^(1/k).
    pub gk: f64,
    /// D, the diameter of W.
    pub diameter: f64,
    /// ln(1/δ) for the failure probability δ of the high-probability bounds.
    pub log_inv_delta: f64,
}

impl Rates {
    /// The exponent 1 − 1/k of the private term.
    fn power(&self) -> f64 {
        1.0 - 1.0 / self.k
    }
}

/// Theorem 3.1's upper bound, attained by Localized Double Output Perturbation with probability
/// ≥ 1 − δ: G_k·D·(d·ln(1/δ)/(nε))^(1−1/k) + G₂·D·√(ln(1/δ)/n), constants 1.
pub fn pure_upper(r: &Rates) -> f64 {
    r.gk * r.diameter * libm::pow(r.d * r.log_inv_delta / (r.n * r.epsilon), r.power())
        + r.g2 * r.diameter * (r.log_inv_delta / r.n).sqrt()
}

/// Theorem 4.1's high-probability lower bound: for every ε-DP algorithm some distribution makes
/// the excess at least D·min{G₁, G₂·√(ln(1/δ)/n) + G_k·((d + ln(1/δ))/(nε))^(1−1/k)} with
/// probability ≥ δ (constant 1). Stated for ε ≤ 1 and δ < 1/5: `None` outside.
pub fn pure_lower(r: &Rates) -> Option<f64> {
    if r.epsilon > 1.0 || r.log_inv_delta <= libm::log(5.0) {
        return None;
    }
    let private = r.gk * libm::pow((r.d + r.log_inv_delta) / (r.n * r.epsilon), r.power());
    let statistical = r.g2 * (r.log_inv_delta / r.n).sqrt();
    Some(r.diameter * r.g1.min(statistical + private))
}

/// The in-expectation pure-DP lower bound (Barber and Duchi 2014, as Lowy 2026 cites it):
/// G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n, constants 1.
pub fn pure_lower_in_expectation(r: &Rates) -> f64 {
    r.gk * r.diameter * libm::pow(r.d / (r.n * r.epsilon), r.power())
        + r.g2 * r.diameter / r.n.sqrt()
}

/// The optimal approximate (ε, δ_DP)-DP rate (Asi, Liu and Tian 2024 upper, Lowy and Razaviyayn
/// 2025 lower), polylog(1/δ_DP) left out: G₂·D/√n + G_k·D·(√d/(nε))^(1−1/k), constants 1.
pub fn approximate_dp(r: &Rates) -> f64 {
    r.g2 * r.diameter / r.n.sqrt()
        + r.gk * r.diameter * libm::pow(r.d.sqrt() / (r.n * r.epsilon), r.power())
}

/// The trivial excess D·G₁ of any fixed point: every bound above is worth drawing only below it.
pub fn trivial(r: &Rates) -> f64 {
    r.diameter * r.g1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    /// Lowy 2026's worked example's constants, with G₁ = 1 and δ = 0.1.
    fn example() -> Rates {
        Rates {
            n: 1e5,
            d: 10.0,
            epsilon: 1.0,
            k: 3.0,
            g1: 1.0,
            g2: 1.5,
            gk: 2.0,
            diameter: 2.0,
            log_inv_delta: libm::log(10.0),
        }
    }

    #[test]
    fn the_bounds_are_the_papers_formulas() {
        // Values from an independent transcription of Lowy 2026 (Python, math.log/pow).
        let r = example();
        assert!(
            close(pure_upper(&r), 0.029_422_514_211_152_287),
            "{}",
            pure_upper(&r)
        );
        assert!(close(pure_lower(&r).unwrap(), 0.024_290_010_683_944_47));
        assert!(close(
            pure_lower_in_expectation(&r),
            0.018_104_571_740_632_666
        ));
        assert!(close(approximate_dp(&r), 0.013_486_832_980_505_136));
        assert!(close(trivial(&r), 2.0));
        // The lower bound is capped at the trivial excess where n is small.
        let small = Rates { n: 10.0, ..r };
        assert!(close(pure_lower(&small).unwrap(), trivial(&small)));
        // Outside Theorem 4.1's range (ε > 1, or δ ≥ 1/5) no lower bound is stated.
        assert_eq!(pure_lower(&Rates { epsilon: 2.0, ..r }), None);
        assert_eq!(
            pure_lower(&Rates {
                log_inv_delta: libm::log(4.0),
                ..r
            }),
            None
        );
    }

    #[test]
    fn the_private_terms_fall_at_one_minus_one_over_k_and_pure_dp_pays_d_not_root_d() {
        // With G₂ = 0 only the private terms remain: a 16-fold n divides them by 16^(1−1/k).
        let r = Rates {
            g2: 0.0,
            ..example()
        };
        let big = Rates { n: 16.0 * r.n, ..r };
        let slope = |f: fn(&Rates) -> f64| libm::log(f(&big) / f(&r)) / libm::log(16.0);
        for f in [pure_upper, pure_lower_in_expectation, approximate_dp] {
            assert!((slope(f) + 2.0 / 3.0).abs() < 1e-12, "{}", slope(f));
        }
        // The same against ε: the private terms fall at −(1 − 1/k) in ε too.
        let eps = Rates {
            epsilon: 0.0625,
            ..r
        };
        let in_eps = libm::log(pure_upper(&eps) / pure_upper(&r)) / libm::log(1.0 / 16.0);
        assert!((in_eps + 2.0 / 3.0).abs() < 1e-12, "{in_eps}");
        // Pure over approximate DP: (d/√d)^(1−1/k) = √d^(1−1/k) in the private term.
        let ratio = pure_lower_in_expectation(&r) / approximate_dp(&r);
        assert!(close(ratio, libm::pow(10f64.sqrt(), 2.0 / 3.0)), "{ratio}");
        // The statistical term falls at −1/2 whatever k.
        let stat = Rates {
            gk: 0.0,
            ..example()
        };
        let big = Rates {
            n: 16.0 * stat.n,
            ..stat
        };
        let s = libm::log(pure_upper(&big) / pure_upper(&stat)) / libm::log(16.0);
        assert!((s + 0.5).abs() < 1e-12, "{s}");
    }
}
