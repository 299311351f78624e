//! The private algorithms. Each states its [`Guarantee`] from the configuration alone before it
//! touches data, then runs in steps; only its final release is private.

#![deny(missing_docs)]

pub mod choices;
pub mod extras;
pub mod family;
pub mod kinds;
pub mod problem;
pub mod registry;
pub mod route;
pub mod run;
pub mod settings;

// The one declaration of every algorithm, in menu order: each line declares the family's module
// (on its first line), its `AlgorithmKind` variant and its registry entry (see `kinds.rs`).
kinds::algorithms! {
    /// DP-GD, Wang, Ye & Xu 2017, Algorithm 4 (see [`crate::algo::noisy_gd`]).
    [mod noisy_gd] NoisyGd => noisy_gd::FAMILY,
    /// DP-SGD with per-sample clipping and Poisson subsampling (see [`crate::algo::dp_sgd`]).
    [mod dp_sgd] DpSgd => dp_sgd::FAMILY,
    /// DP-SVRG, Wang, Ye & Xu 2017, Algorithm 1 (see [`crate::algo::dp_svrg`]); needs a ridge `l2` > 0.
    [mod dp_svrg] DpSvrg => dp_svrg::FAMILY,
    /// DP-SVRG++, Wang, Ye & Xu 2017, Algorithm 2.
    DpSvrgPlusPlus => dp_svrg::FAMILY_PLUS_PLUS,
    /// DP-AccMD, Wang, Ye & Xu 2017, Algorithm 3 with the corrected coupling, over the ℓ2 or ℓ1 ball.
    [mod dp_accmd] DpAccmd => dp_accmd::FAMILY,
    /// Objective perturbation (Chaudhuri–Monteleoni–Sarwate 2011), the diffprivlib baseline.
    [mod objective_perturbation] ObjectivePerturbation => objective_perturbation::FAMILY,
    /// Output perturbation, Lowy & Razaviyayn 2021, Algorithm 1 with a certified base solver (see
    /// [`crate::algo::output_perturbation`]); needs a ridge `l2` > 0.
    [mod output_perturbation] OutputPerturbation => output_perturbation::FAMILY,
    /// Regularised output perturbation for merely convex objectives, Lowy & Razaviyayn 2021, Algorithm 6.
    RegularisedOutputPerturbation => output_perturbation::FAMILY_REGULARISED,
    /// Zhang et al. 2022, Algorithm 1: output perturbation with a swappable certified solver.
    [mod byoa] Byoa => byoa::FAMILY,
    /// Zhang et al. 2022, Algorithm 2: phased output perturbation on disjoint chunks.
    ByoaPhased => byoa::FAMILY_PHASED,
    /// The exponential mechanism on a grid (Lowy & Razaviyayn 2021, Algorithm 9), d ≤ 2.
    [mod exponential_grid] ExponentialGrid => exponential_grid::FAMILY,
    /// Localisation, Lowy & Razaviyayn 2021, Algorithm 10 (see [`crate::algo::localisation`]).
    [mod localisation] Localisation => localisation::FAMILY_LOCALISATION,
    /// Exponential sampling + localisation on a grid, Lowy & Razaviyayn 2021, Algorithm 11, d ≤ 2.
    LocalisedExponential => localisation::FAMILY_SAMPLING,
    /// Private stochastic mirror descent with vertex sampling, González, Guzmán & Paquette 2024, Algorithm 1 (see
    /// [`crate::algo::smd`]); a saddle problem on simplices.
    [mod smd] PrivateSmd => smd::family::FAMILY,
    /// Non-private stochastic mirror descent: González, Guzmán & Paquette 2024's baseline.
    SmdBaseline => smd::family::FAMILY_BASELINE,
    /// González, Guzmán & Paquette 2024, Algorithm 3: private SMD with the bias-reduced gradient, stopped by a privacy
    /// filter.
    BiasReducedSmd => smd::family::FAMILY_BIAS_REDUCED,
    /// González, Guzmán & Paquette 2024, Algorithm 4: Algorithm 3 boosted to high probability, a candidate chosen by the
    /// exponential mechanism (see [`crate::algo::smd::boosted`]).
    BoostedSmd => smd::boosted::FAMILY,
    /// González, Guzmán & Paquette 2024, Algorithm 5: DP-SCO on the simplex by private SMD with anytime online-to-batch.
    PrivateSco => smd::family::FAMILY_SCO,
    /// Localized Double Output Perturbation, Lowy 2026 Algorithms 1 and 4 (pure ε, heavy tails;
    /// see [`crate::algo::heavy_tails`]).
    #[serde(rename = "localized_double_output_perturbation")]
    [mod heavy_tails] LocalisedDoubleOutputPerturbation => heavy_tails::FAMILY_LOCALISED,
    /// Localized output perturbation, Lowy 2026 Algorithms 1 and 2 (OutputPert-Localize in every
    /// call; see [`crate::algo::heavy_tails::output_pert_localise`]).
    #[serde(rename = "localized_output_perturbation")]
    LocalisedOutputPerturbation => heavy_tails::FAMILY_OUTPUT_PERT_LOCALISE,
    /// The pure-ε noisy clipped GD baseline of Lowy 2026's lesson (ε/T per step).
    PureClippedGd => heavy_tails::FAMILY_CLIPPED_GD,
    /// Single-stage output perturbation on the Lipschitz extension (Lowy 2026).
    OutputPerturbationLipschitzExtension => heavy_tails::FAMILY_SINGLE_STAGE,
    /// EM-PGM, Lowy 2026 Algorithm 5, on a grid for d ≤ 2 (see [`crate::algo::heavy_tails::em_pgm`]).
    EmPgm => heavy_tails::FAMILY_EM_PGM,
    /// The localised approximate exponential mechanism, Lowy 2026 Algorithms 6–7, on a grid for
    /// d ≤ 2 (see [`crate::algo::heavy_tails::approx_em`]).
    #[serde(rename = "localized_approx_em")]
    LocalisedApproxEm => heavy_tails::FAMILY_APPROX_EM,
    /// Lowy 2026 Theorem D.4: Algorithms 1 and 4 for polyhedral losses with Lemma D.5's
    /// deterministic solver (see [`crate::algo::heavy_tails::deterministic`]).
    DeterministicDoubleOutputPerturbation => heavy_tails::FAMILY_DETERMINISTIC,
    /// Zhang et al. 2022, Algorithm 3: SC-SC minimax output perturbation (see
    /// [`crate::algo::byoa_minimax`]); needs μₓ, μᵧ > 0.
    [mod byoa_minimax] ByoaMinimax => byoa_minimax::FAMILY_SC_SC,
    /// Zhang et al. 2022, Algorithms 4 + 5: phased convex–concave minimax output perturbation.
    ByoaMinimaxPhased => byoa_minimax::FAMILY_PHASED,
    /// Zhang et al. 2022, Section 4.3: the convex–strongly-concave variant of Algorithm 4; needs μᵧ > 0.
    ByoaMinimaxCsc => byoa_minimax::FAMILY_CSC,
    /// Lowy & Razaviyayn 2021, Algorithm 8: black-box adversarial training through a certified saddle solver
    /// (see [`crate::algo::adversarial_training`]); needs μₓ, μᵧ > 0.
    [mod adversarial_training] AdversarialTraining => adversarial_training::FAMILY,
}

use serde::Serialize;

use crate::objective::Objective;
use crate::privacy::{Guarantee, Ledger};

/// The law of one noise draw, in the units the run reports its noise norms in (the page's noise
/// plot reads it back to draw the density of ‖z‖).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NoiseShape {
    /// Per-coordinate Gaussian, ‖z‖ ~ σ·χ_d.
    Gaussian {
        /// σ, the standard deviation of each coordinate, > 0.
        sigma: f64,
        /// Coordinates per draw: the dimension of the vector it perturbs.
        d: usize,
    },
    /// ℓ2-Laplace, ‖z‖ ~ Gamma(d, scale).
    L2Laplace {
        /// b of the density ∝ exp(−‖z‖₂/b), > 0 (E‖z‖ = d·b).
        scale: f64,
        /// Coordinates per draw: the dimension of the vector it perturbs.
        d: usize,
    },
    /// No additive noise (the exponential mechanism samples instead).
    #[default]
    None,
}

impl NoiseShape {
    /// The scale of one draw: σ per coordinate, or the ℓ2-Laplace scale; `None` without noise.
    pub fn scale(&self) -> Option<f64> {
        match *self {
            NoiseShape::Gaussian { sigma, .. } => Some(sigma),
            NoiseShape::L2Laplace { scale, .. } => Some(scale),
            NoiseShape::None => None,
        }
    }
}

/// `count` identical noise draws of law `noise`, each calibrated to the ℓ2-sensitivity
/// `sensitivity` (for the exponential mechanism: its utility's sensitivity). A run's whole noise
/// law is a list of these, in the order they are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Draws {
    /// The law of each draw: kind, scale and dimension.
    pub noise: NoiseShape,
    /// How many draws of this law: T for a per-step noise, 1 for a single release.
    pub count: usize,
    /// ℓ2-sensitivity Δ₂ each draw covers, in the units of its scale (exponential mechanism: Δu).
    pub sensitivity: f64,
}

/// Whether two noise laws agree: same kinds, dimensions and counts, scales and sensitivities
/// equal up to a relative 1e-12 (the preview and the algorithm may compute the same formula in a
/// different order; any real calibration difference, such as a factor 2, is far larger).
pub fn same_law(a: &[Draws], b: &[Draws]) -> bool {
    let close = |x: f64, y: f64| x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs());
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.count == b.count
                && close(a.sensitivity, b.sensitivity)
                && match (a.noise, b.noise) {
                    (
                        NoiseShape::Gaussian { sigma: s, d },
                        NoiseShape::Gaussian { sigma: t, d: e },
                    )
                    | (
                        NoiseShape::L2Laplace { scale: s, d },
                        NoiseShape::L2Laplace { scale: t, d: e },
                    ) => d == e && close(s, t),
                    (NoiseShape::None, NoiseShape::None) => true,
                    _ => false,
                }
        })
}

/// What one step did; all of it is computed from the private data and is **not private**. Which
/// iterate it started from is the driver's count ([`run::RunState::steps_taken`]), not the
/// family's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Gradient evaluations used so far, counted in per-sample gradients / n (i.e. in full passes).
    pub grad_evals: f64,
    /// F at the iterate the step started from. Stochastic algorithms (DP-SGD) report the
    /// minibatch estimate instead, since a full pass per step would cost n/b steps' work.
    pub loss: f64,
    /// ‖noise‖₂ added in this step, in the units of the gradient it perturbs.
    pub noise_norm: f64,
    /// ‖∇F‖₂ at the iterate the step started from (DP-SGD: of the clipped minibatch gradient,
    /// before noise).
    pub grad_norm: f64,
    /// ε (at the run's δ) of everything released so far: the privacy spent after this step.
    /// Computed from the configuration alone, like the guarantee it ends at.
    pub epsilon_spent: f64,
    /// Whether this step was the run's last: the family's own stop decision (its planned steps
    /// taken, a certificate met, a privacy filter or gradient budget spent, a failure). The
    /// session records it in its [`run::RunState`]; the family's release is due from then on.
    pub done: bool,
}

/// A differentially private optimiser, advanced one step at a time by a session.
pub trait PrivateAlgorithm: Send {
    /// The guarantee of the release, fixed at construction from the configuration alone.
    fn guarantee(&self) -> &Guarantee;
    /// The guarantee with the mechanism and every caveat it depends on.
    fn ledger(&self) -> Ledger;
    /// Performs one step and reports it, its last with [`StepReport::done`]; returns `None` once
    /// the algorithm has finished. Whoever drives the run keeps the count of steps and whether it
    /// is done ([`run::RunState`]); the family keeps only what its next step needs.
    fn step(&mut self, objective: &Objective) -> Option<StepReport>;
    /// The current iterate: **non-private**, and never what is published (that is
    /// [`PrivateAlgorithm::release`]). The family holds it because its next step starts from it;
    /// nothing copies it outward.
    fn current(&self) -> &[f64];
    /// The release once done, made only through its noise ([`crate::privacy::release`]); a
    /// non-private demonstration's point as
    /// [`crate::privacy::release::Published::NotPrivate`]; `None` before.
    fn release(&self) -> Option<crate::privacy::release::Published>;
    /// Every noise draw the run makes (kind, scale, count, sensitivity), read from the values the
    /// algorithm samples with; `Session` checks it equals the preview's before the run.
    fn draws(&self) -> Vec<Draws>;
    /// Gradient evaluations used so far, in full passes over the data.
    fn grad_evals(&self) -> f64;
    /// For algorithms that release only after an accuracy certificate (output perturbation): the
    /// latest certificate value against its threshold. **Non-private** (computed from the data).
    fn certificate(&self) -> Option<CertificateStatus> {
        None
    }
    /// The algorithm's per-family views where it stands, by name (see [`extras`]); none for
    /// most. **Non-private**.
    fn extras(&self) -> extras::Extras<'_> {
        extras::Extras::none()
    }
}

/// Where an accuracy certificate stands (non-private: it is computed from the data).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CertificateStatus {
    /// Certified upper bound on ‖w − w*‖ at the latest check.
    pub bound: f64,
    /// The bound the release needs (√(2α/μ) for Lowy & Razaviyayn 2021, Algorithm 1).
    pub threshold: f64,
    /// ℓ2 sensitivity the noise is calibrated to (Δ_T), fixed from the configuration.
    pub sensitivity: f64,
    /// Whether the certificate held and the release happened.
    pub met: bool,
}

impl CertificateStatus {
    /// The status as named values, the form every run's diagnostics travel in.
    pub fn diagnostics(&self) -> [run::Diagnostic; 4] {
        let named = |name, value| run::Diagnostic { name, value };
        [
            named("certificate_bound", self.bound),
            named("certificate_threshold", self.threshold),
            named("certificate_sensitivity", self.sensitivity),
            named("certificate_met", if self.met { 1.0 } else { 0.0 }),
        ]
    }
}
