//! The pure-ε noisy clipped gradient descent baseline of Lowy 2026's lesson: clipping plus
//! composition wastes a √T factor under pure DP.
//!
//! # Algorithm
//! T steps of w ← Π_W(w − η(g + b)), with g = (1/n)Σ clip_C(∇f(w, zᵢ)) + l2·w the gradient of the
//! R^d Lipschitz extension ([`super::Extension`]: for GLMs the clipped gradient) and b ℓ2-Laplace
//! of scale β = 2CT/(nε) (Lowy 2026). The release is the average of the T iterates
//! (post-processing), the point the subgradient method's bound is for.
//!
//! # Choices (written down as the rules ask)
//! - **The threshold**: C = G_k (n(ε/T)/d)^(1/k), the C* of a call with the per-step budget ε/T
//!   (it balances the per-step noise against the clipping bias G_k^k/C^(k−1)); a declared `clip`
//!   replaces it. From the declared G_k, never the sample.
//! - **The step**: η = D/(G·√T) with G² = (G₂ + l2·R)² + d(d+1)β², the subgradient method's step
//!   for the noisy gradient's second moment: E‖b‖² = d(d+1)β², and a clipped gradient is no longer
//!   than the raw one, whose second moment is the declared G₂² (C itself, often far above the
//!   typical gradient, made the steps vanishingly small). Utility only.
//!
//! # Privacy
//! Each step's g has ℓ2 sensitivity 2C/n under replace-one (one clipped term changes; the ridge and
//! w are data-free given the past releases), and b at scale 2C/(n·ε/T) makes the step ε/T-DP. T
//! steps compose to ε (basic composition, pure DP). The guarantee is stated from (n, ε, T, C).
//!
//! # Utility
//! E F(w̄) − F* ≲ D·√((G₂ + l2R)² + d(d+1)β²)/√T + D·G_k^k/((k−1)C^(k−1)): with β ∝ T the noise term
//! grows as √T·d·C/(nε), against Double-OutputPert's d·C/(nε) — the √T loss the lesson shows.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026, §1 (why clipping plus composition is suboptimal).

use crate::algo::{Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::error::{Error, Result};
use crate::linalg::axpy;
use crate::noise::L2Laplace;
use crate::objective::Objective;
use crate::privacy::release::{Finished, Law, Published, Trail};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;

/// What a run is calibrated from (declared, data-free).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClippedGdPlan {
    /// ε of the whole run.
    pub epsilon: f64,
    /// T.
    pub steps: usize,
    /// n, public.
    pub n: usize,
    /// d.
    pub d: usize,
    /// The threshold C.
    pub clip: f64,
    /// η.
    pub step_size: f64,
    /// The declared G_k and k, for the ledger.
    pub moment: (f64, f64),
}

impl ClippedGdPlan {
    /// Δ = 2C/n.
    pub fn sensitivity(&self) -> f64 {
        2.0 * self.clip / self.n as f64
    }

    /// β = Δ/(ε/T) = 2CT/(nε).
    pub fn scale(&self) -> f64 {
        self.sensitivity() * self.steps as f64 / self.epsilon
    }

    /// The theory step η = D/(G√T), G² = (G₂ + l2·R)² + d(d+1)β² (module docs).
    pub fn default_step(
        moment_2: f64,
        scale: f64,
        d: usize,
        steps: usize,
        diameter: f64,
        ridge: f64,
    ) -> f64 {
        let radius = diameter / 2.0;
        // Products, not powi: the same bits natively and in wasm.
        let g = moment_2 + ridge * radius;
        let g2 = g * g + (d * (d + 1)) as f64 * scale * scale;
        diameter / (g2.sqrt() * (steps as f64).sqrt())
    }

    /// The statement.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee {
            epsilon: self.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "pure ε: T = {} ℓ2-Laplace steps of ε/T each, Δ = 2C/n (basic composition)",
                self.steps
            ),
        }
    }
}

/// The running baseline.
pub struct PureClippedGd {
    plan: ClippedGdPlan,
    guarantee: Guarantee,
    laplace: L2Laplace,
    rng: DpRng,
    seeded: bool,
    w: Vec<f64>,
    average: Vec<f64>,
    grad: Vec<f64>,
    scratch: Vec<f64>,
    noise: Vec<f64>,
    /// ℓ2-Laplace of every step, the trail of its T draws and the release once done.
    law: Law,
    trail: Trail,
    finished: Option<Finished>,
    batch: Vec<usize>,
    t: usize,
    clipped: usize,
}

impl PureClippedGd {
    /// The run of `plan` from w₀ = Π_W(0), on records of `objective` (n rows, replace-one).
    pub fn new(
        plan: ClippedGdPlan,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if objective.data().n() != plan.n {
            return Err(Error::invalid(
                "n",
                format!(
                    "the number of records, {} (replace-one: n is public)",
                    objective.data().n()
                ),
                plan.n,
            ));
        }
        let d = plan.d;
        let mut w = vec![0.0; d];
        objective.domain().project(&mut w);
        Ok(Self {
            guarantee: plan.guarantee(),
            laplace: L2Laplace::new(plan.scale())?,
            law: Law::l2_laplace(plan.scale())?,
            trail: Trail::planned(plan.steps),
            finished: None,
            plan,
            rng,
            seeded,
            average: w.clone(),
            w,
            grad: vec![0.0; d],
            scratch: vec![0.0; d],
            noise: vec![0.0; d],
            batch: (0..plan.n).collect(),
            t: 0,
            clipped: 0,
        })
    }
}

impl PrivateAlgorithm for PureClippedGd {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let caveats = vec![
            format!(
                "clip threshold C = {:.4} from the declared G_k = {:.4} (k = {}), never the sample; \
                 records clipped to the declared feature bound",
                self.plan.clip, self.plan.moment.0, self.plan.moment.1
            ),
            "every iterate is an ε/T release; the average of them is post-processing".to_string(),
        ];
        let mechanism = "pure-ε noisy clipped GD (the baseline of Lowy 2026's lesson)";
        let ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        let ledger = match PureDp::new(self.plan.epsilon, Relation::ReplaceOne) {
            Ok(p) => ledger.with_spend("T ℓ2-Laplace gradient steps at ε/T", PrivacyLoss::Pure(p)),
            Err(_) => ledger,
        };
        match &self.finished {
            Some(f) => f.record(ledger),
            None => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.t >= self.plan.steps {
            return None;
        }
        let loss = objective.value(&self.average);
        // Indices are 0..n of this dataset, so the clipped gradient cannot fail; if it did, the
        // step would carry no data (gradient 0), never an unnoised one.
        self.clipped = objective
            .clipped_gradient(
                &self.w,
                &self.batch,
                self.plan.clip,
                &mut self.grad,
                &mut self.scratch,
            )
            .unwrap_or_else(|_| {
                self.grad.fill(0.0);
                0
            });
        axpy(objective.regulariser().l2, &self.w, &mut self.grad);
        let grad_norm = crate::linalg::norm2(&self.grad);
        self.trail.draw(&self.law, &mut self.rng, &mut self.noise);
        let noise_norm = crate::linalg::norm2(&self.noise);
        axpy(1.0, &self.noise, &mut self.grad);
        axpy(-self.plan.step_size, &self.grad, &mut self.w);
        objective.domain().project(&mut self.w);
        self.t += 1;
        let weight = 1.0 / self.t as f64;
        for (a, w) in self.average.iter_mut().zip(&self.w) {
            *a += weight * (w - *a);
        }
        if self.t >= self.plan.steps {
            let domain = objective.domain();
            let mut start = vec![0.0; self.w.len()];
            domain.project(&mut start);
            self.finished = Some(Finished::iterate(
                &self.average,
                &self.trail,
                (&self.law, &start, |w: &mut [f64]| domain.project(w)),
                &mut self.rng,
            ));
        }
        Some(StepReport {
            grad_evals: self.t as f64,
            loss,
            noise_norm,
            grad_norm,
            epsilon_spent: self.plan.epsilon * self.t as f64 / self.plan.steps as f64,
            done: self.t >= self.plan.steps,
        })
    }

    fn current(&self) -> &[f64] {
        &self.average
    }

    fn release(&self) -> Option<Published> {
        self.finished.as_ref().map(Finished::published)
    }

    fn draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: NoiseShape::L2Laplace {
                scale: self.laplace.scale(),
                d: self.plan.d,
            },
            count: self.plan.steps,
            sensitivity: self.plan.sensitivity(),
        }]
    }

    fn grad_evals(&self) -> f64 {
        self.t as f64
    }
}
