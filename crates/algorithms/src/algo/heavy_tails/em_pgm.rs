//! Algorithm 5 of Lowy 2026, EM-PGM: the exponential mechanism whose score is the norm of the
//! clipped projected gradient mapping, on a data-independent grid over W, for d ≤ 2.
//!
//! # Algorithm
//! With the clipped mean gradient g_C(w) = (1/n)Σ clip_C(∇f(w, zᵢ)) (for the GLM losses here the
//! gradient of the R^d Lipschitz extension f_C, [`super::Extension`]) and the ridge terms of the
//! regularised objective, l2·w + λ(w − w₀), the score of w is
//!
//!   s(w) = ‖G̃(w)‖,   G̃(w) = (w − Π_W(w − γ·(g_C(w) + l2·w + λ(w − w₀))))/γ,
//!
//! and the release is one grid point drawn with probability ∝ exp(−ε·s(w)/(2Δ)), Δ = 2C/n
//! (the paper's exp(−εn·s/(4C))). W = B(0, R), w₀ public. This file is one call on n records
//! (Theorem E.1); the family runs it as the ERM solver of every call of Algorithm 1, on the call's
//! block at (ε, λ_t, w̄_t, C_t, m_t) with the grid localised around w̄_t (Theorem E.2,
//! [`super::em_phases`]).
//!
//! # Choices (written down, as the rules ask)
//! - **The grid** is the page's `grid_resolution` points per axis over [−R, R]^d kept inside W
//!   (a call of Algorithm 1: over the box of B(w̄_t, r_t), kept inside both balls)
//!   ([`crate::algo::exponential_grid::square_grid`]), not Theorem E.1's η-net of spacing
//!   η = Cd/(εn(λ + H)), which would be far finer than a browser can score; privacy holds for any
//!   data-independent grid, only the spacing term of the utility grows.
//! - **γ = 1/(λ + l2 + H)** with H = sup φ″·B², B the declared feature bound: a public smoothness
//!   bound of every record's loss (Lowy 2026: the sensitivity argument needs the same γ on
//!   neighbouring datasets, so γ is never measured).
//! - **C** = G_k (nε/d)^(1/k) from the declared G_k (Theorem E.1) unless declared (`clip`), with
//!   n the call's records; **λ** the schedule's λ_t ([`super::em_phases`]).
//!
//! # Privacy
//! ε-DP, pure, replace-one with n public (Theorem E.1): replacing one record moves g_C(w) by at
//! most 2C/n for every w (each clipped gradient has norm ≤ C), Π_W is non-expansive and γ is the
//! same on both sides, so G̃(w) moves by at most (1/γ)·γ·2C/n and its norm by at most Δ = 2C/n;
//! the exponential mechanism over a fixed finite set is then ε-DP (McSherry & Talwar 2007).
//!
//! # Floating point (the attacker's view)
//! - **No probability is ever exponentiated.** The draw is the Gumbel-max argmax of the log
//!   weights −ε·s/(2Δ) ([`crate::noise::gumbel_max`]): a grid point whose probability would
//!   underflow to 0 in exp() keeps its finite log weight, on both datasets alike, so no point is
//!   impossible under D and possible under D′. The exact law used by the tests is
//!   [`crate::noise::ExponentialMechanism::log_probabilities`] (log-sum-exp, never exp then log).
//! - **No record can absorb the others.** The score is a norm of a mean of n vectors each of norm
//!   ≤ C (clipped before summing), plus data-free terms: the outlier of D′ enters as a vector of
//!   norm ≤ C, not as a huge value, so the computed scores move between neighbours by Δ up to a
//!   few ulps of C. Where w − γ·(…) stays in W the mapping is G̃ = g_C + l2·w + λ(w − w₀) exactly,
//!   and it is computed so (no cancellation in w − Π_W(…) divided by a small γ); only points whose
//!   step leaves W take the projected form.
//!
//! # Utility
//! Theorem E.1: with probability ≥ 0.7, ‖ŵ − ŵ_λ‖ ≤ (1/λ)·O(G_k (d/(εn))^(1−1/k)·log(…)), from
//! ‖w − ŵ_λ‖ ≤ ‖G_γ(w)‖/λ (eq. 25) and the clipping bias E(A − C)₊ ≤ G_k^k/((k−1)C^(k−1)); on
//! the grid the best point's score adds its spacing times the mapping's Lipschitz constant.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithm 5, Theorem E.1 (Appendix E); the score
//! sensitivity 2C/n.

use super::call_declared::CallDeclared;
use crate::algo::choices::DomainChoice;
use crate::algo::exponential_grid::square_grid;
use crate::algo::family::{
    Demonstration, Family, MINIMISATION, Need, Purity, RunLength, card_text, setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::ProblemDeclaration;
use crate::algo::registry::Planned;
use crate::algo::settings::Settings;
use crate::algo::{Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::controls::Control;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::{dist2, norm2};
use crate::noise::ExponentialMechanism;
use crate::objective::Objective;
use crate::privacy::release::{Noised, Published, Trail};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;
use crate::solver::work;

/// Grid points scored per step at most; fewer where a score reads more than a step's work.
const POINTS_PER_STEP: usize = 32;

/// The declared side of a run: every number from the config, none from the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmPgmPlan {
    /// What the call reads, every number declared.
    pub declared: CallDeclared,
    /// γ = 1/(λ + l2 + sup φ″·B²), public.
    pub gamma: f64,
    /// Grid points per axis.
    pub resolution: usize,
}

impl EmPgmPlan {
    /// Δ = 2C/n, the score's sensitivity (Theorem E.1).
    pub fn sensitivity(&self) -> f64 {
        2.0 * self.declared.clip / self.declared.n as f64
    }

    /// The statement, fixed before the data.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee {
            epsilon: self.declared.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "pure ε: one exponential-mechanism draw over a fixed grid, score ‖G̃(w)‖ with \
                 sensitivity 2C/n = {:.3e} (Lowy 2026, Algorithm 5, Theorem E.1)",
                self.sensitivity()
            ),
        }
    }
}

/// The records and the ridge's centre of one call: records `start..start + n` (n the plan's) and
/// w₀ = `centre`, public (Algorithm 1 passes a released centre and a block of its partition).
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The block's first record.
    pub start: usize,
    /// The ridge's centre w₀.
    pub centre: Vec<f64>,
}

/// Algorithm 5 on a grid, as a step-wise [`PrivateAlgorithm`]: each step scores a batch of grid
/// points (non-private), the last step draws and releases.
pub struct EmPgm {
    plan: EmPgmPlan,
    block: Block,
    guarantee: Guarantee,
    mechanism: ExponentialMechanism,
    grid: Vec<f64>,
    utilities: Vec<f64>,
    rng: DpRng,
    seeded: bool,
    out: Vec<f64>,
    /// The trail of the one planned selection, and the release once made.
    trail: Trail,
    released: Option<Noised>,
    /// Whether a score was not finite and the selection was made uniformly instead.
    failed: bool,
    done: bool,
}

impl EmPgm {
    /// The paper's one call (Theorem E.1): all n records, w₀ = 0, the grid over W = B(0, R),
    /// fixed before the data.
    pub fn new(plan: EmPgmPlan, rng: DpRng, seeded: bool) -> Result<Self> {
        let centre = vec![0.0; plan.declared.d];
        Self::in_phase(
            plan,
            Block { start: 0, centre },
            plan.declared.radius,
            rng,
            seeded,
        )
    }

    /// One call of Algorithm 1 (Theorem E.2): the block's records, its public centre w₀, and the
    /// grid over W ∩ B(w₀, `grid_radius`) (a data-free radius around a released centre; the
    /// centre itself joins a grid that would otherwise be empty).
    pub fn in_phase(
        plan: EmPgmPlan,
        block: Block,
        grid_radius: f64,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let mechanism = ExponentialMechanism::new(plan.declared.epsilon, plan.sensitivity())?;
        if block.centre.len() != plan.declared.d {
            return Err(Error::invalid(
                "d",
                "1 or 2 for the grid",
                block.centre.len(),
            ));
        }
        let half = grid_radius.min(plan.declared.radius);
        let mut grid = square_grid(&block.centre, half, plan.resolution, |w| {
            norm2(w) <= plan.declared.radius && dist2(w, &block.centre) <= half
        });
        if grid.is_empty() && norm2(&block.centre) <= plan.declared.radius {
            grid.extend_from_slice(&block.centre);
        }
        if grid.is_empty() || !(1..=2).contains(&plan.declared.d) {
            return Err(Error::invalid(
                "grid_resolution",
                "a grid with a point in the domain, in d = 1 or 2",
                plan.resolution,
            ));
        }
        Ok(Self {
            guarantee: plan.guarantee(),
            block,
            utilities: Vec::with_capacity(grid.len() / plan.declared.d),
            out: vec![0.0; plan.declared.d],
            plan,
            mechanism,
            grid,
            rng,
            seeded,
            trail: Trail::planned(1),
            released: None,
            failed: false,
            done: false,
        })
    }

    /// The noise stream, back to the caller once the call is done (Algorithm 1's next call).
    pub fn into_rng(self) -> DpRng {
        self.rng
    }

    /// The grid points, point after point.
    pub fn grid(&self) -> &[f64] {
        &self.grid
    }

    /// The score s(w) = ‖G̃(w)‖ on `data` (module docs). Non-private.
    pub fn score(&self, data: &Dataset, w: &[f64]) -> f64 {
        let p = &self.plan;
        let extension = p.declared.extension();
        let mut g = vec![0.0; w.len()];
        let weight = 1.0 / p.declared.n as f64;
        for i in self.block.start..self.block.start + p.declared.n {
            extension.value_and_gradient(w, data.features(i), data.label(i), weight, &mut g);
        }
        // The data-free ridge terms l2·w + λ(w − w₀), written so that w₀ = 0 adds an exact 0.
        for ((gi, wi), ci) in g.iter_mut().zip(w).zip(&self.block.centre) {
            *gi += (p.declared.l2 + p.declared.lambda) * wi - p.declared.lambda * ci;
        }
        let step: Vec<f64> = w.iter().zip(&g).map(|(wi, gi)| wi - p.gamma * gi).collect();
        let norm = norm2(&step);
        if norm <= p.declared.radius {
            // Π_W is the identity here: G̃ = g exactly, with no cancellation.
            return norm2(&g);
        }
        let mapping: Vec<f64> = w
            .iter()
            .zip(&step)
            .map(|(wi, si)| (wi - si * p.declared.radius / norm) / p.gamma)
            .collect();
        norm2(&mapping)
    }

    /// The utilities −s(w) over the grid on `data`. Non-private.
    pub fn utilities(&self, data: &Dataset) -> Vec<f64> {
        self.grid
            .chunks_exact(self.plan.declared.d)
            .map(|w| -self.score(data, w))
            .collect()
    }

    /// The exact log selection probabilities over the grid on `data` (log-sum-exp, never
    /// exponentiated): for the tests' exact privacy check. Non-private.
    pub fn log_probabilities(&self, data: &Dataset) -> Result<Vec<f64>> {
        self.mechanism.log_probabilities(&self.utilities(data))
    }
}

impl PrivateAlgorithm for EmPgm {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let caveats = vec![
            format!(
                "C = {:.4} from the declared G_k = {:.4} (k = {}), never the sample; λ = {:.4e}; γ = {:.3e} from the declared feature bound",
                p.declared.clip, p.declared.moment.0, p.declared.moment.1, p.declared.lambda, p.gamma
            ),
            "the grid is fixed before the data are read; the draw is made in log space (Gumbel-max), so no grid point's probability underflows".to_string(),
        ];
        let mechanism = format!(
            "EM-PGM on a {}-per-axis grid (Lowy 2026, Algorithm 5)",
            p.resolution
        );
        let ledger = Ledger::new(
            self.guarantee.clone(),
            mechanism.clone(),
            self.seeded,
            caveats,
        );
        let ledger = match PureDp::new(p.declared.epsilon, Relation::ReplaceOne) {
            Ok(pure) => ledger.with_spend(mechanism, PrivacyLoss::Pure(pure)),
            Err(_) => ledger,
        };
        if self.failed {
            return ledger.with_failure(
                "a grid point's score was not finite, so the selection was made uniformly; \
                 that failure depends on the data",
            );
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done {
            return None;
        }
        let d = self.plan.declared.d;
        let total = self.grid.len() / d;
        let start = self.utilities.len();
        // Each point's score reads the n·d numbers of the block: as many as fit a step's work.
        let points = work::per_step(self.plan.declared.n.saturating_mul(d), POINTS_PER_STEP);
        let end = (start + points).min(total);
        let mut best = f64::INFINITY;
        for j in start..end {
            let s = self.score(objective.data(), &self.grid[j * d..(j + 1) * d]);
            best = best.min(s);
            self.utilities.push(-s);
        }
        let mut report = StepReport {
            grad_evals: end as f64,
            loss: objective.value(&self.out),
            noise_norm: 0.0,
            grad_norm: best,
            epsilon_spent: 0.0,
            done: false,
        };
        if end == total {
            // Scores are finite norms, so select cannot fail; if it did, the one planned
            // selection is made on flat (public) scores, and the ledger says so.
            let (j, failed) =
                self.trail
                    .select_or_uniform(&self.mechanism, &self.utilities, &mut self.rng);
            self.failed |= failed;
            self.out.copy_from_slice(&self.grid[j * d..(j + 1) * d]);
            self.released = Noised::iterate(&self.out, &self.trail);
            self.done = true;
            report.epsilon_spent = self.plan.declared.epsilon;
            report.done = true;
        }
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.out
    }

    fn release(&self) -> Option<Published> {
        self.released.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: NoiseShape::None,
            count: 1,
            sensitivity: self.plan.sensitivity(),
        }]
    }

    /// Full passes so far: one per scored grid point.
    fn grad_evals(&self) -> f64 {
        self.utilities.len() as f64
    }
}

// --- The family ----------------------------------------------------------------------------

/// What the grid mechanisms of Lowy 2026 need: d ≤ 2 (the grid), the ℓ2 ball, a smooth loss with
/// a bounded derivative, plain ERM without a lasso.
pub(super) const GRID_NEEDS: &[Need] = &[
    Need::MaxDimension {
        max: 2,
        why: "the grid has (points per axis)^d points, each scored over every record",
    },
    Need::Domains {
        allowed: &[DomainChoice::L2Ball],
        why: "the grid covers the ℓ2 ball W, whose radius and projection the score uses",
    },
    Need::SmoothLoss {
        why: "the score's step γ = 1/(λ + H) needs a declared smoothness H of every record's loss",
    },
    Need::PlainErm {
        why: "the Lipschitz extension is of one record's loss",
    },
    Need::NoLasso {
        why: "the score projects onto W (no ℓ1 prox)",
    },
];

/// The page's card for EM-PGM.
pub const CARD: &str = "EM-PGM (Lowy 2026, Algorithm 5 inside Algorithm 1, Theorem E.2), the \
exponential mechanism for heavy tails under pure ε, on a grid for d ≤ 2. Phases take disjoint \
halves of the remaining data with a ridge growing 32-fold around the last released centre; in \
each of the J calls per phase every point w of a grid localised around that centre is scored by \
the norm of the projected gradient mapping of the ridge-regularised objective with clipped \
gradients (C = G_k (mε/d)^(1/k) from the declared G_k): a point near the regularised minimiser \
has a small mapping. One point is drawn at the whole ε with probability ∝ exp(−ε·score/(2Δ)), \
Δ = 2C/m, by the Gumbel-max trick in log space; the calls' blocks are disjoint (parallel \
composition). No solver, no certificate. The paper calls it inefficient: the grid grows \
exponentially in d.";

/// EM-PGM's entry in the registry.
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::EmPgm,
    card: card_text! {
        name: "EM-PGM (grid)",
        source: "Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Algorithms 1 and 5, Theorems E.1 and E.2",
        assumptions: "d ≤ 2; convex loss with E[A(z)^k] ≤ G_k^k (k ≥ 2), G_k declared from the generating distribution; W an ℓ2 ball; a smooth loss with a bounded derivative (its smoothness sets the public step γ); a data-independent grid.",
        privacy: "Pure ε, replace-one: the score ‖G̃(w)‖ of a call moves by at most 2C/m when a record of its block is replaced (clipped gradients, non-expansive projection, public γ); one exponential-mechanism draw per call over a grid fixed by the released centre; calls on disjoint blocks compose in parallel.",
        utility: "Theorem E.2: the optimal pure-ε rate G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n up to a log factor (each call within (1/λ_t)·O(G_k (d/(εm_t))^(1−1/k) log(…)) of its regularised minimiser, Theorem E.1), plus the grid's spacing.",
        watch: "The centre jumps once per phase to a grid point near the last one; the grid shrinks about 45-fold per phase at k = 2.",
        module: "algo::heavy_tails::em_pgm",
        summary: CARD,
    },
    settings: &[
        setting(
            Control::MomentK,
            "moment order k",
            "G_k is declared from the data's distribution; it sets the threshold C",
        ),
        setting(
            Control::Clip,
            "threshold C",
            "empty: C_t = G_k (m_t ε/d)^(1/k) per phase, the bias–noise balance; the score's sensitivity is 2C/m",
        ),
        setting(
            Control::Lambda1,
            "base ridge λ₁",
            "empty: the localisation bound's minimiser for a one-draw call; λ_t = 32^(t−1)·λ₁, and the score is of the objective regularised by λ_t around the last centre (utility only)",
        ),
        setting(
            Control::Repetitions,
            "calls per phase J",
            "J disjoint blocks per phase, aggregated by the median trick (utility only: privacy is ε for any J)",
        ),
        setting(
            Control::GridResolution,
            "grid points per axis",
            "the grid is fixed before the data; each point costs one pass over the records",
        ),
    ],
    needs: GRID_NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::Fixed,
    plan,
};

/// EM-PGM's plan: inside Algorithm 1's phases ([`super::em_phases`]), as
/// the paper's SCO theorem states it.
fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    super::em_phases::plan_family(settings, declared, super::em_phases::GridCall::Pgm)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::extension::Extension;
    use super::*;
    use crate::loss::Glm;
    use crate::rng::{Stream, seeded};

    /// n records in d = 2 (x on an ellipse, labels mixed), the first replaced by `first`.
    pub(crate) fn records(n: usize, first: ([f64; 2], f64)) -> Dataset {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for i in 0..n {
            let a = i as f64 * 0.37;
            xs.extend_from_slice(&[libm::cos(a), 0.5 * libm::sin(a)]);
            ys.push(if i % 3 == 0 { -1.0 } else { 1.0 });
        }
        xs[0] = first.0[0];
        xs[1] = first.0[1];
        ys[0] = first.1;
        Dataset::from_samples(2, xs, ys).unwrap()
    }

    fn plan_for(n: usize, epsilon: f64, clip: f64) -> EmPgmPlan {
        EmPgmPlan {
            declared: CallDeclared {
                epsilon,
                n,
                d: 2,
                clip,
                lambda: 0.05,
                l2: 0.0,
                radius: 2.0,
                loss: Glm::Logistic,
                moment: (1.0, 2.0),
            },
            gamma: 1.0 / (0.05 + 0.25 * 1e8),
            resolution: 41,
        }
    }

    /// The worst |log p_j − log q_j| over the grid, from the exact log probabilities.
    fn worst_log_ratio(alg: &EmPgm, a: &Dataset, b: &Dataset) -> f64 {
        let (p, q) = (
            alg.log_probabilities(a).unwrap(),
            alg.log_probabilities(b).unwrap(),
        );
        p.iter()
            .zip(&q)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_huge_outlier_moves_every_grid_probability_by_at_most_e_to_the_epsilon() {
        // D and D′ differ in one record: (1, 0, +1) against an outlier 10⁴ times as large with
        // the opposite label. Its clipped gradient has norm ≤ C: the exact log probabilities move
        // by at most ε at every grid point, including those with probabilities far below the
        // smallest f64 (compared in log space). Declared B = 10⁴ sets γ ≈ 4·10⁻⁸.
        let n = 60;
        let (a, b) = (
            records(n, ([1.0, 0.0], 1.0)),
            records(n, ([1e4, -3e3], -1.0)),
        );
        assert!(b.samples().map(|(x, _)| norm2(x)).fold(0.0, f64::max) > 1e4);
        for epsilon in [0.5, 4.0, 200.0, 5000.0] {
            let alg =
                EmPgm::new(plan_for(n, epsilon, 1.5), seeded(1, Stream::Noise), true).unwrap();
            let worst = worst_log_ratio(&alg, &a, &b);
            println!("ε = {epsilon}: worst log-ratio {worst:.4}");
            assert!(worst <= epsilon * (1.0 + 1e-9), "ε = {epsilon}: {worst}");
            // Not vacuous: the pair uses a good share of the bound (measured 0.26ε–0.37ε).
            assert!(worst > 0.2 * epsilon, "ε = {epsilon}: {worst}");
        }
        // At ε = 5000 some grid points are below the smallest f64 on one side: their probability
        // underflows to 0 in exp(), yet their log-ratio is still bounded (checked above).
        let alg = EmPgm::new(plan_for(n, 5000.0, 1.5), seeded(1, Stream::Noise), true).unwrap();
        let logs = alg.log_probabilities(&b).unwrap();
        assert!(
            logs.iter().any(|l| *l < -745.0),
            "{:?}",
            logs.iter().copied().fold(0.0, f64::min)
        );
    }

    #[test]
    fn without_the_clip_the_same_outlier_breaks_the_bound() {
        // C far above the outlier's gradient (no clipping) with the sensitivity still at 2C/n of
        // a small C: the score moves far more than Δ. Built by scoring with a large threshold and
        // weighing with the small one's mechanism.
        let n = 60;
        let (a, b) = (
            records(n, ([1.0, 0.0], 1.0)),
            records(n, ([1e4, -3e3], -1.0)),
        );
        let honest = EmPgm::new(plan_for(n, 1.0, 1.5), seeded(1, Stream::Noise), true).unwrap();
        let unclipped = EmPgm::new(plan_for(n, 1.0, 1e9), seeded(1, Stream::Noise), true).unwrap();
        let (ua, ub) = (unclipped.utilities(&a), unclipped.utilities(&b));
        let (p, q) = (
            honest.mechanism.log_probabilities(&ua).unwrap(),
            honest.mechanism.log_probabilities(&ub).unwrap(),
        );
        let worst = p
            .iter()
            .zip(&q)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(worst > 10.0, "{worst}");
    }

    #[test]
    fn the_score_is_the_gradient_mapping_of_the_clipped_objective() {
        // Inside W with a small step the mapping is the clipped gradient plus the ridge; at a
        // point where the step leaves W it is (w − Π_W(w − γg))/γ, checked by hand.
        let data = records(20, ([1.0, 0.0], 1.0));
        let mut p = plan_for(20, 1.0, 0.3);
        p.gamma = 0.5;
        let alg = EmPgm::new(p, seeded(1, Stream::Noise), true).unwrap();
        let ext = Extension {
            glm: Glm::Logistic,
            threshold: 0.3,
        };
        let g = |w: &[f64]| {
            let mut g = vec![0.0; 2];
            for (x, y) in data.samples() {
                ext.value_and_gradient(w, x, y, 1.0 / 20.0, &mut g);
            }
            g.iter()
                .zip(w)
                .map(|(gi, wi)| gi + 0.05 * wi)
                .collect::<Vec<_>>()
        };
        let inside = [0.1, -0.2];
        assert!((alg.score(&data, &inside) - norm2(&g(&inside))).abs() < 1e-15);
        let edge = [2.0, 0.0];
        let ge = g(&edge);
        let step = [edge[0] - 0.5 * ge[0], edge[1] - 0.5 * ge[1]];
        let s = norm2(&step);
        let expected = if s <= 2.0 {
            norm2(&ge)
        } else {
            let proj = [step[0] * 2.0 / s, step[1] * 2.0 / s];
            norm2(&[(edge[0] - proj[0]) / 0.5, (edge[1] - proj[1]) / 0.5])
        };
        assert!((alg.score(&data, &edge) - expected).abs() < 1e-12);
    }
}
