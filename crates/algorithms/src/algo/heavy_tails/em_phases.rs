//! The grid families of Lowy 2026 inside Algorithm 1 (Pop-Localize), as Theorems E.2 and F.6
//! state them: EM-PGM (Algorithm 5) or the localised approximate exponential mechanism
//! (Algorithms 6–7) as the ERM solver of every call, for d ≤ 2.
//!
//! # Algorithm
//! The schedule is Algorithm 1's ([`super::localised`]): phase t = 1, 2, … takes the next
//! n_t = ⌊n/2^t⌋ records in J disjoint blocks of m_t = ⌊n_t/J⌋, with ridge λ_t = 32^(t−1)·λ₁
//! around the public centre w̄_t and threshold C_t = G_k (m_t ε/d)^(1/k); each call gets the full
//! ε and the median trick aggregates the J releases into w̄_{t+1} (w̄₁ = 0, the centre of W).
//! - **EM-PGM** (Theorem E.2): each call is Algorithm 5 on its block, the score the clipped
//!   gradient mapping of (1/m)Σ f_C + (l2/2)‖w‖² + (λ_t/2)‖w − w̄_t‖² (sensitivity 2C_t/m_t, step
//!   γ_t = 1/(λ_t + l2 + H)), over the grid of `grid_resolution` points per axis on
//!   W ∩ B(w̄_t, r_t) with r_t = (C_t + l2·R)/λ_t: the grid is localised around the centre.
//! - **Algorithm 7** (Theorem F.6): each call is [`super::approx_em::ApproxEm`] on its block at
//!   (ε, λ_t, w̄_t, C_t, m_t): its own localisation at ε/2 (β = 12C_t/(λ_t m_t ε)) and its draw at
//!   ε/4 on W₀ = W ∩ B(w_loc, r₀), r₀ = 600·C_t·d/(λ_t m_t ε).
//!
//! # Choices (written down, as the rules ask)
//! - **The localised grid's radius** r_t = (C_t + l2·R)/λ_t is where the regularised objective's
//!   minimiser over W must lie, for every dataset: at the minimiser w*, optimality against the
//!   centre c = w̄_t ∈ W gives λ_t‖w* − c‖² ≤ ⟨∇g(w*) + l2·w*, c − w*⟩ ≤ (C_t + l2·R)‖w* − c‖,
//!   since every clipped gradient has norm ≤ C_t. Data-free (declared C_t, λ_t, l2, R) and
//!   centred at a released point, so the grid is public; Theorem E.1 needs only a
//!   data-independent set. It shrinks 32·2^(1/k)-fold per phase, and so does its spacing.
//! - **λ₁** defaults to [`super::localised::calibrated_lambda_of`] with Algorithm 2's constants
//!   (the localisation bound's minimiser for a one-draw call at ε; the EM's error has the same
//!   C/(mε) order). Utility only: every λ₁ gives the same ε. A declared `lambda1` replaces it.
//! - **Phases** are [`super::family::localised_plan`]'s for Algorithm 2 calls: m_t ≥ max(10, d),
//!   and both certificates' radii clear of the solver's rounding for the declared constants
//!   (Algorithm 7's localisation certifies C/(λm)). Decided from the config alone.
//! - **The paper's one-call form** (Theorem E.1 / Proposition F.5 alone, at (λ, w₀ = 0) on all n
//!   records) is [`super::em_pgm::EmPgm::new`] and [`super::approx_em::ApproxEm::new`]; the
//!   families run the phases, the form the SCO rates are stated for.
//!
//! # Privacy
//! Pure ε, replace-one with n public: each call is ε-DP (Theorem E.1: one exponential-mechanism
//! draw over a set fixed by w̄_t and declared constants; Algorithm 7: ε/2 + ε/4),
//! the blocks are disjoint and each record is read by exactly one call, the centres are
//! releases of other blocks and aggregation is post-processing: parallel composition
//! (Theorem 2.1). The total is the largest per-phase ε, which is ε
//! ([`PhasedGridPlan::phase_epsilons`]).
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithm 1, Theorem 2.1; Algorithm 5, Theorems E.1–E.2; Algorithms 6–7,
//! Theorem F.6.

use super::approx_em::{ApproxEm, ApproxEmPlan};
use super::call_declared::CallDeclared;
use super::em_pgm::{Block, EmPgm, EmPgmPlan};
use super::family::localised_plan;
use super::localisation_view::{CallView, LocalSolver, LocalisationView, PhaseView, planar};
use super::localised::{Call, LocalisedPlan, Phase, aggregate_index};
use super::rates::schedule_rates;
use super::single_stage::check_records;
use crate::algo::extras::{Extra, Extras};
use crate::algo::family::{Plan, Preview};
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::registry::Planned;
use crate::algo::run::{MinRun, Run};
use crate::algo::settings::Settings;
use crate::algo::{CertificateStatus, Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::error::{Error, Result};
use crate::objective::Objective;
use crate::privacy::release::{Noised, Published};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;
use crate::theory::curve::Curve;
use crate::theory::heavy_tails::pure_upper;

/// The ERM solver of every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridCall {
    /// Algorithm 5, EM-PGM on the localised grid (Theorem E.2).
    Pgm,
    /// Algorithms 6–7, the localised approximate exponential mechanism (Theorem F.6).
    Approx,
}

/// The declared side of a phased run: Algorithm 1's schedule and what every call reads.
#[derive(Debug, Clone, PartialEq)]
pub struct PhasedGridPlan {
    /// Which mechanism every call runs.
    pub call: GridCall,
    /// The schedule and the declared constants (Algorithm 2's schedule: m_t, λ_t, C_t, offsets).
    pub schedule: LocalisedPlan,
    /// Grid points per axis.
    pub resolution: usize,
}

impl PhasedGridPlan {
    /// The phases that run.
    pub fn phases(&self) -> &[Phase] {
        &self.schedule.phases
    }

    /// J, the calls per phase.
    pub fn repetitions(&self) -> usize {
        self.schedule.declared.repetitions.max(1)
    }

    /// r_t = (C_t + l2·R)/λ_t, the radius of phase `p`'s localised EM-PGM grid (module docs).
    pub fn grid_radius(&self, p: &Phase) -> f64 {
        (p.clip + self.schedule.l2 * self.schedule.radius) / p.lambda
    }

    /// What one call of phase `p` reads: its block of m_t records at (ε, C_t, λ_t).
    fn call_declared(&self, p: &Phase) -> CallDeclared {
        let s = &self.schedule;
        CallDeclared {
            epsilon: s.declared.epsilon,
            n: p.m,
            d: s.declared.d,
            clip: p.clip,
            lambda: p.lambda,
            l2: s.l2,
            radius: s.radius,
            loss: s.extension_loss,
            moment: (s.declared.moment_k, s.declared.k),
        }
    }

    /// Algorithm 5's plan for one call of phase `p`.
    pub fn pgm_call(&self, p: &Phase) -> EmPgmPlan {
        let s = &self.schedule;
        let smoothness = s.curvature * s.feature_bound * s.feature_bound + s.l2 + p.lambda;
        EmPgmPlan {
            declared: self.call_declared(p),
            gamma: 1.0 / smoothness,
            resolution: self.resolution,
        }
    }

    /// Algorithm 7's plan for one call of phase `p`.
    pub fn approx_call(&self, p: &Phase) -> ApproxEmPlan {
        ApproxEmPlan {
            declared: self.call_declared(p),
            curvature: self.schedule.curvature,
            feature_bound: self.schedule.feature_bound,
            resolution: self.resolution,
        }
    }

    /// The ε one record's call spends, phase by phase: every call of a phase is ε-DP on its own
    /// block (EM-PGM: one draw at ε; Algorithm 7: ε/2 + ε/4 within the ε it is stated at).
    pub fn phase_epsilons(&self) -> Vec<f64> {
        self.phases()
            .iter()
            .map(|p| match self.call {
                GridCall::Pgm => self.pgm_call(p).guarantee().epsilon,
                GridCall::Approx => self.approx_call(p).guarantee().epsilon,
            })
            .collect()
    }

    /// The composed total: phases and blocks are disjoint, so parallel composition gives the
    /// largest per-phase ε (never their sum).
    pub fn composed_epsilon(&self) -> f64 {
        self.phase_epsilons().into_iter().fold(0.0, f64::max)
    }

    /// The whole noise law: per phase, J exponential-mechanism draws (EM-PGM), or J ℓ2-Laplace
    /// localisations and J draws (Algorithm 7).
    pub fn draws(&self) -> Vec<Draws> {
        let j = self.repetitions();
        self.phases()
            .iter()
            .flat_map(|p| match self.call {
                GridCall::Pgm => vec![Draws {
                    noise: NoiseShape::None,
                    count: j,
                    sensitivity: self.pgm_call(p).sensitivity(),
                }],
                GridCall::Approx => self
                    .approx_call(p)
                    .draws()
                    .into_iter()
                    .map(|d| Draws { count: j, ..d })
                    .collect(),
            })
            .collect()
    }

    /// The localisation view before any data (public): W and every phase's schedule, each call's
    /// ball radius (Algorithm 5: the grid radius r_t, at most R; Algorithm 7: r₀) and the scale
    /// of its ℓ2-Laplace draw (Algorithm 7 only); w̄₁ = 0, the centre of W.
    pub fn view(&self) -> LocalisationView {
        let d = self.schedule.declared.d;
        LocalisationView {
            radius: self.schedule.radius,
            d,
            algorithm: match self.call {
                GridCall::Pgm => LocalSolver::EmPgm,
                GridCall::Approx => LocalSolver::ApproxEm,
            },
            phases: self
                .phases()
                .iter()
                .map(|p| {
                    let (ball_radius, noise_scale) = match self.call {
                        GridCall::Pgm => (self.grid_radius(p).min(self.schedule.radius), None),
                        GridCall::Approx => {
                            let c = self.approx_call(p);
                            (c.r0(), Some(c.scale()))
                        }
                    };
                    PhaseView {
                        t: p.t,
                        m: p.m,
                        lambda: p.lambda,
                        clip: p.clip,
                        noise_scale,
                        // E‖b‖ = d·β for the ℓ2-Laplace of scale β (its norm is Gamma(d, β)).
                        noise_ring: noise_scale.map(|beta| d as f64 * beta),
                        ball_radius,
                        centre: (p.t == 1).then_some([0.0; 2]),
                        ..PhaseView::default()
                    }
                })
                .collect(),
            release: None,
        }
    }

    /// The statement, fixed before the data.
    pub fn guarantee(&self) -> Guarantee {
        let (t, j) = (self.phases().len(), self.repetitions());
        Guarantee {
            epsilon: self.composed_epsilon(),
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: match self.call {
                GridCall::Pgm => format!(
                    "pure ε: {t} phases × J = {j} EM-PGM calls on disjoint blocks (parallel \
                     composition), each one exponential-mechanism draw at ε on a grid localised \
                     around the last centre, score sensitivity 2C_t/m_t (Lowy 2026, Algorithms 1 \
                     and 5, Theorem E.2)"
                ),
                GridCall::Approx => format!(
                    "pure ε: {t} phases × J = {j} localised exponential-mechanism calls on \
                     disjoint blocks (parallel composition), each ε/2 for the ℓ2-Laplace \
                     localisation + ε/4 for the draw on W₀ (Lowy 2026, Algorithms 1, 6 and 7, \
                     Theorem F.6)"
                ),
            },
        }
    }
}

/// One call under way.
enum Inner {
    Pgm(Box<EmPgm>),
    Approx(Box<ApproxEm>),
}

impl Inner {
    fn algorithm(&mut self) -> &mut dyn PrivateAlgorithm {
        match self {
            Inner::Pgm(a) => a.as_mut(),
            Inner::Approx(a) => a.as_mut(),
        }
    }
    fn into_rng(self) -> DpRng {
        match self {
            Inner::Pgm(a) => (*a).into_rng(),
            Inner::Approx(a) => (*a).into_rng(),
        }
    }
    /// Whether the call's certificate failed within its planned budget (Algorithm 7's
    /// localisation; EM-PGM has none): see [`ApproxEm::failed`].
    fn failed(&self) -> bool {
        match self {
            Inner::Pgm(_) => false,
            Inner::Approx(a) => a.failed(),
        }
    }
    /// Algorithm 7's certified point and w_loc once its localisation drew.
    fn localised(&self) -> Option<(&[f64], &[f64])> {
        match self {
            Inner::Pgm(_) => None,
            Inner::Approx(a) => a.localised(),
        }
    }
}

/// A grid family inside Algorithm 1, as a step-wise [`PrivateAlgorithm`]: each step is one step
/// of the current call; a call's release joins the phase's candidates, and the phase's aggregate
/// centres the next.
pub struct PhasedGrid {
    plan: PhasedGridPlan,
    guarantee: Guarantee,
    rng: Option<DpRng>,
    seeded: bool,
    phase: usize,
    call: usize,
    centre: Vec<f64>,
    centres: Vec<Vec<f64>>,
    candidates: Vec<Vec<f64>>,
    /// Each finished call's release, beside `candidates`; the picked one of the last phase is
    /// the run's release (aggregation picks among releases: post-processing).
    released_candidates: Vec<Option<Noised>>,
    centre_release: Option<Noised>,
    inner: Option<Inner>,
    /// The point the run stands at (**non-private**): the call's iterate, then the phase's
    /// centre. Kept here rather than by the session because the next step's loss is read at it
    /// and the call that held it is gone once it finished.
    current: Vec<f64>,
    done: bool,
    aborted: bool,
    failed: bool,
    passes: f64,
    finished_calls: usize,
    last: Option<CertificateStatus>,
    view: LocalisationView,
}

impl PhasedGrid {
    /// The run of `plan`, starting at w̄₁ = 0 (the centre of W).
    pub fn new(plan: PhasedGridPlan, rng: DpRng, seeded: bool) -> Result<Self> {
        let d = plan.schedule.declared.d;
        if plan.phases().is_empty() || !(1..=2).contains(&d) {
            return Err(Error::invalid(
                "n",
                "enough records for one phase of m_t ≥ max(10, d) records per call, in d = 1 or 2",
                plan.schedule.declared.n,
            ));
        }
        Ok(Self {
            guarantee: plan.guarantee(),
            view: plan.view(),
            plan,
            rng: Some(rng),
            seeded,
            phase: 0,
            call: 0,
            centre: vec![0.0; d],
            centres: vec![vec![0.0; d]],
            candidates: Vec::new(),
            released_candidates: Vec::new(),
            centre_release: None,
            inner: None,
            current: vec![0.0; d],
            done: false,
            aborted: false,
            failed: false,
            passes: 0.0,
            finished_calls: 0,
            last: None,
        })
    }

    /// The centres w̄₁, w̄₂, … released so far (the last is the release once done).
    pub fn centres(&self) -> &[Vec<f64>] {
        &self.centres
    }

    /// Whether the last phase has released its centre.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The plan it runs.
    pub fn plan(&self) -> &PhasedGridPlan {
        &self.plan
    }

    /// The phase under way's record of its calls (the last phase's once the run is done).
    fn phase_view(&mut self) -> &mut PhaseView {
        let last = self.view.phases.len() - 1;
        &mut self.view.phases[self.phase.min(last)]
    }

    /// The current call, built from the phase's schedule, the public centre and the block.
    fn start_call(&mut self) -> Result<Inner> {
        let p = self.plan.phases()[self.phase];
        let block = Block {
            start: p.offset + self.call * p.m,
            centre: self.centre.clone(),
        };
        let rng = self
            .rng
            .take()
            .ok_or_else(|| Error::invalid("seed", "a noise stream for the call", 0))?;
        Ok(match self.plan.call {
            GridCall::Pgm => {
                let radius = self.plan.grid_radius(&p);
                Inner::Pgm(Box::new(EmPgm::in_phase(
                    self.plan.pgm_call(&p),
                    block,
                    radius,
                    rng,
                    self.seeded,
                )?))
            }
            GridCall::Approx => Inner::Approx(Box::new(ApproxEm::in_phase(
                self.plan.approx_call(&p),
                block,
                rng,
                self.seeded,
            )?)),
        })
    }

    fn abort(&mut self) {
        self.aborted = true;
        self.done = true;
        self.current.fill(0.0);
        self.view.release = Some(planar(&self.current));
    }
}

impl PrivateAlgorithm for PhasedGrid {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let mut caveats = vec![format!(
            "declared G_k = {:.4} (k = {}) and G₂ = {:.4} from the generating distribution, never \
             the sample; C_t = G_k (m_t ε/d)^(1/k)",
            p.schedule.declared.moment_k, p.schedule.declared.k, p.schedule.declared.moment_2
        )];
        for (phase, epsilon) in p.phases().iter().zip(p.phase_epsilons()) {
            caveats.push(format!(
                "phase {}: J = {} calls on disjoint blocks of m = {} records (records {}–{}), \
                 C = {:.4}, λ = {:.4e}, ε = {} per call{}",
                phase.t,
                p.repetitions(),
                phase.m,
                phase.offset,
                phase.offset + phase.m * p.repetitions() - 1,
                phase.clip,
                phase.lambda,
                epsilon,
                match p.call {
                    GridCall::Pgm => format!(", grid radius r = {:.3e}", p.grid_radius(phase)),
                    GridCall::Approx => String::new(),
                }
            ));
        }
        caveats.push(format!(
            "composed: ε = {} = the largest per-phase ε (parallel composition: every record is \
             read by exactly one call; the centres are released outputs, aggregation is \
             post-processing)",
            p.composed_epsilon()
        ));
        let mechanism = match p.call {
            GridCall::Pgm => "EM-PGM inside Pop-Localize (Lowy 2026, Algorithms 1 and 5)",
            GridCall::Approx => {
                "localised approximate exponential mechanism inside Pop-Localize (Lowy 2026, Algorithms 1, 6 and 7)"
            }
        };
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if let Ok(pure) = PureDp::new(self.guarantee.epsilon, Relation::ReplaceOne) {
            ledger = ledger.with_spend(
                "one ε-DP call per disjoint block, phases in parallel composition",
                PrivacyLoss::Pure(pure),
            );
        }
        if self.failed {
            ledger = ledger.with_failure(
                "a call's localisation certificate never held within its planned budget (floating \
                 point); it drew its noise around the call's centre instead, and that failure \
                 depends on the data",
            );
        }
        if self.aborted {
            ledger = ledger.with_failure(
                "a call could not start (a plan check the plan already made failed at run time); \
                 nothing is published",
            );
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done {
            return None;
        }
        let mut inner = match self.inner.take() {
            Some(inner) => inner,
            None => match self.start_call() {
                Ok(inner) => {
                    // EM-PGM's grid ball is around the phase's centre; Algorithm 7's is around
                    // its localisation's output, known once it drew.
                    let ball_centre = match self.plan.call {
                        GridCall::Pgm => Some(planar(&self.centre)),
                        GridCall::Approx => None,
                    };
                    self.phase_view().calls.push(CallView {
                        ball_centre,
                        ..CallView::default()
                    });
                    inner
                }
                Err(_) => {
                    self.abort();
                    return None;
                }
            },
        };
        let before = inner.algorithm().grad_evals();
        let report = inner.algorithm().step(objective);
        let after = inner.algorithm().grad_evals();
        let block = self.plan.phases()[self.phase].m as f64;
        self.passes += (after - before) * block / objective.data().n() as f64;
        self.last = inner.algorithm().certificate();
        self.current.copy_from_slice(inner.algorithm().current());
        let (noise_norm, grad_norm, loss) = report
            .as_ref()
            .map_or((0.0, f64::NAN, objective.value(&self.current)), |r| {
                (r.noise_norm, r.grad_norm, r.loss)
            });
        let call_spent = report.as_ref().map_or(0.0, |r| r.epsilon_spent);
        if let Some((certified, w_loc)) = inner.localised().map(|(a, b)| (planar(a), planar(b))) {
            if let Some(call) = self.phase_view().calls.last_mut() {
                call.certified = Some(certified);
                call.ball_centre = Some(w_loc);
            }
        }
        // A failed localisation still drew its noise and its exponential-mechanism draw; the
        // call goes on, and the ledger marks the release NOT PRIVATE.
        self.failed |= inner.failed();
        // The call's own stop decision, from its step's report (`None`: it had nothing left).
        if report.as_ref().is_none_or(|r| r.done) {
            let candidate = inner.algorithm().current().to_vec();
            if let Some(call) = self.phase_view().calls.last_mut() {
                call.candidate = Some(planar(&candidate));
            }
            self.candidates.push(candidate);
            let released = inner.algorithm().release();
            self.released_candidates
                .push(released.and_then(|p| p.noised().cloned()));
            self.rng = Some(inner.into_rng());
            self.finished_calls += 1;
            self.call += 1;
            if self.call == self.plan.repetitions() {
                let picked = aggregate_index(&self.candidates);
                if let Some(i) = picked {
                    self.centre = self.candidates[i].clone();
                    self.centre_release = self.released_candidates[i].clone();
                }
                self.phase_view().picked = picked;
                self.centres.push(self.centre.clone());
                self.candidates.clear();
                self.released_candidates.clear();
                self.call = 0;
                self.phase += 1;
                self.done = self.phase == self.plan.phases().len();
                let centre = planar(&self.centre);
                if self.done {
                    self.view.release = Some(centre);
                } else {
                    self.phase_view().centre = Some(centre);
                }
                self.current.copy_from_slice(&self.centre);
            }
        } else {
            self.inner = Some(inner);
        }
        let spent = if self.finished_calls > 0 {
            self.guarantee.epsilon
        } else {
            call_spent
        };
        let report = StepReport {
            grad_evals: self.passes,
            loss,
            noise_norm,
            grad_norm,
            epsilon_spent: spent,
            done: self.done,
        };
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.current
    }

    fn release(&self) -> Option<Published> {
        // The last phase's picked call release; an aborted run publishes nothing.
        if !self.done || self.aborted {
            return None;
        }
        self.centre_release.clone().map(Published::Private)
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

    fn extras(&self) -> Extras<'_> {
        Extras::none().with(Extra::Localisation(&self.view))
    }
}

// --- The families' plans -------------------------------------------------------------------

/// The plan of a grid family inside Algorithm 1 on `config`: Algorithm 2's schedule
/// ([`localised_plan`]: m_t ≥ max(10, d), certificates clear of rounding, replace-one only), d ≤ 2
/// and a finite public step γ, all before any data.
pub fn phased_plan(
    settings: &Settings,
    declared: &ProblemDeclaration,
    call: GridCall,
) -> Result<PhasedGridPlan> {
    if declared.d > 2 {
        return Err(Error::invalid(
            "d",
            "lower it to at most 2: the grid has (points per axis)^d points",
            declared.d,
        ));
    }
    let schedule = localised_plan(settings, declared, Call::Localise)?;
    let plan = PhasedGridPlan {
        call,
        schedule,
        resolution: settings.grid_resolution,
    };
    if call == GridCall::Approx {
        // Every call's localisation budget, from the declared constants, before the data.
        for p in plan.phases() {
            plan.approx_call(p).budget()?;
        }
    }
    if call == GridCall::Pgm {
        for p in plan.phases() {
            let gamma = plan.pgm_call(p).gamma;
            if !(gamma.is_finite() && gamma > 0.0) {
                return Err(Error::invalid(
                    "feature_bound",
                    "lower it: the score's step γ = 1/(λ + H) needs a finite smoothness H = sup φ″·B²",
                    declared.feature_bound,
                ));
            }
        }
    }
    Ok(plan)
}

/// The registry's plan of a phased grid family.
pub(super) fn plan_family(
    settings: &Settings,
    declared: &ProblemDeclaration,
    call: GridCall,
) -> Result<Planned> {
    let plan = phased_plan(settings, declared, call)?;
    let first = plan.phases()[0];
    // Every call releases once for EM-PGM; Algorithm 7 releases twice per call (its noisy
    // localisation at ε/2, then its exponential-mechanism draw), each a draw of the whole law.
    let per_call = match call {
        GridCall::Pgm => 1,
        GridCall::Approx => 2,
    };
    let releases = plan.repetitions() * plan.phases().len() * per_call;
    let (name, head, sensitivity) = match call {
        GridCall::Pgm => {
            let c = plan.pgm_call(&first);
            (
                "EM-PGM inside Pop-Localize (Lowy 2026, Algorithms 1 and 5)",
                (c.sensitivity(), NoiseShape::None),
                c.sensitivity(),
            )
        }
        GridCall::Approx => {
            let c = plan.approx_call(&first);
            (
                "localised approximate exponential mechanism inside Pop-Localize (Lowy 2026, Algorithms 1, 6 and 7)",
                (
                    c.scale(),
                    NoiseShape::L2Laplace {
                        scale: c.scale(),
                        d: declared.d,
                    },
                ),
                c.localisation_sensitivity(),
            )
        }
    };
    let mut preview = Preview::new(
        settings.kind,
        name,
        plan.guarantee(),
        head,
        releases,
        sensitivity,
        first.clip,
    );
    preview.draws = plan.draws();
    if call == GridCall::Approx {
        // Phase 1's argmin moves by at most 2C/(λm) between neighbours.
        preview.sensitivity_ball = Some(2.0 * plan.approx_call(&first).accuracy());
    }
    Ok(Planned::new(preview, PhasedGridFamilyPlan { plan }))
}

/// A phased grid family's plan in the registry.
struct PhasedGridFamilyPlan {
    plan: PhasedGridPlan,
}

impl Plan for PhasedGridFamilyPlan {
    /// Theorems E.2 and F.6: Theorem 3.1's rate (up to a log factor for EM-PGM), the constants
    /// set to 1, at the failure probability δ = 0.1 the sweep's lower bound is drawn at.
    fn theory(&self, _problem: &Posed, _preview: &Preview) -> Option<Curve> {
        Curve::flat(
            pure_upper(&schedule_rates(&self.plan.schedule.declared)),
            match self.plan.call {
                GridCall::Pgm => {
                    "Lowy 2026, Theorem E.2, with probability ≥ 0.9, up to constants and a log factor: G_k·D·(d·ln 10/(nε))^(1−1/k) + G₂·D·√(ln 10/n)"
                }
                GridCall::Approx => {
                    "Lowy 2026, Theorem F.6, with probability ≥ 0.9, up to constants: G_k·D·(d·ln 10/(nε))^(1−1/k) + G₂·D·√(ln 10/n)"
                }
            },
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        check_records(&problem.objective, self.plan.schedule.declared.n)?;
        Ok(MinRun::on(
            problem,
            PhasedGrid::new(self.plan.clone(), noise, seeded)?,
        ))
    }
}
