//! Guarantee types and the conversions between them.
//!
//! Each type carries the neighbouring [`Relation`] it assumes: a guarantee under add/remove and
//! one under replace-one are different statements, and composition refuses to mix them.
//!
//! | type | statement | ⇒ (ε, δ) |
//! |---|---|---|
//! | [`PureDp`] | P[M(D)∈S] ≤ e^ε P[M(D′)∈S] | δ = 0 |
//! | [`ApproxDp`] | P[M(D)∈S] ≤ e^ε P[M(D′)∈S] + δ | itself |
//! | [`Zcdp`] | D_α(M(D)‖M(D′)) ≤ ρα for all α > 1 (Bun & Steinke 2016) | [`Zcdp::epsilon`] |
//! | [`Rdp`] | D_α(M(D)‖M(D′)) ≤ ε(α) at listed orders (Mironov 2017) | [`Rdp::epsilon`] |

use serde::{Deserialize, Serialize};

use super::{Relation, check_delta};
use crate::error::{Error, Result};

fn check_nonnegative(field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(field, "a finite number ≥ 0", value))
    }
}

/// Pure ε-DP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PureDp {
    /// ε ≥ 0.
    pub epsilon: f64,
    /// The neighbouring relation assumed.
    pub relation: Relation,
}

impl PureDp {
    /// ε must be finite and ≥ 0.
    pub fn new(epsilon: f64, relation: Relation) -> Result<Self> {
        check_nonnegative("epsilon", epsilon)?;
        Ok(Self { epsilon, relation })
    }

    /// ε-DP ⇒ (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4).
    pub fn to_zcdp(self) -> Zcdp {
        Zcdp {
            rho: 0.5 * self.epsilon * self.epsilon,
            relation: self.relation,
        }
    }

    /// ε-DP is (ε, 0)-DP.
    pub fn to_approx(self) -> ApproxDp {
        ApproxDp {
            epsilon: self.epsilon,
            delta: 0.0,
            relation: self.relation,
        }
    }
}

/// Approximate (ε, δ)-DP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ApproxDp {
    /// ε ≥ 0.
    pub epsilon: f64,
    /// δ ∈ [0, 1).
    pub delta: f64,
    /// The neighbouring relation assumed.
    pub relation: Relation,
}

impl ApproxDp {
    /// ε finite ≥ 0, δ ∈ [0, 1).
    pub fn new(epsilon: f64, delta: f64, relation: Relation) -> Result<Self> {
        check_nonnegative("epsilon", epsilon)?;
        if !(0.0..1.0).contains(&delta) {
            return Err(Error::invalid("delta", "a number in [0, 1)", delta));
        }
        Ok(Self {
            epsilon,
            delta,
            relation,
        })
    }
}

/// ρ-zero-concentrated DP (Bun & Steinke 2016, Def. 1.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Zcdp {
    /// ρ ≥ 0.
    pub rho: f64,
    /// The neighbouring relation assumed.
    pub relation: Relation,
}

impl Zcdp {
    /// ρ must be finite and ≥ 0.
    pub fn new(rho: f64, relation: Relation) -> Result<Self> {
        check_nonnegative("rho", rho)?;
        Ok(Self { rho, relation })
    }

    /// The Gaussian mechanism with ℓ2 sensitivity Δ and noise σ is Δ²/(2σ²)-zCDP
    /// (Bun & Steinke 2016, Prop. 1.6).
    pub fn gaussian(sensitivity: f64, sigma: f64, relation: Relation) -> Result<Self> {
        super::check_sensitivity(sensitivity)?;
        crate::noise::Gaussian::new(sigma)?;
        Self::new(sensitivity * sensitivity / (2.0 * sigma * sigma), relation)
    }

    /// The tightest standard conversion to (ε, δ)-DP: ρ-zCDP is (α, αρ)-RDP for every α > 1, and
    /// the RDP conversion of Canonne, Kamath & Steinke (2020, Prop. 12; equivalently Asoodeh et
    /// al. 2021) gives ε = inf_{α>1} [αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)].
    ///
    /// The infimum is taken numerically (a log-spaced grid of α − 1 over [10⁻⁴, 10⁸], refined by
    /// golden-section search around the best point). Any α gives a valid bound, so an
    /// imperfect minimisation can only make the answer conservative, never unsafe. Never larger
    /// than [`Zcdp::epsilon_bun_steinke`].
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        if self.rho == 0.0 {
            return Ok(0.0);
        }
        let f = |t: f64| {
            let alpha = 1.0 + libm::exp(t);
            rdp_to_dp(alpha, alpha * self.rho, delta)
        };
        let (lo_t, hi_t) = (libm::log(1e-4), libm::log(1e8));
        let grid = 400;
        let step = (hi_t - lo_t) / grid as f64;
        let mut best = (lo_t, f(lo_t));
        for i in 1..=grid {
            let t = lo_t + step * i as f64;
            let v = f(t);
            if v < best.1 {
                best = (t, v);
            }
        }
        // Golden-section search inside the grid cell pair around the best point.
        let (mut a, mut b) = (best.0 - step, best.0 + step);
        let g = 0.5 * (libm::sqrt(5.0) - 1.0);
        for _ in 0..60 {
            let (c, d) = (b - g * (b - a), a + g * (b - a));
            if f(c) < f(d) {
                b = d;
            } else {
                a = c;
            }
        }
        let refined = f(0.5 * (a + b));
        Ok(refined
            .min(best.1)
            .min(self.epsilon_bun_steinke(delta))
            .max(0.0))
    }

    /// The classic conversion ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3), looser
    /// than [`Zcdp::epsilon`] but invertible in closed form (see [`super::zcdp`]).
    pub fn epsilon_bun_steinke(&self, delta: f64) -> f64 {
        super::zcdp::epsilon_for_rho(self.rho, delta)
    }

    /// The RDP curve ε(α) = ρα at the given orders.
    pub fn to_rdp(&self, orders: &[f64]) -> Result<Rdp> {
        Rdp::new(
            orders.to_vec(),
            orders.iter().map(|a| a * self.rho).collect(),
            self.relation,
        )
    }
}

/// RDP → (ε, δ) at one order (Canonne, Kamath & Steinke 2020, Prop. 12; Balle et al. 2020,
/// Thm 21): ε = ε(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1). Also applies the total-variation
/// shortcut used by dp_accounting: if δ² ≥ 1 − e^{−ε(α)} then ε = 0, since ε(α) ≥ KL and
/// TV ≤ √(1 − e^{−KL}) (Bretagnolle–Huber), and (0, δ)-DP is TV ≤ δ.
pub fn rdp_to_dp(alpha: f64, rdp: f64, delta: f64) -> f64 {
    if delta * delta + libm::expm1(-rdp) > 0.0 {
        return 0.0;
    }
    rdp + libm::log1p(-1.0 / alpha) - (libm::log(delta) + libm::log(alpha)) / (alpha - 1.0)
}

/// A Rényi-DP curve: (α, ε(α))-RDP at each listed order α > 1 (Mironov 2017, Def. 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rdp {
    /// Orders α > 1, strictly increasing.
    pub orders: Vec<f64>,
    /// ε(α) ≥ 0 at each order (+∞ allowed: no guarantee at that order).
    pub epsilons: Vec<f64>,
    /// The neighbouring relation assumed.
    pub relation: Relation,
}

impl Rdp {
    /// Checks the orders (> 1, finite, increasing) and the values (≥ 0, not NaN).
    pub fn new(orders: Vec<f64>, epsilons: Vec<f64>, relation: Relation) -> Result<Self> {
        if orders.is_empty() || orders.len() != epsilons.len() {
            return Err(Error::DimensionMismatch {
                what: "RDP values per order",
                expected: orders.len(),
                got: epsilons.len(),
            });
        }
        if let Some(a) = orders.iter().find(|a| !(a.is_finite() && **a > 1.0)) {
            return Err(Error::invalid("order", "finite orders α > 1", a));
        }
        if orders.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::invalid(
                "order",
                "strictly increasing orders",
                "unsorted",
            ));
        }
        if let Some(e) = epsilons.iter().find(|e| e.is_nan() || **e < 0.0) {
            return Err(Error::invalid("rdp", "values ≥ 0", e));
        }
        Ok(Self {
            orders,
            epsilons,
            relation,
        })
    }

    /// The best (ε, α) over the listed orders by the conversion of Canonne, Kamath & Steinke
    /// (2020, Prop. 12), the one dp_accounting's `RdpAccountant` uses. ε ≥ 0.
    pub fn epsilon(&self, delta: f64) -> Result<(f64, f64)> {
        check_delta(delta)?;
        let mut best = (f64::INFINITY, self.orders[0]);
        for (&a, &r) in self.orders.iter().zip(&self.epsilons) {
            let e = rdp_to_dp(a, r, delta);
            if e < best.0 {
                best = (e, a);
            }
        }
        Ok((best.0.max(0.0), best.1))
    }
}

/// Any one of the guarantee types, for ledgers and generic displays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrivacyLoss {
    /// Pure ε-DP.
    Pure(PureDp),
    /// (ε, δ)-DP.
    Approx(ApproxDp),
    /// ρ-zCDP.
    Zcdp(Zcdp),
    /// An RDP curve.
    Rdp(Rdp),
}

impl PrivacyLoss {
    /// The relation the loss assumes.
    pub fn relation(&self) -> Relation {
        match self {
            PrivacyLoss::Pure(p) => p.relation,
            PrivacyLoss::Approx(p) => p.relation,
            PrivacyLoss::Zcdp(p) => p.relation,
            PrivacyLoss::Rdp(p) => p.relation,
        }
    }

    /// The loss as (ε, δ)-DP at the given δ (pure and approximate losses ignore `delta` and
    /// report their own δ).
    pub fn to_approx(&self, delta: f64) -> Result<ApproxDp> {
        match self {
            PrivacyLoss::Pure(p) => Ok(p.to_approx()),
            PrivacyLoss::Approx(p) => Ok(*p),
            PrivacyLoss::Zcdp(p) => ApproxDp::new(p.epsilon(delta)?, delta, p.relation),
            PrivacyLoss::Rdp(p) => ApproxDp::new(p.epsilon(delta)?.0, delta, p.relation),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Relation = Relation::AddRemove;

    #[test]
    fn zcdp_conversion_is_tighter_than_bun_steinke_and_matches_the_rdp_path() {
        for &(rho, delta) in &[(0.01, 1e-5), (0.5, 1e-6), (3.0, 1e-3), (1e-4, 1e-9)] {
            let z = Zcdp::new(rho, R).unwrap();
            let tight = z.epsilon(delta).unwrap();
            assert!(tight <= z.epsilon_bun_steinke(delta));
            // Through an RDP curve on a dense grid of orders (α − 1 log-spaced over [1e-3, 1e5],
            // ratio 1.0009 between neighbours): the continuous infimum is at most the grid
            // minimum, and within 1e-4 of it.
            let orders: Vec<f64> = (0..20_000)
                .map(|i| 1.0 + 1e-3 * libm::pow(1e8, i as f64 / 20_000.0))
                .collect();
            let (grid, _) = z.to_rdp(&orders).unwrap().epsilon(delta).unwrap();
            assert!(
                tight <= grid + 1e-12 && grid - tight < 1e-4 * grid.max(1.0),
                "{tight} {grid}"
            );
        }
    }

    #[test]
    fn pure_to_zcdp() {
        let z = PureDp::new(0.5, R).unwrap().to_zcdp();
        assert_eq!(z.rho, 0.125);
        assert_eq!(z.relation, R);
    }

    #[test]
    fn invalid_values_are_named() {
        assert!(
            matches!(PureDp::new(-1.0, R), Err(Error::InvalidParameter { field, .. }) if field == "epsilon")
        );
        assert!(
            matches!(ApproxDp::new(1.0, 1.0, R), Err(Error::InvalidParameter { field, .. }) if field == "delta")
        );
        assert!(
            matches!(Zcdp::new(f64::NAN, R), Err(Error::InvalidParameter { field, .. }) if field == "rho")
        );
        assert!(Rdp::new(vec![1.0], vec![0.1], R).is_err());
        assert!(Rdp::new(vec![3.0, 2.0], vec![0.1, 0.1], R).is_err());
        assert!(Rdp::new(vec![2.0], vec![0.1, 0.2], R).is_err());
        assert!(matches!(
            Zcdp::new(1.0, R).unwrap().epsilon(0.0),
            Err(Error::InvalidParameter { field, .. }) if field == "delta"
        ));
    }
}
