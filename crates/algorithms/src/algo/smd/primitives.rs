//! The shared pieces of González, Guzmán & Paquette 2024's algorithms: the entropic mirror step in the
//! log domain, vertex sampling (the exponential mechanism), Maurey averages stored sparse, the
//! truncated geometric law of Algorithm 2, and the accountant (ACC) of Theorem 3.5 with its
//! privacy filter.
//!
//! # Reference
//! González, Guzmán & Paquette 2024, §3.1 (Algorithm 1 lines 3, 6, 8), Theorem 3.4 (a draw from
//! softmax(s) is the exponential mechanism), Theorem 3.5 and Corollary 3.6 (composition), §3.2
//! (the truncated geometric TG(1/2, M)).

use rand::RngExt;

use crate::error::{Error, Result};
use crate::privacy::release::VertexLaw;
use crate::privacy::zcdp::{epsilon_for_rho, rho_for_epsilon};
use crate::rng::DpRng;

/// One player of entropic mirror descent on a simplex, kept in the log domain (González, Guzmán & Paquette 2024):
/// the cumulative score s (s = 0 at the start, so the first iterate is uniform) and the iterate
/// softmax(s), computed with the largest score subtracted so that nothing overflows and no
/// probability is multiplied step after step (they would underflow).
///
/// The iterate and its cumulative distribution are **non-private** (Algorithm 1 never releases
/// them); only a vertex drawn from them is an exponential-mechanism release.
#[derive(Debug, Clone)]
pub struct EntropicPlayer {
    score: Vec<f64>,
    iterate: Vec<f64>,
    cdf: Vec<f64>,
}

impl EntropicPlayer {
    /// The uniform start x¹ = (1/d, …, 1/d) on the d-simplex (d ≥ 1).
    pub fn uniform(d: usize) -> Self {
        let mut player = Self {
            score: vec![0.0; d],
            iterate: vec![0.0; d],
            cdf: vec![0.0; d],
        };
        player.refresh();
        player
    }

    /// s ← s + coef·g, then the iterate ← softmax(s): the mirror step
    /// x⁺ⱼ ∝ xⱼ·exp(coef·gⱼ). The minimising player passes coef = −τ (descent on ∇ₓf), the
    /// maximising player coef = +τ (ascent on ∇ᵧf: the sign the paper's pseudo-code gets wrong:
    /// its descent in y does not converge to the saddle point).
    pub fn step(&mut self, coef: f64, g: &[f64]) {
        for (s, gi) in self.score.iter_mut().zip(g) {
            *s += coef * gi;
        }
        self.refresh();
    }

    fn refresh(&mut self) {
        softmax_into(&self.score, &mut self.iterate);
        let mut total = 0.0;
        for (c, p) in self.cdf.iter_mut().zip(&self.iterate) {
            total += p;
            *c = total;
        }
    }

    /// The iterate softmax(s) (non-private).
    pub fn iterate(&self) -> &[f64] {
        &self.iterate
    }

    /// The cumulative score s (non-private).
    pub fn score(&self) -> &[f64] {
        &self.score
    }

    /// One vertex index j drawn with probability softmax(s)ⱼ: the exponential mechanism with
    /// score s ([`sample_cdf`]), the same draw [`Trail::pick`](crate::privacy::release::Trail::pick) makes.
    pub fn sample(&self, rng: &mut DpRng) -> usize {
        sample_cdf(&self.cdf, rng)
    }

    /// How many coordinates of the iterate are non-zero in floating point (all of them unless a
    /// score is so low that its exp underflows): the "dense" count beside a sparse release.
    pub fn support(&self) -> usize {
        self.iterate.iter().filter(|p| **p > 0.0).count()
    }
}

impl VertexLaw for EntropicPlayer {
    fn cdf(&self) -> &[f64] {
        &self.cdf
    }
}

/// out ← softmax(s), with max(s) subtracted before exp. Errors are impossible for finite s; a
/// non-finite score would be a bug upstream (the gradients are checked finite by the game).
pub fn softmax_into(score: &[f64], out: &mut [f64]) {
    let top = score.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut total = 0.0;
    for (o, s) in out.iter_mut().zip(score) {
        *o = libm::exp(s - top);
        total += *o;
    }
    for o in out.iter_mut() {
        *o /= total;
    }
}

pub use crate::noise::sample_cdf;

/// A Maurey average (1/K)·Σₖ e_{jₖ} of K vertex draws, stored sparse: the counts of the drawn
/// indices and the list of indices drawn at least once (at most K non-zeros; González, Guzmán & Paquette 2024).
#[derive(Debug, Clone)]
pub struct SparseAverage {
    counts: Vec<u32>,
    support: Vec<usize>,
    total: u32,
}

impl SparseAverage {
    /// An empty average over d vertices.
    pub fn new(d: usize) -> Self {
        Self {
            counts: vec![0; d],
            support: Vec::new(),
            total: 0,
        }
    }

    /// Adds one draw of vertex j.
    pub fn push(&mut self, j: usize) {
        if self.counts[j] == 0 {
            self.support.push(j);
        }
        self.counts[j] += 1;
        self.total += 1;
    }

    /// Forgets every draw, in O(non-zeros).
    pub fn clear(&mut self) {
        for &j in &self.support {
            self.counts[j] = 0;
        }
        self.support.clear();
        self.total = 0;
    }

    /// The number of draws.
    pub fn draws(&self) -> u32 {
        self.total
    }

    /// The non-zero coordinates (≤ the number of draws).
    pub fn nonzeros(&self) -> usize {
        self.support.len()
    }

    /// The indices drawn at least once, in order of first draw.
    pub fn support(&self) -> &[usize] {
        &self.support
    }

    /// out ← the average as a dense point of the simplex (left unchanged when nothing was drawn).
    pub fn write_dense(&self, out: &mut [f64]) {
        if self.total == 0 {
            return;
        }
        out.fill(0.0);
        let k = f64::from(self.total);
        for &j in &self.support {
            out[j] = f64::from(self.counts[j]) / k;
        }
    }
}

/// The truncated geometric TG(1/2, M) of Algorithm 2: P\[N = k\] = 2^{−k}/C_M on {0, …, M}, with
/// the normaliser C_M = Σ_{k≤M} 2^{−k} = 2 − 2^{−M} ∈ [1, 2).
///
/// The paper states "p ≤ C_M ≤ 1", which contradicts its own formula; the estimator is unbiased
/// only with the importance weight 1/P\[N\] = C_M·2^N of the printed Algorithm 2 read with this
/// C_M (González, Guzmán & Paquette 2024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruncatedGeometric {
    m: u32,
}

/// The largest truncation level accepted (2^{M+1} draws per block must stay countable).
pub const MAX_LEVEL: u32 = 30;

impl TruncatedGeometric {
    /// TG(1/2, M), M ≤ [`MAX_LEVEL`].
    pub fn new(m: u32) -> Result<Self> {
        if m > MAX_LEVEL {
            return Err(Error::invalid(
                "truncation level M",
                format!("an integer ≤ {MAX_LEVEL}"),
                m,
            ));
        }
        Ok(Self { m })
    }

    /// M.
    pub fn level(&self) -> u32 {
        self.m
    }

    /// C_M = 2 − 2^{−M}.
    pub fn normaliser(&self) -> f64 {
        2.0 - libm::exp2(-f64::from(self.m))
    }

    /// P\[N = k\] (0 outside {0, …, M}).
    pub fn probability(&self, k: u32) -> f64 {
        if k > self.m {
            0.0
        } else {
            libm::exp2(-f64::from(k)) / self.normaliser()
        }
    }

    /// The importance weight w_k = 1/P\[N = k\] = C_M·2^k of Algorithm 2.
    pub fn weight(&self, k: u32) -> f64 {
        self.normaliser() * libm::exp2(f64::from(k))
    }

    /// E\[2^N\] = (M + 1)/C_M: the expected draws per block of one Algorithm 2 call, halved.
    pub fn mean_pow2(&self) -> f64 {
        f64::from(self.m + 1) / self.normaliser()
    }

    /// One draw of N, by inverse CDF on the M + 1 probabilities.
    pub fn sample(&self, rng: &mut DpRng) -> u32 {
        let u = rng.random::<f64>();
        let mut cdf = 0.0;
        for k in 0..self.m {
            cdf += self.probability(k);
            if u < cdf {
                return k;
            }
        }
        self.m
    }
}

/// The left side of (ACC), Theorem 3.5: √(2 ln(1/δ)·Σε_m²) + Σε_m²/2 for pure-DP draws whose
/// squared ε's sum to `sum_sq`. It equals the zCDP conversion ρ + 2√(ρ ln(1/δ)) at
/// ρ = Σε_m²/2 (ε-DP ⇒ ε²/2-zCDP; checked numerically that the two agree), so it is computed
/// by [`epsilon_for_rho`].
pub fn acc_epsilon(sum_sq: f64, delta: f64) -> f64 {
    epsilon_for_rho(0.5 * sum_sq, delta)
}

/// The largest ε₀ such that `m` draws of ε₀ each satisfy (ACC) ≤ ε: the positive root of
/// (m/2)ε₀² + √(2m ln(1/δ))·ε₀ = ε, i.e. √(2ρ/m) with ρ the exact inverse [`rho_for_epsilon`]
/// (González, Guzmán & Paquette 2024; about twice Corollary 3.6's ε/(2√(2m ln(1/δ)))).
pub fn equal_epsilon0(epsilon: f64, delta: f64, m: u64) -> Result<f64> {
    if m == 0 {
        return Err(Error::invalid("draws", "at least one draw", 0));
    }
    Ok((2.0 * rho_for_epsilon(epsilon, delta)? / m as f64).sqrt())
}

/// Corollary 3.6's sufficient ε₀ = ε/(2√(2m ln(1/δ))) for m equal draws (valid when
/// ε ≤ 8 ln(1/δ)); Proposition 3.3's step-size bound is this with ε₀ = 4L₀τ/B.
pub fn corollary_epsilon0(epsilon: f64, delta: f64, m: u64) -> f64 {
    epsilon / (2.0 * (2.0 * m as f64 * -libm::log(delta)).sqrt())
}

/// A privacy filter (Theorem 3.5, fully adaptive composition): it admits a further batch of
/// pure-DP draws only while (ACC) stays ≤ ε. The ε_m it is asked about must be fixed by
/// data-independent quantities (Algorithm 3: the N_t and batch sizes), never by the data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivacyFilter {
    epsilon: f64,
    delta: f64,
    sum_sq: f64,
    draws: u64,
}

impl PrivacyFilter {
    /// A filter with budget (ε, δ); errors name an invalid ε or δ.
    pub fn new(epsilon: f64, delta: f64) -> Result<Self> {
        crate::privacy::check_epsilon(epsilon)?;
        crate::privacy::check_delta(delta)?;
        Ok(Self {
            epsilon,
            delta,
            sum_sq: 0.0,
            draws: 0,
        })
    }

    /// Whether `count` more draws of `epsilon_m` each keep (ACC) ≤ ε.
    pub fn admits(&self, epsilon_m: f64, count: u64) -> bool {
        acc_epsilon(
            self.sum_sq + count as f64 * epsilon_m * epsilon_m,
            self.delta,
        ) <= self.epsilon
    }

    /// Charges `count` draws of `epsilon_m` if admitted; returns whether it did.
    pub fn charge(&mut self, epsilon_m: f64, count: u64) -> bool {
        let ok = self.admits(epsilon_m, count);
        if ok {
            self.sum_sq += count as f64 * epsilon_m * epsilon_m;
            self.draws += count;
        }
        ok
    }

    /// (ACC) of the draws charged so far.
    pub fn spent(&self) -> f64 {
        acc_epsilon(self.sum_sq, self.delta)
    }

    /// Σε_m² of the draws charged so far (twice their zCDP ρ).
    pub fn sum_sq(&self) -> f64 {
        self.sum_sq
    }

    /// The number of draws charged so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::ExponentialMechanism;
    use crate::rng::{Stream, seeded};

    #[test]
    fn the_log_domain_step_survives_scores_that_would_overflow_or_underflow() {
        let mut p = EntropicPlayer::uniform(3);
        assert_eq!(p.iterate(), &[1.0 / 3.0; 3]);
        // exp(1000) overflows and exp(−1000) underflows: the log domain keeps the right law.
        p.step(1.0, &[1000.0, 999.0, -1000.0]);
        let e = libm::exp(-1.0);
        assert!((p.iterate()[0] - 1.0 / (1.0 + e)).abs() < 1e-15);
        assert!((p.iterate()[1] - e / (1.0 + e)).abs() < 1e-15);
        assert_eq!(p.iterate()[2], 0.0);
        assert_eq!(p.support(), 2);
        // The mirror step is exponentiated gradient: x⁺ ∝ x·exp(coef·g).
        let mut q = EntropicPlayer::uniform(4);
        q.step(-0.5, &[1.0, 0.0, -1.0, 2.0]);
        let w: Vec<f64> = [-0.5, 0.0, 0.5, -1.0]
            .iter()
            .map(|v| libm::exp(*v))
            .collect();
        let z: f64 = w.iter().sum();
        for (a, b) in q.iterate().iter().zip(&w) {
            assert!((a - b / z).abs() < 1e-15);
        }
    }

    #[test]
    fn vertex_draws_follow_the_exponential_mechanism_law_and_never_pick_a_null_vertex() {
        // softmax(s) is the exponential mechanism with utility s and ε/(2Δu) = 1; the CDF sampler
        // must reproduce its probabilities. 2·10⁵ draws: each frequency's standard error is
        // ≤ √(0.25/2e5) = 0.0011, so 0.006 is over 5 standard errors.
        let mut p = EntropicPlayer::uniform(5);
        p.step(1.0, &[0.3, -1.2, 2.0, 0.0, -800.0]);
        let exact = ExponentialMechanism::new(2.0, 1.0)
            .unwrap()
            .probabilities(p.score())
            .unwrap();
        let mut rng = seeded(7, Stream::Noise);
        let draws = 200_000;
        let mut counts = [0usize; 5];
        for _ in 0..draws {
            counts[p.sample(&mut rng)] += 1;
        }
        for (c, e) in counts.iter().zip(&exact) {
            assert!(
                (*c as f64 / draws as f64 - e).abs() < 0.006,
                "{counts:?} {exact:?}"
            );
        }
        assert_eq!(counts[4], 0, "a vertex of probability 0 was drawn");
    }

    #[test]
    fn maurey_averages_are_stored_sparse_with_at_most_k_nonzeros() {
        let mut a = SparseAverage::new(100);
        let mut rng = seeded(2, Stream::Noise);
        let p = EntropicPlayer::uniform(100);
        for _ in 0..7 {
            a.push(p.sample(&mut rng));
        }
        assert!(a.nonzeros() <= 7 && a.draws() == 7);
        let mut dense = vec![0.5; 100];
        a.write_dense(&mut dense);
        assert!((dense.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert_eq!(dense.iter().filter(|v| **v > 0.0).count(), a.nonzeros());
        a.clear();
        assert_eq!((a.nonzeros(), a.draws()), (0, 0));
    }

    #[test]
    fn truncated_geometric_uses_the_corrected_normaliser_and_telescopes() {
        for m in 0..=12 {
            let tg = TruncatedGeometric::new(m).unwrap();
            let c = tg.normaliser();
            // C_M = 2 − 2^{−M} ∈ [1, 2), not ≤ 1 as the paper states.
            assert!((1.0..2.0).contains(&c));
            let total: f64 = (0..=m).map(|k| tg.probability(k)).sum();
            assert!((total - 1.0).abs() < 1e-15, "M = {m}: {total}");
            // E[w_N·1[N = k]] = 1 for every level k: Σ_k E[w_N 1[N=k]](G_{k+1} − G_k) telescopes
            // to G_{M+1} − G_0 for any sequence G.
            for k in 0..=m {
                assert!((tg.probability(k) * tg.weight(k) - 1.0).abs() < 1e-15);
            }
            let mean: f64 = (0..=m)
                .map(|k| tg.probability(k) * libm::exp2(f64::from(k)))
                .sum();
            assert!((mean - f64::from(m + 1) / c).abs() < 1e-12);
            assert!((tg.mean_pow2() - mean).abs() < 1e-12);
        }
        assert!(TruncatedGeometric::new(MAX_LEVEL + 1).is_err());
    }

    #[test]
    fn truncated_geometric_draws_follow_its_law() {
        // 4·10⁵ draws of TG(1/2, 4): per-level standard error ≤ √(0.25/4e5) = 7.9e-4; the
        // Monte Carlo E[w_N·1[N = k]] (= 1 for each k) has relative error ≤ √(2^{k+1}/4e5) ≤ 0.009.
        let tg = TruncatedGeometric::new(4).unwrap();
        let mut rng = seeded(11, Stream::Noise);
        let runs = 400_000;
        let mut counts = [0usize; 5];
        for _ in 0..runs {
            counts[tg.sample(&mut rng) as usize] += 1;
        }
        for (k, c) in counts.iter().enumerate() {
            let freq = *c as f64 / runs as f64;
            assert!(
                (freq - tg.probability(k as u32)).abs() < 0.004,
                "{counts:?}"
            );
            let mean_weighted = freq * tg.weight(k as u32);
            assert!(
                (mean_weighted - 1.0).abs() < 0.04,
                "level {k}: {mean_weighted}"
            );
        }
    }

    #[test]
    fn the_accountant_is_monotone_and_its_equal_epsilon0_is_the_exact_inverse() {
        let delta = 1e-6;
        let mut last = 0.0;
        for i in 1..200 {
            let e = acc_epsilon(i as f64 * 0.01, delta);
            assert!(e > last);
            last = e;
        }
        for &(eps, m) in &[(1.0, 175_812u64), (1.0, 35_456), (4.0, 1000), (0.1, 2)] {
            let e0 = equal_epsilon0(eps, delta, m).unwrap();
            let at = acc_epsilon(m as f64 * e0 * e0, delta);
            assert!((at / eps - 1.0).abs() < 1e-12, "{at} vs {eps}");
            // The closed form of the quadratic: (−b + √(b² + 4aε))/(2a), a = m/2, b = √(2m ln 1/δ).
            let (a, b) = (m as f64 / 2.0, (2.0 * m as f64 * -libm::log(delta)).sqrt());
            let root = (-b + (b * b + 4.0 * a * eps).sqrt()) / (2.0 * a);
            assert!((e0 / root - 1.0).abs() < 1e-9, "{e0} vs {root}");
            // About twice Corollary 3.6's value.
            let ratio = e0 / corollary_epsilon0(eps, delta, m);
            assert!(ratio > 1.8 && ratio < 2.0, "{ratio}");
        }
        let ratio =
            equal_epsilon0(1.0, delta, 175_812).unwrap() / corollary_epsilon0(1.0, delta, 175_812);
        assert!((ratio - 1.965).abs() < 0.001, "{ratio}");
        assert!(equal_epsilon0(1.0, delta, 0).is_err());
    }

    #[test]
    fn the_filter_admits_exactly_the_draws_that_keep_acc_within_epsilon() {
        let (eps, delta) = (1.0, 1e-6);
        let e0 = equal_epsilon0(eps, delta, 1000).unwrap();
        let mut f = PrivacyFilter::new(eps, delta).unwrap();
        // 1000 draws of the exact ε₀ fit (up to rounding at the last one: allow 999 or 1000).
        let mut admitted = 0;
        while f.charge(e0, 1) {
            admitted += 1;
            assert!(f.spent() <= eps);
        }
        assert!((999..=1000).contains(&admitted), "{admitted}");
        assert_eq!(f.draws(), admitted);
        assert!(!f.admits(e0, 1));
        assert!(PrivacyFilter::new(0.0, delta).is_err());
        assert!(PrivacyFilter::new(1.0, 1.0).is_err());
    }
}
