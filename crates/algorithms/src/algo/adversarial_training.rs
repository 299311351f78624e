//! Black-box differentially private adversarial training through a certified saddle solver
//! (Lowy & Razaviyayn 2021, Algorithm 8).
//!
//! # Algorithm
//! Adversarial (robust) training is min over the model x of the worst case over the adversary y:
//! G_D(x) = max_{y∈Y} f̂_D(x, y). Algorithm 8 runs any min-max solver M as a black box to an
//! α-saddle point (x_T, y_T), inflates the sensitivity of the exact minimiser x*(D) of G_D by the
//! solver's error, Δ_T = Δ + 2√(2α/μ), and releases only the model: x̃ = Π_X(x_T + z) with z
//! Gaussian (δ > 0) calibrated to Δ_T. Nothing else is released: the adversary the page shows is
//! its data-independent start Π_Y(0).
//!
//! Here M is the playground's certified minimax solver ([`SaddleSolverKind`]: GDA,
//! extragradient or variance-reduced extragradient, the `minimax_solver` menu), run on the game
//! the page poses until the certificate of [`crate::minimax::solvers`] proves
//! μₓ‖x_T − x̂*‖² + μᵧ‖y_T − ŷ*‖² ≤ 2α. That is the consequence of an α-saddle point the
//! privacy proof uses (Definition 4: gap ≤ α ⇒ G_D(x_T) − G_D* ≤ α ⇒ ‖x_T − x*‖ ≤ √(2α/μₓ), G_D
//! being μₓ-strongly convex), certified directly, so it holds surely and for every game, not only
//! those whose gap is known in closed form (the sensitivity argument needs the accuracy to hold
//! deterministically, never "after T(α) iterations").
//!
//! # Assumptions
//! Every record's f(·, ·; ξ) is L-Lipschitz (jointly), ℓ-smooth, μₓ-strongly convex in x and
//! μᵧ-strongly concave in y, all declared by the game (c, μₓ, μᵧ and the domains; never measured
//! from the records, docs/PRIVACY.md rule 1); replace-one adjacency with a public n; δ ∈ (0, ½).
//! The paper states Algorithm 8 for per-record perturbations v ∈ Sⁿ, where
//! G_D = (1/n)Σᵢ max_{vᵢ∈S} f(w, xᵢ + vᵢ) has the ERM sensitivity Δ = 2L/(μn) (its Lemma 5.4).
//! The page's games have one adversary y shared by all records, so G_D is not of ERM form; its
//! minimiser's sensitivity is the x-part of Zhang, Thekumparampil, Oh & He 2022's Lemma 4.3
//! (μₓ‖Δx*‖² + μᵧ‖Δy*‖² ≤ 4L²/(μn²), μ = min(μₓ, μᵧ)): **Δ = 2L/(n√(μₓμ))**
//! ([`minimiser_sensitivity`]). This adaptation is ours; the solver-error term is the paper's.
//!
//! # Privacy
//! ‖x_T(D) − x_T(D′)‖ ≤ ‖x_T(D) − x*(D)‖ + ‖x*(D) − x*(D′)‖ + ‖x*(D′) − x_T(D′)‖
//! ≤ Δ + 2√(2α/μₓ) = Δ_T, surely; the ZWB+19 Gaussian σ = K_δΔ_T/(√2ε), K_δ = c_δ + √(c_δ² + ε)
//! (Lowy & Razaviyayn's Theorem B.1, valid for every ε > 0) makes x_T + z (ε, δ)-DP, and the
//! projection is post-processing. **The paper's misprint:** the δ > 0 branch of Algorithm 8
//! prints Δ + 2α/μ (at
//! L = μ = 1, n = 1000, α = L²/(μn²) it gives 0.002002 instead of 0.004828, an exact δ of 9.0e-3
//! at ε = 1 against a target of 1e-5). We use the corrected Δ + 2√(2α/μ) ([`corrected_sensitivity`]);
//! the misprint ([`misprinted_sensitivity`]) is the leaky demonstration ([`AdversarialLeak`]),
//! whose ledger says NOT PRIVATE and which the audit catches with the worst black box the
//! contract allows ([`BlackBox::WorstCase`]).
//!
//! # Utility
//! Theorem 5.3's argument (the projected, Lipschitz form of Theorem 3.1's proof, Lowy & Razaviyayn 2021):
//! E G_D(x̃) − G_D* ≤ α + L·E‖z‖ ≤ α + L√dₓ·σ ([`utility_bound`]). The solver accuracy is the
//! paper's ERM choice α = (L²/(μₓn²))·min{κ(√dₓK_δ/ε)², 1}, κ = ℓ/μₓ ([`default_alpha`]).
//! The page scores the duality-gap bracket at (x̃, Π_Y(0)): the primal part is what the bound
//! speaks of; the adversary's side stays at its start.
//!
//! # Reference
//! A. Lowy, M. Razaviyayn, "Output Perturbation for Differentially Private Convex Optimization
//! with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial
//! Training", 2021: Section 5.2.3, Algorithm 8, Theorem 5.3, Lemma 5.4, Theorem B.1. The
//! shared-adversary sensitivity: Zhang, Thekumparampil, Oh & He 2022, Lemma 4.3.

use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::byoa_minimax::{Declared, MAX_GDA_ITERATIONS};
use super::family::{
    Demonstration, Family, Need, Plan, Preview, ProblemKind, Purity, RunLength, SettingUse,
    card_text, replace_one_only, setting, statement,
};
use super::output_perturbation::k_delta;
use super::registry::Planned;
use super::run::{Diagnostic, Point, Run, Step};
use super::{Draws, NoiseShape, StepReport};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings;
use crate::controls::Control;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::minimax::RecordGame;
use crate::minimax::solvers::{
    PhaseConstants, PhaseGame, PhaseTarget, Regulariser, SaddleRun, SaddleSolverKind, SaddleStatus,
    TAU, safeguard_bound,
};
use crate::privacy::calibration::zwb_gaussian_sigma;
use crate::privacy::release::{Law, Noised, Published, Trail};
use crate::privacy::{
    ApproxDp, Guarantee, Ledger, PrivacyLoss, Relation, check_delta, check_epsilon,
};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

/// The corrected sensitivity of Algorithm 8: Δ + 2√(2α/μ) (an α-accurate point lies within
/// √(2α/μ) of the μ-strongly convex minimiser, on each of the two neighbouring datasets).
pub fn corrected_sensitivity(delta_solution: f64, alpha: f64, mu: f64) -> f64 {
    delta_solution + 2.0 * (2.0 * alpha / mu).sqrt()
}

/// The paper's misprint in Algorithm 8's δ > 0 branch: Δ + 2α/μ (too small whenever α/μ < 2).
/// Only the leaky demonstration uses it.
pub fn misprinted_sensitivity(delta_solution: f64, alpha: f64, mu: f64) -> f64 {
    delta_solution + 2.0 * alpha / mu
}

/// The sensitivity of the exact minimiser x*(D) of G_D = max_y f̂_D(·, y) on a game whose
/// records are L-Lipschitz, μₓ-strongly convex and μᵧ-strongly concave: 2L/(n√(μₓμ)),
/// μ = min(μₓ, μᵧ) (Zhang et al. 2022, Lemma 4.3; module docs).
pub fn minimiser_sensitivity(lipschitz: f64, n: usize, mu_x: f64, mu_y: f64) -> f64 {
    2.0 * lipschitz / (n as f64 * (mu_x * mu_x.min(mu_y)).sqrt())
}

/// Theorem 5.3's (ERM) solver accuracy α = (L²/(μₓn²))·min{κ(√dₓK_δ/ε)², 1}, κ = ℓ/μₓ.
pub fn default_alpha(declared: &Declared, epsilon: f64, delta: f64) -> f64 {
    let n = declared.n as f64;
    let kappa = declared.smoothness / declared.mu_x;
    let r = (declared.dims.0 as f64).sqrt() * k_delta(epsilon, delta) / epsilon;
    declared.lipschitz * declared.lipschitz / (declared.mu_x * n * n) * (kappa * r * r).min(1.0)
}

/// The bound on E G_D(x̃) − G_D* of the projected release: α + L√dₓ·σ (module docs, Utility).
pub fn utility_bound(lipschitz: f64, alpha: f64, dx: usize, sigma: f64) -> f64 {
    alpha + lipschitz * (dx as f64).sqrt() * sigma
}

/// The leaky demonstration toggle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AdversarialLeak {
    /// The corrected sensitivity Δ + 2√(2α/μ).
    #[default]
    None,
    /// The paper's printed Δ + 2α/μ: **not private**.
    Misprint,
}

/// The ledger's sentence for the misprint demonstration.
pub const MISPRINT_LEAK: &str = "NOT PRIVATE: the noise is calibrated to the sensitivity as Lowy & Razaviyayn 2021's Algorithm 8 prints it for δ > 0, Δ + 2α/μ, but an α-accurate solver can be √(2α/μ) from the solution on each dataset: the sensitivity is Δ + 2√(2α/μ)";

impl AdversarialLeak {
    /// The ledger's sentence for the leak, if any.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            AdversarialLeak::None => None,
            AdversarialLeak::Misprint => Some(MISPRINT_LEAK),
        }
    }
}

/// Which black box produces the accurate point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BlackBox {
    /// The chosen certified solver, stopped at the first certified point (the page's).
    #[default]
    Certified,
    /// The worst solver the contract allows (audits only): solves to 10⁻⁶ of the target, then
    /// moves x by 0.99·√(2α/μₓ) along `sign`·e₁ (projected onto X), so its output is still within
    /// √(2α/μₓ) of x*(D) but the direction depends on the dataset, as a black box's may.
    WorstCase {
        /// ±1, the direction the solver pushes x on this dataset.
        sign: f64,
    },
}

/// How much tighter than 2α the worst-case black box solves before its push.
const WORST_CASE_TIGHTENING: f64 = 1e-6;
/// The fraction of the certified radius √(2α/μₓ) the worst-case black box moves x by.
const WORST_CASE_PUSH: f64 = 0.99;

/// The settings (all data-independent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdversarialSettings {
    /// ε > 0.
    pub epsilon: f64,
    /// δ ∈ (0, ½).
    pub delta: f64,
    /// The certified minimax solver.
    pub solver: SaddleSolverKind,
    /// The solver accuracy α; `None`: [`default_alpha`].
    pub alpha: Option<f64>,
    /// The leaky demonstration.
    pub leak: AdversarialLeak,
    /// The black box (the page's certified solver, or an audit's worst case).
    pub black_box: BlackBox,
}

impl AdversarialSettings {
    /// Extragradient, the default α, no leak, the certified black box.
    pub fn new(epsilon: f64, delta: f64) -> Self {
        Self {
            epsilon,
            delta,
            solver: SaddleSolverKind::Extragradient,
            alpha: None,
            leak: AdversarialLeak::None,
            black_box: BlackBox::Certified,
        }
    }
}

/// The calibration, from declared constants and the settings alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Δ, the sensitivity of the exact minimiser x*(D).
    pub minimiser_sensitivity: f64,
    /// α, the certified solver accuracy.
    pub alpha: f64,
    /// √(2α/μₓ): how far the certified point may be from x̂*.
    pub radius: f64,
    /// The sensitivity the noise covers: Δ + 2√(2α/μₓ), or the misprint under the leak.
    pub sensitivity: f64,
    /// σ of the Gaussian on x.
    pub sigma: f64,
    /// The certificate's requirement μₓ‖Δx‖² + μᵧ‖Δy‖² ≤ 2α.
    pub target: PhaseTarget,
}

fn positive(field: &'static str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(Error::invalid(field, "a finite number > 0", v))
    }
}

/// Algorithm 8's calibration on a game with `declared` constants.
pub fn calibrate(declared: &Declared, settings: &AdversarialSettings) -> Result<Calibration> {
    let (eps, delta) = (settings.epsilon, settings.delta);
    check_epsilon(eps)?;
    check_delta(delta)?;
    let l = positive("lipschitz", declared.lipschitz)?;
    let mu_x = declared.mu_x;
    if !(mu_x.is_finite() && mu_x > 0.0) {
        return Err(Error::invalid(
            "mu_x",
            "a strong convexity μx > 0: Lowy & Razaviyayn 2021's Algorithm 8 needs a strongly convex G",
            mu_x,
        ));
    }
    let mu_y = declared.mu_y;
    if !(mu_y.is_finite() && mu_y > 0.0) {
        return Err(Error::invalid(
            "mu_y",
            "a strong concavity μy > 0: the minimiser's sensitivity (Zhang et al. 2022, Lemma 4.3) and the certified solvers need it",
            mu_y,
        ));
    }
    if declared.n == 0 {
        return Err(Error::invalid("n", "at least 1 record", 0));
    }
    let delta_solution = minimiser_sensitivity(l, declared.n, mu_x, mu_y);
    let alpha = match settings.alpha {
        Some(a) => positive("alpha", a)?,
        None => default_alpha(declared, eps, delta),
    };
    let sensitivity = match settings.leak {
        AdversarialLeak::None => corrected_sensitivity(delta_solution, alpha, mu_x),
        AdversarialLeak::Misprint => misprinted_sensitivity(delta_solution, alpha, mu_x),
    };
    let tightening = match settings.black_box {
        BlackBox::Certified => 1.0,
        BlackBox::WorstCase { .. } => WORST_CASE_TIGHTENING,
    };
    Ok(Calibration {
        minimiser_sensitivity: delta_solution,
        alpha,
        radius: (2.0 * alpha / mu_x).sqrt(),
        sensitivity,
        sigma: zwb_gaussian_sigma(sensitivity, eps, delta)?,
        target: PhaseTarget {
            weight_x: mu_x,
            weight_y: mu_y,
            target: 2.0 * alpha * tightening,
        },
    })
}

/// The game's own constants as one unregularised phase of the certified solvers.
fn phase_constants(declared: &Declared) -> PhaseConstants {
    PhaseConstants {
        lipschitz: declared.lipschitz,
        smoothness: declared.smoothness,
        mu_f: (declared.mu_x, declared.mu_y),
        reg: (0.0, 0.0),
    }
}

/// The guarantee: one Gaussian release of x at (ε, δ), replace-one.
fn guarantee_of(settings: &AdversarialSettings, c: &Calibration) -> Guarantee {
    statement(
        settings.epsilon,
        settings.delta,
        Relation::ReplaceOne,
        &format!(
            "one release of the model x, Gaussian σ = {:.3e} (ZWB+19) on the sensitivity Δ + 2√(2α/μₓ) = {:.3e} (Lowy & Razaviyayn 2021, Algorithm 8)",
            c.sigma, c.sensitivity
        ),
    )
}

/// The noise law: one Gaussian on x.
fn draws_of(c: &Calibration, dx: usize) -> Vec<Draws> {
    vec![Draws {
        noise: NoiseShape::Gaussian {
            sigma: c.sigma,
            d: dx,
        },
        count: 1,
        sensitivity: c.sensitivity,
    }]
}

/// Lowy & Razaviyayn 2021's Algorithm 8 (module docs), a [`Run`] on its own [`RecordGame`].
pub struct AdversarialTraining {
    game: Arc<dyn RecordGame>,
    settings: AdversarialSettings,
    declared: Declared,
    calibration: Calibration,
    guarantee: Guarantee,
    rng: DpRng,
    seeded: bool,
    run: Option<SaddleRun>,
    /// The black box's output x_T (non-private), kept for audits that redraw only the noise.
    x_t: Vec<f64>,
    x_out: Vec<f64>,
    y_start: Vec<f64>,
    noise: Vec<f64>,
    /// The trail of the one planned draw.
    trail: Trail,
    certified_bound: f64,
    record_evals: u64,
    done: bool,
    aborted: bool,
}

impl AdversarialTraining {
    /// Fixes the calibration and the guarantee from `game`'s declared constants and `settings`;
    /// `noise` is the noise stream (the VR solver's seed is drawn from it first, so the same
    /// noise seed gives the same noise whichever solver runs).
    pub fn new(
        game: Arc<dyn RecordGame>,
        settings: AdversarialSettings,
        mut noise: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let declared = Declared::of(game.as_ref());
        let calibration = calibrate(&declared, &settings)?;
        let guarantee = guarantee_of(&settings, &calibration);
        let (dx, dy) = declared.dims;
        let mut x_start = vec![0.0; dx];
        let mut y_start = vec![0.0; dy];
        game.x_domain().project(&mut x_start);
        game.y_domain().project(&mut y_start);
        let reg = Regulariser::none(dx, dy);
        let view = PhaseGame::new(game.as_ref(), 0..declared.n, &reg);
        let run = SaddleRun::new(
            &view,
            phase_constants(&declared),
            calibration.target,
            settings.solver,
            None,
            None,
            noise.next_u64(),
            game.scratch(),
        )?;
        Ok(Self {
            game,
            settings,
            declared,
            calibration,
            guarantee,
            rng: noise,
            seeded,
            run: Some(run),
            x_t: x_start.clone(),
            x_out: x_start,
            y_start,
            noise: vec![0.0; dx],
            trail: Trail::planned(1),
            certified_bound: f64::INFINITY,
            record_evals: 0,
            done: false,
            aborted: false,
        })
    }

    /// The calibration fixed at construction.
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
    }

    /// Whether the solver failed to certify (floating point); the release is then the start.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// The certificate's bound on μₓ‖Δx‖² + μᵧ‖Δy‖² at the certified point (∞ before it).
    pub fn certified_bound(&self) -> f64 {
        self.certified_bound
    }

    /// The black box's output: the certified point, or the worst case's push within the
    /// certified radius (projected onto X, which only brings it closer to x* ∈ X).
    fn black_box_output(&self, x: &mut [f64]) {
        if let BlackBox::WorstCase { sign } = self.settings.black_box
            && let Some(first) = x.first_mut()
        {
            *first += sign.signum() * WORST_CASE_PUSH * self.calibration.radius;
            self.game.x_domain().project(x);
        }
    }

    /// The black box's output x_T before the noise (**non-private**; the start until the solve
    /// certifies). An audit whose solver is deterministic solves once and redraws the noise with
    /// [`release_model`].
    pub fn solved_point(&self) -> &[f64] {
        &self.x_t
    }
}

/// x̃ = Π_X(x_T + z), z ~ N(0, σ²I) drawn from `rng` into `noise`: Algorithm 8's only release,
/// written into `out`; returns ‖z‖.
pub fn release_model(
    x_t: &[f64],
    sigma: f64,
    x_domain: &dyn Domain,
    rng: &mut DpRng,
    noise: &mut [f64],
    out: &mut [f64],
) -> f64 {
    let mut trail = Trail::planned(1);
    release_model_through(&mut trail, x_t, sigma, x_domain, rng, noise, out)
}

/// [`release_model`] drawing through the run's `trail` (σ, validated by the calibration, that
/// is not a valid law draws nothing and leaves the trail short).
fn release_model_through(
    trail: &mut Trail,
    x_t: &[f64],
    sigma: f64,
    x_domain: &dyn Domain,
    rng: &mut DpRng,
    noise: &mut [f64],
    out: &mut [f64],
) -> f64 {
    if let Ok(law) = Law::gaussian(sigma) {
        trail.draw(&law, rng, noise);
    }
    for ((o, p), z) in out.iter_mut().zip(x_t).zip(noise.iter()) {
        *o = p + z;
    }
    x_domain.project(out);
    crate::linalg::norm2(noise)
}

impl Run for AdversarialTraining {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let d = &self.declared;
        let c = &self.calibration;
        let caveats = vec![
            format!(
                "declared constants, not measured: L = {}, ℓ = {}, μₓ = {}, μᵧ = {}",
                d.lipschitz, d.smoothness, d.mu_x, d.mu_y
            ),
            format!(
                "the minimiser's sensitivity Δ = 2L/(n√(μₓμ)) = {:.3e} is Zhang, Thekumparampil, Oh & He 2022's Lemma 4.3 (one adversary shared by all records; the paper's per-record perturbations give 2L/(μn))",
                c.minimiser_sensitivity
            ),
            format!(
                "the solver is certified to μₓ‖x − x̂*‖² + μᵧ‖y − ŷ*‖² ≤ 2α = {:.3e}, so x is within √(2α/μₓ) = {:.3e} of the minimiser, surely",
                2.0 * c.alpha,
                c.radius
            ),
            "the solver's iterates, stopping time and gradient count are not private; only the model x̃ is released, and the adversary shown is its data-independent start".to_string(),
        ];
        let mechanism = "black-box adversarial training by output perturbation (Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training”, Algorithm 8)";
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if self.run.as_ref().is_some_and(SaddleRun::used_safeguard) {
            ledger = ledger.with_event("the solver ran out of budget; projected GDA took over");
        }
        if self.aborted {
            ledger = ledger.with_failure(
                "the solver never certified (floating point); the release is the planned noise \
                 around the start P_X(0), and that failure depends on the data",
            );
        }
        if let Ok(loss) = ApproxDp::new(
            self.settings.epsilon,
            self.settings.delta,
            Relation::ReplaceOne,
        ) {
            ledger = ledger.with_spend(
                format!("model x with σ = {:.3e}", c.sigma),
                PrivacyLoss::Approx(loss),
            );
        }
        match self.settings.leak.describe() {
            Some(leak) => ledger.with_leak(leak),
            None => ledger,
        }
    }

    fn draws(&self) -> Vec<Draws> {
        draws_of(&self.calibration, self.declared.dims.0)
    }

    fn step(&mut self) -> Option<Step> {
        if self.done {
            return None;
        }
        let game = Arc::clone(&self.game);
        let reg = Regulariser::none(self.declared.dims.0, self.declared.dims.1);
        let view = PhaseGame::new(game.as_ref(), 0..self.declared.n, &reg);
        let run = self.run.as_mut()?;
        let before = run.record_evals();
        let status = run.step(&view);
        self.record_evals += run.record_evals() - before;
        let mut report = StepReport {
            grad_evals: self.record_evals as f64 / self.declared.n as f64,
            loss: run.last_bound(),
            noise_norm: 0.0,
            grad_norm: 0.0,
            epsilon_spent: 0.0,
            done: false,
        };
        match status {
            SaddleStatus::Running => {}
            SaddleStatus::Certified => {
                self.certified_bound = run.last_bound();
                let mut x_t = run.point().0.to_vec();
                self.black_box_output(&mut x_t);
                report.noise_norm = release_model_through(
                    &mut self.trail,
                    &x_t,
                    self.calibration.sigma,
                    self.game.x_domain(),
                    &mut self.rng,
                    &mut self.noise,
                    &mut self.x_out,
                );
                self.x_t = x_t;
                report.epsilon_spent = self.settings.epsilon;
                self.done = true;
            }
            // No iteration cap is set, so only floating point ends the solve uncertified. The
            // planned noise is still released, around the fixed public start P_X(0), and the
            // ledger marks the release NOT PRIVATE (that failure depends on the data).
            SaddleStatus::Capped | SaddleStatus::Failed => {
                self.aborted = true;
                let mut start = vec![0.0; self.declared.dims.0];
                self.game.x_domain().project(&mut start);
                report.noise_norm = release_model_through(
                    &mut self.trail,
                    &start,
                    self.calibration.sigma,
                    self.game.x_domain(),
                    &mut self.rng,
                    &mut self.noise,
                    &mut self.x_out,
                );
                report.epsilon_spent = self.settings.epsilon;
                self.done = true;
            }
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
                y: &self.y_start,
            },
        }
    }

    fn release(&self) -> Option<Published> {
        // The model x̃ is the one release; y stays at its public start P_Y(0).
        if !self.done {
            return None;
        }
        Noised::iterate_pair(&self.x_out, &self.y_start, &self.trail).map(Published::Private)
    }

    fn grad_evals(&self) -> f64 {
        self.record_evals as f64 / self.declared.n as f64
    }

    fn mid_update(&self) -> bool {
        !self.done && self.run.as_ref().is_some_and(SaddleRun::mid_iteration)
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let c = &self.calibration;
        let named = |name, value| Diagnostic { name, value };
        let bound = self
            .run
            .as_ref()
            .map_or(self.certified_bound, SaddleRun::last_bound);
        vec![
            named("alpha", c.alpha),
            named("sensitivity", c.sensitivity),
            named("sigma_x", c.sigma),
            named("certificate_bound", bound),
            named("certificate_threshold", TAU * TAU * c.target.target),
            named(
                "safeguard",
                if self.run.as_ref().is_some_and(SaddleRun::used_safeguard) {
                    1.0
                } else {
                    0.0
                },
            ),
        ]
    }
}

// --- The family: card, settings, needs and the data-free plan --------------------

/// The one-paragraph card.
pub const CARD: &str = "Black-box private adversarial training (Lowy & Razaviyayn 2021, \
“Output Perturbation for Differentially Private Convex Optimization with Improved Population Loss \
Bounds, Runtimes and Applications to Private Adversarial Training”, Algorithm 8). Train the model \
x against the worst adversary y: any certified minimax solver (GDA, extragradient, \
VR-extragradient) runs until x is provably within √(2α/μₓ) of the robust minimiser; only x is \
released, with a Gaussian calibrated to Δ + 2√(2α/μₓ). The paper prints Δ + 2α/μ for δ > 0, a \
misprint that under-noises (the pitfall switch shows it). Here the adversary is shared by all \
records, so Δ = 2L/(n√(μₓμ)) comes from Zhang, Thekumparampil, Oh & He 2022's Lemma 4.3.";

const SOLVER_SETTING: SettingUse = setting(
    Control::MinimaxSolver,
    "black-box solver",
    "GDA, extragradient or VR-extragradient, each run until the certificate proves x is within √(2α/μₓ) of the robust minimiser: the noise does not depend on it",
);
const LEAK_SETTING: SettingUse = setting(
    Control::Leak,
    "demonstrate the pitfall",
    "calibrate to the paper's misprinted Δ + 2α/μ instead of Δ + 2√(2α/μ): too little noise (NOT PRIVATE)",
);

/// Lowy & Razaviyayn 2021, Algorithm 8's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::AdversarialTraining,
    card: card_text! {
        name: "black-box adversarial training",
        source: "Lowy & Razaviyayn 2021, “Output Perturbation for Differentially Private Convex Optimization with Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training”, Algorithm 8 and Theorem 5.3",
        assumptions: "Every record's game μₓ-strongly convex in the model x, μᵧ-strongly concave in the adversary y, L-Lipschitz and ℓ-smooth (declared from c, μ and the domains); n public.",
        privacy: "A certified α-accurate solve, then the model alone released with a Gaussian on Δ + 2√(2α/μₓ) (the corrected constant; the paper prints Δ + 2α/μ): (ε, δ) under replace-one.",
        utility: "Primal excess E G(x̃) − G* ≤ α + L√dₓ·σ (Theorem 5.3's argument), whichever solver.",
        watch: "The certificate falls to 2α, then the model jumps by the noise; the adversary is never released. Switch on the pitfall: σ shrinks and the ledger says NOT PRIVATE.",
        module: "algo::adversarial_training",
        summary: CARD,
    },
    settings: &[SOLVER_SETTING, LEAK_SETTING],
    needs: &[Need::GameModuli {
        x: true,
        value: 0.1,
        why: "Lowy & Razaviyayn 2021's Algorithm 8 needs a strongly convex robust objective, and its sensitivity here a strongly concave adversary",
    }],
    solves: &[ProblemKind::Saddle],
    purity: Purity::Approximate,
    demonstration: Demonstration::Misprint,
    length: RunLength::DataDependent,
    plan,
};

/// The settings a configuration asks for (all data-independent).
fn settings_of(config: &Settings) -> AdversarialSettings {
    let mut settings = AdversarialSettings::new(config.budget.epsilon, config.budget.delta);
    settings.solver = config.minimax_solver;
    if config.leak {
        settings.leak = AdversarialLeak::Misprint;
    }
    settings
}

/// Refuses, before any record is read, a calibration the solvers cannot certify in f64, and GDA
/// when its iteration bound passes [`MAX_GDA_ITERATIONS`] (as Zhang et al.'s families do).
fn check_certifiable(
    declared: &Declared,
    c: &Calibration,
    x_domain: &dyn Domain,
    y_domain: &dyn Domain,
    solver: SaddleSolverKind,
) -> Result<()> {
    let (dx, dy) = declared.dims;
    let (mut x0, mut y0) = (vec![0.0; dx], vec![0.0; dy]);
    x_domain.project(&mut x0);
    y_domain.project(&mut y0);
    let diameter = x_domain.diameter_in(dx).hypot(y_domain.diameter_in(dy));
    let bound = safeguard_bound(
        diameter,
        &Regulariser::none(dx, dy),
        &phase_constants(declared),
        &c.target,
        &x0,
        &y0,
    )?;
    if solver == SaddleSolverKind::Gda && bound > MAX_GDA_ITERATIONS {
        return Err(Error::invalid(
            "minimax_solver",
            format!(
                "choose extragradient or variance-reduced extragradient: GDA's O(κ²) bound is {bound} iterations (at most {MAX_GDA_ITERATIONS})"
            ),
            "gradient descent–ascent",
        ));
    }
    Ok(())
}

/// A run planned from the configuration alone.
struct AdversarialPlan {
    settings: AdversarialSettings,
}

/// The preview on the game `config` poses: calibration, guarantee and the draw from the declared
/// constants, and the solve's certifiability, all before any record is drawn.
fn plan(config: &Settings, _declared: &ProblemDeclaration) -> Result<Planned> {
    replace_one_only(
        config.budget.relation,
        "the minimiser's sensitivity (Zhang, Thekumparampil, Oh & He 2022, Lemma 4.3) holds for a fixed, public n",
    )?;
    let spec = crate::algo::smd::family::lane_game(config)?.declaration;
    let declared = Declared::of_declaration(&spec);
    let settings = settings_of(config);
    let c = calibrate(&declared, &settings)?;
    check_certifiable(
        &declared,
        &c,
        &spec.x_domain,
        &spec.y_domain,
        settings.solver,
    )?;
    let draws = draws_of(&c, declared.dims.0);
    let mut preview = Preview::new(
        AlgorithmKind::AdversarialTraining,
        "black-box adversarial training (Lowy & Razaviyayn 2021, Algorithm 8): a certified minimax solve, then a Gaussian on the model x",
        guarantee_of(&settings, &c),
        (c.sigma, draws[0].noise),
        1,
        c.sensitivity,
        declared.lipschitz,
    );
    preview.draws = draws;
    preview.sensitivity_ball = Some(c.sensitivity);
    preview.metric = ProblemKind::Saddle.metric();
    preview.leaks = settings
        .leak
        .describe()
        .into_iter()
        .map(String::from)
        .collect();
    Ok(Planned::new(preview, AdversarialPlan { settings }))
}

impl Plan for AdversarialPlan {
    /// α + L√dₓ·σ, flat: one release (a bound on the primal excess, the part of the gap bracket
    /// the model controls).
    fn theory(&self, posed: &Posed, _preview: &Preview) -> Option<Curve> {
        let game = posed.saddle().ok()?;
        let d = Declared::of(game.game.as_ref());
        let c = calibrate(&d, &self.settings).ok()?;
        Curve::flat(
            utility_bound(d.lipschitz, c.alpha, d.dims.0, c.sigma),
            "Lowy & Razaviyayn 2021, Theorem 5.3 (primal excess)",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let game = posed.saddle()?;
        let records: Arc<dyn RecordGame> = game.game.clone();
        Ok(Box::new(AdversarialTraining::new(
            records,
            self.settings,
            noise,
            seeded,
        )?))
    }
}

#[cfg(test)]
mod tests;
