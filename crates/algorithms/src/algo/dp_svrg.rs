//! DP-SVRG and DP-SVRG++ (Wang, Ye & Xu 2017, Algorithms 1 and 2): variance-reduced noisy proximal SGD,
//! with two noise modes the page toggles between.
//!
//! # Algorithm
//! Wang, Ye & Xu 2017, Algorithms 1 and 2, with the
//! mini-batch generalisation of Wang, Ye & Xu 2017 (b = 1 is the paper):
//!
//! for s = 1..T: x̃ = snapshot; ṽ = ∇F(x̃) (exact, **never released**); start point x₀;
//!   for t = 1..m_s: S ~ Poisson(q = b/n); u ~ N(0, σ²I);
//!     v = (1/b) Σ_{i∈S} [∇f(x_{t−1}; zᵢ) − ∇f(x̃; zᵢ)] + ṽ + u;  x_t = P_W(prox_{ηr}(x_{t−1} − ηv));
//!   x̃_s = (1/m_s) Σ_t x_t.  Release x̃_T (the epoch average).
//!
//! - DP-SVRG: m_s = m, x₀ = x̃_{s−1}; N = T·m noisy releases. Needs μ > 0.
//! - DP-SVRG++: m_s = 2^s·m, x₀ = the previous epoch's **last** iterate, snapshot x̃_{s−1};
//!   N = m(2^{T+1} − 2) (the exact count; the paper's "2^T m" is not it).
//!
//! Choices written down here: both noise modes sample Poisson batches (the paper's one uniform
//! index is not what the certified accountant covers; using the same sampler in both modes makes
//! the toggle change σ and nothing else). The data term's gradient is used for v; the
//! regulariser r = λ₁‖·‖₁ + (λ₂/2)‖·‖² enters through its prox (exact), then the projection onto
//! W (exact for W = R^d, or for ridge on an ℓ2 ball; otherwise an approximation of the joint
//! prox, which changes no privacy property: it is post-processing).
//!
//! # Noise modes ([`SvrgNoise`])
//! - **As printed** (c-form, NOT a certificate): σ² = c·G²·N·ln(1/δ)/(n²ε²), default c = 8
//!   (Wang, Ye & Xu 2017). Theorems 4.1/4.3 hold only for ε ≤ c₁N/n² with an unknown c₁, and with a
//!   fixed c the form fails above ε ≈ 0.5·ln(1/δ), so such ε are refused. The
//!   run's ledger carries a leak: it does not deliver the stated (ε, δ).
//! - **Certified**: add/remove, each inner step is PoissonSampled(q, Gauss(σ₁/Δ₁)) ⊗ Gauss(σ₂/Δ₂)
//!   with Δ₁ = 2G/b (‖∇f(x) − ∇f(x̃)‖ ≤ 2G), Δ₂ = G/n (the re-released anchor),
//!   σ₁² = θσ², σ₂² = (1 − θ)σ², composed N times in RDP by the privacy layer's accountant, θ
//!   chosen on a grid (Wang, Ye & Xu 2017). Against an independent PLD accountant this RDP
//!   accountant is 1.6–3.4× loose in σ at batch 1; it is valid, just pessimistic.
//!
//! # Assumptions
//! f(·; z) convex, G-Lipschitz (features clipped to the declared bound) and β-smooth; for
//! DP-SVRG F^r is μ-strongly convex with μ > 0 (checked). Presets ([`SvrgPreset`]): "theory"
//! η = 1/(48β), m = ⌈192κ⌉ + 1 for DP-SVRG (the printed η ≤ 1/(12β) cannot meet
//! condition (4)); η = 1/(13β) for DP-SVRG++ (Thm 4.4); "practical" η = 0.1/β with m = 2n
//! (DP-SVRG) or m = n/4 (DP-SVRG++); or free.
//!
//! # Privacy
//! See the noise modes. σ is fixed before the run from the configuration (N counted exactly);
//! ṽ is never exposed (reports show F at the snapshot and ‖v − u‖, both labelled non-private).
//! The leaky toggle [`SvrgLeak::BbStepFromExactGradients`] reproduces the step-size rule of the
//! paper's experiments (SVRG-BB from the exact anchors): its ledger says NOT PRIVATE and the
//! audit catches it (`tests/algorithms/privacy_audit.rs`).
//!
//! # Utility
//! DP-SVRG (eqs 39, 41): E F^r(x̃_T) − F^r* ≤ A^T·gap + σ²d/β with A of eq (4) < 1/2
//! ([`crate::theory::gradient_perturbation::dp_svrg_bound`]). DP-SVRG++ (eq 57):
//! ≤ gap/2^{T−1} + 3‖x̃₀ − x*‖²/(4ηm2^T) + σ²d/(4β).
//!
//! # Reference
//! Wang, Ye & Xu 2017, Algorithms 1–2, Theorems 4.1–4.4, eqs (3), (4), (6),
//! (39), (41), (57).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::objective::Objective;
use crate::privacy::rdp::{DEFAULT_ORDERS, RdpAccountant, subsampled_gaussian_rdp_curve};
use crate::privacy::release::{Finished, Law, Published, Trail};
use crate::privacy::{
    ApproxDp, Guarantee, Ledger, PrivacyLoss, Rdp, Relation, add_remove_target_for_replace_one,
    check_delta, check_epsilon, replace_one_by_group_privacy,
};
use crate::rng::DpRng;

use super::dp_sgd::{EpsilonSchedule, poisson_batch};
use super::{Draws, NoiseShape, PrivateAlgorithm, StepReport};

use super::family::{
    Demonstration, Family, MINIMISATION, Need, Plan, Preview, Purity, RunLength, SettingUse,
    card_text, setting,
};
use super::registry::Planned;
use super::run::{MinRun, Run};
use crate::algo::choices::SvrgNoiseChoice;
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings;
use crate::controls::Control;

/// Which of the paper's two algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SvrgVariant {
    /// Algorithm 1 (strongly convex F^r).
    Svrg,
    /// Algorithm 2 (convex F^r), doubling epochs.
    SvrgPlusPlus,
}

/// How σ is set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum SvrgNoise {
    /// σ² = c·G²·N·ln(1/δ)/(n²ε²) as printed (not a certificate).
    AsPrinted {
        /// The unspecified constant c (default 8, its small-ε limit).
        c: f64,
    },
    /// σ from the privacy layer's RDP accountant (add/remove).
    Certified,
}

impl SvrgNoise {
    /// One sentence for the page.
    pub fn describe(self) -> &'static str {
        match self {
            SvrgNoise::AsPrinted { .. } => {
                "As printed: the paper's σ formula with a constant c that the paper never fixes; \
                 it reproduces the paper's speed but is not a privacy certificate."
            }
            SvrgNoise::Certified => {
                "Certified: σ is the smallest noise our accountant proves (ε, δ)-DP for these \
                 releases, usually far larger than the printed formula at batch size 1."
            }
        }
    }

    /// The "not certified" badge of the as-printed mode (the preview and the ledger both show it).
    pub fn leak(self) -> Option<&'static str> {
        match self {
            SvrgNoise::AsPrinted { .. } => Some(
                "NOT CERTIFIED: σ from the paper's formula with a guessed constant c; at these \
                 parameters the accountant needs more noise for the stated (ε, δ)",
            ),
            SvrgNoise::Certified => None,
        }
    }
}

/// Step-size and epoch-length presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SvrgPreset {
    /// The corrected theory choices (see the module docs).
    Theory,
    /// Common practice: η = 0.1/β, m = 2n (SVRG) or n/4 (SVRG++).
    Practical,
}

/// Leaky demonstration toggle. Any leak makes the run **not private**.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SvrgLeak {
    /// The correct mechanism: fixed η.
    #[default]
    None,
    /// The paper's experiments' SVRG-BB step (Tan et al. 2016), from epoch 2 on
    /// η_s = ‖x̃_s − x̃_{s−1}‖² / (m_s ⟨x̃_s − x̃_{s−1}, ∇F(x̃_s) − ∇F(x̃_{s−1})⟩), computed from the
    /// **exact** anchors ∇F(x̃), which the accountant never charges.
    BbStepFromExactGradients,
}

impl SvrgLeak {
    /// One sentence for the "not DP" badge.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            SvrgLeak::None => None,
            SvrgLeak::BbStepFromExactGradients => Some(
                "NOT PRIVATE: the SVRG-BB step size is computed from exact full gradients, which \
                 the accountant never charges, so the step size itself reveals the data",
            ),
        }
    }
}

/// The declared inputs of DP-SVRG / DP-SVRG++.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DpSvrgConfig {
    /// DP-SVRG or DP-SVRG++.
    pub variant: SvrgVariant,
    /// As printed (not a certificate) or certified.
    pub noise: SvrgNoise,
    /// Target ε.
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// Declared per-sample Lipschitz constant G.
    pub lipschitz: f64,
    /// Number of records (public).
    pub n: usize,
    /// Epochs T.
    pub epochs: usize,
    /// Epoch length m (DP-SVRG++: the base length, epoch s has 2^s·m steps).
    pub epoch_length: usize,
    /// Step size η.
    pub step_size: f64,
    /// Expected batch size b (Poisson rate b/n); 1 is the paper.
    pub batch_size: usize,
    /// Leaky demonstration toggle (default: none).
    #[serde(default)]
    pub leak: SvrgLeak,
}

impl DpSvrgConfig {
    /// Sets η and m from a preset for smoothness β, strong convexity μ (DP-SVRG theory) and n.
    /// DP-SVRG++'s theory preset fixes η = 1/(13β) and keeps the given m (Thm 4.4's m = Θ(β)).
    pub fn with_preset(mut self, preset: SvrgPreset, beta: f64, mu: f64) -> Result<Self> {
        match (preset, self.variant) {
            (SvrgPreset::Theory, SvrgVariant::Svrg) => {
                let (eta, m) = crate::theory::gradient_perturbation::svrg_theory_preset(beta, mu)?;
                self.step_size = eta;
                self.epoch_length = m;
            }
            (SvrgPreset::Theory, SvrgVariant::SvrgPlusPlus) => {
                self.step_size = 1.0 / (13.0 * beta);
            }
            (SvrgPreset::Practical, v) => {
                self.step_size = 0.1 / beta;
                self.epoch_length = match v {
                    SvrgVariant::Svrg => 2 * self.n,
                    SvrgVariant::SvrgPlusPlus => (self.n / 4).max(1),
                };
            }
        }
        Ok(self)
    }

    /// N, the number of noisy gradient releases (Wang, Ye & Xu 2017).
    pub fn releases(&self) -> Result<u64> {
        let (t, m) = (self.epochs as u64, self.epoch_length as u64);
        let n = match self.variant {
            SvrgVariant::Svrg => t.checked_mul(m),
            SvrgVariant::SvrgPlusPlus => 1u64
                .checked_shl(self.epochs as u32 + 1)
                .filter(|_| self.epochs < 40)
                .and_then(|p| (p - 2).checked_mul(m)),
        };
        match n {
            Some(n) if n > 0 && n <= 1_000_000_000 => Ok(n),
            _ => Err(Error::invalid(
                "epochs",
                "lower it, or raise the batch b: T passes of m steps must make between 1 and 10⁹ \
                 noisy steps in all",
                format!("T = {}, m = {}", self.epochs, self.epoch_length),
            )),
        }
    }

    fn check(&self) -> Result<()> {
        check_epsilon(self.epsilon)?;
        check_delta(self.delta)?;
        for (field, v) in [("lipschitz", self.lipschitz), ("step_size", self.step_size)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(field, "a finite number > 0", v));
            }
        }
        if self.n == 0 {
            return Err(Error::invalid("n", "at least 1 record", 0));
        }
        if self.batch_size == 0 || self.batch_size > self.n {
            return Err(Error::invalid(
                "batch_size",
                format!("an expected batch size in 1..={}", self.n),
                self.batch_size,
            ));
        }
        self.releases().map(|_| ())
    }

    /// (σ, θ, guarantee, per-step RDP curve if certified), from the configuration alone.
    fn calibrate(&self) -> Result<(f64, f64, Guarantee, Option<Vec<f64>>)> {
        self.check()?;
        let big_n = self.releases()?;
        let (n, g) = (self.n as f64, self.lipschitz);
        match self.noise {
            SvrgNoise::AsPrinted { c } => {
                if !(c.is_finite() && c > 0.0) {
                    return Err(Error::invalid("c", "a finite number > 0", c));
                }
                let ln = libm::log(1.0 / self.delta);
                if self.epsilon > 0.5 * ln {
                    return Err(Error::invalid(
                        "epsilon",
                        format!(
                            "ε ≤ 0.5·ln(1/δ) = {:.3} in the as-printed mode (Wang, Ye & Xu 2017 print σ with a constant c whose derivation fails above it)",
                            0.5 * ln
                        ),
                        self.epsilon,
                    ));
                }
                let sigma = libm::sqrt(c * g * g * big_n as f64 * ln) / (n * self.epsilon);
                let guarantee = Guarantee {
                    epsilon: self.epsilon,
                    delta: self.delta,
                    relation: Relation::ReplaceOne,
                    rho: None,
                    accounting: format!(
                        "as printed (Wang, Ye & Xu 2017, eq 3/6, c = {c}): an asymptotic formula, NOT a certificate; \
                         the theorem also needs ε ≤ c₁·N/n² = c₁·{:.2e}",
                        big_n as f64 / (n * n)
                    ),
                };
                Ok((sigma, 1.0, guarantee, None))
            }
            SvrgNoise::Certified => {
                let q = self.batch_size as f64 / n;
                let (d1, d2) = (2.0 * g / self.batch_size as f64, g / n);
                let eps_of = |sigma: f64, theta: f64| -> Result<f64> {
                    let mut acc = RdpAccountant::new();
                    acc.compose_poisson_subsampled_gaussian(
                        q,
                        libm::sqrt(theta) * sigma / d1,
                        big_n,
                    )?;
                    acc.compose_gaussian(libm::sqrt(1.0 - theta) * sigma / d2, big_n)?;
                    Ok(acc.epsilon(self.delta)?.0)
                };
                let mut best: Option<(f64, f64)> = None;
                for theta in [0.5, 0.7, 0.9, 0.98] {
                    // Bisection in ln σ to relative precision 1e-4, returning the upper end (which
                    // meets the target); ε is non-increasing in σ at every order.
                    let (mut lo, mut hi) = (1e-6 * d2, d1.max(d2));
                    while eps_of(hi, theta)? > self.epsilon {
                        hi *= 2.0;
                        if hi > 1e9 * d1 {
                            return Err(Error::invalid(
                                "epsilon",
                                "raise it: no bounded noise reaches so small an ε",
                                self.epsilon,
                            ));
                        }
                    }
                    while hi / lo - 1.0 > 1e-4 {
                        let mid = libm::sqrt(lo * hi);
                        if eps_of(mid, theta)? <= self.epsilon {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    if best.is_none_or(|(s, _)| hi < s) {
                        best = Some((hi, theta));
                    }
                }
                let (sigma, theta) = best.ok_or_else(|| {
                    Error::invalid("epsilon", "a target the θ grid can reach", self.epsilon)
                })?;
                let curve_1 = subsampled_gaussian_rdp_curve(
                    q,
                    libm::sqrt(theta) * sigma / d1,
                    &DEFAULT_ORDERS,
                );
                let z2 = libm::sqrt(1.0 - theta) * sigma / d2;
                let per_step: Vec<f64> = curve_1
                    .iter()
                    .zip(DEFAULT_ORDERS)
                    .map(|(r, a)| r + f64::from(a) / (2.0 * z2 * z2))
                    .collect();
                let mut acc = RdpAccountant::new();
                acc.compose_poisson_subsampled_gaussian(q, libm::sqrt(theta) * sigma / d1, big_n)?;
                acc.compose_gaussian(z2, big_n)?;
                let guarantee = acc.guarantee(
                    self.delta,
                    &format!(
                        "DP-SVRG certified: {big_n} steps of a Poisson-subsampled Gaussian (q = {q:.3e}) \
                         composed with the re-released anchor's Gaussian, σ = {sigma:.4e}, θ = {theta}"
                    ),
                )?;
                Ok((sigma, theta, guarantee, Some(per_step)))
            }
        }
    }
}

/// A checked, calibrated configuration (σ, θ, guarantee): everything privacy depends on, from the
/// configuration alone. Clone it to start many runs without re-running the bisection.
#[derive(Debug, Clone, PartialEq)]
pub struct DpSvrgCalibration {
    config: DpSvrgConfig,
    /// The relation the guarantee is stated for (the certified accountant itself is add/remove).
    relation: Relation,
    sigma: f64,
    theta: f64,
    guarantee: Guarantee,
    per_step: Option<Vec<f64>>,
}

impl DpSvrgCalibration {
    /// Checks and calibrates `config`.
    pub fn new(config: DpSvrgConfig) -> Result<Self> {
        let (sigma, theta, guarantee, per_step) = config.calibrate()?;
        let relation = guarantee.relation;
        Ok(Self {
            config,
            relation,
            sigma,
            theta,
            guarantee,
            per_step,
        })
    }

    /// Calibrates `config` for neighbours under `relation`, or refuses it at `relation`. The
    /// certified accountant is proved for add/remove; replace-one is honoured by group privacy
    /// (calibrated to (ε/2, δ/(1 + e^{ε/2})) add/remove, see
    /// [`crate::privacy::add_remove_target_for_replace_one`]), so σ grows. The as-printed formula
    /// is the paper's replace-one statement (Wang, Ye & Xu 2017, Theorem 4.1) and has no add/remove form.
    pub fn for_relation(config: DpSvrgConfig, relation: Relation) -> Result<Self> {
        match (config.noise, relation) {
            (SvrgNoise::AsPrinted { .. }, Relation::ReplaceOne)
            | (SvrgNoise::Certified, Relation::AddRemove) => Self::new(config),
            (SvrgNoise::AsPrinted { .. }, Relation::AddRemove) => Err(Error::invalid(
                "relation",
                "choose replace one record (same n, one record swapped), or the certified \
                 DP-SVRG noise: the as-printed σ is the paper's formula for swapped \
                 records only (Wang, Ye & Xu 2017, Theorem 4.1)",
                "add or remove one record",
            )),
            (SvrgNoise::Certified, Relation::ReplaceOne) => {
                check_delta(config.delta)?;
                let (epsilon, delta) =
                    add_remove_target_for_replace_one(config.epsilon, config.delta);
                let mut c = Self::new(DpSvrgConfig {
                    epsilon,
                    delta,
                    ..config
                })?;
                c.guarantee = replace_one_by_group_privacy(&c.guarantee, config.delta);
                c.relation = relation;
                Ok(c)
            }
        }
    }

    /// Per-coordinate σ of the noise on each v, fixed from the configuration (for the preview).
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The guarantee of the release (for the preview).
    pub fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    /// N, the number of noisy releases.
    pub fn releases(&self) -> Result<u64> {
        self.config.releases()
    }

    /// The whole run's Rényi-DP curve (add/remove) in the certified mode, for composing it with
    /// other releases: N times the per-step curve; `None` as printed, which certifies nothing.
    pub fn rdp(&self) -> Option<Rdp> {
        let per_step = self.per_step.as_ref()?;
        let n = self.releases().ok()? as f64;
        Rdp::new(
            DEFAULT_ORDERS.iter().map(|&a| f64::from(a)).collect(),
            per_step.iter().map(|r| n * r).collect(),
            // The per-step curve is the add/remove accountant's, also when the guarantee is
            // restated under replace-one by group privacy.
            Relation::AddRemove,
        )
        .ok()
    }
}

/// The algorithm card (one paragraph for the page; the theory curve is
/// [`crate::theory::gradient_perturbation::dp_svrg_bound`] /
/// [`crate::theory::gradient_perturbation::dp_svrg_plus_plus_bound`], the preview
/// [`DpSvrgCalibration::new`]).
pub const DESCRIPTION: &str = "DP-SVRG and DP-SVRG++ (Wang, Ye & Xu 2017, Algorithms \
1-2): variance-reduced stochastic gradient steps, each with fresh Gaussian noise; the exact anchor \
gradient is re-released with every step and charged every time. Assumptions: a convex, smooth \
loss with features clipped to the declared bound; DP-SVRG also needs a ridge term (strong \
convexity). Guarantee: in the certified mode (ε, δ)-DP under add/remove, from an RDP accountant \
for Poisson batches (replace-one by group privacy, with about twice the noise); the as-printed mode uses the paper's formula with a guessed constant and is \
not a certificate. The plot shows the excess risk of the epoch snapshots falling to a noise floor \
(dashed: the proof's bound); at batch size 1 the certified floor is far above DP-GD's, and \
mini-batches bring it back down.";

/// DP-SVRG / DP-SVRG++ state; every buffer allocated once.
pub struct DpSvrg {
    config: DpSvrgConfig,
    relation: Relation,
    guarantee: Guarantee,
    sigma: f64,
    theta: f64,
    schedule: Option<EpsilonSchedule>,
    releases: u64,
    seeded: bool,
    rng: DpRng,
    ln_1mq: f64,
    /// Current iterate x_t, the snapshot x̃, the anchor ṽ (never exposed), the epoch sum.
    x: Vec<f64>,
    snapshot: Vec<f64>,
    anchor: Vec<f64>,
    average: Vec<f64>,
    g_now: Vec<f64>,
    g_snap: Vec<f64>,
    noise: Vec<f64>,
    /// N(0, σ²I) of every step, the trail of its N draws and the release once done.
    law: Law,
    trail: Trail,
    finished: Option<Finished>,
    batch: Vec<usize>,
    epoch: usize,
    inner: usize,
    t: usize,
    sampled: u64,
    snapshot_loss: f64,
    done: bool,
    /// The step size in use: the declared η, or the SVRG-BB step under the leak.
    eta: f64,
    /// The previous snapshot and its exact anchor (only kept under the SVRG-BB leak).
    previous: Option<(Vec<f64>, Vec<f64>)>,
}

impl DpSvrg {
    /// Calibrates from `config` alone (checking μ > 0 for DP-SVRG), starts at x̃₀ = P_W(0).
    pub fn new(
        config: DpSvrgConfig,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        Self::from_calibration(DpSvrgCalibration::new(config)?, objective, rng, seeded)
    }

    /// Starts a run of an already calibrated configuration. The dataset may hold any number of
    /// records: sums are normalised by the **declared** n and b (add/remove with public n), so a neighbour with one record more or less runs the same mechanism.
    pub fn from_calibration(
        calibration: DpSvrgCalibration,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let DpSvrgCalibration {
            config,
            relation,
            sigma,
            theta,
            guarantee,
            per_step,
        } = calibration;
        if config.variant == SvrgVariant::Svrg && objective.strong_convexity() <= 0.0 {
            return Err(Error::invalid(
                "variant",
                "DP-SVRG++ or DP-GD: DP-SVRG needs a strongly convex F^r (add a ridge term)",
                "svrg with μ = 0",
            ));
        }
        let releases = config.releases()?;
        let schedule = per_step.map(|p| {
            EpsilonSchedule::new(
                DEFAULT_ORDERS.iter().map(|&a| f64::from(a)).collect(),
                p,
                config.delta,
            )
            .under(relation)
        });
        let d = objective.dim();
        let mut x = vec![0.0; d];
        objective.domain().project(&mut x);
        Ok(Self {
            law: Law::gaussian(sigma)?,
            trail: Trail::planned(usize::try_from(releases).unwrap_or(usize::MAX)),
            finished: None,
            config,
            relation,
            guarantee,
            sigma,
            theta,
            schedule,
            releases,
            seeded,
            rng,
            ln_1mq: libm::log1p(-(config.batch_size as f64 / config.n as f64)),
            snapshot: x.clone(),
            x,
            anchor: vec![0.0; d],
            average: vec![0.0; d],
            g_now: vec![0.0; d],
            g_snap: vec![0.0; d],
            noise: vec![0.0; d],
            batch: Vec::with_capacity(config.batch_size + 64),
            epoch: 0,
            inner: 0,
            t: 0,
            sampled: 0,
            snapshot_loss: f64::NAN,
            done: false,
            eta: config.step_size,
            previous: None,
        })
    }

    /// Per-coordinate std σ of the noise on v.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The certified mode's split θ = σ₁²/σ² (1 in the as-printed mode).
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// N, the number of noisy releases.
    pub fn releases(&self) -> u64 {
        self.releases
    }

    /// The SVRG-BB leak: from the second snapshot on, η ← ‖Δx̃‖²/(m_s⟨Δx̃, Δ∇F⟩) with the exact
    /// anchors (plus the ridge's λ₂Δx̃, so that Δ∇F is that of F); kept when the curvature
    /// estimate is not positive. Then remembers this snapshot and anchor.
    fn bb_step(&mut self, l2: f64) {
        if let Some((x_prev, g_prev)) = &self.previous {
            let (mut dx_sq, mut curvature) = (0.0, 0.0);
            for ((x, xp), (g, gp)) in self
                .snapshot
                .iter()
                .zip(x_prev)
                .zip(self.anchor.iter().zip(g_prev))
            {
                let dx = x - xp;
                dx_sq += dx * dx;
                curvature += dx * (g - gp + l2 * dx);
            }
            let eta = dx_sq / (self.epoch_steps(self.epoch) as f64 * curvature);
            if eta.is_finite() && eta > 0.0 {
                self.eta = eta;
            }
        }
        self.previous = Some((self.snapshot.clone(), self.anchor.clone()));
    }

    fn epoch_steps(&self, s: usize) -> usize {
        match self.config.variant {
            SvrgVariant::Svrg => self.config.epoch_length,
            SvrgVariant::SvrgPlusPlus => self.config.epoch_length << (s + 1),
        }
    }

    fn epsilon_after(&self, steps: usize) -> f64 {
        match &self.schedule {
            Some(s) => s.epsilon_after(steps),
            // As printed, σ ∝ √N/ε, so t releases "cost" ε·√(t/N) by the same formula.
            None => self.config.epsilon * libm::sqrt(steps as f64 / self.releases as f64),
        }
    }
}

impl PrivateAlgorithm for DpSvrg {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let c = &self.config;
        let mut caveats = vec![format!(
            "features clipped to the declared bound, so each per-sample gradient has norm ≤ G = {}",
            c.lipschitz
        )];
        caveats.push(match (c.noise, self.relation) {
            (SvrgNoise::Certified, Relation::AddRemove) => "neighbours differ by adding or removing one record (the relation the accountant is proved for); Poisson batches of expected size b".to_string(),
            (SvrgNoise::Certified, Relation::ReplaceOne) => "neighbours differ by replacing one record: the add/remove accountant is run at (ε/2, δ/(1 + e^{ε/2})) and restated by group privacy (a replaced record is one removed and one added); Poisson batches of expected size b".to_string(),
            (SvrgNoise::AsPrinted { .. }, _) => "the paper's replace-one relation, but the σ formula is asymptotic with an unspecified constant".to_string(),
        });
        let mechanism = format!(
            "{}, T = {}, m = {}, η = {:.4e}, b = {}, N = {} noisy releases, σ = {:.4e} ({})",
            match c.variant {
                SvrgVariant::Svrg => "DP-SVRG",
                SvrgVariant::SvrgPlusPlus => "DP-SVRG++",
            },
            c.epochs,
            c.epoch_length,
            c.step_size,
            c.batch_size,
            self.releases,
            self.sigma,
            c.noise.describe()
        );
        let ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        let ledger = match c.noise {
            // Replace-one by group privacy spends its (ε, δ) statement, not the add/remove curve.
            SvrgNoise::Certified if self.relation == Relation::ReplaceOne => {
                let g = &self.guarantee;
                match ApproxDp::new(g.epsilon, g.delta, Relation::ReplaceOne) {
                    Ok(p) => ledger.with_spend(
                        format!("{} variance-reduced noisy gradients", self.releases),
                        PrivacyLoss::Approx(p),
                    ),
                    Err(_) => ledger,
                }
            }
            SvrgNoise::Certified => {
                let mut acc = RdpAccountant::new();
                let q = c.batch_size as f64 / c.n as f64;
                let z1 =
                    libm::sqrt(self.theta) * self.sigma / (2.0 * c.lipschitz / c.batch_size as f64);
                let z2 = libm::sqrt(1.0 - self.theta) * self.sigma / (c.lipschitz / c.n as f64);
                let ok = acc
                    .compose_poisson_subsampled_gaussian(q, z1, self.releases)
                    .and_then(|a| a.compose_gaussian(z2, self.releases))
                    .is_ok();
                if ok {
                    ledger.with_spend(
                        format!("{} variance-reduced noisy gradients", self.releases),
                        PrivacyLoss::Rdp(acc.curve()),
                    )
                } else {
                    ledger
                }
            }
            SvrgNoise::AsPrinted { .. } => match c.noise.leak() {
                Some(leak) => ledger.with_leak(leak),
                None => ledger,
            },
        };
        let ledger = match &self.finished {
            Some(f) => f.record(ledger),
            None => ledger,
        };
        match c.leak.describe() {
            Some(leak) => ledger.with_leak(leak),
            None => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        let n = objective.data().n();
        if self.done || objective.dim() != self.x.len() {
            return None;
        }
        let reg = objective.regulariser();
        if self.inner == 0 {
            // New epoch: the exact anchor ṽ = ∇(data term)(x̃), never released.
            self.snapshot_loss = objective.data_term(&self.snapshot, Some(&mut self.anchor))
                + reg.value(&self.snapshot);
            // The mechanism divides the records' sum by the declared n; data_term divides by the
            // objective's n, which the session declares (factor exactly 1 when they agree).
            if objective.n() != self.config.n {
                let scale = objective.n() as f64 / self.config.n as f64;
                self.anchor.iter_mut().for_each(|a| *a *= scale);
            }
            self.sampled += n as u64;
            if self.config.leak == SvrgLeak::BbStepFromExactGradients {
                self.bb_step(reg.l2);
            }
            if self.config.variant == SvrgVariant::Svrg || self.epoch == 0 {
                self.x.copy_from_slice(&self.snapshot);
            }
            self.average.fill(0.0);
        }
        poisson_batch(&mut self.rng, self.ln_1mq, n, &mut self.batch);
        let k = self.batch.len() as f64;
        let b = self.config.batch_size as f64;
        if self.batch.is_empty() {
            self.g_now.fill(0.0);
            self.g_snap.fill(0.0);
        } else if objective
            .minibatch_gradient(&self.x, &self.batch, &mut self.g_now)
            .and_then(|_| {
                objective.minibatch_gradient(&self.snapshot, &self.batch, &mut self.g_snap)
            })
            .is_err()
        {
            // Unreachable: the indices are < n of this objective.
            return None;
        }
        self.sampled += 2 * self.batch.len() as u64;
        self.trail.draw(&self.law, &mut self.rng, &mut self.noise);
        let eta = self.eta;
        let mut v_sq = 0.0;
        for (((x, gn), gs), (a, u)) in self
            .x
            .iter_mut()
            .zip(&self.g_now)
            .zip(&self.g_snap)
            .zip(self.anchor.iter().zip(&self.noise))
        {
            let v = (gn - gs) * k / b + a;
            v_sq += v * v;
            *x -= eta * (v + u);
        }
        reg.prox(eta, &mut self.x);
        objective.domain().project(&mut self.x);
        for (s, x) in self.average.iter_mut().zip(&self.x) {
            *s += x;
        }
        let report = StepReport {
            grad_evals: self.sampled as f64 / self.config.n as f64,
            loss: self.snapshot_loss,
            noise_norm: norm2(&self.noise),
            grad_norm: libm::sqrt(v_sq),
            epsilon_spent: self.epsilon_after(self.t + 1),
            done: false,
        };
        self.t += 1;
        self.inner += 1;
        let m_s = self.epoch_steps(self.epoch);
        if self.inner == m_s {
            let inv = 1.0 / m_s as f64;
            for (s, a) in self.snapshot.iter_mut().zip(&self.average) {
                *s = a * inv;
            }
            self.inner = 0;
            self.epoch += 1;
            if self.epoch == self.config.epochs {
                self.done = true;
                let domain = objective.domain();
                let mut start = vec![0.0; self.x.len()];
                domain.project(&mut start);
                self.finished = Some(Finished::iterate(
                    &self.snapshot,
                    &self.trail,
                    (&self.law, &start, |w: &mut [f64]| domain.project(w)),
                    &mut self.rng,
                ));
            }
        }
        Some(StepReport {
            done: self.done,
            ..report
        })
    }

    fn current(&self) -> &[f64] {
        if self.done { &self.snapshot } else { &self.x }
    }

    fn release(&self) -> Option<Published> {
        self.finished.as_ref().map(Finished::published)
    }

    fn draws(&self) -> Vec<Draws> {
        // Each of the N steps draws N(0, σ²I) on v, whose ℓ2-sensitivity is 2G/b for the
        // minibatch part (the anchor's share L/n is accounted inside σ's split θ).
        vec![Draws {
            noise: NoiseShape::Gaussian {
                sigma: self.sigma,
                d: self.noise.len(),
            },
            count: usize::try_from(self.releases).unwrap_or(usize::MAX),
            sensitivity: 2.0 * self.config.lipschitz / self.config.batch_size as f64,
        }]
    }

    fn grad_evals(&self) -> f64 {
        self.sampled as f64 / self.config.n as f64
    }
}

// --- The families: card, settings, needs and the data-free plan -------------------

/// The "as printed" DP-SVRG constant c = 8, the small-ε limit of Wang, Ye & Xu 2017's c.
const SVRG_PRINTED_C: f64 = 8.0;

const SVRG_SETTINGS: &[SettingUse] = &[
    setting(
        Control::Steps,
        "epochs T",
        "each epoch recomputes the anchor gradient, then m = n/b noisy inner steps",
    ),
    setting(
        Control::StepSize,
        "step size η (blank: theory)",
        "theory: the paper's preset from β and μ",
    ),
    setting(
        Control::Batch,
        "batch b",
        "inner steps use minibatches of b; m = n/b of them per epoch",
    ),
    setting(
        Control::SvrgNoise,
        "DP-SVRG noise",
        "certified: what the accountant proves; as printed: the paper's formula, which certifies nothing",
    ),
    setting(
        Control::Leak,
        "demonstrate the pitfall",
        "Barzilai–Borwein step sizes from exact gradients: NOT private",
    ),
];

const SVRG_NEEDS_ERM: Need = Need::PlainErm {
    why: "DP-SVRG's per-sample kernels and noise serve a mean of per-sample gradients (tilted or robust losses run under output perturbation)",
};
const SVRG_NEEDS_SMOOTH: Need = Need::SmoothLoss {
    why: "DP-SVRG's step size is 1/β-based",
};

/// DP-SVRG's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::DpSvrg,
    card: card_text! {
        name: "DP-SVRG",
        source: "Wang, Ye & Xu 2017, “Differentially Private Empirical Risk Minimization Revisited”, Algorithm 1",
        assumptions: "μ-strongly convex, β-smooth F (a ridge is required).",
        privacy: "Certified: the subsampled Gaussian steps and the re-released anchor are accounted together under RDP. As printed: the paper's σ with c = 8, which is NOT a privacy certificate.",
        utility: "The paper's claim Õ(d log(1/δ)/(n²ε²)) does not survive honest accounting at batch 1: the certified noise is far larger (see the experiment in the issue notes).",
        watch: "Compare 'as printed' with 'certified' on the same ε: the certified run is much noisier.",
        module: "algo::dp_svrg",
        summary: DESCRIPTION,
    },
    settings: SVRG_SETTINGS,
    needs: &[
        Need::Ridge {
            value: 0.1,
            why: "DP-SVRG (Wang, Ye & Xu 2017, Algorithm 1) needs a strongly convex objective",
        },
        SVRG_NEEDS_ERM,
        SVRG_NEEDS_SMOOTH,
    ],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::OnClippedData,
    length: RunLength::Fixed,
    plan: plan_svrg,
};

/// DP-SVRG++'s entry in [`crate::algo::registry`].
pub static FAMILY_PLUS_PLUS: Family = Family {
    kind: AlgorithmKind::DpSvrgPlusPlus,
    card: card_text! {
        name: "DP-SVRG++",
        source: "Wang, Ye & Xu 2017, “Differentially Private Empirical Risk Minimization Revisited”, Algorithm 2",
        assumptions: "Convex, β-smooth F; epochs double in length.",
        privacy: "As DP-SVRG: certified by the RDP accountant, or the paper's formula (not a certificate).",
        utility: "The paper claims the convex rate of its Theorem 4.4; with certified noise the measured risk is far above it (see the issue notes' experiment).",
        watch: "Epochs of doubling length; the exact anchor gradient enters every inner step's noisy release and is charged at every step.",
        module: "algo::dp_svrg",
        summary: DESCRIPTION,
    },
    settings: SVRG_SETTINGS,
    needs: &[
        // Epoch s has 2^s·m inner steps: 200 epochs would be 2^201·m releases.
        Need::MaxSteps {
            max: 12,
            pick: 6,
            why: "DP-SVRG++ doubles each pass's length, so T passes make (2^(T+1) − 2)·n/b noisy steps",
        },
        SVRG_NEEDS_ERM,
        SVRG_NEEDS_SMOOTH,
    ],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::OnClippedData,
    length: RunLength::Fixed,
    plan: plan_svrg_plus_plus,
};

/// DP-SVRG's or DP-SVRG++'s plan: the certified (or as-printed) calibration.
struct SvrgPlan {
    calibration: DpSvrgCalibration,
}

fn plan_svrg(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    plan(SvrgVariant::Svrg, settings, declared)
}

fn plan_svrg_plus_plus(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    plan(SvrgVariant::SvrgPlusPlus, settings, declared)
}

fn plan(
    variant: SvrgVariant,
    settings: &Settings,
    declared: &ProblemDeclaration,
) -> Result<Planned> {
    let noise = match settings.svrg_noise {
        SvrgNoiseChoice::Certified => SvrgNoise::Certified,
        SvrgNoiseChoice::AsPrinted => SvrgNoise::AsPrinted { c: SVRG_PRINTED_C },
    };
    let (lipschitz, smoothness) = (declared.lipschitz(), declared.smoothness());
    let svrg = DpSvrgConfig {
        variant,
        noise,
        epsilon: settings.budget.epsilon,
        delta: settings.budget.delta,
        lipschitz,
        n: declared.n,
        epochs: settings.steps,
        epoch_length: (declared.n / settings.batch).max(1),
        step_size: 0.0,
        batch_size: settings.batch,
        leak: if settings.leak {
            SvrgLeak::BbStepFromExactGradients
        } else {
            SvrgLeak::None
        },
    };
    let svrg = match settings.step_size {
        None => svrg.with_preset(SvrgPreset::Theory, smoothness, declared.regulariser.l2)?,
        Some(eta) => DpSvrgConfig {
            step_size: eta,
            ..svrg
        },
    };
    let calibration = DpSvrgCalibration::for_relation(svrg, settings.budget.relation)?;
    let sigma = calibration.sigma();
    let releases = usize::try_from(calibration.releases()?).unwrap_or(usize::MAX);
    let (kind, words) = match variant {
        SvrgVariant::Svrg => (
            AlgorithmKind::DpSvrg,
            "DP-SVRG (Wang–Ye–Xu 2017, Algorithm 1)",
        ),
        SvrgVariant::SvrgPlusPlus => (
            AlgorithmKind::DpSvrgPlusPlus,
            "DP-SVRG++ (Wang–Ye–Xu 2017, Algorithm 2)",
        ),
    };
    let mut preview = Preview::new(
        kind,
        words,
        calibration.guarantee().clone(),
        (
            sigma,
            NoiseShape::Gaussian {
                sigma,
                d: declared.d,
            },
        ),
        releases,
        2.0 * lipschitz / settings.batch as f64,
        lipschitz,
    )
    // In the ledger's order: the as-printed noise first, then the leaky step size.
    .leaking([svrg.noise.leak(), svrg.leak.describe()]);
    preview.step_size = Some(svrg.step_size);
    Ok(Planned::new(preview, SvrgPlan { calibration }))
}

impl Plan for SvrgPlan {
    fn rdp(&self) -> Option<Rdp> {
        self.calibration.rdp()
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let svrg =
            DpSvrg::from_calibration(self.calibration.clone(), &problem.objective, noise, seeded)?;
        Ok(MinRun::on(problem, svrg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, clip_features, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::{Glm, Loss, Regulariser};
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    const N: usize = 1000;

    fn objective(l2: f64) -> Objective {
        let spec = ClassificationSpec {
            n: N,
            d: 3,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(2, Stream::Data)).unwrap();
        clip_features(&mut data, 1.0);
        Objective::with_loss(
            Arc::new(data),
            Loss::erm(Glm::Logistic),
            Regulariser::ridge(l2),
            Box::new(L2Ball { radius: 3.0 }),
            1.0,
        )
        .unwrap()
    }

    fn config(variant: SvrgVariant, noise: SvrgNoise) -> DpSvrgConfig {
        DpSvrgConfig {
            variant,
            noise,
            epsilon: 1.0,
            delta: 1e-5,
            lipschitz: 1.0,
            n: N,
            epochs: 5,
            epoch_length: 100,
            step_size: 0.1,
            batch_size: 10,
            leak: SvrgLeak::None,
        }
    }

    fn run(alg: &mut DpSvrg, obj: &Objective) {
        while alg.step(obj).is_some() {}
    }

    #[test]
    fn without_noise_svrg_converges_linearly_to_the_reference_optimum() {
        // Ridge λ = 0.1: β = 0.35, μ = 0.1, κ = 3.5; the theory preset (η = 1/(48β),
        // m = ⌈192κ⌉ + 1 = 673) contracts the expected gap by A < 1/2 per epoch, so 60 epochs
        // take the initial gap (< 1) below 1e-12 in expectation; 1e-9 leaves room for the
        // realised path. Batches of 10 are stochastic: this is the variance reduction at work.
        let obj = objective(0.1);
        let reference = reference::solve(&obj, 1e-13, 100_000).unwrap();
        let c = DpSvrgConfig {
            epochs: 60,
            ..config(SvrgVariant::Svrg, SvrgNoise::AsPrinted { c: 8.0 })
        }
        .with_preset(SvrgPreset::Theory, obj.smoothness(), obj.strong_convexity())
        .unwrap();
        assert_eq!(c.epoch_length, 673);
        let mut alg = DpSvrg::new(c, &obj, seeded(0, Stream::Noise), true).unwrap();
        alg.sigma = 0.0;
        alg.law = Law::silent();
        run(&mut alg, &obj);
        let excess = obj.value(alg.current()) - reference.value;
        assert!(excess.abs() < 1e-9, "excess {excess}");
    }

    #[test]
    fn without_noise_svrg_plus_plus_approaches_the_optimum() {
        // Unregularised logistic on a ball (convex, not strongly convex): eq (57) decays like
        // 2^{−T}; with T = 10, m = 20, η = 1/(13β) the measured |excess| is 7.6e-14 (below the
        // reference's own tolerance), so 1e-8 is a safe bound that a broken anchor or restart
        // rule would not meet.
        let obj = objective(0.0);
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        let c = DpSvrgConfig {
            epochs: 10,
            epoch_length: 20,
            ..config(SvrgVariant::SvrgPlusPlus, SvrgNoise::AsPrinted { c: 8.0 })
        }
        .with_preset(SvrgPreset::Theory, obj.smoothness(), 0.0)
        .unwrap();
        assert_eq!(c.releases().unwrap(), 20 * (2048 - 2));
        let mut alg = DpSvrg::new(c, &obj, seeded(1, Stream::Noise), true).unwrap();
        alg.sigma = 0.0;
        alg.law = Law::silent();
        run(&mut alg, &obj);
        let excess = obj.value(alg.current()) - reference.value;
        println!("svrg++ excess {excess:e}");
        assert!(excess.abs() < 1e-8, "excess {excess}");
    }

    #[test]
    fn certified_sigma_is_the_smallest_the_accountant_accepts() {
        let obj = objective(0.1);
        let c = config(SvrgVariant::Svrg, SvrgNoise::Certified);
        let mut alg = DpSvrg::new(c, &obj, seeded(2, Stream::Noise), true).unwrap();
        let (sigma, theta) = (alg.sigma(), alg.theta());
        let eps_of = |s: f64| {
            let mut acc = RdpAccountant::new();
            acc.compose_poisson_subsampled_gaussian(0.01, theta.sqrt() * s / 0.2, 500)
                .unwrap();
            acc.compose_gaussian((1.0 - theta).sqrt() * s / 1e-3, 500)
                .unwrap();
            acc.epsilon(1e-5).unwrap().0
        };
        assert!(eps_of(sigma) <= 1.0);
        assert!(eps_of(sigma * (1.0 - 2e-4)) > 1.0);
        assert_eq!(alg.guarantee().epsilon, eps_of(sigma));
        assert_eq!(alg.guarantee().relation, Relation::AddRemove);
        // Certified σ exceeds the printed one; with b = 10 only by 1.5× (measured 0.32 vs 0.21):
        // mini-batches restore near-formula noise.
        let printed = config(SvrgVariant::Svrg, SvrgNoise::AsPrinted { c: 8.0 })
            .calibrate()
            .unwrap()
            .0;
        assert!((printed - (8.0f64 * 500.0 * 1e5f64.ln()).sqrt() / 1000.0).abs() < 1e-15);
        assert!(sigma > 1.2 * printed, "{sigma} vs {printed}");
        let mut last = 0.0;
        while let Some(r) = alg.step(&obj) {
            last = r.epsilon_spent;
        }
        assert!((last - alg.guarantee().epsilon).abs() < 1e-9, "{last}");
        assert!(alg.ledger().is_private());
    }

    #[test]
    fn certified_sigma_reproduces_the_independent_floor_at_batch_one() {
        // Computed independently (two accountants agree): n = 1000, b = 1,
        // ε = 1, δ = 1e-5, G = 1, N = 1000 ⇒ σ = 2.05 at θ = 0.98, against 0.30 printed. That
        // figure converts RDP with the classic ε = rdp(α) + ln(1/δ)/(α − 1) over α ≤ 256; the
        // privacy layer uses the tighter Canonne–Kamath–Steinke conversion, so our σ is lower
        // (measured 1.805). Check both: the classic conversion at σ = 2.05 gives ε = 1.00,
        // and our σ is within the 10–15% such conversions differ by.
        let c = DpSvrgConfig {
            epochs: 10,
            epoch_length: 100,
            batch_size: 1,
            ..config(SvrgVariant::Svrg, SvrgNoise::Certified)
        };
        let (sigma, theta, _, _) = c.calibrate().unwrap();
        println!("σ = {sigma}, θ = {theta}");
        assert_eq!(theta, 0.98);
        assert!(sigma > 1.7 && sigma < 2.05, "σ = {sigma}");
        let classic = |s: f64| {
            let mut acc = RdpAccountant::new();
            acc.compose_poisson_subsampled_gaussian(1e-3, 0.98f64.sqrt() * s / 2.0, 1000)
                .unwrap();
            acc.compose_gaussian(0.02f64.sqrt() * s / 1e-3, 1000)
                .unwrap();
            let curve = acc.curve();
            curve
                .orders
                .iter()
                .zip(&curve.epsilons)
                .filter(|(a, _)| **a <= 256.0)
                .map(|(a, r)| r + (1e5f64).ln() / (a - 1.0))
                .fold(f64::INFINITY, f64::min)
        };
        let e = classic(2.05);
        println!("classic ε at σ = 2.05: {e}");
        assert!((e - 1.0).abs() < 0.01, "{e}");
    }

    #[test]
    fn svrg_bb_leak_changes_the_step_from_exact_gradients_and_marks_the_ledger() {
        // Ridge logistic (λ = 0.1, μ > 0): the BB step from exact anchors estimates the curvature
        // along Δx̃, which lies between μ = 0.1 and β = 0.35, so η_BB ∈ [1/(0.35m), 1/(0.1m)].
        let obj = objective(0.1);
        let c = DpSvrgConfig {
            leak: SvrgLeak::BbStepFromExactGradients,
            ..config(SvrgVariant::Svrg, SvrgNoise::Certified)
        };
        let mut alg = DpSvrg::new(c, &obj, seeded(4, Stream::Noise), true).unwrap();
        run(&mut alg, &obj);
        let m = c.epoch_length as f64;
        assert!(
            alg.eta != c.step_size && alg.eta >= 1.0 / (0.35 * m) && alg.eta <= 1.0 / (0.1 * m),
            "η = {}",
            alg.eta
        );
        let ledger = alg.ledger();
        assert!(!ledger.is_private());
        assert!(ledger.leaks.iter().any(|l| l.contains("SVRG-BB")));
        let mut fixed = DpSvrg::new(
            DpSvrgConfig {
                leak: SvrgLeak::None,
                ..c
            },
            &obj,
            seeded(4, Stream::Noise),
            true,
        )
        .unwrap();
        run(&mut fixed, &obj);
        assert_eq!(fixed.eta, c.step_size);
        assert!(fixed.ledger().is_private());
    }

    #[test]
    fn the_preview_is_the_run_s_calibration() {
        // The page previews σ and the guarantee from the calibration alone; a run started from it
        // must use exactly those.
        let obj = objective(0.1);
        let calibration =
            DpSvrgCalibration::new(config(SvrgVariant::Svrg, SvrgNoise::Certified)).unwrap();
        let (sigma, guarantee) = (calibration.sigma(), calibration.guarantee().clone());
        let alg =
            DpSvrg::from_calibration(calibration, &obj, seeded(0, Stream::Noise), true).unwrap();
        assert_eq!(alg.sigma(), sigma);
        assert_eq!(alg.guarantee(), &guarantee);
        assert!(DESCRIPTION.contains("Wang, Ye & Xu 2017"));
    }

    #[test]
    fn as_printed_mode_is_capped_and_marked_not_certified() {
        let obj = objective(0.1);
        let c = config(SvrgVariant::Svrg, SvrgNoise::AsPrinted { c: 8.0 });
        let ledger = DpSvrg::new(c, &obj, seeded(3, Stream::Noise), true)
            .unwrap()
            .ledger();
        assert!(!ledger.is_private());
        assert!(ledger.guarantee.accounting.contains("NOT a certificate"));
        // 0.5·ln(1e5) = 5.76: ε = 6 is refused in this mode, accepted when certified.
        let big = DpSvrgConfig { epsilon: 6.0, ..c };
        assert_eq!(
            DpSvrg::new(big, &obj, seeded(3, Stream::Noise), true)
                .err()
                .unwrap()
                .field(),
            Some("epsilon")
        );
        // DP-SVRG needs μ > 0.
        assert_eq!(
            DpSvrg::new(c, &objective(0.0), seeded(3, Stream::Noise), true)
                .err()
                .unwrap()
                .field(),
            Some("variant")
        );
        assert!(!SvrgNoise::Certified.describe().is_empty());
    }
}
