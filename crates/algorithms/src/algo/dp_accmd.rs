//! DP-AccMD: differentially private accelerated mirror descent (linear coupling) over an ℓ2 or
//! ℓ1 ball, with a **corrected, private coupling** in place of the paper's y-step.
//!
//! # Algorithm
//! Wang, Ye & Xu 2017, Algorithm 3, for min_{x∈C} F(x) with C a
//! centrally symmetric ball. With L_C the smoothness of F in the Minkowski norm ‖·‖_C and a mirror
//! map w that is 1-strongly convex in ‖·‖_C:
//!
//! y₀ = z₀ = x₀ = 0;  for k = 0, …, T−1:
//!   α_{k+1} = (k+2)/(4L_C),  r_k = 2/(k+2);
//!   x_{k+1} = r_k z_k + (1 − r_k) y_k;
//!   g̃ = ∇F(x_{k+1}) + b_{k+1},  b_{k+1} ~ N(0, σ²I_d)   (**one** private release per step);
//!   z_{k+1} = argmin_{z∈C} { B_w(z, z_k) + α_{k+1}⟨g̃, z − z_k⟩ };
//!   y_{k+1} = r_k z_{k+1} + (1 − r_k) y_k                  (the corrected coupling);
//! release y_T.
//!
//! Geometries ([`Geometry`]; the paper leaves w open; two instantiations):
//! - **ℓ2 ball** of radius ρ: ‖v‖_C = ‖v‖/ρ, w(z) = ‖z‖²/(2ρ²), L_C = βρ²; the z-step is
//!   z ← P_C(z − α ρ² g̃) with αρ² = (k+2)/(4β). No dimension gain: G_C ≈ ρ√d.
//! - **ℓ1 ball** of radius R, entropic map on the 2d-simplex lift x = R(u⁺ − u⁻), u ∈ Δ_{2d}:
//!   ∇_u = R[∇F; −∇F], smoothness L̂ = βR² in ‖·‖₁ (a valid bound, tighter than
//!   β(2R)²), w = negative entropy (1-strongly convex in ‖·‖₁ by Pinsker), z₀ = y₀ uniform
//!   (x₀ = 0, B_w(u*, z₀) ≤ ln 2d). The z-step is the multiplicative update
//!   ln z ← ln z − αR[g̃; −g̃], renormalised by log-sum-exp, **kept in log space** (weights
//!   that underflow to 0 never come back).
//!
//! # Corrections to the paper
//! 1. **Privacy.** As printed, y_{k+1} minimises
//!    (L_C/2)‖y − x_{k+1}‖²_C + ⟨∇F(x_{k+1}), y − x_{k+1}⟩ with the **exact** gradient, so y_T is
//!    not private (at T = 1, x₁ = z₀ is public and y₁ a deterministic function of D). We use the
//!    coupling update above as the default: every use of the data goes through
//!    the one noisy g̃, and the paper's proof (eqs 66–70) goes through verbatim.
//!    The printed step is kept only as the leaky toggle [`AccMdLeak::ExactGradientYStep`], marked
//!    NOT PRIVATE in the ledger and caught by the audit (`tests/algorithms/privacy_audit.rs`). For the ℓ2 ball
//!    that toggle is exactly the printed step, y = P_C(x − ∇F(x)/β); for the ℓ1 ball the printed
//!    ‖·‖²_C-step has no closed form, and the toggle takes the same Euclidean projected
//!    exact-gradient step (lifted back to the simplex) — the same defect, a noiseless function of
//!    ∇F in the release.
//! 2. **Scaling.** The proof assumes ‖C‖₂ = 1; α and r use L_C.
//! 3. The paper's "no ε-condition" holds for the exact zCDP calibration used here, not for a
//!    fixed-c form.
//!
//! Choices written down here: the ridge part λ₂ of the regulariser is smooth and is folded into
//! ∇F (the declared β must include it, as [`Objective::smoothness`] does); an ℓ1 penalty is
//! refused (the paper's DP-AccMD has no non-smooth regulariser, Table 3). The geometry is
//! declared in the configuration and must match the objective's domain (name and radius).
//!
//! # Assumptions
//! f(·; z) convex, G-Lipschitz in ℓ2 over C (features clipped to the declared bound, so G is the
//! loss's declared constant) and β-smooth in ℓ2; C centrally symmetric with x₀ = 0 ∈ C.
//!
//! # Privacy
//! T releases of ∇F(x_{k+1}) + N(0, σ²I), each a Gaussian mechanism of ℓ2-sensitivity 2G/n
//! (replace-one) or G/n (add/remove with the mean over the declared n), composed in zCDP and
//! converted exactly for the target (ε, δ) — the calibration of DP-GD
//! ([`crate::algo::noisy_gd::GdCalibration`], Wang, Ye & Xu 2017). Everything else (z, y, the mirror
//! steps, the projection) is post-processing of the released g̃'s. σ is fixed before the run.
//!
//! # Utility
//! From the proof (eqs 71–76), with the noise term kept explicit (summing α_k² E‖b‖²_{C*}):
//! E F(y_T) − F* ≤ 8 L_C B_w(x*, x₀)/(T+1)² + E‖b‖²_{C*}·Σ_{k=1}^T (k+1)² / (2 L_C (T+1)²),
//! where E‖b‖²_{C*} = ρ²dσ² for the ℓ2 ball and R²σ²·E max_j g_j² (≈ 2R²σ² ln 2d) for the ℓ1
//! ball — the Gaussian-width effect ([`crate::theory::gradient_perturbation::dp_accmd_bound`]).
//! Thm 5.4: O(√B_w √(G_C² + ‖C‖₂²) G √ln(1/δ)/(nε)) with T² as in eq (77).
//!
//! # Reference
//! Wang, Ye & Xu 2017, Algorithm 3, Definitions 5.1–5.2, Lemmas 5.1–5.2,
//! Theorems 5.3–5.4, eqs (66)–(77).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::objective::Objective;
use crate::privacy::release::{Finished, Law, Published, Trail};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, Relation, Zcdp};
use crate::rng::DpRng;

use super::noisy_gd::GdCalibration;
use super::{Draws, NoiseShape, PrivateAlgorithm, StepReport};

use super::family::{
    Demonstration, Family, MINIMISATION, Need, Plan, Preview, Purity, RunLength, card_text, setting,
};
use super::registry::Planned;
use super::run::{MinRun, Run};
use crate::algo::choices::DomainChoice;
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings;
use crate::controls::Control;
use crate::domain::DomainKind;
use crate::theory::curve::Curve;
use crate::theory::gradient_perturbation;

/// The algorithm card (one paragraph for the page; the preview is [`DpAccMdConfig::calibrate`],
/// the theory curve [`crate::theory::gradient_perturbation::dp_accmd_bound`]).
pub const DESCRIPTION: &str = "DP-AccMD (Wang, Ye & Xu 2017, Algorithm 3): accelerated \
mirror descent over an ℓ2 or ℓ1 ball, one noisy full gradient per step. The paper's version is \
not private (its y-step uses the exact gradient); this one replaces that step by a private \
coupling, which the paper's proof still covers. Assumptions: a convex, smooth loss with features \
clipped to the declared bound, over a centrally symmetric ball. Guarantee: (ε, δ)-DP from the \
composition of T Gaussian releases in zCDP, as for DP-GD. The plot shows an accelerated 1/T² \
descent, then a noise floor that grows with T (dashed: the proof's bound); over the ℓ1 ball the \
noise costs about ln(d) instead of d, the Gaussian-width gain for high dimensions.";

/// The constraint set C and the mirror map that goes with it (declared, never measured).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "ball")]
pub enum Geometry {
    /// {‖x‖₂ ≤ radius}, Euclidean mirror map (Wang, Ye & Xu 2017).
    L2 {
        /// ρ.
        radius: f64,
    },
    /// {‖x‖₁ ≤ radius}, entropy on the 2d-simplex lift (Wang, Ye & Xu 2017).
    L1 {
        /// R.
        radius: f64,
    },
}

impl Geometry {
    fn radius(self) -> f64 {
        match self {
            Geometry::L2 { radius } | Geometry::L1 { radius } => radius,
        }
    }

    /// The domain name an objective must carry for this geometry.
    fn domain_name(self) -> &'static str {
        match self {
            Geometry::L2 { .. } => "l2_ball",
            Geometry::L1 { .. } => "l1_ball",
        }
    }

    /// L_C for a β-smooth (in ℓ2) F: βρ² (ℓ2 ball) or βR² (ℓ1 ball, in ‖·‖₁ of the lift).
    pub fn smoothness_in_norm(self, beta: f64) -> f64 {
        beta * self.radius() * self.radius()
    }
}

/// Leaky demonstration toggle. Any leak makes the run **not private**.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccMdLeak {
    /// The corrected, private coupling.
    #[default]
    None,
    /// The paper's y-step with the exact gradient ∇F(x_{k+1}).
    ExactGradientYStep,
}

impl AccMdLeak {
    /// One sentence for the "not DP" badge.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            AccMdLeak::None => None,
            AccMdLeak::ExactGradientYStep => Some(
                "NOT PRIVATE: the y-step uses the exact gradient, as the paper prints it, so the \
                 released y_T depends on the data through an un-noised gradient",
            ),
        }
    }
}

/// The declared inputs of DP-AccMD: nothing here may come from the data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DpAccMdConfig {
    /// Target ε.
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// Neighbouring relation.
    pub relation: Relation,
    /// Iterations T (= noisy gradient releases).
    pub steps: usize,
    /// Declared per-sample Lipschitz constant G (ℓ2, over C).
    pub lipschitz: f64,
    /// Declared smoothness β of F in ℓ2 (the paper's L), ridge included.
    pub smoothness: f64,
    /// Number of records (public).
    pub n: usize,
    /// The ball and its mirror map.
    pub geometry: Geometry,
    /// Leaky demonstration toggle (default: none).
    #[serde(default)]
    pub leak: AccMdLeak,
}

impl DpAccMdConfig {
    /// The zCDP calibration shared with DP-GD: T Gaussian releases of the mean gradient.
    pub fn calibration(&self) -> GdCalibration {
        GdCalibration {
            epsilon: self.epsilon,
            delta: self.delta,
            relation: self.relation,
            steps: self.steps,
            lipschitz: self.lipschitz,
            n: self.n,
        }
    }

    /// σ and the guarantee, from the configuration alone (checks every field first).
    pub fn calibrate(&self) -> Result<(f64, Guarantee)> {
        let r = self.geometry.radius();
        if !(r.is_finite() && r > 0.0) {
            return Err(Error::invalid("radius", "a finite number > 0", r));
        }
        if !(self.smoothness.is_finite() && self.smoothness > 0.0) {
            return Err(Error::invalid(
                "smoothness",
                "a finite number > 0 (DP-AccMD needs a smooth loss)",
                self.smoothness,
            ));
        }
        if self.n == 0 {
            return Err(Error::invalid("n", "at least 1 record", 0));
        }
        let (sigma, mut guarantee) = self.calibration().calibrate()?;
        guarantee.accounting = format!("DP-AccMD: {}", guarantee.accounting);
        Ok((sigma, guarantee))
    }
}

/// The iterates in the geometry's own coordinates.
enum State {
    /// x, y, z ∈ R^d.
    Euclidean {
        x: Vec<f64>,
        y: Vec<f64>,
        z: Vec<f64>,
    },
    /// Lifted u ∈ Δ_{2d}: ln z, z, y and the coupling point x, all of length 2d.
    Entropic {
        log_z: Vec<f64>,
        z: Vec<f64>,
        y: Vec<f64>,
        x: Vec<f64>,
    },
}

/// DP-AccMD state; every buffer allocated once.
pub struct DpAccMd {
    config: DpAccMdConfig,
    guarantee: Guarantee,
    sigma: f64,
    seeded: bool,
    rng: DpRng,
    state: State,
    /// The point ∇F is evaluated at, in R^d (for the ℓ1 ball: R(x⁺ − x⁻)).
    point: Vec<f64>,
    grad: Vec<f64>,
    noise: Vec<f64>,
    /// y in R^d: the current (non-private) iterate, and after T steps the released point.
    release: Vec<f64>,
    /// N(0, σ²I) of every step, the trail of its T draws and the release once done.
    law: Law,
    trail: Trail,
    finished: Option<Finished>,
    t: usize,
}

impl DpAccMd {
    /// Calibrates from `config` alone, checks that the objective is the declared problem, and
    /// starts at x₀ = 0.
    pub fn new(
        config: DpAccMdConfig,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let (sigma, guarantee) = config.calibrate()?;
        config.calibration().check_objective(objective)?;
        let domain = objective.domain();
        if domain.name() != config.geometry.domain_name()
            || domain.radius() != config.geometry.radius()
        {
            return Err(Error::invalid(
                "geometry",
                format!(
                    "the objective's domain ({} of radius {})",
                    domain.name(),
                    domain.radius()
                ),
                format!(
                    "{} of radius {}",
                    config.geometry.domain_name(),
                    config.geometry.radius()
                ),
            ));
        }
        if objective.regulariser().l1 > 0.0 {
            return Err(Error::invalid(
                "regularizer",
                "no ℓ1 penalty (DP-AccMD handles smooth objectives; constrain with the ℓ1 ball instead)",
                objective.regulariser().l1,
            ));
        }
        let d = objective.dim();
        let state = match config.geometry {
            Geometry::L2 { .. } => State::Euclidean {
                x: vec![0.0; d],
                y: vec![0.0; d],
                z: vec![0.0; d],
            },
            Geometry::L1 { .. } => {
                let u0 = 1.0 / (2 * d) as f64;
                State::Entropic {
                    log_z: vec![libm::log(u0); 2 * d],
                    z: vec![u0; 2 * d],
                    y: vec![u0; 2 * d],
                    x: vec![u0; 2 * d],
                }
            }
        };
        let steps = config.steps;
        Ok(Self {
            config,
            guarantee,
            sigma,
            seeded,
            rng,
            state,
            point: vec![0.0; d],
            grad: vec![0.0; d],
            noise: vec![0.0; d],
            release: vec![0.0; d],
            law: Law::gaussian(sigma)?,
            trail: Trail::planned(steps),
            finished: None,
            t: 0,
        })
    }

    /// Per-coordinate std σ of the gradient noise.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// ε at the run's δ after `steps` of the T releases.
    pub fn epsilon_after(&self, steps: usize) -> f64 {
        self.config
            .calibration()
            .epsilon_after(self.guarantee.rho.unwrap_or(0.0), steps)
    }

    /// Test hook: the noise-free skeleton (a non-private run).
    #[cfg(test)]
    pub(crate) fn set_sigma_for_test(&mut self, sigma: f64) {
        self.sigma = sigma;
        // σ = 0 is no law: the unit tests' noiseless skeleton.
        self.law = Law::gaussian(sigma).unwrap_or_else(|_| Law::silent());
    }
}

/// x = R(u⁺ − u⁻) for u = (u⁺, u⁻) ∈ R^{2d}.
fn collapse(radius: f64, u: &[f64], x: &mut [f64]) {
    let d = x.len();
    for (j, xj) in x.iter_mut().enumerate() {
        *xj = radius * (u[j] - u[d + j]);
    }
}

/// A point of the simplex Δ_{2d} that collapses to x (‖x‖₁ ≤ R): u⁺ = x₊/R, u⁻ = x₋/R, and the
/// slack 1 − ‖x‖₁/R spread evenly (equal mass on u⁺_j and u⁻_j cancels).
fn lift(radius: f64, x: &[f64], u: &mut [f64]) {
    let d = x.len();
    let slack = (1.0 - x.iter().map(|v| v.abs()).sum::<f64>() / radius).max(0.0) / (2 * d) as f64;
    for (j, &xj) in x.iter().enumerate() {
        u[j] = xj.max(0.0) / radius + slack;
        u[d + j] = (-xj).max(0.0) / radius + slack;
    }
}

impl PrivateAlgorithm for DpAccMd {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let c = &self.config;
        let caveats = vec![
            format!(
                "features clipped to the declared bound, so each per-sample gradient has norm ≤ G = {}",
                c.lipschitz
            ),
            c.relation.describe().to_string(),
            "the paper's y-step (Wang, Ye & Xu 2017, \"Differentially Private Empirical Risk \
             Minimization Revisited\", Algorithm 3) is replaced by the private coupling \
             y = r·z + (1 − r)·y: the printed algorithm is not private"
                .to_string(),
        ];
        let mechanism = format!(
            "DP-AccMD ({}), T = {}, β = {}, σ = {:.4e} per coordinate",
            match c.geometry {
                Geometry::L2 { radius } => format!("ℓ2 ball of radius {radius}, Euclidean map"),
                Geometry::L1 { radius } =>
                    format!("ℓ1 ball of radius {radius}, entropy on the simplex lift"),
            },
            c.steps,
            c.smoothness,
            self.sigma
        );
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if let Some(Ok(rho)) = self.guarantee.rho.map(|r| Zcdp::new(r, c.relation)) {
            ledger = ledger.with_spend(
                format!("{} Gaussian gradient releases", c.steps),
                PrivacyLoss::Zcdp(rho),
            );
        }
        if let Some(f) = &self.finished {
            ledger = f.record(ledger);
        }
        match c.leak.describe() {
            Some(leak) => ledger.with_leak(leak),
            None => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.t >= self.config.steps || objective.dim() != self.point.len() {
            return None;
        }
        let k = self.t as f64;
        let r = 2.0 / (k + 2.0);
        let beta = self.config.smoothness;
        let radius = self.config.geometry.radius();
        // x_{k+1} = r z_k + (1 − r) y_k, in the geometry's coordinates, then as a point of R^d.
        match &mut self.state {
            State::Euclidean { x, y, z } => {
                for ((xi, zi), yi) in x.iter_mut().zip(z.iter()).zip(y.iter()) {
                    *xi = r * zi + (1.0 - r) * yi;
                }
                self.point.copy_from_slice(x);
            }
            State::Entropic { x, y, z, .. } => {
                for ((xi, zi), yi) in x.iter_mut().zip(z.iter()).zip(y.iter()) {
                    *xi = r * zi + (1.0 - r) * yi;
                }
                collapse(radius, x, &mut self.point);
            }
        }
        let loss =
            self.config
                .calibration()
                .value_and_gradient(objective, &self.point, &mut self.grad);
        let grad_norm = norm2(&self.grad);
        // The one private release of this step: g̃ = ∇F(x_{k+1}) + b, kept in `noise`.
        self.trail.draw(&self.law, &mut self.rng, &mut self.noise);
        let noise_norm = norm2(&self.noise);
        for (b, g) in self.noise.iter_mut().zip(&self.grad) {
            *b += g;
        }
        let noisy = &self.noise;
        let leak = self.config.leak == AccMdLeak::ExactGradientYStep;
        match &mut self.state {
            State::Euclidean { y, z, .. } => {
                // z ← P_C(z − αρ²g̃), αρ² = (k+2)/(4β).
                let step = (k + 2.0) / (4.0 * beta);
                for (zi, gi) in z.iter_mut().zip(noisy) {
                    *zi -= step * gi;
                }
                objective.domain().project(z);
                if leak {
                    // The printed y-step: argmin (L_C/2)‖y − x‖²_C + ⟨∇F(x), y − x⟩ = P_C(x − ∇F/β).
                    for ((yi, xi), gi) in y.iter_mut().zip(&self.point).zip(&self.grad) {
                        *yi = xi - gi / beta;
                    }
                    objective.domain().project(y);
                } else {
                    for (yi, zi) in y.iter_mut().zip(z.iter()) {
                        *yi = r * zi + (1.0 - r) * *yi;
                    }
                }
                self.release.copy_from_slice(y);
            }
            State::Entropic { log_z, z, y, .. } => {
                // ln z ← ln z − αR[g̃; −g̃], α = (k+2)/(4βR²), then renormalise (log-sum-exp).
                let step = (k + 2.0) / (4.0 * beta * radius);
                let d = noisy.len();
                for (j, lz) in log_z.iter_mut().enumerate() {
                    let g = if j < d { noisy[j] } else { -noisy[j - d] };
                    *lz -= step * g;
                }
                let max = log_z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let log_sum = max + libm::log(log_z.iter().map(|l| libm::exp(l - max)).sum());
                for (zi, lz) in z.iter_mut().zip(log_z.iter_mut()) {
                    *lz -= log_sum;
                    *zi = libm::exp(*lz);
                }
                if leak {
                    // Stand-in for the printed ‖·‖²_C-step (no closed form on the ℓ1 ball): the
                    // Euclidean projected exact-gradient step, lifted back to the simplex.
                    for ((ri, xi), gi) in self.release.iter_mut().zip(&self.point).zip(&self.grad) {
                        *ri = xi - gi / beta;
                    }
                    objective.domain().project(&mut self.release);
                    lift(radius, &self.release, y);
                } else {
                    for (yi, zi) in y.iter_mut().zip(z.iter()) {
                        *yi = r * zi + (1.0 - r) * *yi;
                    }
                }
                collapse(radius, y, &mut self.release);
            }
        }
        let report = StepReport {
            grad_evals: (self.t + 1) as f64,
            loss,
            noise_norm,
            grad_norm,
            epsilon_spent: self.epsilon_after(self.t + 1),
            done: self.t + 1 >= self.config.steps,
        };
        self.t += 1;
        if report.done {
            // The public start x₀ = 0 (the centre of both balls) if the trail came up short.
            let start = vec![0.0; self.release.len()];
            let domain = objective.domain();
            self.finished = Some(Finished::iterate(
                &self.release,
                &self.trail,
                (&self.law, &start, |w: &mut [f64]| domain.project(w)),
                &mut self.rng,
            ));
        }
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.release
    }

    fn release(&self) -> Option<Published> {
        self.finished.as_ref().map(Finished::published)
    }

    fn draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: NoiseShape::Gaussian {
                sigma: self.sigma,
                d: self.noise.len(),
            },
            count: self.config.steps,
            sensitivity: self.config.calibration().sensitivity(),
        }]
    }

    fn grad_evals(&self) -> f64 {
        self.t as f64
    }
}

// --- The family: card, settings, needs and the data-free plan ---------------------

/// DP-AccMD's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::DpAccmd,
    card: card_text! {
        name: "DP-AccMD",
        source: "Wang, Ye & Xu 2017, “Differentially Private Empirical Risk Minimization Revisited”, Algorithm 3, Theorems 5.3–5.4, with a corrected coupling (the printed one is not private)",
        assumptions: "Convex, smooth F over the ℓ2 ball or the ℓ1 ball (entropy on the 2d-simplex lift).",
        privacy: "T noisy full gradients composed in zCDP exactly as DP-GD. The paper's y-step uses the exact gradient and is NOT private; this version couples y privately.",
        utility: "E F(y_T) − F* ≤ 8L_C·B/(T+1)² + (noise in the ball's dual norm)·Σ(k+1)²/(2L_C(T+1)²): over the ℓ1 ball the noise costs ~ln d instead of d.",
        watch: "An accelerated 1/T² fall, then a noise floor that rises with T.",
        module: "algo::dp_accmd",
        summary: DESCRIPTION,
    },
    settings: &[
        setting(
            Control::Steps,
            "steps T",
            "noisy full-gradient steps, composed in zCDP as DP-GD's",
        ),
        setting(
            Control::Leak,
            "demonstrate the pitfall",
            "the paper's exact-gradient y-step: NOT private",
        ),
    ],
    needs: &[
        Need::PlainErm {
            why: "DP-AccMD's noise is calibrated to a mean of per-sample gradients (tilted or robust losses run under output perturbation)",
        },
        Need::SmoothLoss {
            why: "DP-AccMD's step sizes come from the loss's smoothness",
        },
        Need::Domains {
            allowed: &[DomainChoice::L2Ball, DomainChoice::L1Ball],
            why: "DP-AccMD's mirror maps are for these",
        },
        Need::NoLasso {
            why: "DP-AccMD handles smooth objectives; constrain with the ℓ1 ball instead",
        },
    ],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::OnClippedData,
    length: RunLength::Fixed,
    plan,
};

/// DP-AccMD's plan: its declared inputs, calibrated as DP-GD's.
struct AccMdPlan {
    accmd: DpAccMdConfig,
}

fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    let geometry = match declared.domain {
        DomainKind::L2Ball { radius } => Geometry::L2 { radius },
        DomainKind::L1Ball { radius } => Geometry::L1 { radius },
        other => {
            // The menu's name of the set (`DomainChoice`'s), as the page's value.
            let name = match other {
                DomainKind::Box { .. } => "Box".to_string(),
                DomainKind::Simplex => "Simplex".to_string(),
                DomainKind::Unconstrained => "Unconstrained".to_string(),
                other => format!("{other:?}"),
            };
            return Err(Error::invalid(
                "domain",
                "the ℓ2 or ℓ1 ball for DP-AccMD (its mirror maps are for these)",
                name,
            ));
        }
    };
    let accmd = DpAccMdConfig {
        epsilon: settings.budget.epsilon,
        delta: settings.budget.delta,
        relation: settings.budget.relation,
        steps: settings.steps,
        lipschitz: declared.lipschitz(),
        smoothness: declared.smoothness(),
        n: declared.n,
        geometry,
        leak: if settings.leak {
            AccMdLeak::ExactGradientYStep
        } else {
            AccMdLeak::None
        },
    };
    let (sigma, guarantee) = accmd.calibrate()?;
    let preview = Preview::new(
        AlgorithmKind::DpAccmd,
        "DP-AccMD (Wang–Ye–Xu 2017, Algorithm 3; corrected coupling)",
        guarantee,
        (
            sigma,
            NoiseShape::Gaussian {
                sigma,
                d: declared.d,
            },
        ),
        settings.steps,
        accmd.calibration().sensitivity(),
        declared.lipschitz(),
    )
    .leaking([accmd.leak.describe()]);
    Ok(Planned::new(preview, AccMdPlan { accmd }))
}

impl Plan for AccMdPlan {
    /// Theorem 5.3 (eqs 71–76) with the noise term written out, for smooth F.
    fn theory(&self, posed: &Posed, preview: &Preview) -> Option<Curve> {
        let problem = posed.min().ok()?;
        let (beta, d) = (problem.declared.smoothness(), problem.declared.d);
        if !beta.is_finite() {
            return None;
        }
        let l_c = self.accmd.geometry.smoothness_in_norm(beta);
        // B_w(x*, x₀) in the normalised geometry: ½ (ℓ2 ball) or ln 2d (entropy from uniform).
        let bregman = match self.accmd.geometry {
            Geometry::L2 { .. } => 0.5,
            Geometry::L1 { .. } => (2.0 * d as f64).ln(),
        };
        let noise_sq = noise_dual_norm_sq(self.accmd.geometry, d, preview.sigma).ok()?;
        Curve::over_steps(
            self.accmd.steps,
            |t| gradient_perturbation::dp_accmd_bound(t, l_c, bregman, noise_sq),
            "Wang, Ye & Xu 2017, Theorem 5.3 (eqs 71–76) with the noise term written out",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let accmd = DpAccMd::new(self.accmd, &problem.objective, noise, seeded)?;
        Ok(MinRun::on(problem, accmd))
    }
}

/// E‖b‖²_{C*} for b ~ N(0, σ²I_d), in the dual of the geometry's norm (what the noise term of
/// DP-AccMD's bound carries): ρ²dσ² for the ℓ2 ball of radius ρ (‖v‖_{C*} = ρ‖v‖₂), and
/// R²σ²·E max_j g_j² for the ℓ1 ball of radius R (the lift's dual norm is R‖v‖_∞). The ratio of
/// the two, d / E max g² ≈ d/(2 ln 2d), is the Gaussian-width gain of Table 3.
pub fn noise_dual_norm_sq(geometry: Geometry, d: usize, sigma: f64) -> Result<f64> {
    if !(sigma.is_finite() && sigma >= 0.0) {
        return Err(Error::invalid("sigma", "a finite number ≥ 0", sigma));
    }
    Ok(match geometry {
        Geometry::L2 { radius } => radius * radius * d as f64 * sigma * sigma,
        Geometry::L1 { radius } => {
            radius * radius * sigma * sigma * gradient_perturbation::expected_max_square(d)?
        }
    })
}

/// The T ≤ `max_steps` minimising [`dp_accmd_bound`](gradient_perturbation::dp_accmd_bound) when σ is calibrated for T releases:
/// `sigma_of(T)` gives σ (e.g. from [`crate::algo::noisy_gd::GdCalibration::calibrate`]). A scan,
/// since the bound is cheap and σ(T) comes from the caller's calibration.
pub fn dp_accmd_optimal_steps(
    max_steps: usize,
    l_c: f64,
    bregman: f64,
    geometry: Geometry,
    d: usize,
    sigma_of: impl Fn(usize) -> Result<f64>,
) -> Result<usize> {
    let per_sigma_sq = noise_dual_norm_sq(geometry, d, 1.0)?;
    let mut best = (f64::INFINITY, 1);
    for t in 1..=max_steps.max(1) {
        let s = sigma_of(t)?;
        let b = gradient_perturbation::dp_accmd_bound(t, l_c, bregman, per_sigma_sq * s * s)?;
        if b < best.0 {
            best = (b, t);
        }
    }
    Ok(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, clip_features, generate_classification};
    use crate::data::{Dataset, SparseSpec, generate_sparse};
    use crate::domain::{Domain, L1Ball, L2Ball};
    use crate::loss::{Glm, Loss, Regulariser};
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use crate::theory::gradient_perturbation::dp_accmd_bound;
    use std::sync::Arc;

    fn classification(n: usize, d: usize) -> Arc<Dataset> {
        let spec = ClassificationSpec {
            n,
            d,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(2, Stream::Data)).unwrap();
        clip_features(&mut data, 1.0);
        Arc::new(data)
    }

    fn objective(data: Arc<Dataset>, domain: Box<dyn Domain>) -> Objective {
        Objective::with_loss(
            data,
            Loss::erm(Glm::Logistic),
            Regulariser::ridge(0.0),
            domain,
            1.0,
        )
        .unwrap()
    }

    fn config(geometry: Geometry, steps: usize, n: usize) -> DpAccMdConfig {
        DpAccMdConfig {
            epsilon: 1.0,
            delta: 1e-5,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: 1.0,
            smoothness: 0.25,
            n,
            geometry,
            leak: AccMdLeak::None,
        }
    }

    fn run(alg: &mut DpAccMd, obj: &Objective) -> Vec<StepReport> {
        std::iter::from_fn(|| alg.step(obj)).collect()
    }

    #[test]
    fn without_noise_it_converges_to_the_reference_optimum_at_the_accelerated_rate() {
        // Noise off, both geometries. The proof's bound with σ = 0 is deterministic:
        // F(y_T) − F* ≤ 8 L_C B_w(x*, x₀)/(T+1)², with B = ‖x*‖²/(2ρ²) (ℓ2) and ≤ ln 2d (ℓ1).
        // It must hold at every T on the path, and at T = 4000 the run must reach the reference
        // optimum to 1e-6 (the bound there is ≤ 9/4001² ≈ 5.6e-7 for the ℓ2 ball, and for the
        // ℓ1 ball 8·0.25·4·ln 6/4001² ≈ 9e-7). The radii bind: ρ = 1 and R = 2 are smaller than
        // the unconstrained minimiser's norms, so the projection / lift is exercised.
        let data = classification(1000, 3);
        for geometry in [Geometry::L2 { radius: 1.0 }, Geometry::L1 { radius: 2.0 }] {
            let domain: Box<dyn Domain> = match geometry {
                Geometry::L2 { radius } => Box::new(L2Ball { radius }),
                Geometry::L1 { radius } => Box::new(L1Ball { radius }),
            };
            let obj = objective(data.clone(), domain);
            let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
            assert!(
                (obj.domain().radius()
                    - match geometry {
                        Geometry::L2 { .. } => norm2(&reference.w),
                        Geometry::L1 { .. } => reference.w.iter().map(|v| v.abs()).sum(),
                    })
                .abs()
                    < 1e-6,
                "the constraint should bind: {:?}",
                reference.w
            );
            let bregman = match geometry {
                Geometry::L2 { radius } => norm2(&reference.w).powi(2) / (2.0 * radius * radius),
                Geometry::L1 { .. } => (6.0f64).ln(),
            };
            let l_c = geometry.smoothness_in_norm(obj.smoothness());
            let mut alg = DpAccMd::new(
                DpAccMdConfig {
                    smoothness: obj.smoothness(),
                    ..config(geometry, 4000, 1000)
                },
                &obj,
                seeded(0, Stream::Noise),
                true,
            )
            .unwrap();
            alg.set_sigma_for_test(0.0);
            let mut steps = 0;
            while alg.step(&obj).is_some() {
                steps += 1;
                let t = steps as f64;
                let excess = obj.value(alg.current()) - reference.value;
                let bound = 8.0 * l_c * bregman / ((t + 1.0) * (t + 1.0));
                assert!(
                    excess <= bound + 1e-12,
                    "{geometry:?}, T = {t}: {excess} > {bound}"
                );
            }
            assert!(obj.domain().contains(alg.current(), 1e-12));
            let excess = obj.value(alg.current()) - reference.value;
            println!("{geometry:?}: excess {excess:e}");
            assert!(excess.abs() < 1e-6, "{geometry:?}: excess {excess}");
        }
    }

    #[test]
    fn calibration_matches_worked_test_vectors() {
        // Computed independently: n = 1e4, T = 100, ε = 1, δ = 1e-5, replace-one,
        // G = 1 ⇒ σ = 0.009801 (zCDP, the exact inversion). Wang, Ye & Xu 2017's
        // experiment size (n = 2e5, T = 1500, δ = 1e-3): 0.00725 / 0.00293 / 0.00149 at
        // ε = 0.2 / 0.5 / 1. σ depends on T and not on the geometry.
        let sigma = |n, steps, epsilon, delta, geometry| {
            DpAccMdConfig {
                epsilon,
                delta,
                ..config(geometry, steps, n)
            }
            .calibrate()
            .unwrap()
            .0
        };
        for g in [Geometry::L2 { radius: 1.0 }, Geometry::L1 { radius: 5.0 }] {
            let s = sigma(10_000, 100, 1.0, 1e-5, g);
            assert!((s - 0.009801).abs() < 5e-7, "{s}");
            for (eps, expected) in [(0.2, 0.00725), (0.5, 0.00293), (1.0, 0.00149)] {
                let s = sigma(200_000, 1500, eps, 1e-3, g);
                assert!((s / expected - 1.0).abs() < 5e-3, "ε = {eps}: {s}");
            }
        }
        // Add/remove halves the sensitivity, hence σ.
        let c = DpAccMdConfig {
            relation: Relation::AddRemove,
            ..config(Geometry::L2 { radius: 1.0 }, 100, 10_000)
        };
        assert!((c.calibrate().unwrap().0 - 0.009801 / 2.0).abs() < 5e-7);
    }

    #[test]
    fn noise_norms_and_privacy_spent_follow_the_calibration() {
        // ‖b‖²/σ² ~ χ²_d: over T = 3000 steps with d = 3 the mean of ‖b‖²/(dσ²) has sd
        // √(2/(dT)) ≈ 0.015; ±0.07 (4.6 sd) excludes a σ off by 4%. ε spent grows to exactly ε.
        let data = classification(1000, 3);
        let obj = objective(data, Box::new(L1Ball { radius: 2.0 }));
        let mut alg = DpAccMd::new(
            config(Geometry::L1 { radius: 2.0 }, 3000, 1000),
            &obj,
            seeded(5, Stream::Noise),
            true,
        )
        .unwrap();
        let sigma = alg.sigma();
        let reports = run(&mut alg, &obj);
        let ratio = reports.iter().map(|r| r.noise_norm.powi(2)).sum::<f64>()
            / (reports.len() as f64 * 3.0 * sigma * sigma);
        assert!((ratio - 1.0).abs() < 0.07, "ratio {ratio}");
        assert!(
            reports
                .windows(2)
                .all(|w| w[0].epsilon_spent < w[1].epsilon_spent)
        );
        assert!((reports.last().unwrap().epsilon_spent - 1.0).abs() < 1e-12);
        let ledger = alg.ledger();
        assert!(ledger.is_private());
        assert!(ledger.mechanism.contains("ℓ1 ball"));
        assert!(obj.domain().contains(alg.current(), 1e-12));
    }

    #[test]
    fn the_exact_gradient_y_step_is_marked_not_private() {
        let data = classification(1000, 3);
        let obj = objective(data, Box::new(L2Ball { radius: 1.0 }));
        let c = DpAccMdConfig {
            leak: AccMdLeak::ExactGradientYStep,
            ..config(Geometry::L2 { radius: 1.0 }, 5, 1000)
        };
        let mut alg = DpAccMd::new(c, &obj, seeded(0, Stream::Noise), true).unwrap();
        run(&mut alg, &obj);
        let ledger = alg.ledger();
        assert!(!ledger.is_private());
        assert!(ledger.leaks[0].starts_with("NOT PRIVATE"));
        // At T = 1 the leaky release is a deterministic function of the data (x₁ = z₀ = 0 is
        // public): two seeds give the same bits. The corrected coupling's does not.
        let once = |leak, seed| {
            let mut a = DpAccMd::new(
                DpAccMdConfig {
                    leak,
                    ..config(Geometry::L2 { radius: 1.0 }, 1, 1000)
                },
                &obj,
                seeded(seed, Stream::Noise),
                true,
            )
            .unwrap();
            run(&mut a, &obj);
            a.current().to_vec()
        };
        assert_eq!(
            once(AccMdLeak::ExactGradientYStep, 1),
            once(AccMdLeak::ExactGradientYStep, 2)
        );
        assert_ne!(once(AccMdLeak::None, 1), once(AccMdLeak::None, 2));
    }

    #[test]
    fn bad_configurations_are_refused() {
        let data = classification(100, 3);
        let obj = objective(data.clone(), Box::new(L2Ball { radius: 1.0 }));
        let make = |c: DpAccMdConfig, o: &Objective| {
            DpAccMd::new(c, o, seeded(0, Stream::Noise), true)
                .err()
                .map(|e| e.field().unwrap_or("(no field)").to_string())
        };
        let ok = config(Geometry::L2 { radius: 1.0 }, 10, 100);
        assert_eq!(make(ok, &obj), None);
        // Geometry must match the objective's domain, in kind and in radius.
        assert_eq!(
            make(
                DpAccMdConfig {
                    geometry: Geometry::L1 { radius: 1.0 },
                    ..ok
                },
                &obj
            )
            .as_deref(),
            Some("geometry")
        );
        assert_eq!(
            make(
                DpAccMdConfig {
                    geometry: Geometry::L2 { radius: 2.0 },
                    ..ok
                },
                &obj
            )
            .as_deref(),
            Some("geometry")
        );
        assert_eq!(
            make(DpAccMdConfig { steps: 0, ..ok }, &obj).as_deref(),
            Some("steps")
        );
        assert_eq!(
            make(
                DpAccMdConfig {
                    smoothness: f64::INFINITY,
                    ..ok
                },
                &obj
            )
            .as_deref(),
            Some("smoothness")
        );
        let lasso = Objective::with_loss(
            data,
            Loss::erm(Glm::Logistic),
            Regulariser {
                l1: 0.1,
                ..Regulariser::ridge(0.0)
            },
            Box::new(L2Ball { radius: 1.0 }),
            1.0,
        )
        .unwrap();
        assert_eq!(make(ok, &lasso).as_deref(), Some("regularizer"));
        // Replace-one with a dataset of another size is no neighbour.
        assert_eq!(
            make(DpAccMdConfig { n: 99, ..ok }, &obj).as_deref(),
            Some("(no field)")
        );
    }

    #[test]
    fn mean_excess_risk_is_within_the_explicit_bound_and_l1_geometry_wins_in_high_dimension() {
        // High-dimensional mode: n = 200, p = 1000, s = 5. Same data, same ε, same T, the two
        // geometries over balls of the same radius 1 (w₀ sits on the ℓ1 ball). The ℓ1 ball's
        // noise term carries E max_j g_j² ≈ 2 ln 2p ≈ 15 where the ℓ2 ball's carries p = 1000,
        // so the entropic run must be clearly better (measured: 3.5e-3 against 3.4e-2, ratio
        // 0.10; asserted < 0.25); and each mean over 10 seeds must be within its explicit bound
        // (eq 76 with the noise term summed, see the module docs). At this n and ε the bound is
        // loose (4.9 and 406: it ignores that F varies by at most 2 over a unit ball), so that
        // assertion only guards against a bound that is wrong by orders of magnitude.
        let spec = SparseSpec {
            n: 200,
            p: 1000,
            sparsity: 5,
            signal: 3.0,
        };
        let (mut data, _) = generate_sparse(&spec, &mut seeded(3, Stream::Data)).unwrap();
        clip_features(&mut data, 1.0);
        let data = Arc::new(data);
        let mut means = Vec::new();
        for geometry in [Geometry::L1 { radius: 1.0 }, Geometry::L2 { radius: 1.0 }] {
            let domain: Box<dyn Domain> = match geometry {
                Geometry::L2 { radius } => Box::new(L2Ball { radius }),
                Geometry::L1 { radius } => Box::new(L1Ball { radius }),
            };
            let obj = objective(data.clone(), domain);
            let reference = reference::solve(&obj, 1e-9, 100_000).unwrap();
            let c = DpAccMdConfig {
                epsilon: 2.0,
                smoothness: obj.smoothness(),
                ..config(geometry, 30, 200)
            };
            let mut sigma = 0.0;
            let mean = (0..10)
                .map(|seed| {
                    let mut alg = DpAccMd::new(c, &obj, seeded(seed, Stream::Noise), true).unwrap();
                    sigma = alg.sigma();
                    run(&mut alg, &obj);
                    obj.value(alg.current()) - reference.value
                })
                .sum::<f64>()
                / 10.0;
            let bregman = match geometry {
                Geometry::L2 { .. } => 0.5,
                Geometry::L1 { .. } => (2000.0f64).ln(),
            };
            let bound = dp_accmd_bound(
                30,
                geometry.smoothness_in_norm(obj.smoothness()),
                bregman,
                noise_dual_norm_sq(geometry, 1000, sigma).unwrap(),
            )
            .unwrap();
            println!("{geometry:?}: mean excess {mean:e}, bound {bound:e}, σ = {sigma:e}");
            assert!(mean <= bound, "{geometry:?}: {mean} > {bound}");
            means.push(mean);
        }
        assert!(means[0] < 0.25 * means[1], "{means:?}");
    }

    #[test]
    fn the_sparse_generator_plants_a_unit_l1_w0() {
        let spec = SparseSpec {
            n: 50,
            p: 400,
            sparsity: 4,
            signal: 2.0,
        };
        let (data, w0) = generate_sparse(&spec, &mut seeded(1, Stream::Data)).unwrap();
        assert_eq!((data.n(), data.d()), (50, 400));
        assert_eq!(w0.iter().filter(|v| **v != 0.0).count(), 4);
        assert!((w0.iter().map(|v| v.abs()).sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(
            generate_sparse(
                &SparseSpec {
                    sparsity: 401,
                    ..spec
                },
                &mut seeded(1, Stream::Data)
            )
            .is_err()
        );
    }

    // The bound of theory::gradient_perturbation against the algorithm it bounds (here, since
    // theory stays below the algorithms).
    #[test]
    fn accmd_bound_has_the_accelerated_rate_and_an_interior_optimum() {
        use crate::algo::dp_accmd::{Geometry, dp_accmd_optimal_steps, noise_dual_norm_sq};
        use crate::theory::gradient_perturbation::dp_accmd_bound;
        // Noise-free: 8·L_C·B/(T+1)², exactly 1/4 of the T = 1 value at T = 3.
        let b = |t| dp_accmd_bound(t, 2.0, 0.5, 0.0).unwrap();
        assert!((b(3) - b(1) / 4.0).abs() < 1e-15);
        // The noise term: Σ_{k=1}^{1}(k+1)² = 4, so T = 1 adds 4·E‖b‖²/(2L_C·4).
        assert!((dp_accmd_bound(1, 2.0, 0.0, 3.0).unwrap() - 3.0 / 4.0).abs() < 1e-15);
        // With σ² ∝ T (zCDP, replace-one, n = 1000, ε = 1), the best T is interior and is a
        // minimum of the scanned curve; ℓ1 in d = 1000 affords more steps than ℓ2.
        let sigma_of = |t: usize| {
            crate::algo::noisy_gd::GdCalibration {
                epsilon: 1.0,
                delta: 1e-5,
                relation: crate::privacy::Relation::ReplaceOne,
                steps: t,
                lipschitz: 1.0,
                n: 1000,
            }
            .calibrate()
            .map(|c| c.0)
        };
        let (g1, g2) = (Geometry::L1 { radius: 1.0 }, Geometry::L2 { radius: 1.0 });
        let t1 = dp_accmd_optimal_steps(500, 0.25, (2000.0f64).ln(), g1, 1000, sigma_of).unwrap();
        let t2 = dp_accmd_optimal_steps(500, 0.25, 0.5, g2, 1000, sigma_of).unwrap();
        assert!(t1 > 1 && t1 < 500 && t2 >= 1 && t1 > t2, "{t1}, {t2}");
        let curve = |t: usize| {
            let s = sigma_of(t).unwrap();
            dp_accmd_bound(
                t,
                0.25,
                (2000.0f64).ln(),
                noise_dual_norm_sq(g1, 1000, s).unwrap(),
            )
            .unwrap()
        };
        assert!(curve(t1) <= curve(t1 - 1) && curve(t1) <= curve(t1 + 1));
        assert!(
            noise_dual_norm_sq(g2, 1000, 0.1).unwrap()
                > 50.0 * noise_dual_norm_sq(g1, 1000, 0.1).unwrap()
        );
    }
}
