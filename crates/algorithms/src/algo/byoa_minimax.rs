//! "Bring your own algorithm" for saddle problems: output perturbation of a certified minimax
//! solve (Zhang, Thekumparampil, Oh & He 2022, Section 4).
//!
//! One engine, [`MinimaxOutputPerturbation`], runs a list of phases fixed before the data are
//! read. Each phase solves a regularised chunk of a [`RecordGame`] with a swappable base solver
//! ([`SaddleSolverKind`]: GDA, extragradient, VR-extragradient) until the certificate of
//! [`crate::minimax::solvers`] holds, then releases the certified point plus Gaussian noise
//! calibrated from declared constants. Three variants:
//!
//! # Algorithm 3 (SC-SC output perturbation, Theorem 4.4) — [`Variant::ScSc`]
//! **Assumptions.** Assumption 4.2: every f(·, ·; ξ) is L-Lipschitz (jointly), ℓ-smooth,
//! μₓ-strongly convex in x and μᵧ-strongly concave in y (declared by the game, never measured);
//! replace-one adjacency with public n. μ = min(μₓ, μᵧ).
//! **Privacy.** The solver is run on the whole game until μₓ‖x − x̂*‖² + μᵧ‖y − ŷ*‖² ≤ L²/(μn²)
//! (certified surely); with Lemma 4.3 the x-sensitivity is 4L/(n√(μₓμ)) and the y-sensitivity
//! 4L/(n√(μᵧμ)). Each block gets a Gaussian at (ε/2, δ/2) (Definition 2 with δ' = δ/4:
//! σₓ = (8L/(nε))√(2 ln(5/δ)/(μₓμ)), σᵧ likewise), and basic composition (Lemma 2.1) gives (ε, δ).
//! **Utility.** Theorem 4.4 (interior saddle point): empirical strong gap
//! ≤ 257L²(κₓκᵧ + κ)d·ln(5/δ)/(μn²ε²) ([`theorem_4_4_empirical`]), population strong gap
//! ≤ 3L²(κₓκᵧ + κ)(3/(μn) + 128d·ln(5/δ)/(μn²ε²)) ([`theorem_4_4_population`]).
//! **Reference.** Zhang et al. 2022, Algorithm 3, Definition 2, Lemmas 2.1, 4.3, Theorem 4.4,
//! Remark 3.
//!
//! # Algorithms 4 and 5 (phased convex–concave pair, Theorem 4.8) — [`Variant::Phased`]
//! **Assumptions.** Assumption 4.1 (convex–concave, L-Lipschitz, ℓ-smooth) on X × Y with
//! max(‖x‖, ‖y‖) ≤ D (the domains' radii); replace-one adjacency, public n.
//! **Privacy.** K = ⌊log₂ n⌋ disjoint chunks of n̄ = ⌊n/K⌋ records by position (the rest are
//! dropped), μ_k = μ·2^k. Algorithm 4's phase k solves its chunk + (μ_k/2)‖x − x̃_{k−1}‖² −
//! (μ/2)‖y‖² to μ_k‖Δx‖² + μ‖Δy‖² ≤ L²/(μn̄²) and releases only x̃_k = x_k + N(0, σ_k²I) with
//! σ_k = (8L/(n̄ε))√(2 ln(5/δ)/(μ_kμ)); Algorithm 5 mirrors it for y. Each phase is (ε/2, δ/2) on
//! its chunk and depends on earlier phases only through their releases, so parallel
//! composition (Lemma A.1) makes each algorithm (ε/2, δ/2), and basic composition of the two
//! (they share S) gives (ε, δ). y_k of Algorithm 4 and x_k of Algorithm 5 are never released.
//! **Utility.** Theorem 4.8: weak gap ≤ 16LD·K²(1/√n + 5√(d ln(5/δ))/(nε)), d = max(dₓ, dᵧ)
//! ([`theorem_4_8`]); default μ = (L/D)·max{2/√n, 13K√(d ln(5/δ))/(nε)} ([`paper_mu_phased`]).
//! **Reference.** Zhang et al. 2022, Algorithms 4 and 5, Lemmas 4.5, 4.7, A.1, Theorem 4.8.
//!
//! # The C-SC variant (Section 4.3, Corollary 4.9) — [`Variant::ConvexStronglyConcave`]
//! **Assumptions.** Assumption 4.1 with every f(x, ·; ξ) μᵧ-strongly concave, μᵧ ≥ L/(D√n).
//! **Privacy.** Algorithm 4 without the y-regulariser: phase k certifies
//! μ_k‖Δx‖² + μᵧ‖Δy‖² ≤ L²/(n̄²·min(μ_k, μᵧ)) and releases x̃_k with
//! σ_k = (4L/(n̄ε))√(2 ln(2.5/δ)/(μ_k·min(μ_k, μᵧ))), each phase (ε, δ), parallel composition:
//! (ε, δ). Only x is released; the reported y is the data-independent start P_Y(0).
//! **Utility.** Corollary 4.9: max_y E F(x̃_K, y) − F(x*, y*) ≤
//! 6LD·K(1/√n + 4√(dₓ ln(2.5/δ))/(nε)) + L²K²(8/(μᵧn) + 65dₓ ln(2.5n/δ)/(μᵧn²ε²))
//! ([`corollary_4_9`]); μ = 3(L/D)·max{1/√n, 4K√(dₓ ln(2.5/δ))/(nε)}.
//! **Reference.** Zhang et al. 2022, Section 4.3, Corollary 4.9.
//!
//! # Budgets and the leaky demonstration
//! A base solver that has not certified within `max_iters` hands over to GDA from the phase's
//! public start, whose bound depends only on declared constants and released centres (as
//! [`crate::algo::byoa`] does: an abort on budget exhaustion would itself depend on the data);
//! if floating point defeats that bound too, the phase releases its planned
//! noise around the data-independent starts P_X(0), P_Y(0) and the ledger marks the release NOT
//! PRIVATE, in the private export too (that failure depends on the data). [`MinimaxLeak::IterationCap`] is the
//! leaky demonstration of a pitfall: the solver stops after a fixed number of iterations and its
//! point is released whether or not the certificate holds; the ledger says NOT PRIVATE.
//!
//! Calibration ([`sigma`]) is [`crate::algo::byoa`]'s: the paper's classical Gaussian
//! (Definition 2; needs ε ≤ 1 at the per-release budget) or the labelled "certified mode"
//! analytic Gaussian (the certificate holds surely, so no failure probability remains).

use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::byoa::{ByoaGaussian, paper_or_analytic, phase_count, sigma};
use super::family::{
    Demonstration, Family, Need, Plan, Preview, ProblemKind, Purity, RunLength, SettingUse,
    card_text, replace_one_only, setting,
};
use super::registry::Planned;
use super::run::{Diagnostic, MinimaxAlgorithm, PhaseRow, Point, Run, Step};
use super::{Draws, NoiseShape, StepReport};
use crate::algo::extras::{Extra, Extras};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings;
use crate::controls::Control;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::minimax::game::GameSpec;
use crate::minimax::solvers::{
    PhaseConstants, PhaseGame, PhaseTarget, Regulariser, SaddleRun, SaddleSolverKind, SaddleStatus,
    TAU, safeguard_bound,
};
use crate::minimax::{GameConstants, GameDeclaration, RecordGame};
use crate::privacy::release::{Baseline, Law, Noised, Published, Trail};
use crate::privacy::{
    ApproxDp, Guarantee, Ledger, PrivacyLoss, Relation, check_delta, check_epsilon, composition,
};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

/// Which of the paper's minimax algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Algorithm 3 (SC-SC, Theorem 4.4).
    ScSc,
    /// Algorithms 4 + 5 (convex–concave, Theorem 4.8).
    Phased,
    /// The convex–strongly-concave variant of Algorithm 4 (Corollary 4.9).
    ConvexStronglyConcave,
}

/// The leaky demonstration toggle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MinimaxLeak {
    /// The certified algorithm.
    #[default]
    None,
    /// Stop every phase's solver after `iterations` iterations and release its point whether or
    /// not the certificate holds: **not private**.
    IterationCap {
        /// Solver iterations per phase.
        iterations: usize,
    },
    /// The non-private baseline: no noise, and every phase solved to [`NOISE_OFF_TIGHTENING`]
    /// times its target, so the output is the certified equilibrium itself (used to check the
    /// solvers converge; not offered on the page).
    NoiseOff,
}

/// How much tighter than the privacy target the noise-off baseline certifies each phase: W ≤
/// 1e-16·T puts the point within 1e-8 of the phase's saddle point in the weighted norm, far below
/// any gap the plots resolve, and well above f64's rounding for the games of the playground (the
/// safeguard refuses a target it cannot certify).
pub const NOISE_OFF_TIGHTENING: f64 = 1e-16;

impl MinimaxLeak {
    /// The ledger's sentence for the leak, if any.
    pub fn describe(self) -> Option<String> {
        match self {
            MinimaxLeak::None => None,
            MinimaxLeak::IterationCap { iterations } => Some(format!(
                "NOT PRIVATE: the base solver is stopped after {iterations} iterations and its point released whether or not the certificate holds, so the sensitivity the noise is calibrated to is not guaranteed (Zhang et al. 2022 require the accuracy condition before the release)"
            )),
            MinimaxLeak::NoiseOff => Some(
                "NOT PRIVATE: noise off, the certified equilibrium itself is released (the non-private baseline)"
                    .to_string(),
            ),
        }
    }
}

/// The settings (all data-independent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MinimaxSettings {
    /// ε > 0 (the paper assumes ε < 1).
    pub epsilon: f64,
    /// δ ∈ (0, 1) (the paper assumes δ < 1/n; a caveat otherwise).
    pub delta: f64,
    /// σ calibration (paper, or certified-mode analytic).
    pub calibration: ByoaGaussian,
    /// The base solver of every phase.
    pub solver: SaddleSolverKind,
    /// Solver iterations per phase before the GDA safeguard; `None`: the safeguard's bound.
    pub max_iters: Option<usize>,
    /// The phased variants' base μ; `None`: the paper's (from D, the domains' radius).
    pub mu: Option<f64>,
    /// Project each release onto its domain (post-processing).
    pub project_releases: bool,
    /// The leaky demonstration.
    pub leak: MinimaxLeak,
}

impl MinimaxSettings {
    /// Paper calibration, extragradient, default budget and μ, no projection, no leak.
    pub fn new(epsilon: f64, delta: f64) -> Self {
        Self {
            epsilon,
            delta,
            calibration: ByoaGaussian::Paper,
            solver: SaddleSolverKind::Extragradient,
            max_iters: None,
            mu: None,
            project_releases: false,
            leak: MinimaxLeak::None,
        }
    }
}

/// Which blocks a phase releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Releases {
    /// Both x and y (Algorithm 3).
    Both,
    /// x only (Algorithm 4, C-SC).
    X,
    /// y only (Algorithm 5).
    Y,
}

/// One phase, fixed from the configuration before the data are read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MinimaxPhase {
    /// The paper's algorithm number (3, 4 or 5; the C-SC variant reports 4).
    pub algorithm: MinimaxAlgorithm,
    /// k = 1..K within its algorithm (1 for Algorithm 3).
    pub k: usize,
    /// First record of the phase's chunk.
    pub start: usize,
    /// The chunk's size (n for Algorithm 3, n̄ otherwise).
    pub records: usize,
    /// μ_k (Algorithm 3: μ = min(μₓ, μᵧ)).
    pub mu_k: f64,
    /// The regulariser's moduli (a on x, b on y).
    pub reg: (f64, f64),
    /// The accuracy requirement wₓ‖Δx‖² + wᵧ‖Δy‖² ≤ T.
    pub weight_x: f64,
    /// See `weight_x`.
    pub weight_y: f64,
    /// T.
    pub target: f64,
    /// What is released.
    pub releases: Releases,
    /// σ of the x release (0 when x is not released).
    pub sigma_x: f64,
    /// σ of the y release (0 when y is not released).
    pub sigma_y: f64,
    /// ℓ2 sensitivity of the x release.
    pub sensitivity_x: f64,
    /// ℓ2 sensitivity of the y release.
    pub sensitivity_y: f64,
}

/// The whole schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinimaxSchedule {
    /// The variant.
    pub variant: Variant,
    /// K (1 for Algorithm 3).
    pub phases_per_algorithm: usize,
    /// n̄ (n for Algorithm 3).
    pub n_bar: usize,
    /// μ (Algorithm 3: min(μₓ, μᵧ)).
    pub mu: f64,
    /// Every phase, in run order (Algorithm 4's, then Algorithm 5's).
    pub phases: Vec<MinimaxPhase>,
}

/// The declared constants the calibration reads (from [`RecordGame::constants`] and the
/// configuration; never from the records).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Declared {
    /// n.
    pub n: usize,
    /// (dₓ, dᵧ).
    pub dims: (usize, usize),
    /// L, the joint Euclidean Lipschitz bound.
    pub lipschitz: f64,
    /// ℓ.
    pub smoothness: f64,
    /// μₓ.
    pub mu_x: f64,
    /// μᵧ.
    pub mu_y: f64,
    /// D ≥ max(‖x‖, ‖y‖) on X × Y (∞ when unbounded).
    pub radius: f64,
}

impl Declared {
    /// A game's declared constants (D from its domains' radii).
    pub fn of(game: &dyn RecordGame) -> Self {
        Self::from_parts(
            game.records(),
            game.dims(),
            game.constants(),
            game.x_domain(),
            game.y_domain(),
        )
    }

    /// The declared constants of the game a configuration poses, before any record is drawn
    /// (the same numbers [`Declared::of`] reads from the built game).
    pub fn of_spec(spec: &GameSpec) -> Self {
        Self::from_parts(
            spec.n,
            (spec.dx, spec.dy),
            spec.constants(),
            &spec.x_domain,
            &spec.y_domain,
        )
    }

    /// The declared constants of the game a configuration poses, whichever game it is, before
    /// any record is drawn (the same numbers [`Declared::of`] reads from the built game).
    pub fn of_declaration(declaration: &GameDeclaration) -> Self {
        Self::from_parts(
            declaration.n,
            declaration.dims,
            declaration.constants,
            &declaration.x_domain,
            &declaration.y_domain,
        )
    }

    fn from_parts(
        n: usize,
        (dx, dy): (usize, usize),
        c: GameConstants,
        x_domain: &dyn Domain,
        y_domain: &dyn Domain,
    ) -> Self {
        Self {
            n,
            dims: (dx, dy),
            lipschitz: c.lipschitz,
            smoothness: c.smoothness,
            mu_x: c.mu_x,
            mu_y: c.mu_y,
            radius: x_domain.radius_in(dx).max(y_domain.radius_in(dy)),
        }
    }

    /// The constants of `phase`'s operator.
    fn phase_constants(&self, phase: &MinimaxPhase) -> PhaseConstants {
        PhaseConstants {
            lipschitz: self.lipschitz,
            smoothness: self.smoothness,
            mu_f: (self.mu_x, self.mu_y),
            reg: phase.reg,
        }
    }
}

impl MinimaxPhase {
    /// The requirement W ≤ T, tightened for the noise-off baseline.
    fn requirement(&self, leak: MinimaxLeak) -> PhaseTarget {
        let tightening = match leak {
            MinimaxLeak::NoiseOff => NOISE_OFF_TIGHTENING,
            _ => 1.0,
        };
        PhaseTarget {
            weight_x: self.weight_x,
            weight_y: self.weight_y,
            target: self.target * tightening,
        }
    }

    /// The phase's regulariser: centred at the latest public releases `x_out`, `y_out` on the
    /// released block (Algorithms 4, 5, C-SC), at 0 elsewhere.
    fn regulariser(&self, x_out: &[f64], y_out: &[f64]) -> Regulariser {
        let (cx, cy) = match self.releases {
            Releases::Both => (vec![0.0; x_out.len()], vec![0.0; y_out.len()]),
            Releases::X => (x_out.to_vec(), vec![0.0; y_out.len()]),
            Releases::Y => (vec![0.0; x_out.len()], y_out.to_vec()),
        };
        Regulariser {
            a: self.reg.0,
            cx,
            b: self.reg.1,
            cy,
        }
    }
}

/// The most iterations GDA's bound may promise in a phase before GDA is refused as the base
/// solver: one row per iteration reaches the plots, and O(κ²) iterations with κ in the thousands
/// (the C-SC variant's late phases, whose x-ridge μ_k enters GDA's forward step) would not finish
/// in a browser tab.
pub const MAX_GDA_ITERATIONS: usize = 100_000;

/// Refuses, before any record is read, a schedule a phase of which cannot be certified in f64
/// (the check [`MinimaxOutputPerturbation::new`] makes when it starts a phase), and GDA as the
/// solver when its iteration bound passes [`MAX_GDA_ITERATIONS`]. Every phase is checked with its
/// centres at the data-independent starts P_X(0), P_Y(0) (a later phase's centres are releases,
/// unknown here; the bound's distance term is at most the diameter either way).
pub fn check_certifiable(
    schedule: &MinimaxSchedule,
    declared: &Declared,
    x_domain: &dyn Domain,
    y_domain: &dyn Domain,
    settings: &MinimaxSettings,
) -> Result<()> {
    let (dx, dy) = declared.dims;
    let (mut x0, mut y0) = (vec![0.0; dx], vec![0.0; dy]);
    x_domain.project(&mut x0);
    y_domain.project(&mut y0);
    let diameter = x_domain.diameter_in(dx).hypot(y_domain.diameter_in(dy));
    for phase in &schedule.phases {
        let reg = phase.regulariser(&x0, &y0);
        let bound = safeguard_bound(
            diameter,
            &reg,
            &declared.phase_constants(phase),
            &phase.requirement(settings.leak),
            &x0,
            &y0,
        )?;
        if settings.solver == SaddleSolverKind::Gda && bound > MAX_GDA_ITERATIONS {
            return Err(Error::invalid(
                "minimax_solver",
                format!(
                    "choose extragradient or variance-reduced extragradient: GDA's O(κ²) bound is {bound} iterations in phase {} of Algorithm {} (at most {MAX_GDA_ITERATIONS})",
                    phase.k, phase.algorithm
                ),
                "gradient descent–ascent",
            ));
        }
    }
    Ok(())
}

/// Every noise draw of a schedule, in release order: one Gaussian per released block.
pub fn draws_of(schedule: &MinimaxSchedule, (dx, dy): (usize, usize)) -> Vec<Draws> {
    let mut draws = Vec::new();
    for p in &schedule.phases {
        if p.releases != Releases::Y {
            draws.push(Draws {
                noise: NoiseShape::Gaussian {
                    sigma: p.sigma_x,
                    d: dx,
                },
                count: 1,
                sensitivity: p.sensitivity_x,
            });
        }
        if p.releases != Releases::X {
            draws.push(Draws {
                noise: NoiseShape::Gaussian {
                    sigma: p.sigma_y,
                    d: dy,
                },
                count: 1,
                sensitivity: p.sensitivity_y,
            });
        }
    }
    draws
}

fn positive(field: &'static str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(Error::invalid(field, "a finite number > 0", v))
    }
}

/// Algorithm 3's calibration (Zhang et al. 2022): target L²/(μn²), sensitivities 4L/(n√(μₓμ)) and
/// 4L/(n√(μᵧμ)), each block at (ε/2, δ/2).
pub fn algorithm_3_phase(
    declared: &Declared,
    epsilon: f64,
    delta: f64,
    calibration: ByoaGaussian,
) -> Result<MinimaxPhase> {
    check_epsilon(epsilon)?;
    check_delta(delta)?;
    let l = positive("lipschitz", declared.lipschitz)?;
    let mu_x = positive("mu_x", declared.mu_x)?;
    let mu_y = positive("mu_y", declared.mu_y)?;
    if declared.n == 0 {
        return Err(Error::invalid("n", "at least 1 record", 0));
    }
    let (n, mu) = (declared.n as f64, mu_x.min(mu_y));
    let sensitivity_x = 4.0 * l / (n * (mu_x * mu).sqrt());
    let sensitivity_y = 4.0 * l / (n * (mu_y * mu).sqrt());
    Ok(MinimaxPhase {
        algorithm: MinimaxAlgorithm::ScSc,
        k: 1,
        start: 0,
        records: declared.n,
        mu_k: mu,
        reg: (0.0, 0.0),
        weight_x: mu_x,
        weight_y: mu_y,
        target: l * l / (mu * n * n),
        releases: Releases::Both,
        sigma_x: sigma(sensitivity_x, epsilon / 2.0, delta / 2.0, calibration)?,
        sigma_y: sigma(sensitivity_y, epsilon / 2.0, delta / 2.0, calibration)?,
        sensitivity_x,
        sensitivity_y,
    })
}

/// The paper's μ for Algorithms 4 and 5: (L/D)·max{2/√n, 13K√(d ln(5/δ))/(nε)}, d = max(dₓ, dᵧ),
/// log n ≡ K (Zhang et al. 2022).
pub fn paper_mu_phased(l: f64, big_d: f64, n: usize, d: usize, epsilon: f64, delta: f64) -> f64 {
    let (nf, k) = (n as f64, phase_count(n) as f64);
    let privacy = 13.0 * k * (d as f64 * (5.0 / delta).ln()).sqrt() / (nf * epsilon);
    l / big_d * (2.0 / nf.sqrt()).max(privacy)
}

/// The paper's μ for the C-SC variant: 3(L/D)·max{1/√n, 4K√(dₓ ln(2.5/δ))/(nε)}.
pub fn paper_mu_csc(l: f64, big_d: f64, n: usize, dx: usize, epsilon: f64, delta: f64) -> f64 {
    let (nf, k) = (n as f64, phase_count(n) as f64);
    let privacy = 4.0 * k * (dx as f64 * (2.5 / delta).ln()).sqrt() / (nf * epsilon);
    3.0 * l / big_d * (1.0 / nf.sqrt()).max(privacy)
}

/// The schedule of `variant` from the declared constants alone (Zhang et al. 2022).
pub fn schedule(
    variant: Variant,
    declared: &Declared,
    settings: &MinimaxSettings,
) -> Result<MinimaxSchedule> {
    let (eps, delta, cal) = (settings.epsilon, settings.delta, settings.calibration);
    if variant == Variant::ScSc {
        let phase = algorithm_3_phase(declared, eps, delta, cal)?;
        return Ok(MinimaxSchedule {
            variant,
            phases_per_algorithm: 1,
            n_bar: declared.n,
            mu: phase.mu_k,
            phases: vec![phase],
        });
    }
    check_epsilon(eps)?;
    check_delta(delta)?;
    let l = positive("lipschitz", declared.lipschitz)?;
    if declared.n < 2 {
        return Err(Error::invalid(
            "n",
            "at least 2 records (K = ⌊log₂ n⌋ ≥ 1)",
            declared.n,
        ));
    }
    let (dx, dy) = declared.dims;
    let k_count = phase_count(declared.n);
    let n_bar = declared.n / k_count;
    let nb = n_bar as f64;
    let big_d = declared.radius;
    let mu = match settings.mu {
        Some(m) => positive("mu", m)?,
        None => {
            if !(big_d.is_finite() && big_d > 0.0) {
                return Err(Error::invalid(
                    "mu",
                    "an explicit μ on an unbounded domain (the paper's μ needs D)",
                    big_d,
                ));
            }
            match variant {
                Variant::Phased => paper_mu_phased(l, big_d, declared.n, dx.max(dy), eps, delta),
                _ => paper_mu_csc(l, big_d, declared.n, dx, eps, delta),
            }
        }
    };
    let mu_k = |k: usize| mu * libm::ldexp(1.0, k as i32);
    let mut phases = Vec::new();
    match variant {
        Variant::Phased => {
            for (algorithm, releases) in [
                (MinimaxAlgorithm::PhasedX, Releases::X),
                (MinimaxAlgorithm::PhasedY, Releases::Y),
            ] {
                for k in 1..=k_count {
                    let mk = mu_k(k);
                    let sensitivity = 4.0 * l / (nb * (mk * mu).sqrt());
                    let s = sigma(sensitivity, eps / 2.0, delta / 2.0, cal)?;
                    let x_side = releases == Releases::X;
                    phases.push(MinimaxPhase {
                        algorithm,
                        k,
                        start: (k - 1) * n_bar,
                        records: n_bar,
                        mu_k: mk,
                        reg: if x_side { (mk, mu) } else { (mu, mk) },
                        weight_x: if x_side { mk } else { mu },
                        weight_y: if x_side { mu } else { mk },
                        target: l * l / (mu * nb * nb),
                        releases,
                        sigma_x: if x_side { s } else { 0.0 },
                        sigma_y: if x_side { 0.0 } else { s },
                        sensitivity_x: if x_side { sensitivity } else { 0.0 },
                        sensitivity_y: if x_side { 0.0 } else { sensitivity },
                    });
                }
            }
        }
        _ => {
            let mu_y = positive("mu_y", declared.mu_y)?;
            for k in 1..=k_count {
                let mk = mu_k(k);
                let m = mk.min(mu_y);
                let sensitivity = 4.0 * l / (nb * (mk * m).sqrt());
                phases.push(MinimaxPhase {
                    algorithm: MinimaxAlgorithm::PhasedX,
                    k,
                    start: (k - 1) * n_bar,
                    records: n_bar,
                    mu_k: mk,
                    reg: (mk, 0.0),
                    weight_x: mk,
                    weight_y: mu_y,
                    target: l * l / (nb * nb * m),
                    releases: Releases::X,
                    sigma_x: sigma(sensitivity, eps, delta, cal)?,
                    sigma_y: 0.0,
                    sensitivity_x: sensitivity,
                    sensitivity_y: 0.0,
                });
            }
        }
    }
    Ok(MinimaxSchedule {
        variant,
        phases_per_algorithm: k_count,
        n_bar,
        mu,
        phases,
    })
}

/// Theorem 4.4's conditioning: μ = min(μₓ, μᵧ) and κₓκᵧ + κ with κₓ = ℓ/μₓ, κᵧ = ℓ/μᵧ, κ = ℓ/μ.
fn condition(smoothness: f64, mu_x: f64, mu_y: f64) -> (f64, f64) {
    let mu = mu_x.min(mu_y);
    let kappas = (smoothness / mu_x) * (smoothness / mu_y) + smoothness / mu;
    (mu, kappas)
}

/// Theorem 4.4, empirical strong gap: 257L²(κₓκᵧ + κ)d·ln(5/δ)/(μn²ε²), κₓ = ℓ/μₓ, κᵧ = ℓ/μᵧ,
/// κ = ℓ/μ, μ = min(μₓ, μᵧ), d = max(dₓ, dᵧ) (interior saddle point).
#[allow(clippy::too_many_arguments)]
pub fn theorem_4_4_empirical(
    l: f64,
    smoothness: f64,
    mu_x: f64,
    mu_y: f64,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let (mu, kappas) = condition(smoothness, mu_x, mu_y);
    let n = n as f64;
    257.0 * l * l * kappas * d as f64 * (5.0 / delta).ln() / (mu * n * n * epsilon * epsilon)
}

/// Theorem 4.4, population strong gap: 3L²(κₓκᵧ + κ)(3/(μn) + 128d·ln(5/δ)/(μn²ε²)).
#[allow(clippy::too_many_arguments)]
pub fn theorem_4_4_population(
    l: f64,
    smoothness: f64,
    mu_x: f64,
    mu_y: f64,
    n: usize,
    d: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let (mu, kappas) = condition(smoothness, mu_x, mu_y);
    let n = n as f64;
    3.0 * l
        * l
        * kappas
        * (3.0 / (mu * n)
            + 128.0 * d as f64 * (5.0 / delta).ln() / (mu * n * n * epsilon * epsilon))
}

/// Theorem 4.8, weak gap of (x̃_K, ỹ_K): 16LD·K²(1/√n + 5√(d ln(5/δ))/(nε)), K = ⌊log₂ n⌋,
/// d = max(dₓ, dᵧ) (each half, primal and dual, is half of it).
pub fn theorem_4_8(l: f64, big_d: f64, n: usize, d: usize, epsilon: f64, delta: f64) -> f64 {
    let (nf, k) = (n as f64, phase_count(n) as f64);
    16.0 * l
        * big_d
        * k
        * k
        * (1.0 / nf.sqrt() + 5.0 * (d as f64 * (5.0 / delta).ln()).sqrt() / (nf * epsilon))
}

/// Corollary 4.9, primal gap max_y E F(x̃_K, y) − F(x*, y*) of the C-SC variant:
/// 6LD·K(1/√n + 4√(dₓ ln(2.5/δ))/(nε)) + L²K²(8/(μᵧn) + 65dₓ ln(2.5n/δ)/(μᵧn²ε²)).
#[allow(clippy::too_many_arguments)]
pub fn corollary_4_9(
    l: f64,
    big_d: f64,
    mu_y: f64,
    n: usize,
    dx: usize,
    epsilon: f64,
    delta: f64,
) -> f64 {
    let (nf, k) = (n as f64, phase_count(n) as f64);
    let dx = dx as f64;
    6.0 * l
        * big_d
        * k
        * (1.0 / nf.sqrt() + 4.0 * (dx * (2.5 / delta).ln()).sqrt() / (nf * epsilon))
        + l * l
            * k
            * k
            * (8.0 / (mu_y * nf)
                + 65.0 * dx * (2.5 * nf / delta).ln() / (mu_y * nf * nf * epsilon * epsilon))
}

/// What one finished phase did (non-private except the release it made).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseLog {
    /// The phase's fixed specification.
    pub phase: MinimaxPhase,
    /// Record gradient evaluations the phase used (a pass over its chunk is `records`).
    pub record_evals: u64,
    /// Solver iterations (VR: epochs), safeguard excluded.
    pub steps: usize,
    /// Whether the GDA safeguard took over.
    pub safeguard: bool,
    /// The certificate's bound on W at release.
    pub certificate: f64,
    /// Whether the certificate held (false only under the leaky cap).
    pub certified: bool,
    /// ‖noise‖₂ of the release (both blocks): the same for every solver at a noise seed.
    pub noise_norm: f64,
}

/// Zhang et al. 2022's minimax output perturbation (Algorithm 3, Algorithms 4 + 5, or the C-SC
/// variant; module docs), a [`Run`] on its own [`RecordGame`].
pub struct MinimaxOutputPerturbation {
    game: Arc<dyn RecordGame>,
    settings: MinimaxSettings,
    schedule: MinimaxSchedule,
    declared: Declared,
    guarantee: Guarantee,
    rng: DpRng,
    solver_seed: u64,
    seeded: bool,
    index: usize,
    reg: Regulariser,
    run: Option<SaddleRun>,
    /// x̃ and ỹ: the latest releases (the starts P_X(0), P_Y(0) before any).
    x_out: Vec<f64>,
    y_out: Vec<f64>,
    x_start: Vec<f64>,
    y_start: Vec<f64>,
    noise_x: Vec<f64>,
    noise_y: Vec<f64>,
    /// The trail of every planned block release (each phase's x and/or y draw).
    trail: Trail,
    logs: Vec<PhaseLog>,
    record_evals: u64,
    t: usize,
    done: bool,
    aborted: bool,
    failed: bool,
}

impl MinimaxOutputPerturbation {
    /// Fixes the schedule and the guarantee from `game`'s declared constants and `settings`;
    /// `noise` is the noise stream (the solvers' own seed is drawn from it first, so the same
    /// noise seed gives the same noise whichever solver runs).
    pub fn new(
        variant: Variant,
        game: Arc<dyn RecordGame>,
        settings: MinimaxSettings,
        mut noise: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let declared = Declared::of(game.as_ref());
        let schedule = schedule(variant, &declared, &settings)?;
        let guarantee = guarantee_of(&schedule, &settings)?;
        let (dx, dy) = declared.dims;
        let mut x_start = vec![0.0; dx];
        let mut y_start = vec![0.0; dy];
        game.x_domain().project(&mut x_start);
        game.y_domain().project(&mut y_start);
        let solver_seed = noise.next_u64();
        let planned = schedule
            .phases
            .iter()
            .map(|p| {
                usize::from(p.releases != Releases::Y) + usize::from(p.releases != Releases::X)
            })
            .sum();
        let mut this = Self {
            trail: Trail::planned(planned),
            reg: Regulariser::none(dx, dy),
            game,
            settings,
            schedule,
            declared,
            guarantee,
            rng: noise,
            solver_seed,
            seeded,
            index: 0,
            run: None,
            x_out: x_start.clone(),
            y_out: y_start.clone(),
            x_start,
            y_start,
            noise_x: vec![0.0; dx],
            noise_y: vec![0.0; dy],
            logs: Vec::new(),
            record_evals: 0,
            t: 0,
            done: false,
            aborted: false,
            failed: false,
        };
        // Refuse before any data are read if the first phase cannot be certified in f64.
        this.start_phase()?;
        Ok(this)
    }

    /// The schedule fixed at construction.
    pub fn schedule(&self) -> &MinimaxSchedule {
        &self.schedule
    }

    /// The finished phases (non-private).
    pub fn logs(&self) -> &[PhaseLog] {
        &self.logs
    }

    /// Whether a phase failed to certify within its planned budget (floating point; its release
    /// is then the planned noise around the start, NOT PRIVATE) or could not start.
    pub fn aborted(&self) -> bool {
        self.aborted || self.failed
    }

    /// Runs to the end; returns (x̃, ỹ).
    pub fn run_to_end(&mut self) -> (&[f64], &[f64]) {
        while self.step().is_some() {}
        (&self.x_out, &self.y_out)
    }

    /// Sets up the current phase's regulariser (centres: the latest public releases, or 0) and
    /// solver. Depends on the configuration and released points only.
    fn start_phase(&mut self) -> Result<()> {
        let phase = self.schedule.phases[self.index];
        self.reg = phase.regulariser(&self.x_out, &self.y_out);
        let cap = match self.settings.leak {
            MinimaxLeak::IterationCap { iterations } => Some(iterations),
            _ => None,
        };
        let view = PhaseGame::new(
            self.game.as_ref(),
            phase.start..phase.start + phase.records,
            &self.reg,
        );
        self.run = Some(SaddleRun::new(
            &view,
            self.declared.phase_constants(&phase),
            phase.requirement(self.settings.leak),
            self.settings.solver,
            self.settings.max_iters,
            cap,
            self.solver_seed.wrapping_add(self.index as u64),
            self.game.scratch(),
        )?);
        Ok(())
    }

    /// Releases the current phase's point: fresh Gaussian noise on the released blocks, drawn
    /// through the trail (a σ that is not a valid law, excluded by the plan, draws nothing and
    /// leaves the trail short, so nothing is published).
    fn release_phase(&mut self, phase: MinimaxPhase, x: &[f64], y: &[f64]) -> f64 {
        if self.settings.leak == MinimaxLeak::NoiseOff {
            self.x_out.copy_from_slice(x);
            self.y_out.copy_from_slice(y);
            return 0.0;
        }
        let mut norm_sq = 0.0;
        if phase.releases != Releases::Y {
            if let Ok(law) = Law::gaussian(phase.sigma_x) {
                self.trail.draw(&law, &mut self.rng, &mut self.noise_x);
            }
            for ((o, p), z) in self.x_out.iter_mut().zip(x).zip(&self.noise_x) {
                *o = p + z;
            }
            norm_sq += crate::linalg::dot(&self.noise_x, &self.noise_x);
            if self.settings.project_releases {
                self.game.x_domain().project(&mut self.x_out);
            }
        }
        if phase.releases != Releases::X {
            if let Ok(law) = Law::gaussian(phase.sigma_y) {
                self.trail.draw(&law, &mut self.rng, &mut self.noise_y);
            }
            for ((o, p), z) in self.y_out.iter_mut().zip(y).zip(&self.noise_y) {
                *o = p + z;
            }
            norm_sq += crate::linalg::dot(&self.noise_y, &self.noise_y);
            if self.settings.project_releases {
                self.game.y_domain().project(&mut self.y_out);
            }
        }
        norm_sq.sqrt()
    }

    fn abort(&mut self) {
        self.aborted = true;
        self.done = true;
        self.run = None;
        self.x_out.copy_from_slice(&self.x_start);
        self.y_out.copy_from_slice(&self.y_start);
    }

    /// ε spent after the releases so far (from the schedule alone).
    fn epsilon_spent(&self) -> f64 {
        let eps = self.settings.epsilon;
        let released = |alg: MinimaxAlgorithm| self.logs.iter().any(|l| l.phase.algorithm == alg);
        match self.schedule.variant {
            Variant::Phased => {
                eps / 2.0
                    * (released(MinimaxAlgorithm::PhasedX) as u8
                        + released(MinimaxAlgorithm::PhasedY) as u8) as f64
            }
            _ if self.logs.is_empty() => 0.0,
            _ => eps,
        }
    }

    fn current_phase(&self) -> MinimaxPhase {
        self.schedule.phases[self.index.min(self.schedule.phases.len() - 1)]
    }
}

/// The guarantee from the schedule alone: per-phase (ε/2, δ/2) or (ε, δ); parallel within an
/// algorithm, basic between Algorithms 4 and 5 and between Algorithm 3's two blocks.
fn guarantee_of(schedule: &MinimaxSchedule, settings: &MinimaxSettings) -> Result<Guarantee> {
    let (eps, delta) = (settings.epsilon, settings.delta);
    let half = || ApproxDp::new(eps / 2.0, delta / 2.0, Relation::ReplaceOne);
    let k = schedule.phases_per_algorithm;
    let (total, accounting) = match schedule.variant {
        Variant::ScSc => {
            let p = &schedule.phases[0];
            (
                composition::basic(&[half()?, half()?])?,
                format!(
                    "one certified SC-SC solve, x and y each released with a Gaussian at (ε/2, δ/2) (σₓ = {:.3e}, σᵧ = {:.3e}), basic composition (Zhang et al. 2022, Alg. 3, Thm 4.4)",
                    p.sigma_x, p.sigma_y
                ),
            )
        }
        Variant::Phased => {
            let one = composition::parallel(&vec![half()?; k])?;
            (
                composition::basic(&[one, one])?,
                format!(
                    "Algorithm 4 (x) and Algorithm 5 (y), each {k} phases on disjoint chunks of n̄ = {} at (ε/2, δ/2) per phase (parallel composition), composed by basic composition (Zhang et al. 2022, Algs. 4–5, Thm 4.8)",
                    schedule.n_bar
                ),
            )
        }
        Variant::ConvexStronglyConcave => (
            composition::parallel(&vec![ApproxDp::new(eps, delta, Relation::ReplaceOne)?; k])?,
            format!(
                "{k} phases on disjoint chunks of n̄ = {}, each releasing x at (ε, δ), parallel composition (Zhang et al. 2022, Section 4.3, Cor. 4.9)",
                schedule.n_bar
            ),
        ),
    };
    Ok(Guarantee {
        epsilon: total.epsilon,
        delta: total.delta,
        relation: Relation::ReplaceOne,
        rho: None,
        accounting,
    })
}

impl Run for MinimaxOutputPerturbation {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let d = &self.declared;
        let mut caveats = vec![
            format!(
                "declared constants, not measured: L = {}, ℓ = {}, μₓ = {}, μᵧ = {}",
                d.lipschitz, d.smoothness, d.mu_x, d.mu_y
            ),
            "the solvers' iterates, stopping times and gradient counts are not private; only the releases are".to_string(),
        ];
        if self.schedule.variant != Variant::ScSc {
            let used = self.schedule.phases_per_algorithm * self.schedule.n_bar;
            if used < d.n {
                caveats.push(format!(
                    "chunks fixed by position before the run: records {}..{} are not used (n − K·n̄)",
                    used + 1,
                    d.n
                ));
            }
            caveats.push("each phase's regulariser is centred at the previous release, never at an un-noised iterate; the other block's solution is never released".to_string());
        }
        if self.schedule.variant == Variant::ConvexStronglyConcave {
            caveats
                .push("only x is released: its duality gap is scored at (x, y₀), y₀ the data-independent start, which bounds x's primal gap max_y F(x, y) − F(x*, y*) from above".to_string());
        }
        if self.settings.delta * d.n as f64 >= 1.0 {
            caveats.push("δ ≥ 1/n: outside the paper's assumption δ < 1/n".to_string());
        }
        if self.settings.calibration == ByoaGaussian::CertifiedAnalytic {
            caveats.push("certified mode: analytic Gaussian without the paper's failure-probability split (a deviation from the paper, valid because the certificate holds surely)".to_string());
        }
        let mechanism = match self.schedule.variant {
            Variant::ScSc => format!("SC-SC output perturbation ({PAPER}, Algorithm 3)"),
            Variant::Phased => format!(
                "phased convex–concave output perturbation ({PAPER}, Algorithms 4 and 5), K = {}, n̄ = {}, μ = {:.3e}",
                self.schedule.phases_per_algorithm, self.schedule.n_bar, self.schedule.mu
            ),
            Variant::ConvexStronglyConcave => format!(
                "C-SC phased output perturbation ({PAPER}, Section 4.3), K = {}, n̄ = {}, μ = {:.3e}",
                self.schedule.phases_per_algorithm, self.schedule.n_bar, self.schedule.mu
            ),
        };
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if self.logs.iter().any(|l| l.safeguard) {
            ledger =
                ledger.with_event("a phase's solver ran out of budget; projected GDA took over");
        }
        if self.failed {
            ledger = ledger.with_failure(
                "a phase never certified within its planned budget (floating point); it released \
                 its planned noise around the starts P_X(0), P_Y(0) instead, and that failure \
                 depends on the data",
            );
        }
        if self.aborted {
            ledger = ledger.with_failure(
                "a phase could not start (a plan check failed at run time); nothing is \
                 published",
            );
        }
        let (eps, delta) = (self.settings.epsilon, self.settings.delta);
        for p in &self.schedule.phases {
            let (e, dl) = if self.schedule.variant == Variant::ConvexStronglyConcave {
                (eps, delta)
            } else {
                (eps / 2.0, delta / 2.0)
            };
            let blocks = match p.releases {
                Releases::Both => vec![("x", p.sigma_x), ("y", p.sigma_y)],
                Releases::X => vec![("x", p.sigma_x)],
                Releases::Y => vec![("y", p.sigma_y)],
            };
            for (block, s) in blocks {
                if let Ok(loss) = ApproxDp::new(e, dl, Relation::ReplaceOne) {
                    ledger = ledger.with_spend(
                        format!(
                            "Algorithm {} phase {}: {block} with σ = {s:.3e}{}",
                            p.algorithm,
                            p.k,
                            if p.releases == Releases::Both {
                                " (basic)"
                            } else {
                                " on its own chunk (parallel)"
                            }
                        ),
                        PrivacyLoss::Approx(loss),
                    );
                }
            }
        }
        match self.settings.leak.describe() {
            Some(leak) => ledger.with_leak(leak),
            None => ledger,
        }
    }

    fn draws(&self) -> Vec<Draws> {
        draws_of(&self.schedule, self.declared.dims)
    }

    fn step(&mut self) -> Option<Step> {
        if self.done {
            return None;
        }
        if self.run.is_none() && self.start_phase().is_err() {
            self.abort();
            return None;
        }
        let phase = self.schedule.phases[self.index];
        let game = Arc::clone(&self.game);
        let view = PhaseGame::new(
            game.as_ref(),
            phase.start..phase.start + phase.records,
            &self.reg,
        );
        let run = self.run.as_mut()?;
        let before = run.record_evals();
        let status = run.step(&view);
        self.record_evals += run.record_evals() - before;
        let mut report = StepReport {
            grad_evals: self.record_evals as f64 / self.declared.n as f64,
            loss: run.last_bound(),
            noise_norm: 0.0,
            grad_norm: 0.0,
            epsilon_spent: self.epsilon_spent(),
            done: false,
        };
        // A step that ends part-way through a pass over the phase's records makes no new
        // iterate: the iterate index moves only with the solver's updates and the releases.
        if !self.run.as_ref().is_some_and(SaddleRun::mid_iteration) {
            self.t += 1;
        }
        match status {
            SaddleStatus::Running => {
                return Some(Step {
                    report,
                    value: None,
                });
            }
            // Even the GDA safeguard failed within its planned budget (floating point): the phase
            // still releases its planned noise, around the fixed public starts P_X(0), P_Y(0),
            // and the ledger marks the release NOT PRIVATE (that failure depends on the data).
            SaddleStatus::Failed => self.failed = true,
            SaddleStatus::Certified | SaddleStatus::Capped => {}
        }
        let run = self.run.take()?;
        report.noise_norm = if status == SaddleStatus::Failed {
            let (x, y) = (self.x_start.clone(), self.y_start.clone());
            self.release_phase(phase, &x, &y)
        } else {
            let (x, y) = run.point();
            self.release_phase(phase, x, y)
        };
        self.logs.push(PhaseLog {
            phase,
            record_evals: run.record_evals(),
            steps: run.steps(),
            safeguard: run.used_safeguard(),
            certificate: run.last_bound(),
            certified: status == SaddleStatus::Certified,
            noise_norm: report.noise_norm,
        });
        report.epsilon_spent = self.epsilon_spent();
        self.index += 1;
        if self.index == self.schedule.phases.len() {
            self.done = true;
        }
        report.done = self.done;
        Some(Step {
            report,
            value: None,
        })
    }

    fn point(&self) -> Point<'_> {
        match (&self.run, self.done) {
            (Some(run), false) => {
                let (x, y) = run.point();
                Point::Saddle { x, y }
            }
            _ => Point::Saddle {
                x: &self.x_out,
                y: &self.y_out,
            },
        }
    }

    fn release(&self) -> Option<Published> {
        if !self.done || self.aborted {
            return None;
        }
        // The C-SC variant releases x alone (Zhang et al. 2022, Section 4.3): its y is the
        // data-independent start, never released, so it is not published either.
        let x_only = self.schedule.variant == Variant::ConvexStronglyConcave;
        if self.settings.leak == MinimaxLeak::NoiseOff {
            // The noise-off demonstration publishes its certified points as they are.
            let y = (!x_only).then_some(self.y_out.as_slice());
            return Some(Published::NotPrivate(Baseline::not_private(&self.x_out, y)));
        }
        if x_only {
            return Noised::iterate(&self.x_out, &self.trail).map(Published::Private);
        }
        Noised::iterate_pair(&self.x_out, &self.y_out, &self.trail).map(Published::Private)
    }

    fn grad_evals(&self) -> f64 {
        self.record_evals as f64 / self.declared.n as f64
    }

    fn mid_update(&self) -> bool {
        !self.done && self.run.as_ref().is_some_and(SaddleRun::mid_iteration)
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let p = self.current_phase();
        let named = |name, value| Diagnostic { name, value };
        let (bound, used, safeguard) = match (&self.run, self.logs.last()) {
            (Some(run), _) => (
                run.last_bound(),
                run.record_evals() as f64,
                run.used_safeguard(),
            ),
            (None, Some(log)) => (log.certificate, log.record_evals as f64, log.safeguard),
            (None, None) => (f64::INFINITY, 0.0, false),
        };
        vec![
            named(
                "phase",
                (self.index.min(self.schedule.phases.len() - 1) + 1) as f64,
            ),
            named("algorithm", f64::from(p.algorithm.number())),
            named("phase_k", p.k as f64),
            named("mu_k", p.mu_k),
            named("sigma_x", p.sigma_x),
            named("sigma_y", p.sigma_y),
            named("target", p.target),
            named("phase_gradients", used),
            named("certificate_bound", bound),
            named("certificate_threshold", TAU * TAU * p.target),
            named("safeguard", if safeguard { 1.0 } else { 0.0 }),
        ]
    }

    fn extras(&self) -> Extras<'_> {
        Extras::none().with(Extra::Phases(self.phase_rows()))
    }
}

impl MinimaxOutputPerturbation {
    /// The timeline, one row per phase of the schedule, with each phase's gradients and state.
    fn phase_rows(&self) -> Vec<PhaseRow> {
        self.schedule
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (gradients, state) = match self.logs.get(i) {
                    Some(log) if log.safeguard => {
                        (log.record_evals, "released by the GDA safeguard")
                    }
                    Some(log) => (log.record_evals, "released"),
                    None if i == self.index && self.aborted => (0, "aborted"),
                    None if i == self.index => (
                        self.run.as_ref().map_or(0, |r| r.record_evals()),
                        if self.t == 0 { "waiting" } else { "running" },
                    ),
                    None => (0, "waiting"),
                };
                phase_row(p, gradients as f64, state)
            })
            .collect()
    }
}

/// A phase's row of the timeline: its fixed schedule, with the gradients used and its state.
fn phase_row(p: &MinimaxPhase, gradients: f64, state: &'static str) -> PhaseRow {
    // W = wₓ‖Δx‖² + wᵧ‖Δy‖² ≤ T bounds the released block's distance by √(T/w).
    let radius = |w: f64| {
        if w > 0.0 {
            (p.target / w).sqrt()
        } else {
            f64::INFINITY
        }
    };
    let (sigma, releases, target_radius) = match p.releases {
        Releases::Both => (p.sigma_x, "x, y", radius(p.weight_x)),
        Releases::X => (p.sigma_x, "x", radius(p.weight_x)),
        Releases::Y => (p.sigma_y, "y", radius(p.weight_y)),
    };
    PhaseRow {
        algorithm: p.algorithm,
        k: p.k,
        records: p.records,
        mu_k: p.mu_k,
        sigma,
        releases,
        target_radius,
        gradients,
        state,
    }
}

// --- The families: card, settings, needs and the data-free plan -------------------

/// The paper, as every card and ledger names it.
const PAPER: &str = "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”";

/// Algorithm 3's one-paragraph card.
pub const CARD_ALGORITHM_3: &str = "SC-SC minimax output perturbation (Zhang et al. 2022, \
Algorithm 3). For a game strongly convex in x (μₓ) and strongly concave in y (μᵧ): any base solver \
(GDA, extragradient, VR-extragradient) runs until a certificate proves μₓ‖x − x̂*‖² + μᵧ‖y − ŷ*‖² \
≤ L²/(μn²), μ = min(μₓ, μᵧ); x and y each get a Gaussian, σₓ = (8L/(nε))√(2 ln(5/δ)/(μₓμ)) and σᵧ \
likewise, each (ε/2, δ/2), composed to (ε, δ) under replace-one. Theorem 4.4: empirical strong gap \
≤ 257L²(κₓκᵧ + κ)d·ln(5/δ)/(μn²ε²); swap the solver and the noise stays, only the gradient count \
changes.";

/// Algorithms 4 and 5's one-paragraph card.
pub const CARD_ALGORITHMS_4_5: &str = "Phased convex–concave output perturbation (Zhang et al. \
2022, Algorithms 4 and 5). K = ⌊log₂ n⌋ disjoint chunks; in phase k Algorithm 4 solves its chunk \
plus (μ_k/2)‖x − x̃_{k−1}‖² − (μ/2)‖y‖², μ_k = μ·2^k, to a certificate and releases only x̃_k = x_k + \
N(0, σ_k²), σ_k = (8L/(n̄ε))√(2 ln(5/δ)/(μ_kμ)); Algorithm 5 mirrors it for y. Parallel composition \
within each, basic composition of the two: (ε, δ). Theorem 4.8: weak gap ≤ 16LD·K²(1/√n + \
5√(d ln(5/δ))/(nε)). Watch σ_k halve every two phases while the regulariser doubles.";

/// The C-SC variant's one-paragraph card.
pub const CARD_CSC: &str = "Convex–strongly-concave phased output perturbation (Zhang et al. \
2022, Section 4.3). Algorithm 4 without the y-regulariser, for a game μᵧ-strongly concave in y: \
phase k certifies μ_k‖Δx‖² + μᵧ‖Δy‖² ≤ L²/(n̄²·min(μ_k, μᵧ)) and releases x̃_k with σ_k = \
(4L/(n̄ε))√(2 ln(2.5/δ)/(μ_k·min(μ_k, μᵧ))), each phase (ε, δ) on its own chunk: (ε, δ) by parallel \
composition; only x is released. Corollary 4.9 bounds the primal gap by 6LD·K(1/√n + \
4√(dₓ ln(2.5/δ))/(nε)) + L²K²(8/(μᵧn) + 65dₓ ln(2.5n/δ)/(μᵧn²ε²)).";

/// The problem kinds these families solve.
const SADDLE: &[ProblemKind] = &[ProblemKind::Saddle];

const SOLVER_SETTING: SettingUse = setting(
    Control::MinimaxSolver,
    "base solver",
    "GDA, extragradient or VR-extragradient, each run to the certificate: the noise does not depend on it, only the gradient count does",
);
const CAP_SETTING: SettingUse = setting(
    Control::Steps,
    "iteration cap (pitfall only)",
    "with the pitfall demonstration on, each phase's solver stops after this many iterations, certified or not",
);
const LEAK_SETTING: SettingUse = setting(
    Control::Leak,
    "demonstrate the pitfall",
    "release after the iteration cap, certified or not: the noise no longer covers the distance to the solution (NOT PRIVATE)",
);

/// Zhang et al. 2022, Algorithm 3's entry in [`crate::algo::registry`].
pub static FAMILY_SC_SC: Family = Family {
    kind: AlgorithmKind::ByoaMinimax,
    card: card_text! {
        name: "SC-SC minimax output perturbation",
        source: "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”, Algorithm 3 and Theorem 4.4",
        assumptions: "Every record's game μₓ-strongly convex in x, μᵧ-strongly concave in y, L-Lipschitz and ℓ-smooth (declared from c, μ and the domains).",
        privacy: "A certified solve, then x and y each released with a Gaussian at (ε/2, δ/2); basic composition gives (ε, δ).",
        utility: "Empirical strong gap O(κ²L²d log(1/δ)/(μn²ε²)) (Theorem 4.4), whichever solver.",
        watch: "The gap falls to the certificate, then jumps to the noise's level at the release; swap the solver and only the gradient count changes.",
        module: "algo::byoa_minimax",
        summary: CARD_ALGORITHM_3,
    },
    settings: &[SOLVER_SETTING, CAP_SETTING, LEAK_SETTING],
    needs: &[Need::GameModuli {
        x: true,
        value: 0.1,
        why: "Zhang et al. 2022, Algorithm 3 needs a strongly convex–strongly concave game",
    }],
    solves: SADDLE,
    purity: Purity::Approximate,
    demonstration: Demonstration::IterationCap,
    length: RunLength::DataDependent,
    plan: plan_sc_sc,
};

/// Zhang et al. 2022, Algorithms 4 and 5's entry in [`crate::algo::registry`].
pub static FAMILY_PHASED: Family = Family {
    kind: AlgorithmKind::ByoaMinimaxPhased,
    card: card_text! {
        name: "phased minimax output perturbation",
        source: "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”, Algorithms 4 and 5 and Theorem 4.8",
        assumptions: "A convex–concave game, L-Lipschitz and ℓ-smooth, on bounded domains (D their radius); K = ⌊log₂ n⌋ disjoint chunks.",
        privacy: "Each phase releases one block on its own chunk at (ε/2, δ/2): parallel composition within Algorithm 4 (x) and within Algorithm 5 (y), basic composition of the two.",
        utility: "Weak gap O(LD·log²n·(1/√n + √(d log(1/δ))/(nε))) (Theorem 4.8).",
        watch: "2K short phases: x's K releases, then y's, each centred at the previous release with shrinking noise.",
        module: "algo::byoa_minimax",
        summary: CARD_ALGORITHMS_4_5,
    },
    settings: &[SOLVER_SETTING, CAP_SETTING, LEAK_SETTING],
    needs: &[],
    solves: SADDLE,
    purity: Purity::Approximate,
    demonstration: Demonstration::IterationCap,
    length: RunLength::DataDependent,
    plan: plan_phased,
};

/// Zhang et al. 2022, Section 4.3's entry in [`crate::algo::registry`].
pub static FAMILY_CSC: Family = Family {
    kind: AlgorithmKind::ByoaMinimaxCsc,
    card: card_text! {
        name: "C-SC phased output perturbation",
        source: "Zhang, Thekumparampil, Oh & He 2022, “Bring Your Own Algorithm for Optimal Differentially Private Stochastic Minimax Optimization”, Section 4.3 and Corollary 4.9",
        assumptions: "A game convex in x and μᵧ-strongly concave in y, L-Lipschitz and ℓ-smooth, on bounded domains; the bound wants μᵧ ≥ L/(D√n).",
        privacy: "K phases on disjoint chunks, each releasing x with a Gaussian at (ε, δ): parallel composition; y is never released.",
        utility: "Primal gap O(LD·log n·(1/√n + √(dₓ log(1/δ))/(nε)) + L²log²n·(1/(μᵧn) + dₓ log(n/δ)/(μᵧn²ε²))) (Corollary 4.9).",
        watch: "x's K releases with shrinking noise; y stays at its data-independent start.",
        module: "algo::byoa_minimax",
        summary: CARD_CSC,
    },
    settings: &[SOLVER_SETTING, CAP_SETTING, LEAK_SETTING],
    needs: &[Need::GameModuli {
        x: false,
        value: 0.1,
        why: "the C-SC variant of Zhang et al. 2022 (Section 4.3) needs a game strongly concave in y",
    }],
    solves: SADDLE,
    purity: Purity::Approximate,
    demonstration: Demonstration::IterationCap,
    length: RunLength::DataDependent,
    plan: plan_csc,
};

/// The settings a configuration asks for (all data-independent).
fn settings_of(config: &Settings) -> MinimaxSettings {
    let mut settings = MinimaxSettings::new(config.budget.epsilon, config.budget.delta);
    settings.calibration = paper_or_analytic(config.budget.epsilon);
    settings.solver = config.minimax_solver;
    if config.leak {
        settings.leak = MinimaxLeak::IterationCap {
            iterations: config.steps,
        };
    }
    settings
}

/// A run of one variant, planned from the configuration alone.
struct MinimaxPlan {
    variant: Variant,
    settings: MinimaxSettings,
}

fn plan_sc_sc(config: &Settings, _declared: &ProblemDeclaration) -> Result<Planned> {
    plan_variant(Variant::ScSc, config)
}

fn plan_phased(config: &Settings, _declared: &ProblemDeclaration) -> Result<Planned> {
    plan_variant(Variant::Phased, config)
}

fn plan_csc(config: &Settings, _declared: &ProblemDeclaration) -> Result<Planned> {
    plan_variant(Variant::ConvexStronglyConcave, config)
}

/// The preview of `variant` on the game `config` poses: the schedule, guarantee and every draw
/// from the declared constants ([`Declared::of_spec`]), and the first phase's certifiability,
/// all before any record is drawn.
fn plan_variant(variant: Variant, config: &Settings) -> Result<Planned> {
    replace_one_only(
        config.budget.relation,
        "the sensitivities of Zhang, Thekumparampil, Oh & He 2022 (Lemma 4.3) hold for a \
         fixed, public n and fixed chunks",
    )?;
    let spec = crate::algo::smd::family::lane_game(config)?.declaration;
    let declared = Declared::of_declaration(&spec);
    let settings = settings_of(config);
    let schedule = schedule(variant, &declared, &settings)?;
    check_certifiable(
        &schedule,
        &declared,
        &spec.x_domain,
        &spec.y_domain,
        &settings,
    )?;
    let guarantee = guarantee_of(&schedule, &settings)?;
    let draws = draws_of(&schedule, declared.dims);
    let first = draws[0];
    let (algorithm, kind) = match variant {
        Variant::ScSc => (
            "SC-SC minimax output perturbation (Zhang et al. 2022, Algorithm 3): certified solve + a Gaussian on x and on y",
            AlgorithmKind::ByoaMinimax,
        ),
        Variant::Phased => (
            "phased minimax output perturbation (Zhang et al. 2022, Algorithms 4 and 5): K phases for x, then K for y",
            AlgorithmKind::ByoaMinimaxPhased,
        ),
        Variant::ConvexStronglyConcave => (
            "C-SC phased output perturbation (Zhang et al. 2022, Section 4.3): K phases releasing x",
            AlgorithmKind::ByoaMinimaxCsc,
        ),
    };
    let sigma = first.noise.scale().unwrap_or(f64::NAN);
    let mut preview = Preview::new(
        kind,
        algorithm,
        guarantee,
        (sigma, first.noise),
        draws.len(),
        first.sensitivity,
        declared.lipschitz,
    );
    preview.draws = draws;
    preview.sensitivity_ball = Some(first.sensitivity);
    preview.metric = ProblemKind::Saddle.metric();
    preview.leaks = settings.leak.describe().into_iter().collect();
    Ok(Planned::new(preview, MinimaxPlan { variant, settings }))
}

impl Plan for MinimaxPlan {
    /// Theorem 4.4's empirical strong gap (Algorithm 3), Theorem 4.8's weak gap (Algorithms 4 +
    /// 5) or Corollary 4.9's primal gap (C-SC), each a flat line: one release. The paper states
    /// them for ε < 1 and δ < 1/n; the last two bound population gaps, which the empirical gap
    /// the session measures estimates.
    fn theory(&self, posed: &Posed, _preview: &Preview) -> Option<Curve> {
        let game = posed.saddle().ok()?;
        let d = Declared::of(game.game.as_ref());
        let (eps, delta) = (self.settings.epsilon, self.settings.delta);
        let dim = d.dims.0.max(d.dims.1);
        match self.variant {
            Variant::ScSc => Curve::flat(
                theorem_4_4_empirical(
                    d.lipschitz,
                    d.smoothness,
                    d.mu_x,
                    d.mu_y,
                    d.n,
                    dim,
                    eps,
                    delta,
                ),
                "Zhang et al. 2022, Theorem 4.4 (empirical strong gap)",
            ),
            Variant::Phased => Curve::flat(
                theorem_4_8(d.lipschitz, d.radius, d.n, dim, eps, delta),
                "Zhang et al. 2022, Theorem 4.8 (weak gap)",
            ),
            Variant::ConvexStronglyConcave => Curve::flat(
                corollary_4_9(d.lipschitz, d.radius, d.mu_y, d.n, d.dims.0, eps, delta),
                "Zhang et al. 2022, Corollary 4.9 (primal gap)",
            ),
        }
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let game = posed.saddle()?;
        let records: Arc<dyn RecordGame> = game.game.clone();
        Ok(Box::new(MinimaxOutputPerturbation::new(
            self.variant,
            records,
            self.settings,
            noise,
            seeded,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minimax::solvers::test_game::TestGame;
    use crate::rng::{Stream, seeded};

    const KINDS: [SaddleSolverKind; 3] = [
        SaddleSolverKind::Gda,
        SaddleSolverKind::Extragradient,
        SaddleSolverKind::VrExtragradient,
    ];

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs()
    }

    fn declared(n: usize, dims: (usize, usize), mu_x: f64, mu_y: f64, radius: f64) -> Declared {
        Declared {
            n,
            dims,
            lipschitz: 1.0,
            smoothness: 1.0,
            mu_x,
            mu_y,
            radius,
        }
    }

    /// Zhang et al. 2022: L = 1, μₓ = 0.5, μᵧ = 0.2, n = 2000,
    /// ε = 0.8, δ = 1e-6 give σₓ = 0.0878207, σᵧ = 0.138857, W ≤ 1.25e-6 and the x-sensitivity
    /// 6.32456e-3.
    #[test]
    fn algorithm_3_test_vector_sigma_x_0_0878207_sigma_y_0_138857() {
        let d = declared(2000, (3, 3), 0.5, 0.2, 1.0);
        let p = algorithm_3_phase(&d, 0.8, 1e-6, ByoaGaussian::Paper).unwrap();
        assert!(close(p.sigma_x, 0.0878207, 5e-6), "{}", p.sigma_x);
        assert!(close(p.sigma_y, 0.138857, 5e-6), "{}", p.sigma_y);
        assert!(close(p.target, 1.25e-6, 1e-12), "{}", p.target);
        assert!(
            close(p.sensitivity_x, 6.32456e-3, 5e-6),
            "{}",
            p.sensitivity_x
        );
        assert_eq!((p.weight_x, p.weight_y), (0.5, 0.2));
    }

    /// Zhang et al. 2022: n = 4096, dₓ = 5, dᵧ = 3, L = D = 1, ε = 1, δ = 1e-6 give K = 12, n̄ = 341,
    /// μ = 0.334473, σ₁ = 0.275477 (μ₁ = 0.668947), σ₂ = 0.194792, σ₁₂ = 6.08725e-3
    /// (μ₁₂ = 1370.0), W ≤ 2.57116e-5 in every phase and Theorem 4.8's bound 60.70.
    #[test]
    fn algorithm_4_test_vector_sigma_1_0_275477_sigma_2_0_194792_sigma_12_6_08725e_3() {
        let d = declared(4096, (5, 3), 0.0, 0.0, 1.0);
        let s = schedule(Variant::Phased, &d, &MinimaxSettings::new(1.0, 1e-6)).unwrap();
        assert_eq!((s.phases_per_algorithm, s.n_bar), (12, 341));
        assert!(close(s.mu, 0.334473, 5e-6), "{}", s.mu);
        let alg4: Vec<_> = s
            .phases
            .iter()
            .filter(|p| p.algorithm == MinimaxAlgorithm::PhasedX)
            .collect();
        assert_eq!(alg4.len(), 12);
        assert!(close(alg4[0].mu_k, 0.668947, 5e-6));
        assert!(
            close(alg4[0].sigma_x, 0.275477, 5e-6),
            "{}",
            alg4[0].sigma_x
        );
        assert!(
            close(alg4[1].sigma_x, 0.194792, 5e-6),
            "{}",
            alg4[1].sigma_x
        );
        assert!(
            close(alg4[11].sigma_x, 6.08725e-3, 5e-6),
            "{}",
            alg4[11].sigma_x
        );
        assert!(close(alg4[11].mu_k, 1370.0, 5e-5), "{}", alg4[11].mu_k);
        for p in &s.phases {
            assert!(close(p.target, 2.57116e-5, 5e-6), "{}", p.target);
        }
        // Algorithm 5 mirrors Algorithm 4: the same σ_k on y, x unreleased.
        for (p4, p5) in alg4.iter().zip(
            s.phases
                .iter()
                .filter(|p| p.algorithm == MinimaxAlgorithm::PhasedY),
        ) {
            assert_eq!((p5.sigma_y, p5.sigma_x), (p4.sigma_x, 0.0));
            assert_eq!((p5.reg.0, p5.reg.1), (p4.reg.1, p4.reg.0));
        }
        assert!(close(
            theorem_4_8(1.0, 1.0, 4096, 5, 1.0, 1e-6),
            60.70,
            1e-3
        ));
    }

    /// The C-SC variant's σ_k has 4L and ln(2.5/δ) (full budget per phase) and the
    /// min(μ_k, μᵧ) of Section 4.3.
    #[test]
    fn csc_sigma_uses_the_full_budget_and_min_of_mu_k_and_mu_y() {
        let d = declared(1024, (2, 2), 0.0, 0.5, 1.0);
        let mut settings = MinimaxSettings::new(1.0, 1e-6);
        settings.mu = Some(0.1);
        let s = schedule(Variant::ConvexStronglyConcave, &d, &settings).unwrap();
        let nb = s.n_bar as f64;
        for p in &s.phases {
            let m = p.mu_k.min(0.5);
            let want = 4.0 / (nb * 1.0) * (2.0 * (2.5f64 / 1e-6).ln() / (p.mu_k * m)).sqrt();
            assert!(close(p.sigma_x, want, 1e-12), "{} vs {want}", p.sigma_x);
            assert!(close(p.target, 1.0 / (nb * nb * m), 1e-12));
            assert_eq!(p.releases, Releases::X);
        }
    }

    #[test]
    fn algorithm_3_refuses_a_game_that_is_not_strongly_convex_strongly_concave() {
        let d = declared(100, (2, 2), 0.0, 0.3, 1.0);
        let err = algorithm_3_phase(&d, 0.5, 1e-6, ByoaGaussian::Paper).unwrap_err();
        assert!(err.to_string().contains("strong convexity μx"), "{err}");
        let d = declared(100, (2, 2), 0.3, 0.0, 1.0);
        let err = algorithm_3_phase(&d, 0.5, 1e-6, ByoaGaussian::Paper).unwrap_err();
        assert!(err.to_string().contains("strong concavity μy"), "{err}");
    }

    fn run(
        variant: Variant,
        game: &Arc<TestGame>,
        settings: MinimaxSettings,
        seed: u32,
    ) -> MinimaxOutputPerturbation {
        let game: Arc<dyn RecordGame> = Arc::clone(game) as Arc<dyn RecordGame>;
        let mut run = MinimaxOutputPerturbation::new(
            variant,
            game,
            settings,
            seeded(seed, Stream::Noise),
            true,
        )
        .unwrap();
        let mut steps = 0;
        while run.step().is_some() {
            steps += 1;
            assert!(steps < 1_000_000, "never finished");
        }
        assert!(run.done && !run.aborted());
        run
    }

    /// Algorithm 3 on the solvers: the certificate holds at release, so the released point minus
    /// its noise lies within the certified radius W ≤ τ²L²/(μn²) of the exact saddle point, and
    /// both blocks are released.
    #[test]
    fn algorithm_3_releases_a_certified_point_plus_noise() {
        let game = Arc::new(TestGame::random(11, 300, 3, 2, 0.5, 0.2, 10.0, 10.0));
        let (xs, ys) = game.interior_saddle(0..300, 0.0, &[0.0; 3], 0.0, &[0.0; 2]);
        for kind in KINDS {
            let mut settings = MinimaxSettings::new(0.8, 1e-6);
            settings.solver = kind;
            let r = run(Variant::ScSc, &game, settings, 3);
            let log = &r.logs()[0];
            assert!(log.certified && !log.safeguard, "{kind:?}");
            assert!(log.certificate <= TAU * TAU * log.phase.target);
            // x̃ − x* = (x − x*) + noise: the noise is a fresh draw of σₓ, σᵧ (well above the
            // certified radius here), so check the noise norm matches the release.
            let (x, y) = match r.point() {
                Point::Saddle { x, y } => (x.to_vec(), y.to_vec()),
                Point::Min(_) => unreachable!(),
            };
            let off = (crate::linalg::dist2(&x, &xs).powi(2)
                + crate::linalg::dist2(&y, &ys).powi(2))
            .sqrt();
            let radius = (log.phase.target / 0.2).sqrt();
            assert!(
                (off - log.noise_norm).abs() <= radius,
                "{kind:?}: {off} vs {}",
                log.noise_norm
            );
            assert!(log.noise_norm > 0.0);
        }
    }

    /// The BYOA lesson (Zhang et al. 2022): the same (ε, δ, noise seed) gives the same noise
    /// whichever solver runs, bit for bit, while the gradient counts differ; the releases agree up
    /// to twice the certified radius.
    #[test]
    fn the_same_noise_seed_gives_the_same_noise_whichever_solver_with_different_gradient_counts() {
        let game = Arc::new(TestGame::random(12, 300, 3, 2, 0.5, 0.2, 10.0, 10.0));
        let mut noises = Vec::new();
        let mut counts = Vec::new();
        let mut releases = Vec::new();
        for kind in KINDS {
            let mut settings = MinimaxSettings::new(0.8, 1e-6);
            settings.solver = kind;
            let r = run(Variant::ScSc, &game, settings, 5);
            noises.push(r.noise_x.clone());
            noises.push(r.noise_y.clone());
            counts.push(r.logs()[0].record_evals);
            releases.push((r.x_out.clone(), r.y_out.clone(), r.logs()[0].phase));
        }
        assert_eq!(noises[0], noises[2]);
        assert_eq!(noises[0], noises[4]);
        assert_eq!(noises[1], noises[3]);
        assert_eq!(noises[1], noises[5]);
        assert!(
            counts[0] != counts[1] && counts[1] != counts[2] && counts[0] != counts[2],
            "{counts:?}"
        );
        let p = releases[0].2;
        let radius = (p.target / p.weight_x.min(p.weight_y)).sqrt();
        for (x, y, _) in &releases[1..] {
            let d = (crate::linalg::dist2(x, &releases[0].0).powi(2)
                + crate::linalg::dist2(y, &releases[0].1).powi(2))
            .sqrt();
            assert!(d <= 2.0 * radius, "{d} > {}", 2.0 * radius);
        }
        // Phased too: every phase's noise norm is the same across solvers.
        let game = Arc::new(TestGame::random(13, 256, 2, 2, 0.0, 0.0, 2.0, 2.0));
        let per_solver: Vec<Vec<f64>> = KINDS
            .iter()
            .map(|&kind| {
                let mut settings = MinimaxSettings::new(1.0, 1e-6);
                settings.solver = kind;
                run(Variant::Phased, &game, settings, 5)
                    .logs()
                    .iter()
                    .map(|l| l.noise_norm)
                    .collect()
            })
            .collect();
        assert_eq!(per_solver[0], per_solver[1]);
        assert_eq!(per_solver[0], per_solver[2]);
    }

    /// Algorithms 4 + 5 on a convex–concave game: K certified phases each, on disjoint chunks in
    /// order, Algorithm 4 releasing only x and Algorithm 5 only y; the guarantee is (ε, δ).
    #[test]
    fn algorithms_4_and_5_certify_every_phase_on_disjoint_chunks() {
        let game = Arc::new(TestGame::random(14, 300, 2, 3, 0.0, 0.0, 2.0, 2.0));
        let r = run(Variant::Phased, &game, MinimaxSettings::new(1.0, 1e-6), 1);
        let k = phase_count(300);
        assert_eq!(r.logs().len(), 2 * k);
        for (i, log) in r.logs().iter().enumerate() {
            assert!(log.certified, "phase {i}");
            assert!(log.certificate <= TAU * TAU * log.phase.target);
            let n_bar = 300 / k;
            assert_eq!(log.phase.start, (i % k) * n_bar);
            assert_eq!(log.phase.records, n_bar);
            let (x_side, y_side) = (log.phase.sigma_x > 0.0, log.phase.sigma_y > 0.0);
            assert_eq!(
                (x_side, y_side),
                (
                    log.phase.algorithm == MinimaxAlgorithm::PhasedX,
                    log.phase.algorithm == MinimaxAlgorithm::PhasedY,
                )
            );
        }
        let g = r.guarantee();
        assert!(
            close(g.epsilon, 1.0, 1e-12) && close(g.delta, 1e-6, 1e-12),
            "{g:?}"
        );
        assert!(r.ledger().is_private());
    }

    /// Pitfall 6: each phase's regulariser is centred at the previous release, never at the
    /// un-noised iterate.
    #[test]
    fn a_phase_is_centred_at_the_previous_release() {
        let game = Arc::new(TestGame::random(15, 64, 2, 2, 0.0, 0.0, 2.0, 2.0));
        let game_dyn: Arc<dyn RecordGame> = Arc::clone(&game) as Arc<dyn RecordGame>;
        let mut r = MinimaxOutputPerturbation::new(
            Variant::Phased,
            game_dyn,
            MinimaxSettings::new(1.0, 1e-6),
            seeded(2, Stream::Noise),
            true,
        )
        .unwrap();
        let mut released = 0;
        while r.step().is_some() {
            if r.logs().len() > released && !r.done {
                released = r.logs().len();
                r.start_phase().unwrap();
                let phase = r.current_phase();
                match phase.releases {
                    Releases::X if phase.k > 1 => assert_eq!(r.reg.cx, r.x_out),
                    Releases::Y if phase.k > 1 => assert_eq!(r.reg.cy, r.y_out),
                    _ => {}
                }
            }
        }
        assert!(released > 2);
    }

    /// The C-SC variant releases x only; the y it reports is the data-independent start; every
    /// phase certifies; the guarantee is (ε, δ) by parallel composition.
    #[test]
    fn csc_releases_only_x_and_certifies_every_phase() {
        let game = Arc::new(TestGame::random(16, 256, 2, 2, 0.0, 0.5, 2.0, 2.0));
        let r = run(
            Variant::ConvexStronglyConcave,
            &game,
            MinimaxSettings::new(1.0, 1e-6),
            4,
        );
        assert!(r.logs().iter().all(|l| l.certified));
        assert_eq!(r.y_out, vec![0.0; 2]);
        assert!(close(r.guarantee().epsilon, 1.0, 1e-12));
    }

    /// Pitfall 1, the leaky demonstration: an iteration cap below what the certificate needs
    /// releases uncertified points, and the ledger says NOT PRIVATE.
    #[test]
    fn an_iteration_cap_below_the_certificate_releases_uncertified_and_is_not_private() {
        let game = Arc::new(TestGame::random(17, 300, 3, 2, 0.5, 0.2, 10.0, 10.0));
        let mut settings = MinimaxSettings::new(0.8, 1e-6);
        settings.solver = SaddleSolverKind::Gda;
        settings.leak = MinimaxLeak::IterationCap { iterations: 2 };
        let r = run(Variant::ScSc, &game, settings, 3);
        assert!(!r.logs()[0].certified);
        assert!(r.logs()[0].certificate > TAU * TAU * r.logs()[0].phase.target);
        let ledger = r.ledger();
        assert!(!ledger.is_private());
        assert!(ledger.leaks[0].contains("NOT PRIVATE"));
    }

    /// The reported draws are exactly the releases' σ and dimensions, one per released block.
    #[test]
    fn draws_match_the_schedule() {
        let game = Arc::new(TestGame::random(18, 128, 2, 3, 0.0, 0.0, 2.0, 2.0));
        let r = run(Variant::Phased, &game, MinimaxSettings::new(1.0, 1e-6), 1);
        let draws = r.draws();
        assert_eq!(draws.len(), r.schedule().phases.len());
        for (d, p) in draws.iter().zip(&r.schedule().phases) {
            match d.noise {
                NoiseShape::Gaussian { sigma, d: dim } => {
                    assert_eq!(sigma, p.sigma_x.max(p.sigma_y));
                    assert_eq!(
                        dim,
                        if p.algorithm == MinimaxAlgorithm::PhasedX {
                            2
                        } else {
                            3
                        }
                    );
                }
                _ => panic!("{:?}", d.noise),
            }
        }
    }
}
