//! González, Guzmán & Paquette 2024 **Algorithm 5**: private stochastic mirror descent with vertex sampling for DP-SCO
//! on the simplex, with anytime online-to-batch and lazy re-sampling.
//!
//! # Algorithm
//! min over x ∈ Δ_d of F(x) = (1/n)Σᵢ f(x; ξᵢ), one pass over T disjoint batches of
//! B = ⌊n/T⌋ records. With x^t = softmax(s) and the anytime average w^t = (1/t)Σ_{i≤t} x^i:
//! at t ≤ q and at every multiple of q, draw K vertices from w^t (the Maurey average ŵ, kept
//! until the next re-sampling); take the batch gradient at ŵ; s ← s − τg. The release is K fresh
//! draws from w^T (not the last ŵ; González, Guzmán & Paquette 2024).
//!
//! # Assumptions
//! f(·; ξ) convex, L₀-Lipschitz from ℓ1 to ℓ∞ and L₁-smooth (ℓ1 to ℓ∞). The playground's GLMs
//! declare ℓ2 constants G (per-record gradient norm) and β; on the simplex ‖·‖_∞ ≤ ‖·‖₂ and
//! ‖·‖₂ ≤ ‖·‖₁, so L₀ = G + λ₂ (the ridge's gradient λ₂x has ‖·‖_∞ ≤ λ₂) and L₁ = β are valid
//! declared bounds — our choice, written down, never measured from the data.
//!
//! # Privacy
//! Replace-one, n public. ŵ is drawn from P_{w^t}, a mixture with data-independent weights 1/t of
//! the laws P_{x^i}, each an exponential mechanism of score sensitivity 2L₀τ/B, so each draw is
//! ε₀ = 4L₀τ/B -DP (Proposition 4.3; each draw is a mixture of exponential mechanisms of that sensitivity). There are
//! m = K·(re-samplings + 1) draws (the +K of the output, which the proposition's statement
//! drops); τ ≤ Bε/(8L₀√(2m ln(1/δ))) makes (ACC) ≤ ε (Corollary 3.6). No subsampling
//! amplification.
//!
//! # Utility
//! Theorem 4.2, first-order-smooth case (constants 1): E F(ŵ_T) − F* ≲
//! (L₀ + L₁)(√(ln d/n) + L₀ ln(d)^{7/10} ln(1/δ)^{1/5}/(nε)^{2/5})
//! plus L₁ ln(√n ln d)(1/(ln d √n) + ln(1/δ)^{1/5}/(ln(d)^{4/5}(nε)^{2/5})), a population bound.
//! Parameters: T = min{n, (nε)^{4/5}/(ln d · ln(1/δ))^{2/5}}, q = √T/ln d, K = T/ln d,
//! τ = min of the statistical τ, 1/(8qL₀) (the smaller of the two the text states) and the
//! privacy τ above.
//!
//! # Reference
//! González, Guzmán & Paquette 2024, Algorithm 5, Lemma 4.1, Theorem 4.2, Proposition 4.3.

use super::primitives::{SparseAverage, acc_epsilon, corollary_epsilon0, softmax_into};
use crate::algo::{Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::error::{Error, Result};
use crate::objective::Objective;
use crate::privacy::release::{Noised, Published, Trail};
use crate::privacy::{Guarantee, Ledger, Relation};
use crate::rng::DpRng;

/// Everything Algorithm 5 fixes before it reads a record.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoPlan {
    /// ε, δ.
    pub epsilon: f64,
    /// δ.
    pub delta: f64,
    /// n.
    pub n: usize,
    /// d.
    pub d: usize,
    /// Declared L₀ (ℓ1 → ℓ∞) and L₁.
    pub l0: f64,
    /// L₁.
    pub l1: f64,
    /// T.
    pub steps: usize,
    /// q: the re-sampling period.
    pub period: usize,
    /// K: draws per re-sampling and for the output.
    pub samples: usize,
    /// B = ⌊n/T⌋.
    pub batch: usize,
    /// τ.
    pub tau: f64,
    /// ε₀ = 4L₀τ/B.
    pub epsilon0: f64,
    /// m = K·(re-samplings + 1).
    pub draws: usize,
    /// The statement.
    pub guarantee: Guarantee,
}

/// Whether step t (1-based) re-samples ŵ: t ≤ q or q divides t.
fn resamples(t: usize, q: usize) -> bool {
    t <= q || t % q == 0
}

impl ScoPlan {
    /// Theorem 4.2's first-order-smooth parameters for n records in d dimensions with declared
    /// L₀, L₁ (constants 1, integers ≥ 1, T ≤ `max_steps`). Errors name the field to change.
    pub fn new(
        n: usize,
        d: usize,
        (l0, l1): (f64, f64),
        epsilon: f64,
        delta: f64,
        max_steps: usize,
    ) -> Result<Self> {
        crate::privacy::check_epsilon(epsilon)?;
        crate::privacy::check_delta(delta)?;
        if !(l0.is_finite() && l0 > 0.0 && l1.is_finite()) {
            return Err(Error::invalid(
                "feature_bound",
                "finite declared constants L₀ > 0 and L₁ (a smooth loss)",
                l0,
            ));
        }
        if n == 0 || d == 0 {
            return Err(Error::invalid("n", "at least one record", n));
        }
        let (ld, lg) = ((d as f64).ln().max(1.0), -libm::log(delta));
        let ne = n as f64 * epsilon;
        let t = libm::pow(ne, 0.8) / libm::pow(ld * lg, 0.4);
        let steps = (t.floor() as usize).clamp(1, n.min(max_steps.max(1)));
        let tf = steps as f64;
        let period = ((tf.sqrt() / ld).round() as usize).max(1);
        let samples = ((tf / ld).round() as usize).clamp(1, 1 << 20);
        let batch = n / steps;
        let draws = samples * ((1..=steps).filter(|t| resamples(*t, period)).count() + 1);
        let (k, q) = (samples as f64, period as f64);
        let tau_stat = (ld
            / ((l0 * l0
                + (l0 * l0 + l1 * l1) * q * (ld / k).sqrt()
                + l1 * l1 * q / (ld.sqrt() * k.powf(1.5)))
                * tf))
            .sqrt();
        let tau_q = 1.0 / (8.0 * q * l0);
        let tau_dp = batch as f64 * corollary_epsilon0(epsilon, delta, draws as u64) / (4.0 * l0);
        let tau = tau_stat.min(tau_q).min(tau_dp);
        let epsilon0 = 4.0 * l0 * tau / batch as f64;
        let spent = acc_epsilon(draws as f64 * epsilon0 * epsilon0, delta);
        if spent > epsilon * (1.0 + 1e-12) {
            return Err(Error::invalid(
                "epsilon",
                format!(
                    "ε ≤ 8 ln(1/δ) = {:.3} for Proposition 4.3's step size",
                    8.0 * lg
                ),
                epsilon,
            ));
        }
        let guarantee = Guarantee {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            rho: Some(0.5 * draws as f64 * epsilon0 * epsilon0),
            accounting: format!(
                "{draws} vertex draws from the anytime averages (exponential-mechanism mixtures), \
                 each ε₀ = 4L₀τ/B = {epsilon0:.4e}, composed by (ACC) to ε = {spent:.4} \
                 (González, Guzmán & Paquette 2024, Prop. 4.3, Thm 3.5)"
            ),
        };
        Ok(Self {
            epsilon,
            delta,
            n,
            d,
            l0,
            l1,
            steps,
            period,
            samples,
            batch,
            tau,
            epsilon0,
            draws,
            guarantee,
        })
    }

    /// The run's draws: m exponential-mechanism draws of score sensitivity 2L₀τ/B.
    pub fn noise_draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: NoiseShape::None,
            count: self.draws,
            sensitivity: self.epsilon0 / 2.0,
        }]
    }

    /// Theorem 4.2's first-order-smooth bound with constants 1 (population excess risk).
    pub fn bound(&self) -> f64 {
        let (n, ld, lg) = (
            self.n as f64,
            (self.d as f64).ln().max(1.0),
            -libm::log(self.delta),
        );
        let ne = n * self.epsilon;
        (self.l0 + self.l1)
            * ((ld / n).sqrt() + self.l0 * ld.powf(0.7) * lg.powf(0.2) / ne.powf(0.4))
            + self.l1
                * (n.sqrt() * ld).ln().max(1.0)
                * (1.0 / (ld * n.sqrt()) + lg.powf(0.2) / (ld.powf(0.8) * ne.powf(0.4)))
    }
}

/// Algorithm 5 as a [`PrivateAlgorithm`] on a simplex-constrained objective.
pub struct PrivateSco {
    plan: ScoPlan,
    ridge: f64,
    rng: DpRng,
    seeded: bool,
    score: Vec<f64>,
    x: Vec<f64>,
    average: Vec<f64>,
    cdf: Vec<f64>,
    w_hat: SparseAverage,
    point: Vec<f64>,
    g: Vec<f64>,
    indices: Vec<usize>,
    release: Vec<f64>,
    /// The trail of every planned vertex draw, and the release once made.
    trail: Trail,
    released: Option<Noised>,
    t: usize,
    made: usize,
    failure: Option<String>,
}

impl PrivateSco {
    /// A run of `plan` on an objective with ridge `ridge` (its gradient λ₂x is added to the data
    /// term's, the same for every record).
    pub fn new(plan: ScoPlan, ridge: f64, rng: DpRng, seeded: bool) -> Self {
        let d = plan.d;
        let planned = plan.draws;
        Self {
            plan,
            ridge,
            rng,
            seeded,
            score: vec![0.0; d],
            x: vec![1.0 / d as f64; d],
            average: vec![0.0; d],
            cdf: vec![0.0; d],
            w_hat: SparseAverage::new(d),
            point: vec![1.0 / d as f64; d],
            g: vec![0.0; d],
            indices: Vec::new(),
            release: vec![1.0 / d as f64; d],
            trail: Trail::planned(planned),
            released: None,
            t: 0,
            made: 0,
            failure: None,
        }
    }

    /// K draws from the anytime average into ŵ (each an ε₀ exponential-mechanism mixture draw).
    fn draw_from_average(&mut self) {
        let mut total = 0.0;
        for (c, p) in self.cdf.iter_mut().zip(&self.average) {
            total += p;
            *c = total;
        }
        self.w_hat.clear();
        for _ in 0..self.plan.samples {
            self.w_hat
                .push(self.trail.pick_cdf(&self.cdf, &mut self.rng));
        }
        self.made += self.plan.samples;
    }

    /// A run stopped by a refused gradient: the rest of the planned draws are made from the
    /// uniform (public) start, and the last K of them are the release (the ledger records the
    /// failure, which depends on the data).
    fn release_from_the_start(&mut self) {
        let d = self.cdf.len();
        for (j, c) in self.cdf.iter_mut().enumerate() {
            *c = (j + 1) as f64 / d as f64;
        }
        self.w_hat.clear();
        while self.trail.drawn() < self.trail.planned_draws() {
            if self.w_hat.draws() as usize == self.plan.samples {
                self.w_hat.clear();
            }
            self.w_hat
                .push(self.trail.pick_cdf(&self.cdf, &mut self.rng));
        }
        self.w_hat.write_dense(&mut self.release);
        self.released = Noised::iterate(&self.release, &self.trail);
    }

    /// The plan fixed before the run.
    pub fn plan(&self) -> &ScoPlan {
        &self.plan
    }

    /// Vertex draws made so far.
    pub fn draws_made(&self) -> usize {
        self.made
    }

    /// One step of Algorithm 5 with the batch gradient from `gradient(point, batch, g)`: it
    /// writes the mean gradient of the records `batch` (indices in 0..n of the run's own records)
    /// at `point` into `g` and returns their mean loss (NaN when it has none). The objective is
    /// the caller's: a problem's minibatch ([`PrivateAlgorithm::step`]) or one player's side of
    /// a game with the other player fixed (the best responses of Algorithm 4,
    /// [`super::boosted`]). `None` once done.
    pub fn step_with(
        &mut self,
        mut gradient: impl FnMut(&[f64], std::ops::Range<usize>, &mut [f64]) -> Result<f64>,
    ) -> Option<StepReport> {
        if self.t >= self.plan.steps || self.failure.is_some() {
            return None;
        }
        let t1 = self.t + 1;
        for (a, v) in self.average.iter_mut().zip(&self.x) {
            *a += (v - *a) / t1 as f64;
        }
        if resamples(t1, self.plan.period) {
            self.draw_from_average();
        }
        self.w_hat.write_dense(&mut self.point);
        let b = self.plan.batch;
        let loss = match gradient(&self.point, self.t * b..(self.t + 1) * b, &mut self.g) {
            Ok(v) => v,
            Err(e) => {
                self.failure = Some(format!("the objective refused a gradient: {e}"));
                self.release_from_the_start();
                return None;
            }
        };
        for (g, p) in self.g.iter_mut().zip(&self.point) {
            *g += self.ridge * p;
        }
        for (s, g) in self.score.iter_mut().zip(&self.g) {
            *s -= self.plan.tau * g;
        }
        softmax_into(&self.score, &mut self.x);
        self.t = t1;
        if self.t == self.plan.steps {
            // The release: K fresh draws from w^T.
            self.draw_from_average();
            self.w_hat.write_dense(&mut self.release);
            self.released = Noised::iterate(&self.release, &self.trail);
        }
        let grad_norm = self.g.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        Some(StepReport {
            grad_evals: (self.t * self.plan.batch) as f64 / self.plan.n as f64,
            loss,
            noise_norm: 0.0,
            grad_norm,
            epsilon_spent: self.epsilon_spent(),
            done: self.t >= self.plan.steps,
        })
    }

    /// (ACC) of the draws made so far at the plan's ε₀: the running part of the stated ε.
    pub fn epsilon_spent(&self) -> f64 {
        let e0 = self.plan.epsilon0;
        acc_epsilon(self.made as f64 * e0 * e0, self.plan.delta)
    }

    /// The last ŵ (itself a private draw) while running; the K fresh output draws once done.
    pub fn current_point(&self) -> &[f64] {
        self.current()
    }
}

impl PrivateAlgorithm for PrivateSco {
    fn guarantee(&self) -> &Guarantee {
        &self.plan.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let mechanism = format!(
            "private stochastic mirror descent for DP-SCO with anytime online-to-batch \
             (González, Guzmán & Paquette 2024, Algorithm 5), T = {}, q = {}, K = {}, B = {}, \
             τ = {:.4e}",
            p.steps, p.period, p.samples, p.batch, p.tau
        );
        let caveats = vec![
            format!(
                "declared L₀ = {:.4} (ℓ1 → ℓ∞, from the declared ℓ2 constants; not measured)",
                p.l0
            ),
            "only the K output vertices drawn from the final average are released".to_string(),
            "single pass over disjoint batches, no subsampling amplification".to_string(),
            super::private_smd::draws_so_far(
                self.made,
                p.draws,
                p.epsilon0,
                self.epsilon_spent(),
                p.epsilon,
            ),
        ];
        let ledger = Ledger::new(p.guarantee.clone(), mechanism, self.seeded, caveats);
        // A refused gradient stops the run at a time that depends on the data: NOT PRIVATE.
        match &self.failure {
            Some(f) => ledger.with_failure(f.clone()),
            None => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        // The index buffer lives in the state (no allocation inside an iteration).
        let mut indices = std::mem::take(&mut self.indices);
        let report = self.step_with(|point, batch, g| {
            indices.clear();
            indices.extend(batch);
            objective.minibatch_gradient(point, &indices, g)
        });
        self.indices = indices;
        report
    }

    /// The last ŵ (itself a private draw) while running; the K fresh output draws once done.
    fn current(&self) -> &[f64] {
        if self.t >= self.plan.steps {
            &self.release
        } else {
            &self.point
        }
    }

    fn release(&self) -> Option<Published> {
        self.released.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        self.plan.noise_draws()
    }

    fn grad_evals(&self) -> f64 {
        (self.t * self.plan.batch) as f64 / self.plan.n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposition_4_3_counts_the_output_draws_and_keeps_acc_within_epsilon() {
        // The proposition's statement drops the final +K: the plan counts
        // K per re-sampling step and K for the output, and τ then keeps (ACC) ≤ ε.
        let p = ScoPlan::new(20_000, 10, (1.0, 1.0), 1.0, 1e-6, usize::MAX).unwrap();
        let resampling = (1..=p.steps).filter(|t| resamples(*t, p.period)).count();
        assert_eq!(p.draws, p.samples * (resampling + 1));
        let spent = acc_epsilon(p.draws as f64 * p.epsilon0 * p.epsilon0, 1e-6);
        assert!(spent <= 1.0 + 1e-12, "{spent}");
        assert!(p.tau <= 1.0 / (8.0 * p.period as f64) + 1e-15);
        // Without the +K the same τ would have been allowed more draws than the run makes.
        let without = corollary_epsilon0(1.0, 1e-6, (p.draws - p.samples) as u64);
        let with = corollary_epsilon0(1.0, 1e-6, p.draws as u64);
        assert!(with < without);
        println!(
            "T = {}, q = {}, K = {}, B = {}, τ = {:.3e}, m = {}",
            p.steps, p.period, p.samples, p.batch, p.tau, p.draws
        );
    }
}
