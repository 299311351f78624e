//! Special functions and exact tests used by the calibration, the audit and the goodness-of-fit
//! tests: the normal CDF in log space, regularised incomplete gamma and beta functions, the
//! Clopper–Pearson interval, and the Kolmogorov distribution.
//!
//! Everything goes through `libm` (never the `f64` methods), so a value is the same bits natively
//! and in the browser. These are small textbook algorithms, written here rather than pulling a
//! statistics crate into the wasm bundle; each cites its source.

#![deny(missing_docs)]

use crate::error::{Error, Result};

/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Φ(x), the standard normal CDF: ½ erfc(−x/√2) (accurate in both tails, unlike ½(1 + erf)).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / core::f64::consts::SQRT_2)
}

/// ln Φ(x), finite for every finite x.
///
/// For x < −30, erfc is within a few hundred powers of ten of underflow, so we switch to the
/// asymptotic expansion Φ(x) = φ(x)/|x| · (1 − x⁻² + 3x⁻⁴ − 15x⁻⁶ + 105x⁻⁸ − …)
/// (Abramowitz & Stegun 26.2.12); the first omitted term is 945/x¹⁰ < 2·10⁻¹², which bounds the
/// relative error. For x > 0 we use log1p of the upper tail, which avoids ln(1 − tiny) rounding.
pub fn ln_normal_cdf(x: f64) -> f64 {
    if x > 0.0 {
        libm::log1p(-normal_cdf(-x))
    } else if x > -30.0 {
        libm::log(normal_cdf(x))
    } else {
        let r = 1.0 / (x * x);
        let series = 1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r)));
        -0.5 * x * x - LN_SQRT_2PI - libm::log(-x) + libm::log(series)
    }
}

/// ln Γ(x) for x > 0.
pub fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// ln C(n, k) = ln n! − ln k! − ln (n−k)!, through ln Γ.
pub fn ln_binomial(n: u32, k: u32) -> f64 {
    let (n, k) = (f64::from(n), f64::from(k));
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

/// ln Σ exp(vᵢ), stable for any magnitudes; −∞ for an empty or all −∞ input.
pub fn log_sum_exp(values: impl IntoIterator<Item = f64> + Clone) -> f64 {
    let m = values.clone().into_iter().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + libm::log(values.into_iter().map(|v| libm::exp(v - m)).sum::<f64>())
}

/// Regularised lower incomplete gamma P(a, x) = γ(a, x)/Γ(a), a > 0, x ≥ 0.
///
/// Series for x < a + 1, Legendre continued fraction (modified Lentz) otherwise: Press et al.,
/// *Numerical Recipes* (3rd ed.) §6.2, whose split keeps both branches fast and accurate to
/// ≈ 1e-15 relative.
pub fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x < a + 1.0 {
        gamma_series(a, x)
    } else {
        1.0 - gamma_continued_fraction(a, x)
    }
}

/// Regularised upper incomplete gamma Q(a, x) = 1 − P(a, x), computed without cancellation.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    if x < a + 1.0 {
        1.0 - gamma_series(a, x)
    } else {
        gamma_continued_fraction(a, x)
    }
}

fn gamma_series(a: f64, x: f64) -> f64 {
    let mut ap = a;
    let mut term = 1.0 / a;
    let mut sum = term;
    for _ in 0..100_000 {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if term.abs() < sum.abs() * 1e-16 {
            break;
        }
    }
    sum * libm::exp(-x + a * libm::log(x) - ln_gamma(a))
}

fn gamma_continued_fraction(a: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..100_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    libm::exp(-x + a * libm::log(x) - ln_gamma(a)) * h
}

/// χ² survival function: P(X ≥ x) for X ~ χ²_k, i.e. Q(k/2, x/2).
pub fn chi_square_sf(x: f64, k: f64) -> f64 {
    gamma_q(k / 2.0, x / 2.0)
}

/// Regularised incomplete beta I_x(a, b), a, b > 0, x ∈ [0, 1].
///
/// Continued fraction (modified Lentz), applied directly for x < (a+1)/(a+b+2) and through the
/// symmetry I_x(a,b) = 1 − I_{1−x}(b,a) otherwise: Press et al., *Numerical Recipes* §6.4 (DLMF
/// 8.17.22). The fraction needs O(√max(a, b)) terms, so counts of 10⁶ cost a few thousand.
pub fn beta_inc(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front =
        ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * libm::log(x) + b * libm::log1p(-x);
    if x < (a + 1.0) / (a + b + 2.0) {
        libm::exp(ln_front) * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - libm::exp(ln_front) * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let floor = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / floor(1.0 - qab * x / qap);
    let mut h = d;
    // One modified-Lentz step with coefficient `aa`: updates C and D, returns the factor C·D.
    let mut lentz = |aa: f64| {
        d = 1.0 / floor(1.0 + aa * d);
        c = floor(1.0 + aa / c);
        d * c
    };
    for m in 1..1_000_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= lentz(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let delta = lentz(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// A bracket [lo, hi] around the x with I_x(a, b) = p, found by bisection on [0, 1] (I_x is
/// increasing in x): I_lo(a,b) < p ≤ I_hi(a,b) up to the accuracy of I, with hi − lo ≤
/// 1e-12·hi. Returning both ends lets callers round conservatively in their own direction.
pub fn beta_inc_inv_bracket(a: f64, b: f64, p: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..1100 {
        if hi - lo <= 1e-12 * hi {
            break;
        }
        let mid = 0.5 * (lo + hi);
        if beta_inc(a, b, mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// The x with I_x(a, b) = p (midpoint of [`beta_inc_inv_bracket`]).
pub fn beta_inc_inv(a: f64, b: f64, p: f64) -> f64 {
    let (lo, hi) = beta_inc_inv_bracket(a, b, p);
    0.5 * (lo + hi)
}

/// The standard normal quantile Φ⁻¹(p), p ∈ (0, 1), by bisection on [`normal_cdf`] (accurate to
/// ~1e-15 absolute; used once per audit, so speed does not matter).
pub fn normal_quantile(p: f64) -> f64 {
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Wilson (1927) score interval for k successes in n trials at normal quantile z: a cheap,
/// closed-form approximation of [`clopper_pearson`] (not conservative; use it to rank options,
/// never to state a bound).
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z2 / n;
    (
        ((centre - spread) / denom).max(0.0),
        ((centre + spread) / denom).min(1.0),
    )
}

/// One-sided Clopper–Pearson (1934) bounds for a binomial proportion after `k` successes in `n`
/// trials: `lower` satisfies P(p < lower) ≤ α and `upper` satisfies P(p > upper) ≤ α.
///
/// Exact (conservative) by construction: lower = B⁻¹(α; k, n−k+1), upper = B⁻¹(1−α; k+1, n−k),
/// with the conventions lower = 0 at k = 0 and upper = 1 at k = n.
pub fn clopper_pearson(k: u64, n: u64, alpha: f64) -> Result<(f64, f64)> {
    if n == 0 || k > n {
        return Err(Error::invalid(
            "trials",
            "n ≥ 1 and k ≤ n",
            format!("k = {k}, n = {n}"),
        ));
    }
    if !(alpha > 0.0 && alpha < 0.5) {
        return Err(Error::invalid("alpha", "a number in (0, 0.5)", alpha));
    }
    let (kf, nf) = (k as f64, n as f64);
    // Each bound takes the conservative end of its bracket.
    let lower = if k == 0 {
        0.0
    } else {
        beta_inc_inv_bracket(kf, nf - kf + 1.0, alpha).0
    };
    let upper = if k == n {
        1.0
    } else {
        beta_inc_inv_bracket(kf + 1.0, nf - kf, 1.0 - alpha).1
    };
    Ok((lower, upper))
}

/// The Kolmogorov–Smirnov statistic D = sup |Fₙ(x) − F(x)| of `sample` against the continuous CDF
/// `cdf`. Sorts `sample` in place.
pub fn ks_statistic(sample: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    sample.sort_by(f64::total_cmp);
    let n = sample.len() as f64;
    sample
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i as f64 + 1.0) / n - f)
        })
        .fold(0.0, f64::max)
}

/// P(D ≥ d) for the KS statistic of n draws from the hypothesised law.
///
/// Kolmogorov's limit law Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²λ²} evaluated at Stephens' (1970)
/// finite-n argument λ = (√n + 0.12 + 0.11/√n)·d (Press et al., *Numerical Recipes* §14.3.3).
/// For the n ≥ 10⁴ used in our tests the approximation error is far below the α = 10⁻⁶ we test at.
pub fn ks_pvalue(d: f64, n: usize) -> f64 {
    let sn = (n as f64).sqrt();
    let lambda = (sn + 0.12 + 0.11 / sn) * d;
    if lambda < 0.2 {
        return 1.0;
    }
    let mut sum = 0.0;
    for k in 1..=100 {
        let k = k as f64;
        let term = libm::exp(-2.0 * k * k * lambda * lambda);
        sum += if k as u32 % 2 == 1 { term } else { -term };
        if term < 1e-18 {
            break;
        }
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// Σ values by Neumaier's compensated summation: error ≤ 2ε·|Σ| + O(nε²)·Σ|values|, instead of
/// a sequential sum's (n − 1)ε·Σ|values|. Used where a certificate must bound its own rounding
/// (`reference/tilted.rs`, `reference/adversarial.rs`).
pub fn compensated_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        carry += if sum.abs() >= x.abs() {
            (sum - t) + x
        } else {
            (x - t) + sum
        };
        sum = t;
    }
    sum + carry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_log_cdf_matches_direct_and_asymptotic_branches() {
        // Reference values from the closed form Φ(x) = ½erfc(−x/√2) in high precision (mpmath):
        // ln Φ(−40) = −804.6084420137538, ln Φ(−5) = −15.064998393988725.
        assert!((ln_normal_cdf(-40.0) / -804.608_442_013_753_8 - 1.0).abs() < 1e-13);
        assert!((ln_normal_cdf(-5.0) / -15.064_998_393_988_725 - 1.0).abs() < 1e-13);
        // Continuity across the branch switch at −30.
        let (a, b) = (ln_normal_cdf(-30.0 + 1e-9), ln_normal_cdf(-30.0 - 1e-9));
        assert!((a - b).abs() < 1e-6, "{a} {b}");
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-16);
    }

    #[test]
    fn incomplete_gamma_known_values() {
        // P(1, x) = 1 − e^{−x}; P(k, x) for integer k is a Poisson tail: P(3, 2) = 1 − 5e^{−2}.
        assert!((gamma_p(1.0, 0.7) - (1.0 - libm::exp(-0.7))).abs() < 1e-15);
        assert!((gamma_p(3.0, 2.0) - (1.0 - 5.0 * libm::exp(-2.0))).abs() < 1e-15);
        assert!((gamma_q(3.0, 10.0) - 61.0 * libm::exp(-10.0)).abs() < 1e-15);
        // χ²₂ survival is e^{−x/2}.
        assert!((chi_square_sf(3.0, 2.0) - libm::exp(-1.5)).abs() < 1e-15);
    }

    #[test]
    fn incomplete_beta_known_values_and_inverse() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(2, 2) = 3x² − 2x³.
        assert!((beta_inc(1.0, 1.0, 0.3) - 0.3).abs() < 1e-15);
        assert!((beta_inc(4.0, 1.0, 0.6) - 0.6f64.powi(4)).abs() < 1e-15);
        let x: f64 = 0.8;
        assert!((beta_inc(2.0, 2.0, x) - (3.0 * x * x - 2.0 * x * x * x)).abs() < 1e-15);
        let x = beta_inc_inv(50.0, 700.0, 0.01);
        assert!((beta_inc(50.0, 700.0, x) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn clopper_pearson_closed_forms() {
        // k = 0: upper = 1 − α^{1/n}; k = n: lower = α^{1/n}.
        let (lo, up) = clopper_pearson(0, 100, 0.05).unwrap();
        assert_eq!(lo, 0.0);
        assert!((up - (1.0 - libm::pow(0.05, 0.01))).abs() < 1e-12);
        let (lo, up) = clopper_pearson(100, 100, 0.05).unwrap();
        assert!((lo - libm::pow(0.05, 0.01)).abs() < 1e-12);
        assert_eq!(up, 1.0);
        assert!(clopper_pearson(3, 2, 0.05).is_err());
        assert!(clopper_pearson(1, 2, 0.0).is_err());
    }

    #[test]
    fn wilson_is_close_to_clopper_pearson_for_large_counts() {
        let z = normal_quantile(1.0 - 5e-4);
        assert!((z - 3.290_526_731_491_926).abs() < 1e-9, "{z}");
        let (lo, up) = clopper_pearson(500, 50_000, 5e-4).unwrap();
        let (wl, wu) = wilson(500, 50_000, z);
        assert!((wl / lo - 1.0).abs() < 0.02 && (wu / up - 1.0).abs() < 0.02);
    }

    #[test]
    fn kolmogorov_tail() {
        // The 5% critical value of the limit law is λ = 1.3581; Q(1.3581) = 0.05.
        assert!((ks_pvalue(1.358_1 / 1e3, 1_000_000) - 0.05).abs() < 2e-4);
        assert_eq!(ks_pvalue(0.0, 100), 1.0);
    }
}
