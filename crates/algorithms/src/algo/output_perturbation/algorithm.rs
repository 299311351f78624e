//! The running algorithm: [`OutputPerturbation`] runs the plan's base solver until its accuracy
//! is established (certificate, theorem count or duality gap), then adds the planned noise once.

use serde::Serialize;

use crate::algo::{CertificateStatus, Draws, PrivateAlgorithm, StepReport};
use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::objective::Objective;
use crate::privacy::release::{Law, Noised, Published, Trail};
use crate::privacy::{ApproxDp, Guarantee, Ledger, PrivacyLoss, PureDp};
use crate::rng::DpRng;
use crate::solver::dual::{DualCertificate, DualGap};
use crate::solver::max_loss::MaxLoss;
use crate::solver::{BaseSolver, Certificate, CertifiedRun, SolverKind};

use super::declared::{Form, ObjectiveDeclaration};
use super::plan::{LawShape, NoiseLaw, ReleasePlan, Settings, plan};

/// SDCA sweeps per evaluation of Algorithm 3's duality-gap certificate.
const DUAL_SWEEPS: usize = 1;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The solver is iterating (non-private internals).
    Solving,
    /// The certificate held and the noisy point was released.
    Released,
    /// Floating point prevented the certificate even for the GD safeguard within its planned
    /// budget: the planned noise was released around the data-independent w₀ = P_W(0), and
    /// because that failure depends on the data the release is NOT PRIVATE.
    Aborted,
}
/// The validated law of a planned `noise`.
pub fn law_of(noise: &NoiseLaw) -> Result<Law> {
    match *noise {
        NoiseLaw::L2Laplace { scale } => Law::l2_laplace(scale),
        NoiseLaw::Gaussian { sigma, .. } => Law::gaussian(sigma),
    }
}

/// Adds a draw of `noise` to `point` through `trail`, writing `out` and the draw into `draw`;
/// returns ‖draw‖.
pub fn perturb(
    noise: &NoiseLaw,
    trail: &mut Trail,
    rng: &mut DpRng,
    point: &[f64],
    draw: &mut [f64],
    out: &mut [f64],
) -> Result<f64> {
    trail.draw(&law_of(noise)?, rng, draw);
    for ((o, x), z) in out.iter_mut().zip(point).zip(draw.iter()) {
        *o = x + z;
    }
    Ok(norm2(draw))
}

/// A fixed-count run of a solver whose accuracy is a deterministic theorem (the subgradient method,
/// Prop 3.2): T + 1 iterations (the last one only evaluates w_T for the best iterate).
struct FixedRun {
    solver: Box<dyn BaseSolver>,
    done: usize,
    total: usize,
    grad_evals: f64,
    last_value: f64,
}

/// Lowy & Razaviyayn 2021, Algorithm 3 (stochastic subgradient, weighted average) stopped by the duality-gap
/// certificate of [`crate::solver::dual`]: checked once the solver has spent a full pass since the
/// last check; after `budget` steps without it, the deterministic Algorithm 2 takes over.
struct StochasticRun {
    solver: Box<dyn BaseSolver>,
    dual: DualCertificate,
    budget: usize,
    done: usize,
    since_check: f64,
    grad_evals: f64,
    last: Option<DualGap>,
    certified: bool,
}

/// How the accuracy the sensitivity needs is established.
enum Engine {
    Certified(CertifiedRun),
    Fixed(FixedRun),
    Stochastic(StochasticRun),
}

/// Lowy & Razaviyayn 2021, Algorithm 1 (and Algorithm 6) as a step-wise [`PrivateAlgorithm`].
pub struct OutputPerturbation {
    plan: ReleasePlan,
    engine: Engine,
    rng: DpRng,
    seeded: bool,
    noise: Vec<f64>,
    out: Vec<f64>,
    /// The trail of the one planned draw, and the release once made.
    trail: Trail,
    released: Option<Noised>,
    /// Steps taken (read by the unit tests to report and bound the step count).
    pub(super) t: usize,
    outcome: Outcome,
    /// Whether Lowy & Razaviyayn 2021, Algorithm 3 exhausted its budget and Algorithm 2 took over.
    fallback: bool,
}

impl OutputPerturbation {
    /// Plans from `objective`'s declared constants and `settings` (never its data), then prepares
    /// the base solver at P_W(0). `rng` draws the release noise; a stochastic solver's sampling is
    /// keyed from one draw of it.
    pub fn new(
        settings: Settings,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let plan = plan(ObjectiveDeclaration::of(objective)?, settings)?;
        Self::from_plan(plan, objective, rng, seeded)
    }

    /// Lowy & Razaviyayn 2021, Algorithm 1 on the **max-loss** form of `objective` (F(w) = max_i f(w; xᵢ) + r(w),
    /// non-ERM, Δ_F = 2L/μ): planned from [`ObjectiveDeclaration::max_loss`]; `settings.solver` must be the
    /// subgradient method (the form is non-smooth and not a finite sum). Every later call
    /// ([`PrivateAlgorithm::step`]) takes the same ERM `objective`; the run optimises its max-loss form.
    pub fn max_loss(
        settings: Settings,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let plan = plan(ObjectiveDeclaration::max_loss(objective)?, settings)?;
        Self::from_plan(plan, objective, rng, seeded)
    }

    /// Runs a plan made elsewhere (Zhang et al. 2022, Algorithm 1 uses this machinery with its own
    /// target radius and σ). The plan must have been made from `objective`'s declared constants.
    pub fn from_plan(
        plan: ReleasePlan,
        objective: &Objective,
        mut rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if !ObjectiveDeclaration::of_form(objective, plan.declared.form)?
            .declares_the_same_objective(&plan.declared)
        {
            return Err(Error::invalid(
                "plan",
                "a plan made from this objective's declared constants",
                "another objective's plan",
            ));
        }
        let settings = plan.settings;
        let constants = plan.declared.certificate_constants();
        let solver_seed = rand::Rng::next_u64(&mut rng);
        let d = objective.dim();
        let mut start = vec![0.0; d];
        objective.domain().project(&mut start);
        let engine = if settings.solver == SolverKind::Subgradient {
            Engine::Fixed(FixedRun {
                solver: settings
                    .solver
                    .build(objective, &constants, solver_seed, &start),
                done: 0,
                total: plan.max_iters + 1,
                grad_evals: 0.0,
                last_value: f64::NAN,
            })
        } else if settings.solver == SolverKind::StochasticSubgradient {
            Engine::Stochastic(StochasticRun {
                solver: settings
                    .solver
                    .build(objective, &constants, solver_seed, &start),
                dual: DualCertificate::new(objective)?,
                budget: plan.max_iters,
                done: 0,
                since_check: 0.0,
                grad_evals: 0.0,
                last: None,
                certified: false,
            })
        } else {
            Engine::Certified(CertifiedRun::new(
                objective,
                constants,
                settings.solver,
                solver_seed,
                &start,
                plan.radius,
                plan.max_iters,
                plan.gd_bound,
            ))
        };
        Ok(Self {
            out: start,
            plan,
            engine,
            rng,
            seeded,
            noise: vec![0.0; d],
            trail: Trail::planned(1),
            released: None,
            t: 0,
            outcome: Outcome::Solving,
            fallback: false,
        })
    }

    /// The plan fixed at construction.
    pub fn plan(&self) -> &ReleasePlan {
        &self.plan
    }

    /// Where the run stands.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// Whether the GD safeguard had to take over from the chosen solver.
    /// For Lowy & Razaviyayn 2021, Algorithm 3: whether its budget ran out and Algorithm 2 took over.
    pub fn used_safeguard(&self) -> bool {
        match &self.engine {
            Engine::Certified(run) => run.used_safeguard(),
            Engine::Fixed(_) | Engine::Stochastic(_) => self.fallback,
        }
    }

    fn solver_name(&self) -> &'static str {
        match &self.engine {
            Engine::Certified(run) => run.solver_name(),
            Engine::Fixed(f) => f.solver.name(),
            Engine::Stochastic(s) => s.solver.name(),
        }
    }

    fn last_certificate(&self) -> Option<Certificate> {
        match &self.engine {
            Engine::Certified(run) => run.last(),
            Engine::Fixed(_) => None,
            // The gap bounds F − F*, hence the distance by μ-strong convexity.
            Engine::Stochastic(s) => s.last.map(|g| Certificate {
                value: g.value,
                grad_norm: f64::NAN,
                residual: f64::NAN,
                distance_bound: libm::sqrt(
                    2.0 * g.gap.max(0.0) / self.plan.declared.strong_convexity,
                ),
            }),
        }
    }

    /// The noise draw that was added (zero before the release). **Not private** (with the release
    /// it reveals the certified point): for tests and teaching views only.
    pub fn noise_draw(&self) -> &[f64] {
        &self.noise
    }

    /// The certified, un-noised point x⁺ the noise was added to (for the subgradient method: the
    /// best iterate). **Not private.**
    pub fn certified_point(&self) -> &[f64] {
        match &self.engine {
            Engine::Certified(run) => run.certified_point(),
            Engine::Fixed(f) => f.solver.current(),
            Engine::Stochastic(s) => s.solver.current(),
        }
    }

    /// The noise stream, for an algorithm that draws again after this release from the same
    /// stream (Lowy & Razaviyayn 2021, Algorithm 11's exponential mechanism on the localised
    /// ball).
    pub(crate) fn noise_rng(&mut self) -> &mut DpRng {
        &mut self.rng
    }

    /// Runs to the end; returns the release (or w₀ after an abort).
    pub fn run(&mut self, objective: &Objective) -> &[f64] {
        while self.step(objective).is_some() {}
        &self.out
    }

    fn abort(&mut self, objective: &Objective) {
        self.out.fill(0.0);
        objective.domain().project(&mut self.out);
        self.outcome = Outcome::Aborted;
    }
}

impl PrivateAlgorithm for OutputPerturbation {
    fn guarantee(&self) -> &Guarantee {
        &self.plan.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        // Which solver path ran depends on the data: those facts are events, not caveats; a
        // failure the guarantee does not cover makes the release NOT PRIVATE.
        let mut events = Vec::new();
        let mut failures = Vec::new();
        let mut caveats = vec![
            format!(
                "declared constants, not measured: L = {}, μ = {}, β = {}; features clipped to the declared bound",
                p.declared.lipschitz, p.declared.strong_convexity, p.declared.smoothness
            ),
            "replace-one adjacency with public n".to_string(),
            "the solver's iterates and its data-dependent stopping time are not private; only the release is".to_string(),
        ];
        if p.declared.form == Form::MaxLoss {
            caveats.push(
                "non-ERM max-loss objective F(w) = max_i f(w; x_i) + r(w): Δ_F = 2L/μ (Prop 2.2; one record can be the maximum, so no 1/n)".to_string(),
            );
        }
        if p.declared.form == Form::NonErm {
            caveats.push(format!(
                "non-ERM objective (TERM): Δ_F = (2L/μ)·min{{1, C_τ/n}} = (2L/μ)·{:.3e} (Lemma 5.2)",
                p.declared.tilt_factor
            ));
            if p.declared.smoothness.is_finite() {
                caveats.push(format!(
                    "TERM's condition number κ_τ = β_τ/μ = {:.4e} (β_τ = β + 2τL² = {:.4e}, the value Lemma 5.3's proof gives; the summary table's (τL² + β)/μ is smaller): Theorem 5.2's excess bound grows with κ_τ",
                    p.declared.smoothness / p.declared.strong_convexity,
                    p.declared.smoothness
                ));
            }
        }
        match self.outcome {
            Outcome::Released => match &self.engine {
                // The ledger is part of the private export: it states the threshold the
                // certificate met, never the measured bound (a number computed from the data; the
                // page shows it as the non-private certificate diagnostic).
                Engine::Certified(_) => caveats.push(format!(
                    "certificate met: ‖w_T − w*‖ ≤ ρ = {:.3e} before the noise was added",
                    p.radius
                )),
                Engine::Fixed(f) => caveats.push(format!(
                    "accuracy by theorem: {} subgradient steps = ⌈2L_F²/(μα)⌉ give F(best) − F* ≤ α surely (Lowy & Razaviyayn 2021, Prop 3.2), so ‖w_T − w*‖ ≤ ρ = {:.3e}",
                    f.total - 1,
                    p.radius
                )),
                Engine::Stochastic(_) => caveats.push(format!(
                    "certificate met: duality gap F(ŵ) − D(α) ≤ α = {:.3e}, so ‖ŵ − w*‖ ≤ ρ = {:.3e} surely; Algorithm 3's in-expectation bound is not relied on, so no failure probability γ enters δ",
                    p.alpha,
                    p.radius
                )),
            },
            Outcome::Aborted => failures.push(
                "the certificate never held within the planned budget (floating point); the release is the planned noise around the data-independent w₀, and that failure depends on the data",
            ),
            Outcome::Solving => caveats.push("not released yet".to_string()),
        }
        if self.fallback {
            events.push(format!(
                "the stochastic subgradient method (Algorithm 3) did not certify within {} steps; the subgradient method (Algorithm 2) from w₀ took over for its Prop 3.2 count (no data-dependent abort)",
                p.max_iters
            ));
        } else if self.used_safeguard() {
            events.push(format!(
                "{} did not certify within {} iterations; projected GD from w₀ took over",
                self.solver_name(),
                p.max_iters
            ));
        }
        let algorithm = match p.settings.regularised {
            None => p.label.to_string(),
            Some(reg) => {
                if !reg.paper_sensitivity {
                    caveats.push(
                        "Δ_λ = 2L/(λn) instead of the paper's 2(L + λR)/(λn) (valid: the ridge cancels)"
                            .to_string(),
                    );
                }
                caveats.push(
                    "Algorithm 6's printed Gaussian (σ/√2) is not private; σ = K_δΔ_T/(√2ε) is used (a correction to Lowy & Razaviyayn 2021)"
                        .to_string(),
                );
                format!("{}, λ = {:.3e}", p.label, reg.lambda)
            }
        };
        let mechanism = format!(
            "output perturbation ({algorithm}) with {}, α = {:.3e}, Δ_T = {:.3e}",
            self.solver_name(),
            p.alpha,
            p.total_sensitivity
        );
        let loss = if p.settings.delta == 0.0 {
            PureDp::new(p.settings.epsilon, p.settings.relation).map(PrivacyLoss::Pure)
        } else {
            ApproxDp::new(p.settings.epsilon, p.settings.delta, p.settings.relation)
                .map(PrivacyLoss::Approx)
        };
        let mut ledger = Ledger::new(p.guarantee.clone(), mechanism.clone(), self.seeded, caveats);
        ledger.events = events;
        for failure in failures {
            ledger = ledger.with_failure(failure);
        }
        match loss {
            Ok(loss) => ledger.with_spend(mechanism, loss),
            Err(_) => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.outcome != Outcome::Solving {
            return None;
        }
        let (loss, grad_norm, grad_evals, ready, failed) = match &mut self.engine {
            Engine::Certified(run) => {
                let cert = run.step(objective);
                (
                    cert.value,
                    cert.grad_norm,
                    run.grad_evals(),
                    run.is_certified(),
                    run.failed(),
                )
            }
            Engine::Fixed(f) => {
                f.grad_evals += if self.plan.declared.form == Form::MaxLoss {
                    // `from_plan` checked that this form of the objective exists.
                    match MaxLoss::new(objective) {
                        Ok(problem) => f.solver.iterate(&problem),
                        Err(_) => f64::NAN,
                    }
                } else {
                    f.solver.iterate(objective)
                };
                f.done += 1;
                f.last_value = match f.solver.last_value() {
                    Some(v) => v,
                    None => objective.value(f.solver.current()),
                };
                (
                    f.last_value,
                    f64::NAN,
                    f.grad_evals,
                    f.done >= f.total,
                    false,
                )
            }
            Engine::Stochastic(s) => {
                let cost = s.solver.iterate(objective);
                s.grad_evals += cost;
                s.since_check += cost;
                s.done += 1;
                // The check schedule depends only on the declared per-step cost (one check per
                // full pass, and at the last step of the budget), never on the data.
                if s.since_check >= 1.0 || s.done >= s.budget {
                    let gap = s.dual.evaluate(objective, s.solver.current(), DUAL_SWEEPS);
                    s.grad_evals += (DUAL_SWEEPS + 2) as f64;
                    s.since_check = 0.0;
                    s.last = Some(gap);
                    s.certified = gap.gap <= self.plan.alpha;
                }
                let value = s.last.map_or(f64::NAN, |g| g.value);
                (value, f64::NAN, s.grad_evals, s.certified, false)
            }
        };
        // Algorithm 3 out of budget: hand over to Algorithm 2 (deterministic, Prop 3.2), never
        // abort. The passes already spent stay counted.
        if let Engine::Stochastic(s) = &self.engine
            && !s.certified
            && s.done >= s.budget
        {
            let constants = self.plan.declared.certificate_constants();
            let mut start = vec![0.0; objective.dim()];
            objective.domain().project(&mut start);
            let spent = s.grad_evals;
            self.engine = Engine::Fixed(FixedRun {
                solver: SolverKind::Subgradient.build(objective, &constants, 0, &start),
                done: 0,
                total: self.plan.gd_bound + 1,
                grad_evals: spent,
                last_value: f64::NAN,
            });
            self.fallback = true;
        }
        let mut report = StepReport {
            grad_evals,
            loss,
            noise_norm: 0.0,
            grad_norm,
            epsilon_spent: 0.0,
            done: false,
        };
        self.t += 1;
        if ready || failed {
            // The certified point, or the fixed public w₀ = P_W(0) if even the safeguard failed:
            // the planned noise is drawn either way.
            let mut w0 = vec![0.0; objective.dim()];
            objective.domain().project(&mut w0);
            let point = match &self.engine {
                _ if !ready => &w0[..],
                Engine::Certified(run) => run.certified_point(),
                Engine::Fixed(f) => f.solver.current(),
                Engine::Stochastic(s) => s.solver.current(),
            };
            match perturb(
                &self.plan.noise,
                &mut self.trail,
                &mut self.rng,
                point,
                &mut self.noise,
                &mut self.out,
            ) {
                Ok(noise_norm) => {
                    if self.plan.settings.project_release {
                        objective.domain().project(&mut self.out);
                    }
                    self.released = Noised::iterate(&self.out, &self.trail);
                    self.outcome = if ready {
                        Outcome::Released
                    } else {
                        Outcome::Aborted
                    };
                    report.noise_norm = noise_norm;
                    report.epsilon_spent = self.plan.settings.epsilon;
                }
                // The scale was validated by `plan`, so this cannot happen.
                Err(_) => self.abort(objective),
            }
        }
        Some(StepReport {
            done: self.outcome != Outcome::Solving,
            ..report
        })
    }

    fn current(&self) -> &[f64] {
        match (self.outcome, &self.engine) {
            (Outcome::Solving, Engine::Certified(run)) => run.current(),
            (Outcome::Solving, Engine::Fixed(f)) => f.solver.current(),
            (Outcome::Solving, Engine::Stochastic(s)) => s.solver.current(),
            (Outcome::Released | Outcome::Aborted, _) => &self.out,
        }
    }

    fn release(&self) -> Option<Published> {
        self.released.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: self.plan.noise.shape(self.noise.len()),
            count: 1,
            sensitivity: self.plan.total_sensitivity,
        }]
    }

    fn grad_evals(&self) -> f64 {
        match &self.engine {
            Engine::Certified(run) => run.grad_evals(),
            Engine::Fixed(f) => f.grad_evals,
            Engine::Stochastic(s) => s.grad_evals,
        }
    }

    fn certificate(&self) -> Option<CertificateStatus> {
        self.last_certificate().map(|c| CertificateStatus {
            bound: c.distance_bound,
            threshold: self.plan.radius,
            sensitivity: self.plan.total_sensitivity,
            met: self.outcome == Outcome::Released,
        })
    }
}
