//! Rényi-DP accounting for the Gaussian and the Poisson-subsampled Gaussian mechanism (DP-SGD),
//! in both directions: noise multiplier → ε, and target ε → noise multiplier.
//!
//! # Model
//! One DP-SGD step includes each record independently with probability q (Poisson sampling),
//! sums the clipped per-record gradients (norm ≤ C) and adds N(0, (zC)²I). Its RDP at integer
//! order α ≥ 2 is (Mironov, Talwar & Zhang 2019, §3.3, integer case; Abadi et al. 2016):
//!
//! ε(α) = ln A_α / (α − 1),  A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k² − k)/(2z²)),
//!
//! evaluated in log space (log-sum-exp, ln C(α,k) through ln Γ). This is the bound under the
//! **add/remove** relation, for which it is proved; the accountant refuses replace-one rather
//! than guess a factor. For q = 1 it is the plain Gaussian's α/(2z²). T steps compose by adding
//! (Mironov 2017, Prop. 1); conversion to (ε, δ) is [`Rdp::epsilon`].
//!
//! # Orders
//! Integer orders 2…256 plus 320, 384, 512, 768, 1024 ([`DEFAULT_ORDERS`]). Fractional orders
//! (which dp_accounting's default grid includes) need the series of Mironov et al. §3.3 and can
//! lower ε slightly; we omit them, which can only make our ε larger, never unsafe.

use super::measures::Rdp;
use super::{Guarantee, Relation, check_delta, check_epsilon};
use crate::error::{Error, Result};
use crate::stats::log_sum_exp;

/// The orders the accountant tracks.
pub const DEFAULT_ORDERS: [u32; 260] = default_orders();

const fn default_orders() -> [u32; 260] {
    let mut out = [0u32; 260];
    let mut i = 0;
    while i < 255 {
        out[i] = i as u32 + 2;
        i += 1;
    }
    let tail = [320, 384, 512, 768, 1024];
    let mut j = 0;
    while j < 5 {
        out[255 + j] = tail[j];
        j += 1;
    }
    out
}

fn check_rate(q: f64) -> Result<()> {
    if (0.0..=1.0).contains(&q) {
        Ok(())
    } else {
        Err(Error::invalid("sampling_rate", "a number in [0, 1]", q))
    }
}

fn check_noise_multiplier(z: f64) -> Result<()> {
    if z.is_finite() && z > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid("noise_multiplier", "a finite number > 0", z))
    }
}

/// RDP ε(α) of one Poisson-subsampled Gaussian step with rate q and noise multiplier z, at
/// integer order α ≥ 2 (see the module docs). Unchecked: callers validate q and z.
pub fn subsampled_gaussian_rdp(q: f64, z: f64, alpha: u32) -> f64 {
    subsampled_gaussian_rdp_curve(q, z, &[alpha])[0]
}

/// [`subsampled_gaussian_rdp`] at several orders, sharing the tables of ln k! and
/// ln(e^{(k²−k)/(2z²)} − 1) across orders (the accountant's calibration evaluates this curve a
/// few dozen times, so it must be cheap even in a debug build or in the browser).
pub fn subsampled_gaussian_rdp_curve(q: f64, z: f64, orders: &[u32]) -> Vec<f64> {
    let max = orders.iter().copied().max().unwrap_or(0) as usize;
    if q == 0.0 {
        return vec![0.0; orders.len()];
    }
    if q == 1.0 {
        return orders
            .iter()
            .map(|&a| f64::from(a) / (2.0 * z * z))
            .collect();
    }
    let (ln_q, ln_1mq) = (libm::log(q), libm::log1p(-q));
    // ln k! for k = 0..=max, by running sums of ln k (exact to rounding, no lgamma needed).
    let mut ln_fact = vec![0.0; max + 1];
    for k in 1..=max {
        ln_fact[k] = ln_fact[k - 1] + libm::log(k as f64);
    }
    // ln(e^c − 1) with c = (k² − k)/(2z²), without overflow for large c.
    let ln_expm1: Vec<f64> = (0..=max)
        .map(|k| {
            let kf = k as f64;
            let c = (kf * kf - kf) / (2.0 * z * z);
            if c > 30.0 {
                c + libm::log1p(-libm::exp(-c))
            } else {
                libm::log(libm::expm1(c))
            }
        })
        .collect();
    orders
        .iter()
        .map(|&alpha| {
            let (n, a) = (alpha as usize, f64::from(alpha));
            // The binomial weights sum to 1 and the k = 0, 1 terms have exponent 0, so
            // A_α = 1 + Σ_{k≥2} C(α,k)(1−q)^{α−k}q^k (e^{(k²−k)/(2z²)} − 1). Summing the excess
            // over 1 in log space and finishing with log1p keeps full relative precision when
            // ε(α) is tiny (small q), where ln of a sum close to 1 would lose digits.
            let terms = (2..=n).map(|k| {
                let kf = k as f64;
                ln_fact[n] - ln_fact[k] - ln_fact[n - k]
                    + kf * ln_q
                    + (a - kf) * ln_1mq
                    + ln_expm1[k]
            });
            let ln_s = log_sum_exp(terms);
            let ln_a = if ln_s < 0.0 {
                libm::log1p(libm::exp(ln_s))
            } else {
                ln_s + libm::log1p(libm::exp(-ln_s))
            };
            ln_a / (a - 1.0)
        })
        .collect()
}

/// A running RDP ledger at fixed integer orders, under add/remove.
#[derive(Debug, Clone, PartialEq)]
pub struct RdpAccountant {
    orders: Vec<u32>,
    rdp: Vec<f64>,
}

impl Default for RdpAccountant {
    fn default() -> Self {
        Self::new()
    }
}

impl RdpAccountant {
    /// An empty ledger at [`DEFAULT_ORDERS`].
    pub fn new() -> Self {
        Self::with_orders(DEFAULT_ORDERS.to_vec())
            .unwrap_or_else(|_| unreachable!("the default orders are ≥ 2 and increasing"))
    }

    /// An empty ledger at the given integer orders (each ≥ 2, strictly increasing).
    pub fn with_orders(orders: Vec<u32>) -> Result<Self> {
        if orders.is_empty() || orders[0] < 2 || orders.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::invalid(
                "order",
                "strictly increasing integer orders ≥ 2",
                format!("{orders:?}"),
            ));
        }
        let rdp = vec![0.0; orders.len()];
        Ok(Self { orders, rdp })
    }

    /// Adds `steps` Poisson-subsampled Gaussian steps (rate q, noise multiplier z).
    pub fn compose_poisson_subsampled_gaussian(
        &mut self,
        q: f64,
        noise_multiplier: f64,
        steps: u64,
    ) -> Result<&mut Self> {
        check_rate(q)?;
        check_noise_multiplier(noise_multiplier)?;
        let t = steps as f64;
        let curve = subsampled_gaussian_rdp_curve(q, noise_multiplier, &self.orders);
        for (r, c) in self.rdp.iter_mut().zip(curve) {
            *r += t * c;
        }
        Ok(self)
    }

    /// Adds `steps` full-batch Gaussian steps with noise multiplier z = σ/Δ: ε(α) = α/(2z²).
    pub fn compose_gaussian(&mut self, noise_multiplier: f64, steps: u64) -> Result<&mut Self> {
        self.compose_poisson_subsampled_gaussian(1.0, noise_multiplier, steps)
    }

    /// The accumulated RDP curve.
    pub fn curve(&self) -> Rdp {
        Rdp {
            orders: self.orders.iter().map(|&a| f64::from(a)).collect(),
            epsilons: self.rdp.clone(),
            relation: Relation::AddRemove,
        }
    }

    /// (ε, best order) at δ, by [`Rdp::epsilon`].
    pub fn epsilon(&self, delta: f64) -> Result<(f64, f64)> {
        self.curve().epsilon(delta)
    }

    /// The (ε, δ) statement for a ledger, with the accounting written out.
    pub fn guarantee(&self, delta: f64, what: &str) -> Result<Guarantee> {
        let (epsilon, order) = self.epsilon(delta)?;
        Ok(Guarantee {
            epsilon,
            delta,
            relation: Relation::AddRemove,
            rho: None,
            accounting: format!(
                "{what}: Rényi DP composed over {} orders (best α = {order}), converted to (ε, δ) \
                 by Canonne, Kamath & Steinke 2020, Prop. 12",
                self.orders.len()
            ),
        })
    }
}

/// ε of DP-SGD: `steps` Poisson-subsampled Gaussian steps at rate q and noise multiplier z,
/// at δ, under add/remove.
pub fn dpsgd_epsilon(q: f64, noise_multiplier: f64, steps: u64, delta: f64) -> Result<f64> {
    check_delta(delta)?;
    let mut acc = RdpAccountant::new();
    acc.compose_poisson_subsampled_gaussian(q, noise_multiplier, steps)?;
    Ok(acc.epsilon(delta)?.0)
}

/// The smallest noise multiplier z (to relative precision 1e-9) for which DP-SGD with rate q and
/// `steps` steps is (ε, δ)-DP under add/remove by this accountant.
///
/// ε(z) is non-increasing in z at every order, so bisection applies; we bisect in ln z and return
/// the upper end of the final bracket, so the z returned always meets the target.
pub fn dpsgd_noise_multiplier(q: f64, steps: u64, epsilon: f64, delta: f64) -> Result<f64> {
    check_rate(q)?;
    check_epsilon(epsilon)?;
    check_delta(delta)?;
    if steps == 0 || q == 0.0 {
        return Err(Error::invalid(
            "steps",
            "at least one step with a sampling rate > 0 (otherwise no noise is needed)",
            steps,
        ));
    }
    // Even with no privacy loss at all, converting at order α costs ln(1 − 1/α) − (ln δ + ln α)/(α − 1)
    // (the formula of `rdp_to_dp`), so a target below the least of these over the orders is
    // met only through the total-variation shortcut (ε = 0 once every ε(α) < ~δ²), i.e. at
    // z ~ 10⁸–10¹¹: noise that erases the model. Refuse it instead.
    let reach = DEFAULT_ORDERS
        .iter()
        .map(|&a| {
            let alpha = f64::from(a);
            libm::log1p(-1.0 / alpha) - (libm::log(delta) + libm::log(alpha)) / (alpha - 1.0)
        })
        .fold(f64::INFINITY, f64::min);
    if epsilon <= reach {
        return Err(Error::invalid(
            "epsilon",
            format!(
                "raise it above {reach:.4}, or raise δ: at δ = {delta:.1e} the Rényi-DP \
                 accountant certifies a smaller ε only with noise that erases the model"
            ),
            epsilon,
        ));
    }
    let meets = |z: f64| dpsgd_epsilon(q, z, steps, delta).map(|e| e <= epsilon);
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    while !meets(hi)? {
        hi *= 2.0;
        if hi > 1e12 {
            return Err(Error::invalid(
                "epsilon",
                "a target reachable with noise multiplier ≤ 1e12",
                epsilon,
            ));
        }
    }
    while meets(lo)? {
        lo *= 0.5;
        if lo < 1e-6 {
            return Ok(lo * 2.0);
        }
    }
    while hi / lo - 1.0 > 1e-9 {
        let mid = libm::sqrt(lo * hi);
        if meets(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_multiplier_search_refuses_an_epsilon_below_the_orders_reach() {
        // ε = 0.01 at δ = 1e-9 is below what orders ≤ 1024 can certify (≈ 0.0125);
        // the search used to return z ≈ 3·10⁸ (met only through the total-variation shortcut).
        let e = dpsgd_noise_multiplier(0.01, 1000, 0.01, 1e-9).unwrap_err();
        assert_eq!(e.field(), Some("epsilon"));
        let text = e.to_string();
        assert!(
            text.contains("0.0125") && text.contains("raise δ"),
            "{text}"
        );
        // Just above the reach the search answers, through the RDP curve itself.
        let z = dpsgd_noise_multiplier(0.01, 1000, 0.02, 1e-9).unwrap();
        let eps = dpsgd_epsilon(0.01, z, 1000, 1e-9).unwrap();
        assert!(z < 1e4 && eps > 0.0 && eps <= 0.02, "z = {z}, ε = {eps}");
    }

    #[test]
    fn full_batch_is_the_gaussian_curve() {
        for a in [2, 7, 100] {
            let r = subsampled_gaussian_rdp(1.0, 1.3, a);
            assert!((r - f64::from(a) / (2.0 * 1.69)).abs() < 1e-14);
        }
        assert_eq!(subsampled_gaussian_rdp(0.0, 1.3, 5), 0.0);
    }

    #[test]
    fn small_q_matches_the_leading_order_expansion() {
        // At order 2 the sum has a closed form: A₂ = 1 + q²(e^{1/z²} − 1), so
        // ε(2) = ln(1 + q²(e^{1/z²} − 1)); the log1p form keeps full precision even at q = 1e-6.
        for (q, z) in [(0.01f64, 1.1f64), (1e-6, 0.8), (0.3, 5.0)] {
            let exact = libm::log1p(q * q * libm::expm1(1.0 / (z * z)));
            assert!((subsampled_gaussian_rdp(q, z, 2) / exact - 1.0).abs() < 1e-13);
        }
    }

    #[test]
    fn calibration_inverts_the_accountant() {
        let (q, steps, eps, delta) = (0.01, 1000, 1.5, 1e-5);
        let z = dpsgd_noise_multiplier(q, steps, eps, delta).unwrap();
        assert!(dpsgd_epsilon(q, z, steps, delta).unwrap() <= eps);
        assert!(dpsgd_epsilon(q, z * (1.0 - 1e-6), steps, delta).unwrap() > eps * (1.0 - 1e-5));
    }

    #[test]
    fn accountant_guarantee_is_add_remove_and_matches_its_epsilon() {
        let mut acc = RdpAccountant::new();
        acc.compose_poisson_subsampled_gaussian(0.01, 1.0, 100)
            .unwrap();
        acc.compose_gaussian(20.0, 1).unwrap();
        let g = acc.guarantee(1e-5, "DP-SGD").unwrap();
        assert_eq!(g.relation, Relation::AddRemove);
        assert_eq!(g.epsilon, acc.epsilon(1e-5).unwrap().0);
        assert!(g.accounting.starts_with("DP-SGD"));
    }

    #[test]
    fn invalid_inputs_are_named() {
        assert_eq!(
            dpsgd_epsilon(1.5, 1.0, 10, 1e-5).unwrap_err().field(),
            Some("sampling_rate")
        );
        assert_eq!(
            dpsgd_epsilon(0.1, 0.0, 10, 1e-5).unwrap_err().field(),
            Some("noise_multiplier")
        );
        assert_eq!(
            dpsgd_epsilon(0.1, 1.0, 10, 0.0).unwrap_err().field(),
            Some("delta")
        );
        assert_eq!(
            dpsgd_noise_multiplier(0.1, 10, -1.0, 1e-5)
                .unwrap_err()
                .field(),
            Some("epsilon")
        );
        assert!(RdpAccountant::with_orders(vec![1, 2]).is_err());
    }
}
