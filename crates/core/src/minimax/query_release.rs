//! Query release as a game (González, Guzmán & Paquette 2024, §1.4 eq. (3)):
//! a synthetic histogram x over the universe Z = {0, 1}^k against the worst 2-way marginal
//! query y.
//!
//! f(x, y; z) = Σⱼ yⱼ (qⱼ(z) − ⟨qⱼ, x⟩), x ∈ Δ_|Z|, y ∈ Δ_|Q|, with queries
//! q(u) = 2·1[u_a = v_a ∧ u_b = v_b] − 1 ∈ {−1, 1} for every pair of attributes a < b and values
//! (v_a, v_b), each also negated so that max_y is the largest |error|. At μ = 0 the game's value
//! is 0 (x = the data's histogram answers every query exactly) and max_y f̂(x, y) is the largest
//! query error of x: the metric of query release.
//!
//! In the form of [`super::game::StochasticGame`], f = xᵀM y − bᵀy with M\[u\]\[j\] = −qⱼ(u) the same
//! for every record and bⱼ = −qⱼ(z) the record's answers: every entry in {−1, 1}, so the
//! declared bound is c = 1 and a replaced record moves each bⱼ by at most 2.
//!
//! The records: z drawn from a product of Bernoulli attributes, the first two correlated
//! (z₁ = z₀ with probability 0.8), the attribute rates from the seed. Choice (the paper names no
//! distribution): a correlated pair makes the data's histogram far from uniform, so that the
//! uniform start answers some marginal badly.

use crate::rng::DpRng;

/// Most binary attributes: |Z| = 64 strategies for x, 120 signed queries for y.
pub const MAX_ATTRIBUTES: usize = 6;

/// Fewest: one pair of attributes.
pub const MIN_ATTRIBUTES: usize = 2;

/// How often the second attribute copies the first.
const COPY_PROBABILITY: f64 = 0.8;

/// A 2-way marginal: attributes a < b take values (v_a, v_b), with a sign (+1, or the negation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Query {
    a: usize,
    b: usize,
    va: usize,
    vb: usize,
    negated: bool,
}

impl Query {
    /// q(u) ∈ {−1, 1} (negated if so).
    fn answer(&self, u: usize) -> f64 {
        let hit = (u >> self.a) & 1 == self.va && (u >> self.b) & 1 == self.vb;
        let q = if hit { 1.0 } else { -1.0 };
        if self.negated { -q } else { q }
    }
}

/// The queries of k attributes, in y's coordinate order: each pair (a, b), values (v_a, v_b),
/// then the query and its negation.
fn queries(k: usize) -> Vec<Query> {
    let mut out = Vec::new();
    for a in 0..k {
        for b in a + 1..k {
            for va in 0..2 {
                for vb in 0..2 {
                    for negated in [false, true] {
                        out.push(Query {
                            a,
                            b,
                            va,
                            vb,
                            negated,
                        });
                    }
                }
            }
        }
    }
    out
}

/// (|Z|, |Q|) = (2^k, 8·C(k, 2)): x's and y's dimensions for k attributes.
pub fn dims(k: usize) -> (usize, usize) {
    (1 << k, 4 * k * (k.saturating_sub(1)))
}

/// The marginal queries of k attributes and the distribution the records come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Marginals {
    queries: Vec<Query>,
    /// P(z = u) for each u ∈ Z.
    population: Vec<f64>,
    /// Its cumulative sums (inverse-CDF sampling), the last forced to 1.
    cdf: Vec<f64>,
}

impl Marginals {
    /// k attributes (in [`MIN_ATTRIBUTES`], [`MAX_ATTRIBUTES`], checked by the caller), attribute
    /// rates in [0.2, 0.8] drawn from `rates`.
    pub fn new(k: usize, rates: &mut DpRng) -> Self {
        use rand::RngExt;
        let p: Vec<f64> = (0..k).map(|_| 0.2 + 0.6 * rates.random::<f64>()).collect();
        let bit = |u: usize, a: usize| (u >> a) & 1;
        let bernoulli = |v: usize, p: f64| if v == 1 { p } else { 1.0 - p };
        let population: Vec<f64> = (0..1usize << k)
            .map(|u| {
                let first = bernoulli(bit(u, 0), p[0]);
                let copied = if bit(u, 1) == bit(u, 0) {
                    COPY_PROBABILITY
                } else {
                    0.0
                };
                let second = copied + (1.0 - COPY_PROBABILITY) * bernoulli(bit(u, 1), p[1]);
                let rest: f64 = (2..k).map(|a| bernoulli(bit(u, a), p[a])).product();
                first * second * rest
            })
            .collect();
        let mut cdf: Vec<f64> = population
            .iter()
            .scan(0.0, |s, v| {
                *s += v;
                Some(*s)
            })
            .collect();
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        Self {
            queries: queries(k),
            population,
            cdf,
        }
    }

    /// M\[u\]\[j\] = −qⱼ(u), row-major |Z| × |Q|.
    pub fn payoffs(&self) -> Vec<f64> {
        (0..self.population.len())
            .flat_map(|u| self.queries.iter().map(move |q| -q.answer(u)))
            .collect()
    }

    /// b₀ⱼ = −E qⱼ(z): the population's answers, the mean of the records' bⱼ.
    pub fn population_offsets(&self) -> Vec<f64> {
        self.queries
            .iter()
            .map(|q| {
                -self
                    .population
                    .iter()
                    .enumerate()
                    .map(|(u, p)| p * q.answer(u))
                    .sum::<f64>()
            })
            .collect()
    }

    /// The population's histogram P(z = u): the equilibrium x of the population game.
    pub fn population(&self) -> &[f64] {
        &self.population
    }

    /// Draws a record z from `rng` and writes bⱼ = −qⱼ(z) into `b`.
    pub fn record_offsets(&self, rng: &mut DpRng, b: &mut [f64]) {
        use rand::RngExt;
        let t: f64 = rng.random();
        let z = self
            .cdf
            .partition_point(|c| *c <= t)
            .min(self.cdf.len() - 1);
        for (bj, q) in b.iter_mut().zip(&self.queries) {
            *bj = -q.answer(z);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn every_two_way_marginal_and_its_negation_is_a_coordinate_of_y() {
        assert_eq!(dims(2), (4, 8));
        assert_eq!(dims(6), (64, 120));
        let qs = queries(3);
        assert_eq!(qs.len(), dims(3).1);
        // On every u, exactly one value pair of each attribute pair holds: per pair, one of the
        // four unnegated queries answers +1.
        for u in 0..8 {
            for pair in qs.chunks(8) {
                let hits = pair
                    .iter()
                    .filter(|q| !q.negated && q.answer(u) == 1.0)
                    .count();
                assert_eq!(hits, 1, "u = {u}");
            }
            for signed in qs.chunks(2) {
                assert_eq!(signed[0].answer(u), -signed[1].answer(u));
            }
        }
    }

    #[test]
    fn records_follow_the_population_and_average_to_its_answers() {
        let m = Marginals::new(4, &mut seeded(3, Stream::Data));
        assert!((m.population().iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // The copied pair: P(z₀ = z₁) ≥ 0.8.
        let agree: f64 = (0..16)
            .filter(|u| u & 1 == (u >> 1) & 1)
            .map(|u| m.population()[u])
            .sum();
        assert!(agree >= COPY_PROBABILITY, "{agree}");
        let n = 40_000;
        let (dq, b0) = (dims(4).1, m.population_offsets());
        let mut mean = vec![0.0; dq];
        let mut b = vec![0.0; dq];
        let mut rng = seeded(5, Stream::Data);
        for _ in 0..n {
            m.record_offsets(&mut rng, &mut b);
            mean.iter_mut()
                .zip(&b)
                .for_each(|(s, v)| *s += v / n as f64);
        }
        // Each mean is of ±1 entries: standard error ≤ 1/√n = 0.005; 5 standard errors.
        for (got, want) in mean.iter().zip(&b0) {
            assert!((got - want).abs() < 0.025, "{got} vs {want}");
        }
    }

    #[test]
    fn the_population_histogram_answers_every_query_exactly() {
        let m = Marginals::new(3, &mut seeded(9, Stream::Data));
        let (dz, dq) = dims(3);
        let payoffs = m.payoffs();
        let b0 = m.population_offsets();
        // ⟨qⱼ, x⟩ − E qⱼ(z) = −(Mᵀx)ⱼ + b₀ⱼ = 0 at x = the population's histogram.
        for j in 0..dq {
            let answer: f64 = (0..dz)
                .map(|u| -payoffs[u * dq + j] * m.population()[u])
                .sum();
            assert!((answer + b0[j]).abs() < 1e-12, "query {j}");
        }
    }
}
