//! The exponential mechanism over a finite candidate set, sampled with the Gumbel-max trick.

use rand::RngExt;
use rand_distr::{Distribution, Open01};

use crate::error::{Error, Result};
use crate::rng::DpRng;

/// Draws index j with probability ∝ exp(wⱼ), given log-weights w, without normalising.
///
/// Gumbel-max: argmaxⱼ (wⱼ + Gⱼ) with Gⱼ = −ln(−ln Uⱼ) i.i.d. standard Gumbel has exactly the
/// softmax law (Gumbel 1954; Maddison, Tarlow & Minka 2014). Only differences of wⱼ matter and no
/// exp is taken, so scores of any magnitude (10³⁰⁰, or all shifted by 10⁹) are handled exactly
/// as their differences. Candidates with wⱼ = −∞ are never chosen.
///
/// Errors: empty input, any NaN or +∞ weight, or all weights −∞.
pub fn gumbel_max(rng: &mut DpRng, log_weights: &[f64]) -> Result<usize> {
    if log_weights.is_empty() {
        return Err(Error::invalid("candidates", "at least one candidate", 0));
    }
    if let Some(w) = log_weights
        .iter()
        .find(|w| w.is_nan() || **w == f64::INFINITY)
    {
        return Err(Error::invalid(
            "score",
            "finite scores (or −∞ to exclude)",
            w,
        ));
    }
    let mut best = None;
    let mut best_key = f64::NEG_INFINITY;
    for (j, &w) in log_weights.iter().enumerate() {
        // Always draw, even for excluded candidates, so the stream position does not depend on
        // the scores (keeps runs on neighbouring data aligned draw for draw).
        let u: f64 = Open01.sample(rng);
        if w == f64::NEG_INFINITY {
            continue;
        }
        let key = w - libm::log(-libm::log(u));
        if best.is_none() || key > best_key {
            best = Some(j);
            best_key = key;
        }
    }
    best.ok_or_else(|| Error::invalid("score", "at least one score > −∞", "all −∞"))
}

/// The exponential mechanism of McSherry & Talwar (2007): select candidate j with probability
/// ∝ exp(ε·uⱼ / (2Δᵤ)), where uⱼ is a utility (higher is better) whose value changes by at most
/// Δᵤ between neighbouring datasets for every j.
///
/// # Privacy
/// ε-DP (Dwork & Roth 2014, Thm 3.10) for any data-independent candidate set. For a loss to be
/// minimised (Lowy & Razaviyayn 2021: ERM over a grid, uⱼ = −n·F(wⱼ)) pass the negated loss. The
/// factor 2 is the general case; mechanisms whose utilities move monotonically may use ε/Δᵤ, but
/// we do not assume that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialMechanism {
    epsilon: f64,
    sensitivity: f64,
}

impl ExponentialMechanism {
    /// ε and Δᵤ must be finite and > 0.
    pub fn new(epsilon: f64, sensitivity: f64) -> Result<Self> {
        super::check_epsilon(epsilon)?;
        super::check_sensitivity(sensitivity)?;
        Ok(Self {
            epsilon,
            sensitivity,
        })
    }

    fn log_weights(&self, utilities: &[f64]) -> Vec<f64> {
        let k = self.epsilon / (2.0 * self.sensitivity);
        utilities.iter().map(|u| k * u).collect()
    }

    /// The exact selection probabilities (softmax in log space), for plots and tests.
    pub fn probabilities(&self, utilities: &[f64]) -> Result<Vec<f64>> {
        Ok(self
            .log_probabilities(utilities)?
            .into_iter()
            .map(libm::exp)
            .collect())
    }

    /// The logarithms of the selection probabilities, wⱼ − log Σ exp(w), never exponentiated:
    /// a candidate whose probability underflows to 0 in [`Self::probabilities`] keeps its finite
    /// log here, so a privacy check can compare every candidate's log-ratio, however unlikely.
    pub fn log_probabilities(&self, utilities: &[f64]) -> Result<Vec<f64>> {
        let w = self.log_weights(utilities);
        if w.is_empty() || w.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid(
                "utility",
                "a non-empty list of finite utilities",
                "other",
            ));
        }
        let lse = crate::stats::log_sum_exp(w.iter().copied());
        Ok(w.iter().map(|v| v - lse).collect())
    }

    /// Selects one candidate index.
    pub fn select(&self, rng: &mut DpRng, utilities: &[f64]) -> Result<usize> {
        if let Some(u) = utilities.iter().find(|u| !u.is_finite()) {
            return Err(Error::invalid("utility", "finite utilities", u));
        }
        gumbel_max(rng, &self.log_weights(utilities))
    }
}

/// The smallest index j with cdf\[j\] > u·cdf\[d−1\], u ~ U[0, 1): a draw from the law whose
/// cumulative sums are `cdf`, by binary search (O(log d) per draw after the O(d) sums; González, Guzmán & Paquette 2024,
/// §3.2). Scaling u by the last entry makes the draw exact even when rounding leaves the sums a
/// few ulps off 1, and the strict inequality never selects an index of probability 0.
///
/// This has the law of [`crate::noise::gumbel_max`] on the log-weights ln pⱼ (both are exact
/// samplers of the same softmax), the playground's exponential mechanism; the CDF form is
/// cheaper when K draws share one iterate.
pub fn sample_cdf(cdf: &[f64], rng: &mut DpRng) -> usize {
    let total = cdf[cdf.len() - 1];
    let u = rng.random::<f64>() * total;
    cdf.partition_point(|c| *c <= u).min(cdf.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn huge_scores_are_handled_through_their_differences() {
        let em = ExponentialMechanism::new(1.0, 1.0).unwrap();
        let base = [0.0, 1.0, 2.0];
        let shifted: Vec<f64> = base.iter().map(|u| u + 1e12).collect();
        let p = em.probabilities(&shifted).unwrap();
        let q = em.probabilities(&base).unwrap();
        for (a, b) in p.iter().zip(&q) {
            assert!((a - b).abs() < 1e-3, "{p:?} {q:?}");
        }
        // Same seed, shifted scores: the same candidates are selected (only differences matter,
        // up to rounding of the shifted keys, which is far below the Gumbel spread).
        let (mut r1, mut r2) = (seeded(3, Stream::Noise), seeded(3, Stream::Noise));
        let same = (0..1000)
            .filter(|_| em.select(&mut r1, &base).unwrap() == em.select(&mut r2, &shifted).unwrap())
            .count();
        assert!(same >= 995, "{same}");
    }

    #[test]
    fn excluded_and_invalid_candidates() {
        let mut rng = seeded(3, Stream::Noise);
        for _ in 0..100 {
            assert_eq!(gumbel_max(&mut rng, &[f64::NEG_INFINITY, 0.0]).unwrap(), 1);
        }
        assert!(gumbel_max(&mut rng, &[]).is_err());
        assert!(gumbel_max(&mut rng, &[f64::NEG_INFINITY]).is_err());
        assert!(gumbel_max(&mut rng, &[0.0, f64::NAN]).is_err());
        assert!(ExponentialMechanism::new(0.0, 1.0).is_err());
        assert!(ExponentialMechanism::new(1.0, -1.0).is_err());
    }
}
