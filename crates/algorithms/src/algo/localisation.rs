//! Localisation (Lowy & Razaviyayn 2021, Algorithm 10) and the exponential mechanism on the
//! localised ball (Algorithm 11, "exponential sampling + localization", Appendix G.2), for
//! strongly convex Lipschitz F, pure ε, on a grid for d ≤ 2.
//!
//! # Algorithm
//! Algorithm 10, A_loc^{ε′}(ξ): output perturbation with ℓ2-Laplace noise,
//! w₀ = Π_W(w* + z), z with density ∝ exp(−ε′‖z‖/Δ_F), and the set
//! W₀ = {w ∈ W : ‖w − w₀‖ ≤ ξ·Δ_F·d/ε′}. Releasing W₀ is releasing w₀ (its radius is public),
//! so the family releases w₀ and states the radius of W₀ in its ledger.
//!
//! Algorithm 11: ξ = ln(ε²μR/(dL)); W₀ = A_loc^{ε/2}(ξ), of radius r₀ = 2ξΔ_F·d/ε; then
//! Algorithm 9 at ε/2 on W₀: w with density ∝ exp(−(ε/2)·F(w)/(4L·r₀)) on W₀.
//! **Misprint:** the paper prints ξ = log(ε²μR/(pL)) in Algorithm 11; p is its d (Proposition
//! G.2's proof uses d·e^{−ξ} = dL/(ε²μR)), so the code reads d.
//!
//! # Choices (written down, as the rules ask)
//! - **Stage 1 is Algorithm 1** ([`crate::algo::output_perturbation`]) at δ = 0 and ε′ (ε for
//!   Algorithm 10, ε/2 for Algorithm 11), with the page's certified base solver: the argmin of
//!   line 2 is replaced by a point certified within ρ = √(2α/μ) of it, and the noise is
//!   calibrated to Δ_T = Δ_F + 2ρ (Lowy & Razaviyayn 2021, Algorithm 1). W₀'s radius uses Δ_T in
//!   place of Δ_F (utility only: it is larger).
//! - **ξ for ERM.** The paper states Algorithm 11 for a general F (Δ_F = 2L/μ). For the page's
//!   ERM objectives (Δ_F = 2L/(μn)) the same proof, with ε·n in place of ε (the ERM analogue of
//!   Bassily, Smith & Thakurta 2014, Lemma 4.2), gives ξ = ln((εn)²μR/(dL)); tilted ERM keeps the
//!   paper's ξ. Below e the logarithm is raised to 1 (ξ > 0 is the algorithm's input condition;
//!   Proposition G.2 assumes dμR ≥ 2L and ε > d, which make it large). ξ depends on declared
//!   constants only.
//! - **The sampler is exact, on a grid** (as Algorithm 9's family,
//!   [`crate::algo::exponential_grid`]): the candidates are `grid_resolution` points per axis
//!   over the box of the smaller of B(w₀, r₀) and W, kept inside both, plus w₀ itself (so the set
//!   is never empty): a function of the released w₀ and public settings only. The draw is
//!   Gumbel-max in log space.
//!
//! # Assumptions
//! F μ-strongly convex (a ridge μ > 0) with an L-Lipschitz data term on a bounded W of radius R
//! (declared constants; features clipped to the declared bound); d ≤ 2 for the grid.
//!
//! # Privacy
//! Stage 1 is ε′-DP (Lowy & Razaviyayn 2021, Proposition 2.1 with Δ_T, Algorithm 1). Given w₀
//! the candidates are public, and every candidate w has ‖w − w₀‖ ≤ r = min(r₀, 2R). The utility
//! −(F(w) − F(w₀)) then moves by at most Δ₀ = 2L·r/n (ERM; 2L·r for tilted ERM) when one record
//! is replaced, since each record's f(w, x) − f(w₀, x) lies in [−L·r, L·r] and the regulariser
//! cancels (Lowy & Razaviyayn 2021, Proposition G.1 with V ≤ 2L·r about the centre w₀; the
//! density ∝ exp(−(ε/2)F/(2Δ₀)) is the paper's exp(−(ε/2)F/(4L·r₀)) at r = r₀). The draw is
//! ε/2-DP, and the two compose to ε (basic composition, as the paper says). Replace-one only,
//! with n public, as Algorithm 1.
//!
//! # Floating point
//! The scores are −(F(w_j) − F(w₀)) computed as differences of the per-record rises above the
//! origin ([`Objective::rise`], each term at most L·R): no record's value can absorb the others
//! (see [`crate::algo::exponential_grid`]). The remaining rounding is a few ulps of L·R per
//! score, which moves each log-probability by about ε·n·R/r₀ · 10⁻¹⁶.
//!
//! # Utility
//! Proposition G.2: E F(ŵ) − F* ≲ (L²/μ)(d/ε)²·ln(ε²μR/(dL)) (ERM: (d/(εn))² in place of
//! (d/ε)²). The drawn bound ([`theory_bound`]) follows its proof: P(w* ∉ W₀) ≤ P(‖z‖ > r₀ − ρ)
//! exactly for ‖z‖ ~ Gamma(d, Δ_T/ε′), the exponential mechanism's (2Δ₀/(ε/2))(ln|G| + 1) on
//! the grid, the grid's spacing L_F·h√d/2, and L_F·2R when W₀ misses w*. Algorithm 10's w₀ is
//! output perturbation's release: L_F(ρ + E‖z‖) (Theorem 3.1's proof).
//!
//! # Reference
//! Lowy & Razaviyayn 2021, "Output Perturbation for Differentially Private Convex Optimization
//! with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial
//! Training", Algorithms 9–11, Propositions G.1 and G.2; Bassily, Smith & Thakurta 2014, Lemma 4.2.

use super::exponential_grid::{MAX_GRID_WORK, points_per_step, sensitivity_under, square_grid};
use super::family::{
    Demonstration, Family, MINIMISATION, Need, Plan, Preview, Purity, RunLength, card_text,
    replace_one_only, setting,
};
use super::kinds::AlgorithmKind;
use super::output_perturbation::{
    self as op, Form, LOWER_SOURCE, NoiseLaw, OutputPerturbation, ReleasePlan, erm_floor,
    op_declared,
};
use super::problem::{Posed, ProblemDeclaration};
use super::registry::Planned;
use super::run::{MinRun, Run};
use super::settings::Settings;
use super::{CertificateStatus, Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::algo::choices::DomainChoice;
use crate::controls::Control;
use crate::error::{Error, Result};
use crate::linalg::dist2;
use crate::noise::ExponentialMechanism;
use crate::objective::Objective;
use crate::privacy::release::{Noised, Published, Trail};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

/// ξ = ln(ε_F²·μ·R/(d·L)), raised to 1 below e, with ε_F = ε·n for ERM and ε for tilted ERM
/// (module docs, Choices). Algorithm 11 prints p for d; it is d.
pub fn shrinkage(epsilon: f64, n: usize, erm: bool, mu: f64, radius: f64, d: usize, lipschitz: f64) -> f64 {
    let scale = if erm { epsilon * n as f64 } else { epsilon };
    let argument = scale * scale * mu * radius / (d as f64 * lipschitz);
    if argument > std::f64::consts::E {
        libm::log(argument)
    } else {
        1.0
    }
}

/// P(‖z‖ > t) for ‖z‖ ~ Gamma(d, b), d = 1 or 2 (the norm of d-dimensional ℓ2-Laplace noise).
pub fn gamma_tail(d: usize, b: f64, t: f64) -> f64 {
    let u = (t / b).max(0.0);
    let e = libm::exp(-u);
    if d <= 1 { e } else { (1.0 + u) * e }
}

/// What both families fix before the data: stage 1's plan, ξ, r₀ and (Algorithm 11) the draw.
#[derive(Debug, Clone)]
pub struct LocalisationPlan {
    /// Stage 1: Algorithm 1 at δ = 0 and ε′ (ε or ε/2), projected onto W.
    pub stage1: ReleasePlan,
    /// ε of the whole run.
    pub epsilon: f64,
    /// Whether Algorithm 11's exponential mechanism follows (false: Algorithm 10 alone).
    pub sample: bool,
    /// ξ, the radius shrinkage.
    pub xi: f64,
    /// r₀ = ξ·Δ_T·d/ε′, the radius of W₀.
    pub r0: f64,
    /// R, the radius of W.
    pub radius: f64,
    /// Grid points per axis on W₀.
    pub resolution: usize,
    /// Δ₀ = 2L·min(r₀, 2R)/n (ERM) or 2L·min(r₀, 2R): the draw's utility sensitivity.
    pub em_sensitivity: f64,
}

impl LocalisationPlan {
    /// Plans from the declared problem: stage 1 at ε (Algorithm 10) or ε/2 (Algorithm 11).
    pub fn new(
        declared: &ProblemDeclaration,
        epsilon: f64,
        solver: crate::solver::SolverKind,
        resolution: usize,
        sample: bool,
    ) -> Result<Self> {
        let d = declared.d;
        let radius = declared.radius();
        if !(1..=2).contains(&d) || !radius.is_finite() {
            return Err(Error::invalid(
                if d > 2 { "d" } else { "domain" },
                "d ≤ 2 and a bounded domain for localisation on a grid",
                if d > 2 {
                    d.to_string()
                } else {
                    "unbounded".into()
                },
            ));
        }
        let mut settings = op::Settings::new(if sample { epsilon / 2.0 } else { epsilon }, 0.0);
        settings.solver = solver;
        settings.project_release = true;
        let stage1 = op::plan(op_declared(declared, 0.0)?, settings)?;
        let erm = stage1.declared.form == Form::Erm;
        let lipschitz = declared.lipschitz();
        let xi = shrinkage(
            epsilon,
            declared.n,
            erm,
            declared.strong_convexity(),
            radius,
            d,
            lipschitz,
        );
        let r0 = xi * stage1.total_sensitivity * d as f64 / settings.epsilon;
        if !(r0.is_finite() && r0 > 0.0) {
            return Err(Error::invalid(
                "epsilon",
                "a budget and constants for which the localised radius r₀ = ξ·Δ_T·d/ε′ is a finite number > 0",
                format!("{r0:e}"),
            ));
        }
        if sample {
            if !(2..=1000).contains(&resolution) {
                return Err(Error::invalid(
                    Control::GridResolution.id(),
                    "between 2 and 1000 points per axis",
                    resolution,
                ));
            }
            let work = ((resolution as f64).powi(d as i32) + 1.0) * declared.n as f64;
            if work > MAX_GRID_WORK {
                return Err(Error::invalid(
                    Control::GridResolution.id(),
                    format!(
                        "lower it or n: the grid's points (points per axis to the power d) × n must \
                         be ≤ {MAX_GRID_WORK:e} records scored"
                    ),
                    format!("{resolution}^{d} × {}", declared.n),
                ));
            }
        }
        let reach = r0.min(2.0 * radius);
        let em_sensitivity =
            sensitivity_under(lipschitz, reach, declared.n, erm, Relation::ReplaceOne);
        if sample {
            // Refuses a sensitivity that is not a finite number > 0 (tiny or huge constants).
            ExponentialMechanism::new(epsilon / 2.0, em_sensitivity)
                .map_err(|e| Error::invalid("epsilon", format!("a draw on W₀ that can be calibrated ({e})"), epsilon))?;
        }
        Ok(Self {
            stage1,
            epsilon,
            sample,
            xi,
            r0,
            radius,
            resolution,
            em_sensitivity,
        })
    }

    /// The ℓ2-Laplace scale b = Δ_T/ε′ of stage 1.
    pub fn scale(&self) -> f64 {
        match self.stage1.noise {
            NoiseLaw::L2Laplace { scale } => scale,
            NoiseLaw::Gaussian { sigma, .. } => sigma,
        }
    }

    /// The statement, fixed before the data.
    pub fn guarantee(&self) -> Guarantee {
        let accounting = if self.sample {
            format!(
                "pure ε: ε/2 for Algorithm 10's ℓ2-Laplace localisation (Δ_T = {:.3e}), ε/2 for the \
                 exponential mechanism on W₀ of radius r₀ = {:.3e} (ξ = {:.3}), utility sensitivity \
                 Δ₀ = {:.3e}; basic composition (Lowy & Razaviyayn 2021, Algorithm 11, Prop G.1)",
                self.stage1.total_sensitivity, self.r0, self.xi, self.em_sensitivity
            )
        } else {
            format!(
                "pure ε: one ℓ2-Laplace release of the certified minimiser, Δ_T = {:.3e}; W₀ has the \
                 public radius ξ·Δ_T·d/ε = {:.3e} (ξ = {:.3}) (Lowy & Razaviyayn 2021, Algorithm 10, Prop 2.1)",
                self.stage1.total_sensitivity, self.r0, self.xi
            )
        };
        Guarantee {
            epsilon: self.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting,
        }
    }

    /// Every draw: stage 1's ℓ2-Laplace, then (Algorithm 11) the selection.
    pub fn draws(&self, d: usize) -> Vec<Draws> {
        let mut draws = vec![Draws {
            noise: NoiseShape::L2Laplace {
                scale: self.scale(),
                d,
            },
            count: 1,
            sensitivity: self.stage1.total_sensitivity,
        }];
        if self.sample {
            draws.push(Draws {
                noise: NoiseShape::None,
                count: 1,
                sensitivity: self.em_sensitivity,
            });
        }
        draws
    }

    /// The candidates on W₀ = W ∩ B(w₀, r₀): the grid over the smaller ball's box, kept inside
    /// both, then w₀ itself. A function of w₀ and public settings only.
    pub fn candidates(&self, w0: &[f64], objective: &Objective) -> Vec<f64> {
        let r0 = self.r0;
        let domain = objective.domain();
        let inside = |w: &[f64]| domain.contains(w, 1e-12) && dist2(w, w0) <= r0;
        let mut grid = if r0 < self.radius {
            square_grid(w0, r0, self.resolution, inside)
        } else {
            square_grid(&vec![0.0; w0.len()], self.radius, self.resolution, inside)
        };
        grid.extend_from_slice(w0);
        grid
    }
}

/// The bound drawn for Algorithm 11 (module docs, Utility), from declared constants: `lipschitz_f`
/// is the Lipschitz constant of the whole F on W.
pub fn theory_bound(plan: &LocalisationPlan, d: usize, lipschitz_f: f64) -> f64 {
    let miss = gamma_tail(d, plan.scale(), plan.r0 - plan.stage1.radius);
    let points = (plan.resolution as f64).powi(d as i32) + 1.0;
    let h = 2.0 * plan.r0.min(plan.radius) / (plan.resolution.max(2) - 1) as f64;
    2.0 * plan.em_sensitivity / (plan.epsilon / 2.0) * (libm::log(points) + 1.0)
        + lipschitz_f * h * libm::sqrt(d as f64) / 2.0
        + miss * lipschitz_f * 2.0 * plan.radius
}

/// Stage 2: the candidates, the anchor's rise and the utilities scored so far.
struct Sample {
    candidates: Vec<f64>,
    anchor_rise: f64,
    utilities: Vec<f64>,
}

/// Algorithm 10 (stage 1 alone) or 11 (stage 1, then the draw on W₀), as a step-wise
/// [`PrivateAlgorithm`].
pub struct Localised {
    plan: LocalisationPlan,
    guarantee: Guarantee,
    stage1: OutputPerturbation,
    mechanism: Option<ExponentialMechanism>,
    sample: Option<Sample>,
    /// The one planned selection of Algorithm 11, and the release it makes.
    trail: Trail,
    released: Option<Noised>,
    out: Vec<f64>,
    d: usize,
    select_failed: bool,
    done: bool,
    passes: f64,
}

impl Localised {
    /// Builds both stages from the plan; the objective must be the one the plan was made from.
    pub fn new(
        plan: LocalisationPlan,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let stage1 = OutputPerturbation::from_plan(plan.stage1.clone(), objective, rng, seeded)?;
        let mechanism = if plan.sample {
            Some(ExponentialMechanism::new(
                plan.epsilon / 2.0,
                plan.em_sensitivity,
            )?)
        } else {
            None
        };
        let d = objective.dim();
        Ok(Self {
            guarantee: plan.guarantee(),
            out: stage1.current().to_vec(),
            plan,
            stage1,
            mechanism,
            sample: None,
            trail: Trail::planned(1),
            released: None,
            d,
            select_failed: false,
            done: false,
            passes: 0.0,
        })
    }

    /// The plan fixed at construction.
    pub fn plan(&self) -> &LocalisationPlan {
        &self.plan
    }

    /// Stage 1's release w₀, the centre of W₀, once drawn.
    pub fn centre(&self) -> Option<Published> {
        self.stage1.release()
    }

    /// The exact log selection probabilities over `candidates` (anchored at the last point, w₀)
    /// on `objective`'s data: for the tests' exact privacy check. Non-private.
    pub fn log_probabilities(&self, objective: &Objective, candidates: &[f64]) -> Result<Vec<f64>> {
        let mechanism = self.mechanism.as_ref().ok_or_else(|| {
            Error::invalid("algorithm", "Algorithm 11 (the draw on W₀)", "Algorithm 10")
        })?;
        let d = self.d;
        let anchor = objective.rise(&candidates[candidates.len() - d..], None).rise;
        let utilities: Vec<f64> = candidates
            .chunks_exact(d)
            .map(|w| -(objective.rise(w, None).rise - anchor))
            .collect();
        mechanism.log_probabilities(&utilities)
    }

    /// Runs to the end; returns the release.
    pub fn run(&mut self, objective: &Objective) -> &[f64] {
        while self.step(objective).is_some() {}
        &self.out
    }
}

impl PrivateAlgorithm for Localised {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let mut ledger = self.stage1.ledger();
        ledger.guarantee = self.guarantee.clone();
        ledger.spends.clear();
        ledger.caveats.push(format!(
            "W₀ = {{w ∈ W : ‖w − w₀‖ ≤ r₀}}, r₀ = ξ·Δ_T·d/ε′ = {:.3e}, ξ = {:.3} from declared constants (Lowy & Razaviyayn 2021 print p for d in Algorithm 11's ξ)",
            p.r0, p.xi
        ));
        let stage1 = if p.sample {
            "Algorithm 10: ℓ2-Laplace localisation (ε/2)"
        } else {
            "Algorithm 10: ℓ2-Laplace localisation (ε)"
        };
        let first = if p.sample { p.epsilon / 2.0 } else { p.epsilon };
        if let Ok(pure) = PureDp::new(first, Relation::ReplaceOne) {
            ledger = ledger.with_spend(stage1, PrivacyLoss::Pure(pure));
        }
        if p.sample {
            ledger.mechanism = format!(
                "exponential sampling + localisation on a {}-per-axis grid over W₀ (Lowy & Razaviyayn 2021, Algorithm 11); stage 1: {}",
                p.resolution, ledger.mechanism
            );
            ledger.caveats.push(
                "the grid on W₀ depends on the released w₀ and public settings only; the draw is made in log space (Gumbel-max)".to_string(),
            );
            if let Ok(pure) = PureDp::new(p.epsilon / 2.0, Relation::ReplaceOne) {
                ledger = ledger.with_spend(
                    "Algorithm 9 on W₀ (ε/2)",
                    PrivacyLoss::Pure(pure),
                );
            }
        } else {
            ledger.mechanism = format!(
                "localisation (Lowy & Razaviyayn 2021, Algorithm 10): {}",
                ledger.mechanism
            );
        }
        if self.select_failed {
            ledger = ledger.with_failure(
                "a candidate's score was not finite, so the selection was made uniformly; that failure depends on the data",
            );
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done {
            return None;
        }
        let Some(sample) = self.sample.as_mut() else {
            let report = self.stage1.step(objective)?;
            self.out.copy_from_slice(self.stage1.current());
            self.passes = self.stage1.grad_evals();
            if !report.done {
                return Some(report);
            }
            if !self.plan.sample {
                self.released = self.stage1.release().and_then(|r| r.noised().cloned());
                self.done = true;
                return Some(report);
            }
            // w₀ is public from here: the candidates and the anchor's rise follow from it.
            let w0 = self.out.clone();
            self.sample = Some(Sample {
                candidates: self.plan.candidates(&w0, objective),
                anchor_rise: objective.rise(&w0, None).rise,
                utilities: Vec::new(),
            });
            self.passes += 1.0;
            return Some(StepReport {
                done: false,
                ..report
            });
        };
        let d = self.d;
        let total = sample.candidates.len() / d;
        let start = sample.utilities.len();
        let end = (start + points_per_step(objective.data().n(), d)).min(total);
        let mut best = f64::INFINITY;
        for j in start..end {
            let rise = objective.rise(&sample.candidates[j * d..(j + 1) * d], None);
            best = best.min(rise.value);
            sample.utilities.push(-(rise.rise - sample.anchor_rise));
        }
        self.passes += (end - start) as f64;
        let mut report = StepReport {
            grad_evals: self.passes,
            loss: best,
            noise_norm: 0.0,
            grad_norm: f64::NAN,
            epsilon_spent: self.plan.epsilon / 2.0,
            done: false,
        };
        if end == total {
            // Finite rises, so select cannot fail; if it did, the one planned selection is made
            // on flat (public) scores, and the ledger says so.
            let mechanism = self.mechanism.as_ref()?;
            let (j, failed) = self.trail.select_or_uniform(
                mechanism,
                &sample.utilities,
                self.stage1.noise_rng(),
            );
            self.select_failed |= failed;
            self.out
                .copy_from_slice(&sample.candidates[j * d..(j + 1) * d]);
            self.released = Noised::iterate(&self.out, &self.trail);
            self.done = true;
            report.epsilon_spent = self.plan.epsilon;
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
        let mut draws = self.stage1.draws();
        if self.mechanism.is_some() {
            draws.push(Draws {
                noise: NoiseShape::None,
                count: 1,
                sensitivity: self.plan.em_sensitivity,
            });
        }
        draws
    }

    fn grad_evals(&self) -> f64 {
        self.passes
    }

    fn certificate(&self) -> Option<CertificateStatus> {
        self.stage1.certificate()
    }
}

// --- The families -------------------------------------------------------------------------

/// The page's card for Algorithm 10.
pub const CARD_LOCALISATION: &str = "Localisation (Lowy & Razaviyayn 2021, Algorithm 10), the \
first half of their pure-ε exponential sampling + localisation: output perturbation with \
ℓ2-Laplace noise (a certified solve, then one draw calibrated to Δ_T = 2L/(μn) + 2√(2α/μ), \
projected onto W) gives a centre w₀, and the ball W₀ of radius r₀ = ξ·Δ_T·d/ε around it, \
ξ = ln((εn)²μR/(dL)), contains the minimiser w* except with probability about d·e^{−ξ}. The \
radius is public, so releasing W₀ is releasing w₀: the plot shows output perturbation's one jump, \
and the ledger gives r₀. Algorithm 11 then samples inside W₀.";

/// The page's card for Algorithm 11.
pub const CARD_SAMPLING: &str = "Exponential sampling + localisation (Lowy & Razaviyayn 2021, \
Algorithm 11, Proposition G.2), on a grid for d ≤ 2: ε/2 buys Algorithm 10's localised ball W₀ \
(centre w₀ by ℓ2-Laplace output perturbation, radius r₀ = 2ξ·Δ_T·d/ε, ξ = ln((εn)²μR/(dL)); the \
paper prints p for d), ε/2 buys the exponential mechanism on a grid over W₀, scored by \
−(F(w) − F(w₀)) with sensitivity Δ₀ = 2L·r₀/n. The localised ball is about (d/(εn))·ln(…) wide \
rather than the whole domain, so the draw's excess falls like (L²/μ)(d/(εn))²·ξ instead of \
Algorithm 9's LR·d/(εn): an n⁻² fall on a strongly convex loss, with a grid finer by R/r₀.";

const WHY_RIDGE: &str =
    "localisation (Lowy & Razaviyayn 2021, Algorithms 10–11) is for strongly convex F: its first stage is output perturbation";

const RELATION_WHY: &str = "its first stage, output perturbation, has sensitivity 2L/(μn) for a fixed, public n";

const GRID_DOMAINS: &[DomainChoice] = &[
    DomainChoice::L2Ball,
    DomainChoice::L1Ball,
    DomainChoice::Box,
];

/// Algorithm 10's entry in the registry.
pub static FAMILY_LOCALISATION: Family = Family {
    kind: AlgorithmKind::Localisation,
    card: card_text! {
        name: "localisation",
        source: "Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training”, Algorithm 10 (Appendix G.2)",
        assumptions: "d ≤ 2, μ-strongly convex F (ridge > 0) with an L-Lipschitz loss on a bounded domain of radius R; a certified base solver.",
        privacy: "Pure ε, replace-one: one ℓ2-Laplace draw of scale Δ_T/ε, Δ_T = 2L/(μn) + 2√(2α/μ), after a certificate ‖w − w*‖ ≤ √(2α/μ); W₀'s radius r₀ = ξ·Δ_T·d/ε is public.",
        utility: "w₀ is output perturbation's release: E F(w₀) − F* ≤ L_F(ρ + dΔ_T/ε) = O(L²d/(μnε)); w* ∈ W₀ except with probability about d·e^{−ξ}.",
        watch: "A certified solver path to w*, then one jump to the centre w₀; the ledger gives the radius r₀ of the ball W₀ that Algorithm 11 samples in.",
        module: "algo::localisation",
        summary: CARD_LOCALISATION,
    },
    settings: &[setting(
        Control::Solver,
        "base solver",
        "any solver: the centre waits for a certificate that it is close enough to the optimum",
    )],
    needs: &[
        Need::Ridge {
            value: 0.1,
            why: WHY_RIDGE,
        },
        Need::MaxDimension {
            max: 2,
            why: "Algorithm 11 samples W₀ on a grid of (points per axis)^d points; Algorithm 10 is shown in the same plane",
        },
        Need::Domains {
            allowed: GRID_DOMAINS,
            why: "ξ and the ball W₀ need the domain's radius R",
        },
    ],
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_localisation,
};

/// Algorithm 11's entry in the registry.
pub static FAMILY_SAMPLING: Family = Family {
    kind: AlgorithmKind::LocalisedExponential,
    card: card_text! {
        name: "exponential sampling + localisation (grid)",
        source: "Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training”, Algorithm 11 and Proposition G.2",
        assumptions: "d ≤ 2, μ-strongly convex F (ridge > 0) with an L-Lipschitz loss on a bounded domain of radius R; Proposition G.2 also assumes dμR ≥ 2L and ε > d (ERM: εn > d).",
        privacy: "Pure ε, replace-one: ε/2 for Algorithm 10's ℓ2-Laplace centre w₀ (Δ_T = 2L/(μn) + 2√(2α/μ)), ε/2 for the exponential mechanism on a grid over W₀ fixed by w₀, utility −(F(w) − F(w₀)) of sensitivity 2L·r₀/n; basic composition.",
        utility: "Proposition G.2: E F(ŵ) − F* ≲ (L²/μ)(d/ε)²·ln(ε²μR/(dL)) (ERM: d/(εn) for d/ε), plus the grid's spacing on W₀.",
        watch: "The certified path, one jump to the centre w₀, then one draw from the grid on the small ball around it: closer to w* than Algorithm 9's draw over the whole domain.",
        module: "algo::localisation",
        summary: CARD_SAMPLING,
    },
    settings: &[
        setting(
            Control::Solver,
            "base solver",
            "any solver: the centre waits for a certificate that it is close enough to the optimum",
        ),
        setting(
            Control::GridResolution,
            "grid points per axis",
            "the grid on the localised ball W₀, fixed by the released centre; each point costs one pass",
        ),
    ],
    needs: &[
        Need::Ridge {
            value: 0.1,
            why: WHY_RIDGE,
        },
        Need::MaxDimension {
            max: 2,
            why: "the draw on W₀ evaluates F at (points per axis)^d grid points",
        },
        Need::Domains {
            allowed: GRID_DOMAINS,
            why: "ξ, the ball W₀ and the draw's sensitivity need the domain's radius R",
        },
    ],
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_sampling,
};

fn plan_localisation(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    planned(settings, declared, false)
}

fn plan_sampling(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    planned(settings, declared, true)
}

fn planned(settings: &Settings, declared: &ProblemDeclaration, sample: bool) -> Result<Planned> {
    replace_one_only(settings.budget.relation, RELATION_WHY)?;
    let plan = LocalisationPlan::new(
        declared,
        settings.budget.epsilon,
        settings.solver,
        settings.grid_resolution,
        sample,
    )?;
    let (kind, words) = if sample {
        (
            AlgorithmKind::LocalisedExponential,
            "exponential sampling + localisation (Lowy & Razaviyayn 2021, Algorithm 11)",
        )
    } else {
        (
            AlgorithmKind::Localisation,
            "localisation (Lowy & Razaviyayn 2021, Algorithm 10)",
        )
    };
    let mut preview = Preview::new(
        kind,
        words,
        plan.guarantee(),
        (
            plan.scale(),
            NoiseShape::L2Laplace {
                scale: plan.scale(),
                d: declared.d,
            },
        ),
        1,
        plan.stage1.total_sensitivity,
        declared.lipschitz(),
    );
    preview.draws = plan.draws(declared.d);
    preview.sensitivity_ball = Some(plan.stage1.total_sensitivity);
    Ok(Planned::new(preview, LocalisationRunPlan { plan }))
}

struct LocalisationRunPlan {
    plan: LocalisationPlan,
}

impl Plan for LocalisationRunPlan {
    /// Algorithm 10: output perturbation's bound (Theorem 3.1's proof, projected release);
    /// Algorithm 11: Proposition G.2's proof with exact constants ([`theory_bound`]).
    fn theory(&self, posed: &Posed, preview: &Preview) -> Option<Curve> {
        let declared = &posed.min().ok()?.declared;
        self.upper(posed, preview)
            .map(|curve| curve.with_lower(erm_floor(declared, self.plan.epsilon, 0.0), LOWER_SOURCE))
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let run = Localised::new(self.plan.clone(), &problem.objective, noise, seeded)?;
        Ok(MinRun::on(problem, run))
    }
}

impl LocalisationRunPlan {
    /// The upper bound alone (see [`Plan::theory`]).
    fn upper(&self, posed: &Posed, _: &Preview) -> Option<Curve> {
        let problem = posed.min().ok()?;
        let declared = &problem.declared;
        if !self.plan.sample {
            return Curve::flat(
                op::theory_bound(
                    self.plan.stage1.declared,
                    self.plan.stage1.settings,
                    declared.n,
                    self.plan.epsilon,
                )
                .ok()?,
                "Lowy & Razaviyayn 2021, Theorem 3.1's proof (Algorithm 10's centre is output perturbation's release)",
            );
        }
        let d = declared.d;
        let lipschitz_f = declared.lipschitz()
            + declared.strong_convexity() * self.plan.radius
            + declared.regulariser.l1 * libm::sqrt(d as f64);
        Curve::flat(
            theory_bound(&self.plan, d, lipschitz_f),
            "Lowy & Razaviyayn 2021, Proposition G.2's proof with the grid's spacing",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::domain::L2Ball;
    use crate::loss::{Glm, Loss, Regulariser};
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn objective(first: (f64, f64, f64)) -> Objective {
        // n = 40 two-dimensional records, logistic loss, ridge 0.1, ball R = 2.
        let n = 40;
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for i in 0..n {
            let a = i as f64 * 0.7;
            xs.extend_from_slice(&[libm::cos(a), libm::sin(a)]);
            ys.push(if i % 3 == 0 { -1.0 } else { 1.0 });
        }
        xs[0] = first.0;
        xs[1] = first.1;
        ys[0] = first.2;
        Objective::with_loss(
            Arc::new(Dataset::from_samples(2, xs, ys).unwrap()),
            Loss::erm(Glm::Logistic),
            Regulariser::ridge(0.1),
            Box::new(L2Ball { radius: 2.0 }),
            1.0,
        )
        .unwrap()
    }

    fn plan_for(obj: &Objective, epsilon: f64, sample: bool) -> LocalisationPlan {
        let declared = op::ObjectiveDeclaration::of(obj).unwrap();
        let mut settings = op::Settings::new(if sample { epsilon / 2.0 } else { epsilon }, 0.0);
        settings.project_release = true;
        let stage1 = op::plan(declared, settings).unwrap();
        let xi = shrinkage(epsilon, 40, true, 0.1, 2.0, 2, obj.lipschitz());
        let r0 = xi * stage1.total_sensitivity * 2.0 / settings.epsilon;
        let reach = r0.min(4.0);
        LocalisationPlan {
            stage1,
            epsilon,
            sample,
            xi,
            r0,
            radius: 2.0,
            resolution: 21,
            em_sensitivity: 2.0 * obj.lipschitz() * reach / 40.0,
        }
    }

    #[test]
    fn xi_reads_d_where_the_paper_prints_p_and_is_at_least_one() {
        // ε = 1, n = 40 (ERM: εn = 40), μ = 0.1, R = 2, d = 2, L = 1: ln(1600·0.2/2) = ln 160.
        assert!((shrinkage(1.0, 40, true, 0.1, 2.0, 2, 1.0) - libm::log(160.0)).abs() < 1e-12);
        // Tilted ERM keeps the paper's ε: ln(1·0.1·2/(2·1)) < 1, raised to 1.
        assert_eq!(shrinkage(1.0, 40, false, 0.1, 2.0, 2, 1.0), 1.0);
        // d, not a constant p: doubling d halves the argument.
        let (one, two) = (
            shrinkage(10.0, 1, false, 1.0, 10.0, 1, 1.0),
            shrinkage(10.0, 1, false, 1.0, 10.0, 2, 1.0),
        );
        assert!((one - two - libm::log(2.0)).abs() < 1e-12);
        // The Gamma(2, b) tail at t = 0 is 1 and decays as (1 + t/b)e^{−t/b}.
        assert_eq!(gamma_tail(2, 1.0, 0.0), 1.0);
        assert!((gamma_tail(2, 0.5, 1.0) - 3.0 * libm::exp(-2.0)).abs() < 1e-15);
    }

    #[test]
    fn every_candidate_lies_within_r0_of_the_centre_and_inside_w() {
        let obj = objective((1.0, 0.0, 1.0));
        let plan = plan_for(&obj, 1.0, true);
        let w0 = [1.5, -1.2];
        let c = plan.candidates(&w0, &obj);
        assert!(c.len() / 2 > 10, "{}", c.len());
        for w in c.chunks_exact(2) {
            assert!(dist2(w, &w0) <= plan.r0 * (1.0 + 1e-12));
            assert!(libm::hypot(w[0], w[1]) <= 2.0 + 1e-12);
        }
        assert_eq!(&c[c.len() - 2..], &w0);
    }

    #[test]
    fn the_draw_on_w0_moves_each_log_probability_by_at_most_epsilon_over_two() {
        // The exact privacy check of stage 2 on a replaced record (its features reversed, its
        // label kept: the logistic loss reads y·x, so flipping both would change nothing), with
        // the candidates of a fixed public w₀.
        let (a, b) = (objective((1.0, 0.0, 1.0)), objective((-1.0, 0.0, 1.0)));
        let plan = plan_for(&a, 1.0, true);
        let alg = Localised::new(plan.clone(), &a, seeded(1, Stream::Noise), true).unwrap();
        let candidates = plan.candidates(&[0.3, 0.4], &a);
        let (p, q) = (
            alg.log_probabilities(&a, &candidates).unwrap(),
            alg.log_probabilities(&b, &candidates).unwrap(),
        );
        let worst = p
            .iter()
            .zip(&q)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        println!("worst log-ratio {worst:.4} ≤ ε/2 = 0.5 (r₀ = {:.3})", plan.r0);
        assert!(worst <= 0.5 + 1e-9, "{worst}");
        // Not vacuous: the replaced record moves the weights by a good share of the bound.
        assert!(worst > 0.05, "{worst}");
    }

    #[test]
    fn algorithm_11_releases_a_grid_point_of_w0_and_algorithm_10_its_centre() {
        let obj = objective((1.0, 0.0, 1.0));
        for sample in [false, true] {
            let plan = plan_for(&obj, 1.0, sample);
            let mut alg = Localised::new(plan.clone(), &obj, seeded(3, Stream::Noise), true).unwrap();
            let out = alg.run(&obj).to_vec();
            let released = alg.release().unwrap();
            assert_eq!(released.x(), &out[..]);
            let centre = alg.centre().unwrap();
            if sample {
                assert!(dist2(&out, centre.x()) <= plan.r0 * (1.0 + 1e-12));
                assert_eq!(alg.draws().len(), 2);
            } else {
                assert_eq!(centre.x(), &out[..]);
                assert_eq!(alg.draws().len(), 1);
            }
            assert!(out.iter().any(|v| *v != 0.0), "the release is not the start");
            assert_eq!(alg.ledger().guarantee.delta, 0.0);
            assert!(alg.ledger().is_private());
        }
    }
}
