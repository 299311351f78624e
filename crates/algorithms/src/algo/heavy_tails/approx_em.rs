//! Algorithms 6–7 of Lowy 2026, the localised approximate exponential mechanism, on a grid for
//! d ≤ 2: localise by output perturbation (Algorithm 2 at ε/2), then draw from the exponential
//! mechanism of the Lipschitz-extended objective on the small ball it found (ε/4).
//!
//! # Algorithm (Algorithm 7, Localized-ApproxEM, one call at (λ, w₀) on n records)
//! This file is one call (Proposition F.5); the family runs it as the ERM solver of every call of
//! Algorithm 1, on the call's block at (ε, λ_t, w̄_t, C_t, m_t) (Theorem F.6,
//! [`super::em_phases`]).
//!
//! With Q(w) = (1/n)Σ f_C(w, zᵢ) + (l2/2)‖w‖² + (λ/2)‖w − w₀‖²:
//! 1. **localisation** (Algorithm 2 with ε/2, ζ = 3): a point w̃ certified within C/(λn) of
//!    argmin_W Q, then w_loc = Π_W(w̃ + b), b ℓ2-Laplace of scale β = 6C/(λn·ε/2) = 12C/(λnε);
//!    W₀ = W ∩ B(w_loc, r₀), r₀ = 100·ζ·C·d/(λn·ε/2) = 600·C·d/(λnε);
//! 2. **the exponential mechanism** on W₀ with anchor u₀ = w_loc: D₀ = r₀, Δ₀ = 2C·D₀/n,
//!    ε_EM = ε/4, and the potential Ψ(w) = (ε_EM/(2Δ₀))·(Q(w) − Q(u₀));
//! 3. **Algorithm 6** evaluates the centred potential record by record,
//!    (1/n)Σ [f_C(w, zᵢ) − f_C(u₀, zᵢ)] + the ridge terms' difference, with the anchor's values
//!    f_C(u₀, zᵢ) computed once and cached (as the paper's Algorithm 6 caches them).
//!
//! # Choices (written down, as the rules ask)
//! - **The sampler is exact, on a grid.** The paper samples the continuous density on W₀ with an
//!   inexact log-concave sampler (Lowy & Liu 2025) and evaluates f_C approximately; here the
//!   candidates are the page's `grid_resolution` points per axis over the smaller of the boxes
//!   around W and B(w_loc, r₀), kept inside both balls, plus u₀ = w_loc itself (so the set is
//!   never empty). The set is a function of the released w_loc and public settings only
//!   (Lowy 2026). The draw is exact (Gumbel-max in log space).
//! - **Algorithm 6's evaluation is exact**: the R^d extension of a GLM loss in closed form
//!   ([`super::Extension`]), C-Lipschitz on all of R^d, instead of Algorithm 3's approximate inner
//!   solves of the W-constrained f_C. Its ζ_in and the sampler's slack ξ are therefore 0.
//! - **The budget split is the paper's**: ε/2 for the localisation and ε_EM = ε/4 for the draw.
//!   The remaining ε/4 is the paper's allowance for Algorithm 6's evaluation error and the
//!   sampler's slack (Lemma F.4: ε/4 + 2ρ ≤ ε/2), which the exact grid does not spend; the
//!   statement stays ε, an upper bound.
//! - **The stage-1 solver** is the project's certified AGD on the R^d extension of a smooth loss
//!   (as [`super::localised`] and [`super::single_stage`] do), stopped by the gradient-mapping
//!   certificate ‖w − argmin‖ ≤ C/(λn) (Algorithm 2's accuracy).
//! - **C** = G_k (nε/d)^(1/k) with n the call's records, unless declared (`clip`), and **λ** the
//!   schedule's λ_t ([`super::em_phases`]).
//!
//! # Privacy
//! Stage 1 is Algorithm 2 at ε/2 (Lemma 2.4: sensitivity ≤ 4C/(λn), calibrated to 6C/(λn)). Given
//! w_loc, W₀ and the grid are public. Every candidate w has ‖w − u₀‖ ≤ r₀ = D₀, and f_C is
//! C-Lipschitz, so replacing one record moves each centred difference by at most 2C·D₀/n = Δ₀
//! (Lemma F.1 with the anchor at w_loc): the draw is ε_EM-DP. The paper's "diam(W₀) ≤ D₀" is off
//! by a factor 2 (the diameter can reach 2D₀), but with u₀ = w_loc the sensitivity is Δ₀ exactly,
//! and the total is ε/2 + ε/4 ≤ ε (a count of 17ε/16 would
//! take the diameter bound 2D₀ for the sensitivity, which the anchor makes unnecessary).
//!
//! # Floating point (the attacker's view)
//! - **Log space throughout**: the draw is the Gumbel-max argmax of the log weights (no exp), and
//!   the tests' exact law is log-sum-exp ([`crate::noise::ExponentialMechanism::log_probabilities`]);
//!   no candidate's probability underflows to 0 under one dataset and not the other.
//! - **Per-record differences**: the potential is summed from f_C(w, zᵢ) − f_C(u₀, zᵢ), each at
//!   most C·‖w − u₀‖ ≤ C·r₀ in size, never from Q(w) − Q(u₀) of two large sums: an outlier's
//!   f_C values (of order C‖w‖) cannot absorb the other records' contributions.
//!
//! # Utility
//! Prop F.5: E[Q(ŵ) − min_{W₀} Q] ≤ 2Δ₀·d/ε_EM for the continuous draw; on the grid,
//! (2Δ₀/ε_EM)(ln|G| + 1) plus the best candidate's excess, at most (C + (λ + l2)D)·h√d/2.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithms 2, 6 and 7, Lemmas 2.4 and F.1–F.4, Proposition F.5 (Appendix
//! F).

use super::call_declared::CallDeclared;
use super::em_pgm::{Block, GRID_NEEDS};
use super::extension::Extension;
use super::localised::{Region, Surrogate};
use crate::algo::exponential_grid::square_grid;
use crate::algo::family::{
    Demonstration, Family, MINIMISATION, Purity, RunLength, card_text, setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::output_perturbation::certified_gd_bound;
use crate::algo::problem::ProblemDeclaration;
use crate::algo::registry::Planned;
use crate::algo::settings::Settings;
use crate::algo::{CertificateStatus, Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::controls::Control;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::{dist2, dot, norm2};
use crate::noise::ExponentialMechanism;
use crate::objective::Objective;
use crate::privacy::release::{Law, Noised, Published, Trail};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;
use crate::solver::work;
use crate::solver::{CertificateConstants, CertifiedRun, SolverKind};

/// Candidates scored per step at most; fewer where a utility reads more than a step's work.
const POINTS_PER_STEP: usize = 32;
/// Algorithm 2's tail parameter ζ in Algorithm 7 (r₀ = 100·ζ·C·d/(λn·ε/2)).
const ZETA: f64 = 3.0;

/// The declared side of a run: every number from the config, none from the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApproxEmPlan {
    /// What the call reads, every number declared.
    pub declared: CallDeclared,
    /// sup φ″ (the stage-1 certificate's smoothness is sup φ″·(1/n)Σ‖xᵢ‖² + l2 + λ).
    pub curvature: f64,
    /// The declared feature bound B the records are clipped to (the stage-1 budget's
    /// smoothness is sup φ″·B² + l2 + λ).
    pub feature_bound: f64,
    /// Grid points per axis.
    pub resolution: usize,
}

impl ApproxEmPlan {
    /// Stage 1's solver budget (AGD, then the GD safeguard), from the declared constants alone:
    /// in exact arithmetic the localisation certifies within it on every dataset. Refused at the
    /// ridge λ when the certificate's rounding allowance would swallow C/(λn) (no budget could
    /// certify it), or when the localisation's scale is not a finite number > 0.
    pub fn budget(&self) -> Result<usize> {
        let declared = &self.declared;
        Law::l2_laplace(self.scale()).map_err(|_| {
            Error::invalid(
                "lambda1",
                format!(
                    "a ridge λ whose localisation scale 12C/(λnε) is a finite number > 0 (it is {:.3e})",
                    self.scale()
                ),
                declared.lambda,
            )
        })?;
        let mu = declared.l2 + declared.lambda;
        let constants = CertificateConstants {
            strong_convexity: mu,
            smoothness: self.curvature * self.feature_bound * self.feature_bound + mu,
            lipschitz: declared.clip + mu * 2.0 * declared.radius,
        };
        certified_gd_bound(
            &constants,
            declared.n + declared.d,
            declared.radius,
            2.0 * declared.radius,
            self.accuracy(),
        )
        .map_err(|allowance| {
            Error::invalid(
                "lambda1",
                format!(
                    "a smaller ridge λ, a larger threshold C or a smaller feature bound: the \
                     localisation's certified accuracy C/(λn) = {:.2e} must exceed the \
                     certificate's rounding allowance {allowance:.2e} tenfold, or no solver budget \
                     can certify it",
                    self.accuracy()
                ),
                declared.lambda,
            )
        })
    }

    /// Stage 1's certified distance C/(λn) (Algorithm 2's gap C²/(2λn²)).
    pub fn accuracy(&self) -> f64 {
        self.declared.clip / (self.declared.lambda * self.declared.n as f64)
    }

    /// Stage 1's calibrated sensitivity 6C/(λn) (Lemma 2.4; the true bound is 4C/(λn)).
    pub fn localisation_sensitivity(&self) -> f64 {
        6.0 * self.declared.clip / (self.declared.lambda * self.declared.n as f64)
    }

    /// β = 6C/(λn)/(ε/2) = 12C/(λnε).
    pub fn scale(&self) -> f64 {
        self.localisation_sensitivity() / (self.declared.epsilon / 2.0)
    }

    /// r₀ = D₀ = 600·C·d/(λnε), the radius of W₀.
    pub fn r0(&self) -> f64 {
        100.0 * ZETA * self.declared.clip * self.declared.d as f64
            / (self.declared.lambda * self.declared.n as f64 * self.declared.epsilon / 2.0)
    }

    /// ε_EM = ε/4.
    pub fn em_epsilon(&self) -> f64 {
        self.declared.epsilon / 4.0
    }

    /// Δ₀ = 2C·D₀/n, the centred potential's sensitivity (Lemma F.1, anchor u₀ = w_loc).
    pub fn em_sensitivity(&self) -> f64 {
        2.0 * self.declared.clip * self.r0() / self.declared.n as f64
    }

    /// The statement, fixed before the data.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee {
            epsilon: self.declared.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "pure ε: ε/2 for the ℓ2-Laplace localisation (Δ = 6C/(λn)) + ε/4 for the \
                 exponential mechanism on W₀ (Δ₀ = 2C·r₀/n = {:.3e}); the paper's last ε/4 covers \
                 inexact evaluation and sampling, which the exact grid does not need (Lowy 2026, \
                 Algorithms 6–7, Lemma F.4)",
                self.em_sensitivity()
            ),
        }
    }

    /// The noise law: one ℓ2-Laplace draw, then one exponential-mechanism draw.
    pub fn draws(&self) -> Vec<Draws> {
        vec![
            Draws {
                noise: NoiseShape::L2Laplace {
                    scale: self.scale(),
                    d: self.declared.d,
                },
                count: 1,
                sensitivity: self.localisation_sensitivity(),
            },
            Draws {
                noise: NoiseShape::None,
                count: 1,
                sensitivity: self.em_sensitivity(),
            },
        ]
    }

    /// The candidate set on W₀ = W ∩ B(w_loc, r₀): the grid over the smaller ball's box, kept
    /// inside both balls, then w_loc itself. A function of w_loc and public settings only.
    pub fn candidates(&self, w_loc: &[f64]) -> Vec<f64> {
        let (r0, radius) = (self.r0(), self.declared.radius);
        let inside = |w: &[f64]| norm2(w) <= radius && dist2(w, w_loc) <= r0;
        let mut grid = if r0 < radius {
            square_grid(w_loc, r0, self.resolution, inside)
        } else {
            square_grid(&vec![0.0; w_loc.len()], radius, self.resolution, inside)
        };
        grid.extend_from_slice(w_loc);
        grid
    }
}

/// Where the run stands.
enum Stage {
    /// Algorithm 2: certifying w̃ over W.
    Localise(Option<CertifiedRun>),
    /// The exponential mechanism on W₀: candidates, the anchor's cached values, utilities so far.
    Sample {
        candidates: Vec<f64>,
        anchor: Vec<f64>,
        anchor_values: Vec<f64>,
        utilities: Vec<f64>,
    },
}

/// Algorithms 6–7 on a grid, as a step-wise [`PrivateAlgorithm`]: stage-1 solver steps, the
/// localisation draw, then batches of scored candidates and the release.
pub struct ApproxEm {
    plan: ApproxEmPlan,
    guarantee: Guarantee,
    mechanism: ExponentialMechanism,
    rng: DpRng,
    seeded: bool,
    stage: Stage,
    /// The trail of the final selection (one draw) and the release it makes; the localisation
    /// draw is its own [`Noised`].
    trail: Trail,
    released: Option<Noised>,
    select_failed: bool,
    region: Region,
    centre: Vec<f64>,
    start: usize,
    /// The point the run stands at (**non-private**): the localisation's iterate, then w_loc,
    /// then the release. Kept here rather than by the session because the next step's loss is
    /// read at it and the solver that held it is gone once it finished.
    current: Vec<f64>,
    done: bool,
    failed: bool,
    budget: usize,
    law: Law,
    last: Option<CertificateStatus>,
    passes: f64,
    localised: Option<(Vec<f64>, Vec<f64>)>,
}

impl ApproxEm {
    /// The paper's one call (Proposition F.5): all n records, w₀ = 0; the solver starts at w₀.
    pub fn new(plan: ApproxEmPlan, rng: DpRng, seeded: bool) -> Result<Self> {
        let centre = vec![0.0; plan.declared.d];
        Self::in_phase(plan, Block { start: 0, centre }, rng, seeded)
    }

    /// One call of Algorithm 1 (Theorem F.6): the block's n records (n the plan's) and the ridge
    /// around its public centre w₀; the solver starts at w₀.
    pub fn in_phase(plan: ApproxEmPlan, block: Block, rng: DpRng, seeded: bool) -> Result<Self> {
        if !(1..=2).contains(&plan.declared.d) || block.centre.len() != plan.declared.d {
            return Err(Error::invalid("d", "1 or 2 for the grid", plan.declared.d));
        }
        Ok(Self {
            guarantee: plan.guarantee(),
            budget: plan.budget()?,
            law: Law::l2_laplace(plan.scale())?,
            mechanism: ExponentialMechanism::new(plan.em_epsilon(), plan.em_sensitivity())?,
            region: Region::Ball(plan.declared.radius),
            current: block.centre.clone(),
            centre: block.centre,
            start: block.start,
            plan,
            rng,
            seeded,
            stage: Stage::Localise(None),
            done: false,
            trail: Trail::planned(1),
            released: None,
            select_failed: false,
            failed: false,
            last: None,
            passes: 0.0,
            localised: None,
        })
    }

    /// Once the localisation has drawn: the certified point w̃ and w_loc = Π_W(w̃ + b), the
    /// centre of the grid's ball W₀. **Non-private** (w̃ is computed from the raw data).
    pub fn localised(&self) -> Option<(&[f64], &[f64])> {
        self.localised
            .as_ref()
            .map(|(w, at)| (w.as_slice(), at.as_slice()))
    }

    fn surrogate<'a>(&'a self, data: &'a Dataset) -> Surrogate<'a> {
        Surrogate {
            data,
            start: self.start,
            m: self.plan.declared.n,
            extension: self.extension(),
            l2: self.plan.declared.l2,
            lambda: self.plan.declared.lambda,
            centre: &self.centre,
            region: &self.region,
        }
    }

    fn extension(&self) -> Extension {
        self.plan.declared.extension()
    }

    /// The noise stream, back to the caller once the call is done (Algorithm 1's next call).
    pub fn into_rng(self) -> DpRng {
        self.rng
    }

    /// Whether the localisation's certificate never held within the planned budget (floating
    /// point only): the localisation then drew its noise around the call's public centre, and
    /// the release is NOT PRIVATE (that failure depends on the data).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The block's records, in order.
    fn records<'a>(&self, data: &'a Dataset) -> impl Iterator<Item = (&'a [f64], f64)> + 'a {
        (self.start..self.start + self.plan.declared.n)
            .map(move |i| (data.features(i), data.label(i)))
    }

    /// The data-free ridge terms (l2/2)‖w‖² + (λ/2)‖w − w₀‖².
    fn ridge(&self, w: &[f64]) -> f64 {
        let far = dist2(w, &self.centre);
        0.5 * (self.plan.declared.l2 * dot(w, w) + self.plan.declared.lambda * far * far)
    }

    /// The anchor's values f_C(u₀, zᵢ), computed once (Algorithm 6's cache).
    pub fn anchor_values(&self, data: &Dataset, anchor: &[f64]) -> Vec<f64> {
        let ext = self.extension();
        self.records(data)
            .map(|(x, y)| ext.value(anchor, x, y))
            .collect()
    }

    /// Algorithm 6: the utility −(Q(w) − Q(u₀)), summed from per-record differences (module
    /// docs, Floating point). Non-private.
    pub fn utility(&self, data: &Dataset, anchor: &[f64], anchor_values: &[f64], w: &[f64]) -> f64 {
        let ext = self.extension();
        let rise: f64 = self
            .records(data)
            .zip(anchor_values)
            .map(|((x, y), at_anchor)| ext.value(w, x, y) - at_anchor)
            .sum();
        -(rise / self.plan.declared.n as f64 + self.ridge(w) - self.ridge(anchor))
    }

    /// The exact log selection probabilities over `candidates` (anchored at the last point) on
    /// `data`: for the tests' exact privacy check. Non-private.
    pub fn log_probabilities(&self, data: &Dataset, candidates: &[f64]) -> Result<Vec<f64>> {
        let d = self.plan.declared.d;
        let anchor = &candidates[candidates.len() - d..];
        let values = self.anchor_values(data, anchor);
        let utilities: Vec<f64> = candidates
            .chunks_exact(d)
            .map(|w| self.utility(data, anchor, &values, w))
            .collect();
        self.mechanism.log_probabilities(&utilities)
    }

    /// One solver step of stage 1; at its certificate, the localisation draw. Returns the noise
    /// norm of a draw it made.
    fn localise(&mut self, data: &Dataset, run: Option<CertifiedRun>) -> f64 {
        let mut run = match run {
            Some(run) => run,
            None => {
                let p = &self.plan;
                // The block's own smoothness bound (true for these records, at most the declared
                // sup φ″·B² + l2 + λ) decides only when the solver stops; the budget is the plan's.
                let mean_square =
                    self.records(data).map(|(x, _)| dot(x, x)).sum::<f64>() / p.declared.n as f64;
                let mu = p.declared.l2 + p.declared.lambda;
                let constants = CertificateConstants {
                    strong_convexity: mu,
                    smoothness: p.curvature * mean_square + mu,
                    lipschitz: p.declared.clip + mu * 2.0 * p.declared.radius,
                };
                CertifiedRun::new(
                    &self.surrogate(data),
                    constants,
                    SolverKind::Agd,
                    0,
                    &self.centre,
                    p.accuracy(),
                    self.budget,
                    self.budget,
                )
            }
        };
        let cert = run.step(&self.surrogate(data));
        self.passes = run.grad_evals();
        self.last = Some(CertificateStatus {
            bound: cert.distance_bound,
            threshold: run.radius(),
            sensitivity: self.plan.localisation_sensitivity(),
            met: run.is_certified(),
        });
        self.current.copy_from_slice(run.current());
        // The certified point, or the call's fixed public centre if even the safeguard failed.
        let certified = if run.is_certified() {
            run.certified_point().to_vec()
        } else if run.failed() {
            self.failed = true;
            self.centre.clone()
        } else {
            self.stage = Stage::Localise(Some(run));
            return 0.0;
        };
        // w_loc = Π_W(w̃ + b).
        let region = Region::Ball(self.plan.declared.radius);
        let (w_loc, noise_norm) =
            Noised::perturb(&certified, &self.law, &mut self.rng, |w| region.project(w));
        let w_loc = w_loc.x().to_vec();
        self.current.copy_from_slice(&w_loc);
        self.localised = Some((certified, w_loc.clone()));
        self.stage = Stage::Sample {
            candidates: self.plan.candidates(&w_loc),
            anchor_values: self.anchor_values(data, &w_loc),
            anchor: w_loc,
            utilities: Vec::new(),
        };
        noise_norm
    }
}

impl PrivateAlgorithm for ApproxEm {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let caveats = vec![
            format!(
                "C = {:.4} from the declared G_k = {:.4} (k = {}), never the sample; λ = {:.4e}; r₀ = {:.3e}",
                p.declared.clip,
                p.declared.moment.0,
                p.declared.moment.1,
                p.declared.lambda,
                p.r0()
            ),
            format!(
                "the localisation releases only after the certificate ‖w − argmin Q‖ ≤ C/(λn) = {:.3e} held",
                p.accuracy()
            ),
            "the grid on W₀ depends on the released localisation point and public settings only; the draw is made in log space (Gumbel-max)".to_string(),
            "the exponential mechanism spends ε/4 of the paper's ε/2 for its stage: evaluation and sampling are exact here".to_string(),
        ];
        let mechanism =
            "localised approximate exponential mechanism on a grid (Lowy 2026, Algorithms 6–7)";
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if let Ok(pure) = PureDp::new(p.declared.epsilon, Relation::ReplaceOne) {
            ledger = ledger.with_spend(
                "ℓ2-Laplace localisation (ε/2) and exponential mechanism on W₀ (ε/4)",
                PrivacyLoss::Pure(pure),
            );
        }
        if self.failed {
            ledger = ledger.with_failure(
                "the localisation's certificate never held within the planned budget (floating \
                 point); it drew its noise around the call's centre instead, and that failure \
                 depends on the data",
            );
        }
        if self.select_failed {
            ledger = ledger.with_failure(
                "a candidate's score was not finite, so the selection was made uniformly; that \
                 failure depends on the data",
            );
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done {
            return None;
        }
        let data = objective.data();
        let loss = objective.value(&self.current);
        let mut noise_norm = 0.0;
        let mut grad_norm = f64::NAN;
        let mut epsilon_spent = 0.0;
        match std::mem::replace(&mut self.stage, Stage::Localise(None)) {
            Stage::Localise(run) => {
                noise_norm = self.localise(data, run);
                grad_norm = self
                    .last
                    .map(|c| c.bound * (self.plan.declared.lambda + self.plan.declared.l2))
                    .unwrap_or(f64::NAN);
                if matches!(self.stage, Stage::Sample { .. }) {
                    epsilon_spent = self.plan.declared.epsilon / 2.0;
                }
            }
            Stage::Sample {
                candidates,
                anchor,
                anchor_values,
                mut utilities,
            } => {
                let d = self.plan.declared.d;
                let total = candidates.len() / d;
                let start = utilities.len();
                // Each utility reads the block's n·d numbers: as many as fit a step's work.
                let points =
                    work::per_step(self.plan.declared.n.saturating_mul(d), POINTS_PER_STEP);
                let end = (start + points).min(total);
                for j in start..end {
                    let w = &candidates[j * d..(j + 1) * d];
                    utilities.push(self.utility(data, &anchor, &anchor_values, w));
                }
                self.passes += (end - start) as f64;
                epsilon_spent = self.plan.declared.epsilon / 2.0;
                if end == total {
                    // Finite utilities, so select cannot fail; if it did, the one planned
                    // selection is made on flat (public) scores, and the ledger says so.
                    let (j, failed) =
                        self.trail
                            .select_or_uniform(&self.mechanism, &utilities, &mut self.rng);
                    self.select_failed |= failed;
                    self.current
                        .copy_from_slice(&candidates[j * d..(j + 1) * d]);
                    self.released = Noised::iterate(&self.current, &self.trail);
                    self.done = true;
                    epsilon_spent = self.plan.declared.epsilon;
                } else {
                    self.stage = Stage::Sample {
                        candidates,
                        anchor,
                        anchor_values,
                        utilities,
                    };
                }
            }
        }
        let report = StepReport {
            grad_evals: self.passes,
            loss,
            noise_norm,
            grad_norm,
            epsilon_spent,
            done: self.done,
        };
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.current
    }

    fn release(&self) -> Option<Published> {
        self.released.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        self.plan.draws()
    }

    fn grad_evals(&self) -> f64 {
        self.passes
    }

    fn certificate(&self) -> Option<CertificateStatus> {
        self.last
    }
}

// --- The family ----------------------------------------------------------------------------

/// The page's card for Algorithms 6–7.
pub const CARD: &str = "Localised approximate exponential mechanism (Lowy 2026, Algorithms 6–7 \
inside Algorithm 1, Theorem F.6), on a grid for d ≤ 2: pure ε for heavy tails. Phases take \
disjoint halves of the remaining data with a ridge growing 32-fold around the last released \
centre, and every one of the J calls per phase runs Algorithm 7 on its block at the whole ε. \
First localise: a certified solve of the ridge-regularised objective with every record's loss \
replaced by its Lipschitz extension f_C (C = G_k (mε/d)^(1/k) from the declared G_k), then one \
ℓ2-Laplace draw at ε/2 gives a centre w_loc and a ball W₀ of radius r₀ = 600·C·d/(λmε) around \
it. Then sample: the exponential mechanism at ε/4 over a grid on W₀, scored by the objective's \
rise from w_loc with sensitivity Δ₀ = 2C·r₀/m (the anchor at w_loc keeps this exact). \
The paper keeps its last ε/4 for inexact evaluation and sampling; here both are exact.";

/// The localised exponential mechanism's entry in the registry.
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::LocalisedApproxEm,
    card: card_text! {
        name: "localised exponential mechanism (grid)",
        source: "Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Algorithms 1, 6 and 7, Lemma F.1 and Theorem F.6",
        assumptions: "d ≤ 2; convex loss with E[A(z)^k] ≤ G_k^k (k ≥ 2), G_k declared from the generating distribution; W an ℓ2 ball; a smooth loss with a bounded derivative (for the certified localisation).",
        privacy: "Pure ε, replace-one, per call: ℓ2-Laplace output perturbation at ε/2 (Δ = 6C/(λm), after a certified solve), then the exponential mechanism at ε/4 on a grid fixed by the released centre (Δ₀ = 2C·r₀/m); basic composition, ε/4 to spare; calls on disjoint blocks compose in parallel.",
        utility: "Theorem F.6: the optimal pure-ε rate G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n up to constants (each call: E[Q(ŵ) − min over W₀ of Q] ≤ 2Δ₀·d/ε_EM, Proposition F.5), plus the grid's spacing.",
        watch: "In every call, one jump to the localisation centre (its noise), then one draw from the grid on the ball around it; the centre moves less phase after phase.",
        module: "algo::heavy_tails::approx_em",
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
            "empty: C_t = G_k (m_t ε/d)^(1/k) per phase; it sets the localisation's noise and the draw's sensitivity",
        ),
        setting(
            Control::Lambda1,
            "base ridge λ₁",
            "empty: the localisation bound's minimiser for a one-draw call; λ_t = 32^(t−1)·λ₁: the localisation's noise and r₀ shrink as λ grows (utility only)",
        ),
        setting(
            Control::Repetitions,
            "calls per phase J",
            "J disjoint blocks per phase, aggregated by the median trick (utility only: privacy is ε for any J)",
        ),
        setting(
            Control::GridResolution,
            "grid points per axis",
            "the grid on the localised ball W₀, fixed by the released centre; each point costs one pass",
        ),
    ],
    needs: GRID_NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan,
};

/// The localised exponential mechanism's plan: inside Algorithm 1's phases ([`super::em_phases`]), as
/// the paper's SCO theorem states it.
fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    super::em_phases::plan_family(settings, declared, super::em_phases::GridCall::Approx)
}

#[cfg(test)]
mod tests {
    use super::super::em_pgm::tests::records;
    use super::*;
    use crate::loss::Glm;
    use crate::rng::{Stream, seeded};

    fn plan_for(n: usize, epsilon: f64, lambda: f64) -> ApproxEmPlan {
        ApproxEmPlan {
            declared: CallDeclared {
                epsilon,
                n,
                d: 2,
                clip: 1.5,
                lambda,
                l2: 0.0,
                radius: 2.0,
                loss: Glm::Logistic,
                moment: (1.0, 2.0),
            },
            curvature: 0.25,
            feature_bound: 2.0,
            resolution: 41,
        }
    }

    #[test]
    fn the_papers_constants_are_the_ones_calibrated() {
        // n = 1000, d = 2, ε = 1, C = 1.5, λ = 0.5: β = 12C/(λnε) = 0.036, r₀ = 600Cd/(λnε) = 3.6,
        // Δ₀ = 2C·r₀/n = 0.0108, ε_EM = 0.25, and the localisation's Δ = 6C/(λn) at ε/2.
        let p = plan_for(1000, 1.0, 0.5);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        assert!(close(p.scale(), 0.036), "{}", p.scale());
        assert!(close(p.r0(), 3.6), "{}", p.r0());
        assert!(close(p.em_sensitivity(), 0.0108), "{}", p.em_sensitivity());
        assert!(close(p.em_epsilon(), 0.25));
        assert!(close(
            p.localisation_sensitivity() / (p.declared.epsilon / 2.0),
            p.scale()
        ));
        // Algorithm 2's radius: the certified distance C/(λn) gives sensitivity ≤ 4C/(λn) ≤ 6C/(λn).
        assert!(4.0 * p.accuracy() <= p.localisation_sensitivity());
        let g = p.guarantee();
        assert_eq!((g.epsilon, g.delta), (1.0, 0.0));
    }

    #[test]
    fn every_candidate_lies_within_r0_of_the_anchor_and_inside_w() {
        // The sensitivity Δ₀ = 2C·r₀/n needs ‖w − u₀‖ ≤ r₀ for every candidate:
        // a small r₀ (large λ) and a large one (W₀ = W), anchors inside and on the edge.
        for lambda in [0.5, 50.0] {
            let p = plan_for(1000, 1.0, lambda);
            for anchor in [[0.3, -0.2], [2.0, 0.0], [-1.2, 1.6]] {
                let candidates = p.candidates(&anchor);
                assert!(
                    candidates.len() >= 2 * 2,
                    "λ = {lambda}: {}",
                    candidates.len()
                );
                assert_eq!(&candidates[candidates.len() - 2..], &anchor);
                for w in candidates.chunks_exact(2) {
                    assert!(dist2(w, &anchor) <= p.r0() && norm2(w) <= 2.0 + 1e-12);
                }
            }
        }
    }

    #[test]
    fn a_huge_outlier_moves_every_candidates_log_probability_by_at_most_epsilon_over_four() {
        // D and D′ differ in one record, D′'s 10⁴ times as large with the opposite label, whose
        // raw loss rises by ~10⁴ per unit of w. On a fixed anchor and grid (stage 2 conditioned on
        // the released w_loc) the draw is ε/4-DP: every candidate's exact log probability moves
        // by at most ε_EM, including those that underflow in exp(). W₀ = W, and smaller balls.
        let n = 60;
        let (a, b) = (
            records(n, ([1.0, 0.0], 1.0)),
            records(n, ([1e4, -3e3], -1.0)),
        );
        for (epsilon, lambda) in [
            (1.0, 0.5),
            (400.0, 0.5),
            (400.0, 20.0),
            (4.0, 100.0),
            (1.0, 1000.0),
        ] {
            let p = plan_for(n, epsilon, lambda);
            let alg = ApproxEm::new(p, seeded(1, Stream::Noise), true).unwrap();
            let candidates = p.candidates(&[0.4, -0.3]);
            let (lp, lq) = (
                alg.log_probabilities(&a, &candidates).unwrap(),
                alg.log_probabilities(&b, &candidates).unwrap(),
            );
            let worst = lp
                .iter()
                .zip(&lq)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            println!(
                "ε = {epsilon}, λ = {lambda}, r₀ = {:.3}: worst log-ratio {worst:.4} ≤ ε/4",
                p.r0()
            );
            assert!(worst <= p.em_epsilon() * (1.0 + 1e-9), "{worst}");
            // Not vacuous where W₀ is smaller than W (measured 0.59–0.60 of ε/4); with W₀ = W
            // (r₀ = 60 ≫ R = 2) Δ₀ is far above what the grid can show (0.0021).
            if p.r0() < p.declared.radius {
                assert!(worst > 0.5 * p.em_epsilon(), "not vacuous: {worst}");
            }
        }
    }
}
