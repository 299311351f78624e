//! "Bring your own algorithm": output perturbation with any certified base solver, and its phased
//! version for merely convex problems.
//!
//! # Algorithm
//! Zhang et al. 2022 (Zhang, Thekumparampil, Oh & He, "Bring Your Own Algorithm for Optimal Differentially
//! Private Stochastic Minimax Optimization"):
//!
//! - **Algorithm 1** (μ-strongly convex ERM, Thm 3.4): run the base solver until
//!   ‖A(S) − x̂*_S‖ ≤ L/(μn), release A(S) + N(0, σ²I) with σ = 4L√(2 ln(2.5/δ))/(μnε).
//!   Implemented by [`crate::algo::output_perturbation::OutputPerturbation::from_plan`] with
//!   [`plan_algorithm_1`]: target radius ρ = L/(μn), Δ = 2L/(μn) + 2ρ = 4L/(μn).
//! - **Algorithm 2** (convex ERM, Thm 3.7), [`PhasedOutputPerturbation`]: K = ⌊log₂ n⌋ phases on
//!   disjoint chunks of n̄ = ⌊n/K⌋ records (by position; the leftover records are dropped), μ_k = μ·2^k;
//!   phase k solves F̂_k(x) = (1/n̄)Σ_{S_k} f(x; ξ) + r(x) + (μ_k/2)‖x − x̃_{k−1}‖² until
//!   ‖x_k − x̂*_k‖ ≤ L/(μ_k n̄), and releases x̃_k = x_k + N(0, σ_k²I), σ_k = 4L√(2 ln(2.5/δ))/(μ_k n̄ ε).
//!   Default μ = (L/D)·max{1/√n, 14·K·√(d ln(2.5/δ))/(nε)} with D the domain radius.
//!
//! The base solver is swappable ([`SolverKind`]: GD, AGD, SGD, SVRG) without touching privacy: the
//! noise depends only on the configuration, and the release waits for the solver-agnostic
//! certificate of [`crate::solver`] (Zhang et al. 2022, "the whole BYOA message").
//!
//! # Assumptions
//! Per-sample f(·; ξ) convex, L-Lipschitz and β-smooth on W (Assumption 3.1; Algorithm 1 also
//! μ-strongly convex for every ξ through the declared ridge, Assumption 3.2). L is
//! the data term's declared constant (the regularisers need not be Lipschitz, Lemma 3.5).
//! ERM objectives only (TERM is refused). Replace-one adjacency, public n.
//!
//! # Privacy
//! Definition 2 (Gaussian mechanism with a high-probability sensitivity) with δ' = δ/2, so each
//! release is (ε, δ)-DP with the **paper** calibration, which is the classical Gaussian and
//! therefore needs ε ≤ 1 (the paper assumes ε ∈ (0, 1) and δ < 1/n; ε > 1 is refused).
//! [`ByoaGaussian::CertifiedAnalytic`] is the "certified mode" of Zhang et al. 2022: the certificate
//! holds surely, so the sensitivity bound has no failure probability and the exact (analytic)
//! Gaussian at (ε, δ) is used, valid for every ε > 0 — a labelled deviation from the paper.
//! Algorithm 2: each phase reads only its own chunk and depends on earlier phases only through
//! their released x̃_{k−1} (its solver starts at P_W(x̃_{k−1}), never at an un-noised iterate),
//! so adaptive parallel composition (Lemma A.1, [`crate::privacy::composition::parallel`])
//! gives (ε, δ) for the whole run. σ_k uses n̄, not n. A budget-exhausted solver hands
//! over to the GD safeguard, whose per-phase iteration bound depends only on
//! declared constants and the released centre.
//!
//! # Utility
//! Thm 3.4: E F̂(x̃) − F̂* ≤ 33L²κ·d·ln(2.5/δ)/(μn²ε²); Thm 3.7: E F(x̃_K) − F* ≤
//! 4LD·K·(1/√n + 7√(d ln(2.5/δ))/(nε)) ([`crate::theory::byoa`]).
//!
//! # Reference
//! Zhang et al. 2022: Algorithms 1–2, Definition 2, Lemmas 2.1/A.1, 3.3, 3.5, Theorems 3.4, 3.7.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::loss::Wrap;
use crate::objective::Objective;
use crate::privacy::calibration::{
    GaussianMethod, analytic_gaussian_sigma, classical_gaussian_sigma,
};
use crate::privacy::release::{Noised, Published, Trail};
use crate::privacy::{
    ApproxDp, Guarantee, Ledger, PrivacyLoss, Relation, check_delta, check_epsilon, composition,
};
use crate::rng::DpRng;
use crate::solver::{CertificateConstants, FiniteSum, SolverKind};

use super::output_perturbation::{
    CertifiedRun, NoiseLaw, ObjectiveDeclaration, ReleasePlan, Settings, certified_gd_bound,
    perturb,
};
use super::{CertificateStatus, Draws, NoiseShape, PrivateAlgorithm, StepReport};

use super::family::{
    BOUNDED, Demonstration, Family, MINIMISATION, Need, Plan as RunPlan, Preview, Purity,
    RunLength, card_text, replace_one_only, setting, statement,
};
use super::output_perturbation::OutputPerturbation;
use super::output_perturbation::{op_declared, op_noise};
use super::registry::Planned;
use super::run::{MinRun, Run};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings as LaneSettings;
use crate::controls::Control;
use crate::domain::Domain;
use crate::theory::curve::Curve;

/// How σ is calibrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ByoaGaussian {
    /// The paper's σ = Δ√(2 ln(2.5/δ))/ε (Definition 2 with δ' = δ/2); needs ε ≤ 1.
    #[default]
    Paper,
    /// Certified mode: the exact Gaussian for the sure sensitivity at (ε, δ); any ε > 0.
    CertifiedAnalytic,
}

/// σ for an ℓ2 sensitivity under a calibration.
pub fn sigma(sensitivity: f64, epsilon: f64, delta: f64, calibration: ByoaGaussian) -> Result<f64> {
    check_delta(delta)?;
    match calibration {
        // Δ√(2 ln(1.25/(δ/2)))/ε = Δ√(2 ln(2.5/δ))/ε, refused for ε > 1.
        ByoaGaussian::Paper => classical_gaussian_sigma(sensitivity, epsilon, delta / 2.0),
        ByoaGaussian::CertifiedAnalytic => analytic_gaussian_sigma(sensitivity, epsilon, delta),
    }
}

/// The settings of Zhang et al. 2022's minimisation algorithms (all data-independent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ByoaSettings {
    /// ε > 0 (≤ 1 with the paper calibration).
    pub epsilon: f64,
    /// δ ∈ (0, 1); the paper assumes δ < 1/n (a caveat otherwise).
    pub delta: f64,
    /// σ calibration.
    pub calibration: ByoaGaussian,
    /// The base solver.
    pub solver: SolverKind,
    /// Iterations the base solver may take per phase before the GD safeguard; `None`: the GD bound.
    pub max_iters: Option<usize>,
    /// Algorithm 2's base regulariser μ; `None`: the paper's (needs a bounded domain for D).
    pub mu: Option<f64>,
    /// Project each released x̃_k onto W (post-processing).
    pub project_releases: bool,
}

impl ByoaSettings {
    /// Paper calibration, AGD, default budget and μ, no projection.
    pub fn new(epsilon: f64, delta: f64) -> Self {
        Self {
            epsilon,
            delta,
            calibration: ByoaGaussian::Paper,
            solver: SolverKind::Agd,
            max_iters: None,
            mu: None,
            project_releases: false,
        }
    }
}

/// The certified solvers need a smooth loss; the subgradient method has no certificate here.
fn certified_solver(objective: &Objective, solver: SolverKind) -> Result<()> {
    if matches!(
        solver,
        SolverKind::Subgradient | SolverKind::StochasticSubgradient
    ) {
        return Err(Error::invalid(
            "solver",
            "a certified solver (gd, agd, sgd, svrg, katyusha) for Zhang et al. 2022",
            format!("{solver:?}"),
        ));
    }
    if !objective.smoothness().is_finite() {
        return Err(Error::invalid(
            "loss",
            "a smooth loss (the certified solvers need a gradient)",
            objective.smoothness(),
        ));
    }
    Ok(())
}

fn erm_only(objective: &Objective) -> Result<()> {
    if let Some(loss) = objective.loss()
        && matches!(loss.wrap, Wrap::Tilted { .. })
    {
        return Err(Error::invalid(
            "loss",
            "an ERM objective for Zhang et al. 2022's method (TERM is not a finite average)",
            "tilted",
        ));
    }
    Ok(())
}

/// Algorithm 1 of Zhang et al. 2022 as a [`ReleasePlan`] for [`crate::algo::output_perturbation::OutputPerturbation::from_plan`]:
/// ρ = L/(μn), Δ = 4L/(μn), σ per [`sigma`].
pub fn plan_algorithm_1(objective: &Objective, settings: ByoaSettings) -> Result<ReleasePlan> {
    erm_only(objective)?;
    certified_solver(objective, settings.solver)?;
    plan_algorithm_1_declared(ObjectiveDeclaration::of(objective)?, settings)
}

/// [`plan_algorithm_1`] from declared constants alone (for a preview before any data exist):
/// the same plan, given an ERM form and a smooth loss (β < ∞).
pub fn plan_algorithm_1_declared(
    declared: ObjectiveDeclaration,
    settings: ByoaSettings,
) -> Result<ReleasePlan> {
    if declared.form != super::output_perturbation::Form::Erm {
        return Err(Error::invalid(
            "loss",
            "an ERM objective for Zhang et al. 2022",
            format!("{:?}", declared.form),
        ));
    }
    if !declared.smoothness.is_finite() {
        return Err(Error::invalid(
            "loss",
            "a smooth loss (the certified solvers need a gradient)",
            declared.smoothness,
        ));
    }
    check_epsilon(settings.epsilon)?;
    let (l, mu, n) = (
        declared.lipschitz,
        declared.strong_convexity,
        declared.n as f64,
    );
    let radius = l / (mu * n);
    let total = 4.0 * l / (mu * n);
    let s = sigma(
        total,
        settings.epsilon,
        settings.delta,
        settings.calibration,
    )?;
    // The same rounding-allowance check as Lowy & Razaviyayn 2021's certified budget: the radius L/(μn) must
    // dwarf the certificate's rounding error, or no dataset could be certified within it.
    let gd_bound = declared.certified_gd_budget(radius)
    .map_err(|allowance| {
        Error::invalid(
            "l2",
            format!(
                "a larger ridge (or fewer records): the target radius L/(μn) = {radius:.2e} must exceed the certificate's rounding allowance {allowance:.2e} tenfold"
            ),
            mu,
        )
    })?;
    let mut base = Settings::new(settings.epsilon, settings.delta);
    base.solver = settings.solver;
    base.max_iters = settings.max_iters;
    base.alpha = Some(0.5 * mu * radius * radius);
    let guarantee = Guarantee {
        epsilon: settings.epsilon,
        delta: settings.delta,
        relation: Relation::ReplaceOne,
        rho: None,
        accounting: format!(
            "one Gaussian release of a point certified within L/(μn) = {radius:.3e} of the ERM optimum: sensitivity 4L/(μn) = {total:.3e}, σ = {s:.3e} ({}; Zhang et al. 2022, Alg. 1, Def. 2)",
            match settings.calibration {
                ByoaGaussian::Paper => "paper: δ' = δ/2",
                ByoaGaussian::CertifiedAnalytic => "certified mode: analytic Gaussian at (ε, δ)",
            }
        ),
    };
    Ok(ReleasePlan {
        declared,
        settings: base,
        sensitivity: 2.0 * l / (mu * n),
        alpha: 0.5 * mu * radius * radius,
        radius,
        total_sensitivity: total,
        noise: NoiseLaw::Gaussian {
            sigma: s,
            method: match settings.calibration {
                ByoaGaussian::Paper => GaussianMethod::Classical,
                ByoaGaussian::CertifiedAnalytic => GaussianMethod::Analytic,
            },
        },
        gd_bound,
        max_iters: settings.max_iters.unwrap_or(gd_bound).max(1),
        guarantee,
        label: "Zhang et al. 2022, Algorithm 1",
    })
}

/// The page's card for Zhang et al. 2022 **Algorithm 1**.
pub const CARD_ALGORITHM_1: &str = "Bring your own algorithm (Zhang et al. 2022, Algorithm 1). \
For a smooth, strongly convex ERM: any base solver (GD, AGD, SGD, SVRG, Katyusha) runs until a \
certificate proves its point within L/(μn) of the minimiser; one Gaussian vector with \
σ = 4L√(2 ln(2.5/δ))/(μnε) is added (the paper's classical calibration at δ/2, valid for ε ≤ 1; a \
certified analytic mode allows any ε). (ε, δ)-DP under replace-one, fixed by the declared L, μ, \
n before the data are read. Theorem 3.4: excess empirical risk ≤ 33κL²d·ln(2.5/δ)/(μn²ε²); \
the plot should show the risk falling as n⁻² and ε⁻², with gradient counts that differ by \
solver while σ does not.";

/// The page's card for Zhang et al. 2022 **Algorithm 2**.
pub const CARD_ALGORITHM_2: &str = "Phased bring-your-own-algorithm (Zhang et al. 2022, \
Algorithm 2). For a merely convex, smooth ERM: the data are split into K = ⌊log₂ n⌋ disjoint \
chunks of n̄ = ⌊n/K⌋ records; phase k solves its chunk with a ridge μ·2^k centred at the \
previous (already noisy) release, certifies the point within L/(μ_k n̄), and adds Gaussian noise \
σ_k = 4L√(2 ln(2.5/δ))/(μ_k n̄ ε). Each record is used once, so the phases compose in parallel \
to (ε, δ)-DP, fixed by the declared constants. Theorem 3.7: excess population risk \
≤ 4LDK(1/√n + 7√(d ln(2.5/δ))/(nε)); the plot should show a slow n⁻¹ᐟ² fall, σ_k halving \
phase by phase, and the same σ_k whichever solver is chosen.";

/// One phase of Algorithm 2, fixed from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PhaseSpec {
    /// k = 1..K.
    pub k: usize,
    /// μ_k = μ·2^k.
    pub mu_k: f64,
    /// Target radius L/(μ_k n̄).
    pub radius: f64,
    /// Sensitivity 4L/(μ_k n̄).
    pub sensitivity: f64,
    /// σ_k.
    pub sigma: f64,
}

/// Algorithm 2's schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schedule {
    /// K = ⌊log₂ n⌋.
    pub phases: usize,
    /// n̄ = ⌊n/K⌋.
    pub n_bar: usize,
    /// μ.
    pub mu: f64,
    /// Per phase.
    pub specs: Vec<PhaseSpec>,
}

/// The paper's μ for Algorithm 2: (L/D)·max{1/√n, 14·K·√(d ln(2.5/δ))/(nε)} (log n ≡ K).
pub fn paper_mu(l: f64, big_d: f64, n: usize, d: usize, k: usize, epsilon: f64, delta: f64) -> f64 {
    let nf = n as f64;
    let privacy = 14.0 * k as f64 * libm::sqrt(d as f64 * libm::log(2.5 / delta)) / (nf * epsilon);
    l / big_d * (1.0 / libm::sqrt(nf)).max(privacy)
}

/// K = ⌊log₂ n⌋ (n ≥ 1): the phase count of Algorithms 2, 4 and 5 (the proofs of Zhang et al. 2022
/// use μ_K = μn).
pub fn phase_count(n: usize) -> usize {
    (usize::BITS - 1 - n.max(1).leading_zeros()) as usize
}

/// K, n̄, μ and every phase's μ_k, radius, sensitivity and σ_k from the configuration alone.
/// `big_d` is D (a bound on ‖x*‖), used only when `mu` is `None`.
#[allow(clippy::too_many_arguments)]
pub fn schedule(
    n: usize,
    d: usize,
    lipschitz: f64,
    big_d: f64,
    epsilon: f64,
    delta: f64,
    mu: Option<f64>,
    calibration: ByoaGaussian,
) -> Result<Schedule> {
    if n < 2 {
        return Err(Error::invalid(
            "n",
            "at least 2 records (K = ⌊log₂ n⌋ ≥ 1)",
            n,
        ));
    }
    check_epsilon(epsilon)?;
    check_delta(delta)?;
    let phases = phase_count(n);
    let n_bar = n / phases;
    let mu = match mu {
        Some(m) if m.is_finite() && m > 0.0 => m,
        Some(m) => return Err(Error::invalid("mu", "a finite number > 0", m)),
        None => {
            if !(big_d.is_finite() && big_d > 0.0) {
                return Err(Error::invalid(
                    "mu",
                    "an explicit μ on an unbounded domain (the paper's μ needs D)",
                    big_d,
                ));
            }
            paper_mu(lipschitz, big_d, n, d, phases, epsilon, delta)
        }
    };
    let mut specs = Vec::with_capacity(phases);
    for k in 1..=phases {
        let mu_k = mu * libm::ldexp(1.0, k as i32);
        let radius = lipschitz / (mu_k * n_bar as f64);
        let sensitivity = 4.0 * radius;
        specs.push(PhaseSpec {
            k,
            mu_k,
            radius,
            sensitivity,
            sigma: sigma(sensitivity, epsilon, delta, calibration)?,
        });
    }
    Ok(Schedule {
        phases,
        n_bar,
        mu,
        specs,
    })
}

/// Phase k's problem: (1/n̄)Σ_{i∈S_k} f(x; ξᵢ) + r(x) + (μ_k/2)‖x − c‖² over W (a borrowed view,
/// cheap to build every step).
pub struct PhaseProblem<'a> {
    objective: &'a Objective,
    indices: &'a [usize],
    mu_k: f64,
    centre: &'a [f64],
}

impl<'a> PhaseProblem<'a> {
    /// The chunk `indices` (all < n), ridge μ_k centred at `centre`.
    pub fn new(
        objective: &'a Objective,
        indices: &'a [usize],
        mu_k: f64,
        centre: &'a [f64],
    ) -> Self {
        Self {
            objective,
            indices,
            mu_k,
            centre,
        }
    }

    fn add_centred(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let mut sq = 0.0;
        for ((g, wi), ci) in grad.iter_mut().zip(w).zip(self.centre) {
            *g += self.mu_k * (wi - ci);
            sq += (wi - ci) * (wi - ci);
        }
        0.5 * self.mu_k * sq
    }
}

impl FiniteSum for PhaseProblem<'_> {
    fn dim(&self) -> usize {
        self.objective.dim()
    }
    fn terms(&self) -> usize {
        self.indices.len()
    }
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        // Indices are < n by construction; an error would mean a bug, so fall back to 0.
        let data = self
            .objective
            .minibatch_gradient(w, self.indices, grad)
            .unwrap_or_else(|_| {
                grad.fill(0.0);
                0.0
            });
        let reg = self.objective.regulariser();
        crate::linalg::axpy(reg.l2, w, grad);
        data + reg.value(w) + self.add_centred(w, grad)
    }
    fn rise_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> crate::objective::Rise {
        let data = self
            .objective
            .minibatch_rise(w, self.indices, grad)
            .unwrap_or_else(|_| {
                grad.fill(0.0);
                crate::objective::Rise {
                    value: 0.0,
                    rise: 0.0,
                }
            });
        let reg = self.objective.regulariser();
        crate::linalg::axpy(reg.l2, w, grad);
        let r = reg.value(w);
        let centred = self.add_centred(w, grad);
        // (μ_k/2)(‖w − c‖² − ‖c‖²): the centred ridge's own rise above the origin.
        let centred_at_origin = 0.5 * self.mu_k * crate::linalg::dot(self.centre, self.centre);
        crate::objective::Rise {
            value: data.value + r + centred,
            rise: data.rise + r + (centred - centred_at_origin),
        }
    }
    fn term_gradient(&self, w: &[f64], i: usize, grad: &mut [f64]) {
        let idx = self.indices.get(i).copied().unwrap_or(0);
        if self.objective.minibatch_gradient(w, &[idx], grad).is_err() {
            grad.fill(0.0);
        }
        crate::linalg::axpy(self.objective.regulariser().l2, w, grad);
        self.add_centred(w, grad);
    }
    fn prox(&self, eta: f64, w: &mut [f64]) {
        self.objective
            .domain()
            .prox_l1(w, eta * self.objective.regulariser().l1);
    }
    fn project(&self, w: &mut [f64]) {
        self.objective.domain().project(w);
    }
}

/// What one finished phase did (non-private except `released`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseRecord {
    /// The phase's fixed specification.
    pub spec: PhaseSpec,
    /// Gradient evaluations in full passes over the **phase chunk**.
    pub grad_evals: f64,
    /// Certificate evaluations (steps).
    pub steps: usize,
    /// Whether the GD safeguard took over.
    pub safeguard: bool,
    /// x̃_k (private: a release of phase k).
    pub released: Vec<f64>,
}

/// Zhang et al. 2022, Algorithm 2 as a step-wise [`PrivateAlgorithm`]; each step is one certificate check
/// (and solver iteration) of the current phase.
pub struct PhasedOutputPerturbation {
    settings: ByoaSettings,
    schedule: Schedule,
    declared_lipschitz: f64,
    smoothness: f64,
    l2: f64,
    guarantee: Guarantee,
    rng: DpRng,
    solver_seed: u64,
    seeded: bool,
    phase: usize,
    run: Option<CertifiedRun>,
    problem_indices: Vec<usize>,
    centre: Vec<f64>,
    noise: Vec<f64>,
    out: Vec<f64>,
    /// The trail of the K planned phase draws, and the release once the last phase drew.
    trail: Trail,
    released: Option<Noised>,
    records: Vec<PhaseRecord>,
    grad_evals: f64,
    done: bool,
    aborted: bool,
    failed: bool,
    n: usize,
    start: Vec<f64>,
}

impl PhasedOutputPerturbation {
    /// Fixes the schedule and the guarantee from `objective`'s declared constants and `settings`.
    pub fn new(
        settings: ByoaSettings,
        objective: &Objective,
        mut rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        erm_only(objective)?;
        certified_solver(objective, settings.solver)?;
        let d = objective.dim();
        let n = objective.n();
        let l = objective.lipschitz();
        let beta = objective.smoothness();
        if !(l.is_finite() && l > 0.0) {
            return Err(Error::invalid(
                "lipschitz",
                "a finite declared Lipschitz constant > 0",
                l,
            ));
        }
        if !beta.is_finite() {
            return Err(Error::invalid(
                "loss",
                "a smooth loss (the certified solvers need a gradient)",
                beta,
            ));
        }
        let big_d = objective.domain().radius_in(d);
        let schedule = schedule(
            n,
            d,
            l,
            big_d,
            settings.epsilon,
            settings.delta,
            settings.mu,
            settings.calibration,
        )?;
        let parts: Vec<ApproxDp> = (0..schedule.phases)
            .map(|_| ApproxDp::new(settings.epsilon, settings.delta, Relation::ReplaceOne))
            .collect::<Result<_>>()?;
        let total = composition::parallel(&parts)?;
        let guarantee = Guarantee {
            epsilon: total.epsilon,
            delta: total.delta,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "{} phases on disjoint chunks of n̄ = {}, each an (ε, δ) Gaussian release of a certified point (σ₁ = {:.3e} … σ_K = {:.3e}); parallel composition (Zhang et al. 2022, Alg. 2, Lemma A.1)",
                schedule.phases,
                schedule.n_bar,
                schedule.specs[0].sigma,
                schedule.specs[schedule.phases - 1].sigma
            ),
        };
        let mut start = vec![0.0; d];
        objective.domain().project(&mut start);
        let solver_seed = rng.next_u64();
        let phases = schedule.phases;
        Ok(Self {
            settings,
            schedule,
            declared_lipschitz: l,
            smoothness: beta,
            l2: objective.regulariser().l2,
            guarantee,
            rng,
            solver_seed,
            seeded,
            phase: 0,
            run: None,
            problem_indices: Vec::new(),
            out: start.clone(),
            centre: start.clone(),
            start,
            noise: vec![0.0; d],
            trail: Trail::planned(phases),
            released: None,
            records: Vec::new(),
            grad_evals: 0.0,
            done: false,
            aborted: false,
            failed: false,
            n,
        })
    }

    /// The schedule fixed at construction.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The finished phases.
    pub fn phases(&self) -> &[PhaseRecord] {
        &self.records
    }

    /// Whether a phase failed to certify within its planned budget (floating point; its release
    /// is then the planned noise around w₀ = P_W(0), NOT PRIVATE) or could not start.
    pub fn aborted(&self) -> bool {
        self.aborted || self.failed
    }

    /// Runs to the end and returns x̃_K.
    pub fn run(&mut self, objective: &Objective) -> &[f64] {
        while self.step(objective).is_some() {}
        &self.out
    }

    /// Starts phase k (0-based): certificate constants, GD bound from declared constants and the
    /// released centre only.
    fn start_phase(&mut self, objective: &Objective) -> Result<()> {
        let k = self.phase;
        let spec = self.schedule.specs[k];
        let n_bar = self.schedule.n_bar;
        self.problem_indices = (k * n_bar..(k + 1) * n_bar).collect();
        let m = self.l2 + spec.mu_k;
        let constants = CertificateConstants {
            strong_convexity: m,
            smoothness: self.smoothness + spec.mu_k,
            lipschitz: self.declared_lipschitz,
        };
        let centre_norm = crate::linalg::norm2(&self.centre);
        let (initial, iterate_bound) = phase_start_bounds(
            objective.domain(),
            objective.dim(),
            self.declared_lipschitz,
            objective.regulariser(),
            m,
            centre_norm,
        );
        // Depends only on declared constants and released centres: post-processing.
        let gd_bound = certified_gd_bound(
            &constants,
            n_bar + objective.dim(),
            iterate_bound,
            initial,
            spec.radius,
        )
        .map_err(|_| {
            Error::invalid(
                "mu",
                "a schedule whose radii exceed the certificate's rounding allowance tenfold",
                spec.radius,
            )
        })?;
        let problem = PhaseProblem::new(objective, &self.problem_indices, spec.mu_k, &self.centre);
        self.run = Some(CertifiedRun::new(
            &problem,
            constants,
            self.settings.solver,
            self.solver_seed.wrapping_add(k as u64),
            &self.centre,
            spec.radius,
            self.settings.max_iters.unwrap_or(gd_bound),
            gd_bound,
        ));
        Ok(())
    }
}

/// A phase's GD safeguard bounds from declared constants and the released centre c: the
/// initial distance D₀ ≥ ‖P_W(c) − x̂*_k‖ and a bound on the iterates' norms. On a bounded W, its
/// diameter and radius. On R^d, strong convexity m = λ₂ + μ_k gives ‖c − x̂*_k‖ ≤ ‖g‖/m for any
/// subgradient g of F̂_k at c: the data term's (≤ L), the ridge's λ₂c, the centred ridge's 0 and
/// the lasso's (≤ λ₁√d, as c is a release and not 0), so D₀ = (L + λ₂‖c‖ + λ₁√d)/m; the iterates
/// stay within ‖c‖ + 2D₀.
fn phase_start_bounds(
    domain: &dyn crate::domain::Domain,
    d: usize,
    lipschitz: f64,
    reg: crate::loss::Regulariser,
    m: f64,
    centre_norm: f64,
) -> (f64, f64) {
    let diameter = domain.diameter_in(d);
    if diameter.is_finite() {
        (diameter, domain.radius_in(d))
    } else {
        let d0 = (lipschitz + reg.l2 * centre_norm + reg.l1 * libm::sqrt(d as f64)) / m;
        (d0, centre_norm + 2.0 * d0)
    }
}

impl PrivateAlgorithm for PhasedOutputPerturbation {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let mut caveats = vec![
            format!(
                "declared constants, not measured: L = {}, β = {}; features clipped to the declared bound",
                self.declared_lipschitz, self.smoothness
            ),
            format!(
                "chunks fixed by position before the run: records {}..{} are not used (n − K·n̄)",
                self.schedule.phases * self.schedule.n_bar + 1,
                self.n
            ),
            "each phase starts from the previous release x̃_{k−1}, never from an un-noised iterate"
                .to_string(),
            "the solvers' iterates and stopping times are not private; only the releases are"
                .to_string(),
        ];
        if self.settings.delta * self.n as f64 >= 1.0 {
            caveats.push("δ ≥ 1/n: outside the paper's assumption δ < 1/n".to_string());
        }
        if self.settings.calibration == ByoaGaussian::CertifiedAnalytic {
            caveats.push(
                "certified mode: analytic Gaussian at (ε, δ) without the paper's δ/2 split (a deviation from the paper, valid because the certificate holds surely)".to_string(),
            );
        }
        // Which solver path ran depends on the data: those facts are events, not caveats.
        let mut events = Vec::new();
        if self.records.iter().any(|r| r.safeguard) {
            events.push("a phase's solver ran out of budget; projected GD took over".to_string());
        }
        let mut failures = Vec::new();
        if self.failed {
            failures.push(
                "a phase never certified within its planned budget (floating point); it released \
                 its planned noise around w₀ instead, and that failure depends on the data",
            );
        }
        if self.aborted {
            failures.push(
                "a phase could not start or draw (a plan check failed at run time); nothing is \
                 published",
            );
        }
        let mechanism = format!(
            "phased output perturbation (Zhang et al. 2022, Algorithm 2), K = {}, n̄ = {}, μ = {:.3e}",
            self.schedule.phases, self.schedule.n_bar, self.schedule.mu
        );
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        ledger.events = events;
        for failure in failures {
            ledger = ledger.with_failure(failure);
        }
        for spec in &self.schedule.specs {
            if let Ok(p) = ApproxDp::new(
                self.settings.epsilon,
                self.settings.delta,
                Relation::ReplaceOne,
            ) {
                ledger = ledger.with_spend(
                    format!(
                        "phase {}: σ = {:.3e} on its own chunk (parallel)",
                        spec.k, spec.sigma
                    ),
                    PrivacyLoss::Approx(p),
                );
            }
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done {
            return None;
        }
        if self.run.is_none() && self.start_phase(objective).is_err() {
            self.abort();
            return None;
        }
        let k = self.phase;
        let problem = PhaseProblem::new(
            objective,
            &self.problem_indices,
            self.schedule.specs[k].mu_k,
            &self.centre,
        );
        let run = self.run.as_mut()?;
        let before = run.grad_evals();
        let cert = run.step(&problem);
        let scale = self.schedule.n_bar as f64 / self.n as f64;
        self.grad_evals += (run.grad_evals() - before) * scale;
        let mut report = StepReport {
            grad_evals: self.grad_evals,
            loss: cert.value,
            noise_norm: 0.0,
            grad_norm: cert.grad_norm,
            epsilon_spent: if self.records.is_empty() {
                0.0
            } else {
                self.settings.epsilon
            },
            done: false,
        };
        // Even the GD safeguard failed within its planned budget (floating point): the phase
        // still releases its planned noise, around the fixed public w₀, and the ledger marks the
        // release NOT PRIVATE (that failure depends on the data).
        let failed = run.failed();
        if !run.is_certified() && !failed {
            return Some(report);
        }
        self.failed |= failed;
        let spec = self.schedule.specs[k];
        let noise = NoiseLaw::Gaussian {
            sigma: spec.sigma,
            method: GaussianMethod::Classical,
        };
        let point = if failed {
            self.start.clone()
        } else {
            run.certified_point().to_vec()
        };
        let (steps, evals, safeguard) = (run.steps(), run.grad_evals(), run.used_safeguard());
        match perturb(
            &noise,
            &mut self.trail,
            &mut self.rng,
            &point,
            &mut self.noise,
            &mut self.out,
        ) {
            Ok(norm) => report.noise_norm = norm,
            Err(_) => {
                self.abort();
                return Some(StepReport {
                    done: self.done,
                    ..report
                });
            }
        }
        if self.settings.project_releases {
            objective.domain().project(&mut self.out);
        }
        report.epsilon_spent = self.settings.epsilon;
        self.records.push(PhaseRecord {
            spec,
            grad_evals: evals,
            steps,
            safeguard,
            released: self.out.clone(),
        });
        self.centre.copy_from_slice(&self.out);
        self.run = None;
        self.phase += 1;
        if self.phase == self.schedule.phases {
            self.done = true;
            // K phases, one draw each: the last phase's point is the release.
            self.released = Noised::iterate(&self.out, &self.trail);
        }
        Some(StepReport {
            done: self.done,
            ..report
        })
    }

    fn current(&self) -> &[f64] {
        match (&self.run, self.done) {
            (Some(run), false) => run.current(),
            _ => &self.out,
        }
    }

    fn release(&self) -> Option<Published> {
        self.released.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        self.schedule
            .specs
            .iter()
            .map(|spec| Draws {
                noise: NoiseShape::Gaussian {
                    sigma: spec.sigma,
                    d: self.noise.len(),
                },
                count: 1,
                sensitivity: spec.sensitivity,
            })
            .collect()
    }

    fn grad_evals(&self) -> f64 {
        self.grad_evals
    }

    fn certificate(&self) -> Option<CertificateStatus> {
        let spec = self
            .schedule
            .specs
            .get(self.phase.min(self.schedule.phases - 1))?;
        let last = self.run.as_ref().and_then(|r| r.last())?;
        Some(CertificateStatus {
            bound: last.distance_bound,
            threshold: spec.radius,
            sensitivity: spec.sensitivity,
            met: false,
        })
    }
}

impl PhasedOutputPerturbation {
    fn abort(&mut self) {
        self.aborted = true;
        self.done = true;
        self.run = None;
        self.out.copy_from_slice(&self.start);
    }
}

// --- The families: card, settings, needs and the data-free plan -------------------

/// Zhang et al. 2022's calibration: the paper's (classical at δ/2) where it is valid (ε ≤ 1), the exact
/// analytic Gaussian beyond.
pub(crate) fn paper_or_analytic(epsilon: f64) -> ByoaGaussian {
    if epsilon <= 1.0 {
        ByoaGaussian::Paper
    } else {
        ByoaGaussian::CertifiedAnalytic
    }
}

const ERM_ONLY: Need = Need::PlainErm {
    why: "Zhang et al. 2022 state their algorithms for ERM",
};
const SMOOTH: Need = Need::SmoothLoss {
    why: "the certified solvers of Zhang et al. 2022 need a gradient",
};
const CERTIFIED_SOLVER: Need = Need::SmoothSolver {
    why: "Zhang et al. 2022 certify the base solver's distance to the optimum by strong convexity and a gradient",
};

/// Zhang et al. 2022, Algorithm 1's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::Byoa,
    card: card_text! {
        name: "bring your own algorithm",
        source: "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”, Algorithm 1 and Theorem 3.4",
        assumptions: "μ-strongly convex, smooth F; a base solver (GD, AGD, SGD, SVRG, Katyusha) certified to within L/(μn) of the optimum.",
        privacy: "One Gaussian draw for sensitivity 4L/(μn); the paper's σ (classical at δ/2) for ε ≤ 1, the analytic Gaussian above.",
        utility: "Excess risk O(L²d log(1/δ)/(μ n² ε²)) whichever solver: swap the solver and the noise stays, only the gradient count changes.",
        watch: "Different solvers take different paths and counts; the released points stay within the noise scale.",
        module: "algo::byoa",
        summary: CARD_ALGORITHM_1,
    },
    settings: &[setting(
        Control::Solver,
        "base solver",
        "any solver certified to within L/(μn) of the optimum; the noise does not depend on it",
    )],
    needs: &[
        Need::Ridge {
            value: 0.1,
            why: "Zhang et al. 2022, Algorithm 1 needs a strongly convex objective",
        },
        ERM_ONLY,
        SMOOTH,
        CERTIFIED_SOLVER,
    ],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_algorithm_1_run,
};

/// Zhang et al. 2022, Algorithm 2's entry in [`crate::algo::registry`].
pub static FAMILY_PHASED: Family = Family {
    kind: AlgorithmKind::ByoaPhased,
    card: card_text! {
        name: "phased output perturbation",
        source: "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”, Algorithm 2 and Theorem 3.7",
        assumptions: "Convex, smooth F on a bounded domain; K = ⌊log₂ n⌋ disjoint chunks, μ_k = μ·2^k.",
        privacy: "Each phase releases one Gaussian point computed on its own chunk: parallel composition keeps the whole run (ε, δ)-DP.",
        utility: "Population excess risk O(LD(1/√n + √(d log(1/δ))/(nε))) (Theorem 3.7).",
        watch: "K short phases, each centred at the previous release, with shrinking noise.",
        module: "algo::byoa",
        summary: CARD_ALGORITHM_2,
    },
    settings: &[setting(
        Control::Solver,
        "base solver",
        "the certified solver of every phase",
    )],
    needs: &[
        ERM_ONLY,
        SMOOTH,
        Need::Domains {
            allowed: BOUNDED,
            why: "phase k's ridge μ·2^k is set from the domain's radius D",
        },
        CERTIFIED_SOLVER,
    ],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_algorithm_2_run,
};

/// Algorithm 1's or 2's plan: the settings, checked and calibrated from the declared constants.
struct ByoaRunPlan {
    settings: ByoaSettings,
    phased: bool,
}

fn settings_of(config: &LaneSettings) -> ByoaSettings {
    let mut settings = ByoaSettings::new(config.budget.epsilon, config.budget.delta);
    settings.solver = config.solver;
    settings.calibration = paper_or_analytic(config.budget.epsilon);
    settings
}

fn plan_algorithm_1_run(config: &LaneSettings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        config.budget.relation,
        "the sensitivity 4G/(μn) (Zhang, Thekumparampil, Oh & He 2022, Algorithm 1) holds \
         for a fixed, public n",
    )?;
    let settings = settings_of(config);
    // The algorithm's own plan from the declared constants: σ, Δ = 4L/(μn) and the
    // rounding-allowance check, refused here as it would be at the run.
    let plan = plan_algorithm_1_declared(op_declared(declared, 0.0)?, settings)?;
    let total = plan.total_sensitivity;
    let mut preview = Preview::new(
        AlgorithmKind::Byoa,
        "bring your own algorithm (Zhang et al. 2022, Algorithm 1): certified solver + one Gaussian",
        statement(
            config.budget.epsilon,
            config.budget.delta,
            config.budget.relation,
            "Zhang et al. 2022, Alg. 1",
        ),
        op_noise(&plan.noise, declared.d),
        1,
        total,
        declared.lipschitz(),
    );
    preview.sensitivity_ball = Some(total);
    Ok(Planned::new(
        preview,
        ByoaRunPlan {
            settings,
            phased: false,
        },
    ))
}

fn plan_algorithm_2_run(config: &LaneSettings, declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        config.budget.relation,
        "Algorithm 2 of Zhang, Thekumparampil, Oh & He 2022 splits the n records into \
         chunks of fixed sizes",
    )?;
    let settings = settings_of(config);
    let d = declared.d;
    let schedule = schedule(
        declared.n,
        d,
        declared.lipschitz(),
        // D: the domain radius, as `PhasedOutputPerturbation::new` reads it.
        declared.domain.radius_in(d),
        config.budget.epsilon,
        config.budget.delta,
        None,
        settings.calibration,
    )?;
    let first = schedule
        .specs
        .first()
        .ok_or_else(|| Error::invalid("n", "at least 2 records for one phase", declared.n))?;
    let gaussian = |sigma| NoiseShape::Gaussian { sigma, d };
    let mut preview = Preview::new(
        AlgorithmKind::ByoaPhased,
        "phased output perturbation (Zhang et al. 2022, Algorithm 2): K disjoint chunks, μ doubling",
        statement(
            config.budget.epsilon,
            config.budget.delta,
            config.budget.relation,
            "Zhang et al. 2022, Alg. 2",
        ),
        (first.sigma, gaussian(first.sigma)),
        schedule.phases,
        first.sensitivity,
        declared.lipschitz(),
    );
    preview.sensitivity_ball = Some(first.sensitivity);
    preview.draws = schedule
        .specs
        .iter()
        .map(|spec| Draws {
            noise: gaussian(spec.sigma),
            count: 1,
            sensitivity: spec.sensitivity,
        })
        .collect();
    Ok(Planned::new(
        preview,
        ByoaRunPlan {
            settings,
            phased: true,
        },
    ))
}

impl RunPlan for ByoaRunPlan {
    /// Theorem 3.4 (empirical) for Algorithm 1 on strongly convex smooth F; Algorithm 2's bound
    /// is on the population risk, which this plot does not draw.
    fn theory(&self, posed: &Posed, preview: &Preview) -> Option<Curve> {
        let problem = posed.min().ok()?;
        let declared = &problem.declared;
        let (beta, mu) = (declared.smoothness(), declared.strong_convexity());
        if self.phased || !(beta.is_finite() && mu > 0.0) {
            return None;
        }
        Curve::flat(
            crate::theory::byoa::algorithm_1_empirical(
                preview.lipschitz,
                beta,
                mu,
                declared.n,
                declared.d,
                self.settings.epsilon,
                self.settings.delta,
            ),
            "Zhang et al. 2022, Theorem 3.4 (empirical)",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let objective = &problem.objective;
        if self.phased {
            let run = PhasedOutputPerturbation::new(self.settings, objective, noise, seeded)?;
            return Ok(MinRun::on(problem, run));
        }
        let plan = plan_algorithm_1(objective, self.settings)?;
        let run = OutputPerturbation::from_plan(plan, objective, noise, seeded)?;
        Ok(MinRun::on(problem, run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Unconstrained;
    use crate::loss::Regulariser;

    #[test]
    fn the_phase_safeguard_bound_covers_the_lasso_subgradient() {
        // One dimension, data term with zero gradient (L = 1 declared), λ₁ = 5, λ₂ = 0, μ_k = 1,
        // centre c = 10: F̂(x) = 5|x| + ½(x − 10)² is minimised at x̂* = 5, at distance 5 from the
        // start c. Without the λ₁√d term the bound was L/m = 1.
        let (initial, iterate_bound) = phase_start_bounds(
            &Unconstrained,
            1,
            1.0,
            Regulariser { l1: 5.0, l2: 0.0 },
            1.0,
            10.0,
        );
        assert!(initial >= 5.0, "D₀ = {initial}");
        assert!(iterate_bound >= 10.0 + 5.0, "{iterate_bound}");
    }
}
