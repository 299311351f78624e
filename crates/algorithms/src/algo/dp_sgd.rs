//! DP-SGD: noisy projected stochastic gradient descent with per-sample clipping and Poisson
//! subsampling, accounted with Rényi DP. The industry baseline the playground compares against.
//!
//! # Algorithm
//! Abadi et al. (2016), "Deep learning with differential privacy", Algorithm 1, in the Poisson
//! form analysed by Mironov, Talwar & Zhang (2019) and used by Opacus and TF Privacy; it is the
//! mechanism behind Theorem 3.1 of Wang, Ye & Xu 2017 (the moments accountant):
//!
//! w₀ = P_W(0); for t = 0, …, T−1:
//!   B_t ⊆ {1, …, n} includes each record independently with probability q  (Poisson sampling);
//!   s_t = Σ_{i∈B_t} clip_C(∇f(w_t; zᵢ)),  clip_C(g) = g · min(1, C/‖g‖);
//!   g̃_t = (s_t + N(0, (zC)² I_d)) / b + λ₂ w_t;
//!   w_{t+1} = prox_{ηλ₁‖·‖₁ + ι_W}(w_t − η g̃_t);
//! release w_T (the last iterate).
//!
//! Choices where the sources leave room, written down here:
//! - The noisy sum is divided by the **declared expected batch size b**, never by the realised
//!   |B_t|: dividing by |B_t| would make the normaliser data-dependent under add/remove (Opacus
//!   does the same). q and b are both declared; [`DpSgdConfig::for_dataset`] sets q = b/n.
//! - The regulariser (λ₂w and the ℓ1 prox) is the same for every record, so it is applied after
//!   the noise and never enters the sensitivity (Wang, Ye & Xu 2017).
//! - Poisson batches are drawn by geometric gaps, G = ⌊ln U / ln(1−q)⌋ with U uniform on (0, 1],
//!   which is exactly Bernoulli(q) inclusion of each index (P[G ≥ k] = (1−q)^k) at a cost of
//!   |B_t| + 1 uniforms per step instead of n.
//!
//! # Assumptions
//! None on the loss for privacy: clipping bounds every per-sample contribution by the declared C
//! (docs/PRIVACY.md rule 1), whatever the data. For utility the usual ones (convex, smooth loss, η
//! small enough); note that when clipping is active DP-SGD follows the clipped gradient field,
//! which is not the gradient of F (Wang, Ye & Xu 2017), so its fixed point can differ from argmin F.
//! Tilted ERM is refused: its gradient is not a sum of per-sample terms.
//!
//! # Privacy
//! **Add/remove** neighbours (the relation the Poisson-subsampled Gaussian bound is proved for;
//! the RDP accountant refuses replace-one). Removing or adding one record changes s_t by one
//! clipped gradient, norm ≤ C, and only if it is sampled: each step is the Poisson-subsampled
//! Gaussian with rate q and noise multiplier z, T steps compose in RDP, converted to (ε, δ)
//! ([`crate::privacy::rdp`]). z is the smallest multiplier meeting the target
//! ([`dpsgd_noise_multiplier`]); all of it is computed from the configuration before data are
//! touched. ε spent after t steps is the same accountant at t steps. The leaky toggle
//! [`DpSgdLeak::NoClipping`] skips clipping, so the sensitivity is unbounded: its ledger says
//! "not private" and the audit catches it (`tests/algorithms/privacy_audit.rs`).
//!
//! # Utility
//! For convex G-Lipschitz losses with C ≥ G (no clipping bias), Bassily, Smith & Thakurta (2014)
//! give excess empirical risk Õ(G R √(d ln(1/δ)) / (n ε)) after T = Θ(n²) steps of batch 1; with
//! the Poisson batch b and T = Θ(epochs·n/b) the same rate holds up to logarithmic factors once
//! z ≳ 1. Wang, Ye & Xu 2017 quotes this mechanism (its Thm 3.1) rather than
//! analysing it.
//!
//! # Reference
//! Abadi et al. 2016 (Algorithm 1, Theorem 1); Mironov, Talwar & Zhang 2019 (§3.3); Wang, Ye & Xu 2017,
//! Theorem 3.1.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fused::PHASE;
use crate::linalg::{Kernels, Portable, axpy, norm2};
use crate::loss::{GlmLoss, Loss, Wrap, with_glm};
use crate::objective::Objective;
use crate::privacy::rdp::{
    DEFAULT_ORDERS, RdpAccountant, dpsgd_noise_multiplier, subsampled_gaussian_rdp_curve,
};
use crate::privacy::release::{Finished, Law, Published, Trail};
use crate::privacy::{
    ApproxDp, Guarantee, Ledger, PrivacyLoss, Rdp, Relation, add_remove_target_for_replace_one,
    check_delta, replace_one_by_group_privacy,
};
use crate::rng::DpRng;

use super::{Draws, NoiseShape, PrivateAlgorithm, StepReport};

pub mod parts;

use super::family::{
    Demonstration, Family, MINIMISATION, Need, Plan, Preview, Purity, RunLength, card_text,
    default_step, setting,
};
use super::registry::Planned;
use super::run::{MinRun, Run};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::settings::Settings;
use crate::controls::Control;

/// Leaky demonstration toggles. Any of them makes the run **not private**.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DpSgdLeak {
    /// The correct mechanism.
    #[default]
    None,
    /// Per-sample gradients are summed unclipped (Wang, Ye & Xu 2017): on heavy-tailed data one record
    /// can move the sum arbitrarily far, so the calibrated noise hides nothing.
    NoClipping,
}

impl DpSgdLeak {
    /// One sentence for the "not DP" badge.
    pub fn describe(self) -> Option<&'static str> {
        match self {
            DpSgdLeak::None => None,
            DpSgdLeak::NoClipping => Some(
                "NOT PRIVATE: per-sample gradients are not clipped, so one record can change the \
                 noisy sum by more than C and the calibrated noise does not cover it",
            ),
        }
    }
}

/// The algorithm card (one paragraph for the page; the preview is [`DpSgdCalibration::new`]).
/// There is no theory curve: the utility bound quoted in the module docs has unspecified
/// constants.
pub const DESCRIPTION: &str = "DP-SGD (Abadi et al. 2016; the mechanism behind Wang, Ye & Xu 2017's \
Theorem 3.1): each step samples a random batch, clips every record's gradient to the declared \
norm C, adds Gaussian noise to the sum and takes a step. Assumptions: none on the data for \
privacy, since clipping bounds every record's influence. Guarantee: (ε, δ)-DP under add/remove \
from an RDP accountant of the subsampled Gaussian, fixed before the run (replace-one by group \
privacy: the accountant is run at ε/2, so the noise is larger). The plot shows a noisy \
descent whose floor is set by the noise multiplier; with heavy clipping the iterates can settle \
away from the true optimum.";

/// The declared inputs of DP-SGD: everything that sets the noise, none of it from the data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DpSgdConfig {
    /// Target ε at δ (add/remove).
    pub epsilon: f64,
    /// Target δ.
    pub delta: f64,
    /// Per-sample clip norm C.
    pub clip_norm: f64,
    /// Expected batch size b; the noisy sum is divided by it.
    pub batch_size: usize,
    /// Poisson inclusion probability q of each record in each step.
    pub sampling_rate: f64,
    /// Number of noisy steps T.
    pub steps: usize,
    /// Step size η.
    pub step_size: f64,
    /// Leaky demonstration toggle (default: none).
    #[serde(default)]
    pub leak: DpSgdLeak,
}

impl DpSgdConfig {
    /// The usual parametrisation: n records (public), expected batch b, q = b/n, and
    /// T = ⌈epochs · n / b⌉ steps.
    #[allow(clippy::too_many_arguments)]
    pub fn for_dataset(
        n: usize,
        batch_size: usize,
        epochs: f64,
        epsilon: f64,
        delta: f64,
        clip_norm: f64,
        step_size: f64,
    ) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n", "at least 1 record", 0));
        }
        if batch_size == 0 || batch_size > n {
            return Err(Error::invalid(
                "batch_size",
                format!("an expected batch size in 1..={n}"),
                batch_size,
            ));
        }
        if !(epochs.is_finite() && epochs > 0.0) {
            return Err(Error::invalid("epochs", "a finite number > 0", epochs));
        }
        let q = batch_size as f64 / n as f64;
        let steps = libm::ceil(epochs / q);
        if steps > 1e9 {
            return Err(Error::invalid("epochs", "at most 10⁹ steps in all", epochs));
        }
        Ok(Self {
            epsilon,
            delta,
            clip_norm,
            batch_size,
            sampling_rate: q,
            steps: steps as usize,
            step_size,
            leak: DpSgdLeak::None,
        })
    }

    /// Checks every field, then calibrates: the noise multiplier z and the accountant holding the
    /// T composed steps. Uses the configuration alone.
    pub fn calibrate(&self) -> Result<(f64, RdpAccountant)> {
        for (field, v) in [("clip_norm", self.clip_norm), ("step_size", self.step_size)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(field, "a finite number > 0", v));
            }
        }
        if self.batch_size == 0 {
            return Err(Error::invalid("batch_size", "at least 1", 0));
        }
        if !(self.sampling_rate > 0.0 && self.sampling_rate <= 1.0) {
            return Err(Error::invalid(
                "sampling_rate",
                "a number in (0, 1]",
                self.sampling_rate,
            ));
        }
        if self.steps == 0 {
            return Err(Error::invalid("steps", "at least 1", 0));
        }
        let z = dpsgd_noise_multiplier(
            self.sampling_rate,
            self.steps as u64,
            self.epsilon,
            self.delta,
        )?;
        let mut acc = RdpAccountant::new();
        acc.compose_poisson_subsampled_gaussian(self.sampling_rate, z, self.steps as u64)?;
        Ok((z, acc))
    }
}

/// Fills `batch` with a Poisson(q) subset of 0..n in increasing order (each index independently
/// with probability q), by geometric gaps (module docs); `ln_1mq` = ln(1 − q), which is −∞ for
/// q = 1 (every index). Shared by DP-SGD and DP-SVRG, so both sample the same way from the same
/// draws.
pub(crate) fn poisson_batch(rng: &mut DpRng, ln_1mq: f64, n: usize, batch: &mut Vec<usize>) {
    batch.clear();
    if ln_1mq == f64::NEG_INFINITY {
        batch.extend(0..n);
        return;
    }
    let mut i = 0usize;
    while i < n {
        // U ∈ (0, 1]; the gap G = ⌊ln U / ln(1−q)⌋ ≥ 0 is Geometric(q) (see module docs).
        let u = 1.0 - rng.random::<f64>();
        let gap = libm::log(u) / ln_1mq;
        if gap >= (n - i) as f64 {
            break;
        }
        i += gap as usize;
        batch.push(i);
        i += 1;
    }
}

/// ε after t steps without re-running the accountant: ε_t = min_α rdp_to_dp(α, t·r(α), δ) with the
/// per-step curve r and the conversion's t-independent terms ln(1 − 1/α) and (ln δ + ln α)/(α − 1)
/// precomputed (it runs every step, so it must cost a few hundred flops, not a thousand logs).
/// The expression and its evaluation order are those of
/// [`rdp_to_dp`](crate::privacy::measures::rdp_to_dp), so ε_T is bit-identical to
/// [`RdpAccountant::epsilon`] (`epsilon_schedule_is_the_accountant_bit_for_bit`; no per-step
/// debug assertion re-derives it: at 260 orders that was 92 % of the privacy audits' time).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EpsilonSchedule {
    per_step: Vec<f64>,
    log1p_term: Vec<f64>,
    delta_term: Vec<f64>,
    delta: f64,
    /// 2 when the accountant's add/remove ε is restated for replace-one by group privacy
    /// ([`crate::privacy::replace_one_by_group_privacy`]), else 1.
    group: f64,
}

impl EpsilonSchedule {
    pub(crate) fn new(orders: Vec<f64>, per_step: Vec<f64>, delta: f64) -> Self {
        let log1p_term = orders.iter().map(|&a| libm::log1p(-1.0 / a)).collect();
        let delta_term = orders
            .iter()
            .map(|&a| (libm::log(delta) + libm::log(a)) / (a - 1.0))
            .collect();
        Self {
            per_step,
            log1p_term,
            delta_term,
            delta,
            group: 1.0,
        }
    }

    /// The schedule under `relation` for an accountant run for add/remove: replace-one ε is twice
    /// the add/remove ε at every step (group privacy, as the guarantee states it).
    pub(crate) fn under(mut self, relation: Relation) -> Self {
        self.group = match relation {
            Relation::AddRemove => 1.0,
            Relation::ReplaceOne => 2.0,
        };
        self
    }

    pub(crate) fn epsilon_after(&self, steps: usize) -> f64 {
        let t = steps as f64;
        let d2 = self.delta * self.delta;
        let mut best = f64::INFINITY;
        for ((&r, &l), &m) in self
            .per_step
            .iter()
            .zip(&self.log1p_term)
            .zip(&self.delta_term)
        {
            // 0 + t·r is how the accountant accumulates `steps` identical steps.
            let rdp = 0.0 + t * r;
            // rdp_to_dp's total-variation shortcut (ε = 0 when δ² + e^{−rdp} − 1 > 0) can only fire
            // when rdp ≤ 2δ² (e^{−x} − 1 ≤ −x/2 on [0, 1]) or δ ≥ 1/2; test it exactly there.
            let e = if (rdp <= 2.0 * d2 || self.delta >= 0.5) && d2 + libm::expm1(-rdp) > 0.0 {
                0.0
            } else {
                rdp + l - m
            };
            best = best.min(e);
        }
        best.max(0.0) * self.group
    }
}

/// A checked configuration with its noise multiplier, accountant and guarantee: everything the
/// run's privacy depends on, computed from the configuration alone. Calibration bisects the
/// accountant (tens of milliseconds); clone this to start many runs of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct DpSgdCalibration {
    config: DpSgdConfig,
    /// The relation the guarantee is stated for (the accountant itself is add/remove).
    relation: Relation,
    noise_multiplier: f64,
    accountant: RdpAccountant,
    guarantee: Guarantee,
    schedule: EpsilonSchedule,
}

impl DpSgdCalibration {
    /// Checks `config` and calibrates it (see [`DpSgdConfig::calibrate`]).
    pub fn new(config: DpSgdConfig) -> Result<Self> {
        check_delta(config.delta)?;
        let (noise_multiplier, accountant) = config.calibrate()?;
        let guarantee = accountant.guarantee(
            config.delta,
            &format!(
                "DP-SGD: {} Poisson-subsampled Gaussian steps (q = {:.4e}, noise multiplier z = {:.4}, clip C = {})",
                config.steps, config.sampling_rate, noise_multiplier, config.clip_norm
            ),
        )?;
        let schedule = EpsilonSchedule::new(
            DEFAULT_ORDERS.iter().map(|&a| f64::from(a)).collect(),
            subsampled_gaussian_rdp_curve(config.sampling_rate, noise_multiplier, &DEFAULT_ORDERS),
            config.delta,
        );
        Ok(Self {
            config,
            relation: Relation::AddRemove,
            noise_multiplier,
            accountant,
            guarantee,
            schedule,
        })
    }

    /// Calibrates `config` for neighbours under `relation`. Add/remove is the accountant's own
    /// relation ([`DpSgdCalibration::new`]). Replace-one is honoured by group privacy: the
    /// accountant is calibrated to the add/remove target (ε/2, δ/(1 + e^{ε/2})), which implies the
    /// replace-one (ε, δ) asked for ([`crate::privacy::add_remove_target_for_replace_one`]), so
    /// the noise multiplier is larger, not merely relabelled.
    pub fn for_relation(config: DpSgdConfig, relation: Relation) -> Result<Self> {
        if relation == Relation::AddRemove {
            return Self::new(config);
        }
        check_delta(config.delta)?;
        let (epsilon, delta) = add_remove_target_for_replace_one(config.epsilon, config.delta);
        let mut c = Self::new(DpSgdConfig {
            epsilon,
            delta,
            ..config
        })?;
        c.guarantee = replace_one_by_group_privacy(&c.guarantee, config.delta);
        c.schedule = c.schedule.under(relation);
        c.relation = relation;
        Ok(c)
    }

    /// The calibrated noise multiplier z.
    pub fn noise_multiplier(&self) -> f64 {
        self.noise_multiplier
    }

    /// The guarantee of the release.
    pub fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    /// The whole run's Rényi-DP curve (add/remove), for composing it with other releases.
    pub fn rdp(&self) -> Rdp {
        self.accountant.curve()
    }
}

/// DP-SGD state: the iterate, the buffers of one step (allocated once), the accountant's curve.
pub struct DpSgd {
    config: DpSgdConfig,
    calibration: DpSgdCalibration,
    noise_multiplier: f64,
    seeded: bool,
    rng: DpRng,
    ln_1mq: f64,
    n: usize,
    w: Vec<f64>,
    sum: Vec<f64>,
    noise: Vec<f64>,
    /// N(0, (zC)²I) of every step, the trail of its T draws and the release once done.
    law: Law,
    trail: Trail,
    finished: Option<Finished>,
    batch: Vec<usize>,
    rows: Vec<f64>,
    values: Vec<f64>,
    t: usize,
    sampled: u64,
    clipped: u64,
    last_loss: f64,
}

impl DpSgd {
    /// Calibrates from `config` alone, then starts at w₀ = P_W(0).
    pub fn new(
        config: DpSgdConfig,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        Self::from_calibration(DpSgdCalibration::new(config)?, objective, rng, seeded)
    }

    /// Starts a run of an already calibrated configuration at w₀ = P_W(0).
    pub fn from_calibration(
        calibration: DpSgdCalibration,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if let Some(Loss {
            wrap: Wrap::Tilted { .. },
            ..
        }) = objective.loss()
        {
            return Err(Error::invalid(
                "loss",
                "a mean of per-sample losses (tilted ERM has no per-sample gradients to clip)",
                "tilted",
            ));
        }
        let config = calibration.config;
        let d = objective.dim();
        let mut w = vec![0.0; d];
        objective.domain().project(&mut w);
        let expected = config.batch_size.max(1);
        // Room for a batch 10 standard deviations above its mean, so that reallocation is rare.
        let capacity = expected + 10 * (libm::sqrt(expected as f64) as usize) + 16;
        let law = Law::gaussian(calibration.noise_multiplier * config.clip_norm)?;
        Ok(Self {
            law,
            trail: Trail::planned(config.steps),
            finished: None,
            config,
            noise_multiplier: calibration.noise_multiplier,
            calibration,
            seeded,
            rng,
            ln_1mq: libm::log1p(-config.sampling_rate),
            n: objective.data().n(),
            w,
            sum: vec![0.0; d],
            noise: vec![0.0; d],
            batch: Vec::with_capacity(capacity),
            rows: Vec::new(),
            values: Vec::new(),
            t: 0,
            sampled: 0,
            clipped: 0,
            last_loss: f64::NAN,
        })
    }

    /// The calibrated noise multiplier z: the noise on the clipped sum has std zC per coordinate.
    pub fn noise_multiplier(&self) -> f64 {
        self.noise_multiplier
    }

    /// Per-coordinate std of the noise in the averaged gradient g̃, zC/b.
    pub fn gradient_noise_std(&self) -> f64 {
        self.noise_multiplier * self.config.clip_norm / self.config.batch_size as f64
    }

    /// The configuration.
    pub fn config(&self) -> &DpSgdConfig {
        &self.config
    }

    /// ε (at the run's δ, under the guarantee's relation) after `steps` steps, by the same RDP
    /// accountant.
    pub fn epsilon_after(&self, steps: usize) -> f64 {
        self.calibration.schedule.epsilon_after(steps)
    }

    /// Fraction of sampled per-sample gradients that were clipped so far (**non-private**
    /// diagnostic: it is computed from the data and must not be used to tune C for a release).
    pub fn clipped_fraction(&self) -> f64 {
        if self.sampled == 0 {
            0.0
        } else {
            self.clipped as f64 / self.sampled as f64
        }
    }

    /// The clipped sum of the batch's per-sample gradients into `self.sum`; returns the sum of
    /// the per-sample losses and the number clipped.
    fn clipped_sum(&mut self, objective: &Objective) -> (f64, u64) {
        let clip = match self.config.leak {
            DpSgdLeak::NoClipping => None,
            DpSgdLeak::None => Some(self.config.clip_norm),
        };
        self.sum.fill(0.0);
        match objective.loss() {
            Some(Loss {
                glm,
                wrap: Wrap::None,
            }) => {
                let data = objective.data();
                let (x, y) = (data.matrix_slice(), data.labels());
                with_glm!(glm, l => fused_clipped_sum(l, x, y, &self.w, &self.batch, clip, &mut self.sum))
            }
            _ => self.per_sample_clipped_sum(objective, clip),
        }
    }

    /// The step's Poisson batch B_t into `self.batch` (the first draws of the step).
    fn draw_batch(&mut self) {
        poisson_batch(&mut self.rng, self.ln_1mq, self.n, &mut self.batch);
    }

    /// The rest of a step once `self.sum` holds the batch's clipped sum (with Σ losses
    /// `value_sum` and `clipped` of them clipped) and `self.noise` the step's noise: the update
    /// and the step's report.
    fn update(&mut self, objective: &Objective, value_sum: f64, clipped: u64) -> StepReport {
        let n = self.n;
        self.sampled += self.batch.len() as u64;
        self.clipped += clipped;
        let reg = objective.regulariser();
        let b = self.config.batch_size as f64;
        let eta = self.config.step_size;
        // Reported (non-private) diagnostics: the clipped minibatch gradient without noise.
        let mut grad_sq = 0.0;
        for (s, w) in self.sum.iter().zip(&self.w) {
            let g = s / b + reg.l2 * w;
            grad_sq += g * g;
        }
        if !self.batch.is_empty() {
            self.last_loss = value_sum / self.batch.len() as f64 + reg.value(&self.w);
        }
        for ((w, s), z) in self.w.iter_mut().zip(&self.sum).zip(&self.noise) {
            *w -= eta * ((s + z) / b + reg.l2 * *w);
        }
        objective.domain().prox_l1(&mut self.w, eta * reg.l1);
        let report = StepReport {
            grad_evals: self.sampled as f64 / n.max(1) as f64,
            loss: self.last_loss,
            noise_norm: norm2(&self.noise) / b,
            grad_norm: libm::sqrt(grad_sq),
            epsilon_spent: self.epsilon_after(self.t + 1),
            done: self.t + 1 >= self.config.steps,
        };
        self.t += 1;
        report
    }

    /// The step's Gaussian noise N(0, (zC)² I_d) on the sum, into `self.noise`.
    fn draw_noise(&mut self) {
        self.trail.draw(&self.law, &mut self.rng, &mut self.noise);
    }

    /// Once the T steps are done, the release of the last iterate (through its trail).
    fn finish(&mut self, objective: &Objective) {
        if self.t >= self.config.steps && self.finished.is_none() {
            let domain = objective.domain();
            let mut start = vec![0.0; self.w.len()];
            domain.project(&mut start);
            self.finished = Some(Finished::iterate(
                &self.w,
                &self.trail,
                (&self.law, &start, |w: &mut [f64]| domain.project(w)),
                &mut self.rng,
            ));
        }
    }

    /// General path (boxed losses, the adversarial wrap): the objective's per-sample gradients,
    /// clipped row by row.
    fn per_sample_clipped_sum(&mut self, objective: &Objective, clip: Option<f64>) -> (f64, u64) {
        let d = self.w.len();
        self.rows.resize(self.batch.len() * d, 0.0);
        self.values.resize(self.batch.len(), 0.0);
        if objective
            .per_sample_gradients(&self.w, &self.batch, &mut self.rows, &mut self.values)
            .is_err()
        {
            // Unreachable: indices come from 0..n of this objective and the buffers were sized
            // for them just above. Contribute nothing rather than panic.
            return (0.0, 0);
        }
        let mut clipped = 0;
        for row in self.rows.chunks_exact(d.max(1)) {
            let norm = norm2(row);
            let c = match clip {
                Some(c) if norm > c => {
                    clipped += 1;
                    c / norm
                }
                _ => 1.0,
            };
            axpy(c, row, &mut self.sum);
        }
        (self.values.iter().sum(), clipped)
    }
}

/// How many samples ahead [`fused_clipped_sum`] asks for a sample's features. A Poisson batch is
/// a sparse, increasing set of columns n/b apart, too far apart for the hardware prefetcher, so
/// each sample would otherwise pay a full memory latency (measured: about 60% of a step at
/// n = 10⁵, d = 100).
const PREFETCH_DISTANCE: usize = 6;

/// Hints the CPU to start loading `x` into cache (x86-64: one `prefetcht0` per 64-byte line; a
/// no-op elsewhere, e.g. wasm32, which has no prefetch instruction). Changes no values.
#[inline]
fn prefetch(x: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for line in x.chunks(8) {
            // SAFETY: prefetch is a hint that never faults and never writes; the pointer is
            // moreover in bounds (it points into the slice `x`).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast::<i8>()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// ⟨w, x⟩ and ‖x‖² in one pass, four accumulators each in a fixed order (as [`crate::linalg::dot`]).
#[inline]
fn dot_and_square(w: &[f64], x: &[f64]) -> (f64, f64) {
    let (mut a, mut s) = ([0.0f64; 4], [0.0f64; 4]);
    let (cw, cx) = (w.chunks_exact(4), x.chunks_exact(4));
    let (rw, rx) = (cw.remainder(), cx.remainder());
    for (pw, px) in cw.zip(cx) {
        for k in 0..4 {
            a[k] += pw[k] * px[k];
            s[k] += px[k] * px[k];
        }
    }
    let (mut ta, mut ts) = (0.0, 0.0);
    for (p, q) in rw.iter().zip(rx) {
        ta += p * q;
        ts += q * q;
    }
    (
        (a[0] + a[1]) + (a[2] + a[3]) + ta,
        (s[0] + s[1]) + (s[2] + s[3]) + ts,
    )
}

/// The fused per-sample kernel for GLM losses: ∇f(w; x, y) = φ′(⟨w,x⟩, y)·x has norm |φ′|·‖x‖, so
/// clipping costs one scalar and each sample is one read of x for ⟨w,x⟩ and ‖x‖², then one axpy
/// (docs/ARCHITECTURE.md, Performance). Returns (Σ losses, number clipped).
///
/// In phases of [`PHASE`] samples, as the full-gradient pass ([`crate::fused`]): per block of
/// four, one sweep for the four dot products and squared norms ([`Kernels::dot_square4`]) and
/// the loss's four-lane math; then sweeps over the sum that add four samples each
/// ([`crate::linalg::axpy4`]) — the same roundings in the same order as one sample at a time
/// (`blocked_kernel_gives_the_bits_of_one_sample_at_a_time`). On x86-64 with AVX2 the kernel is
/// compiled a second time for AVX2 and chosen at run time, with the same bits.
#[inline]
fn fused_clipped_sum<L: GlmLoss + ?Sized>(
    loss: &L,
    x: &[f64],
    y: &[f64],
    w: &[f64],
    batch: &[usize],
    clip: Option<f64>,
    sum: &mut [f64],
) -> (f64, u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        return unsafe { fused_clipped_sum_avx2(loss, x, y, w, batch, clip, sum, avx2) };
    }
    fused_clipped_sum_with(loss, x, y, w, batch, clip, sum, Portable)
}

/// [`fused_clipped_sum_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
fn fused_clipped_sum_avx2<L: GlmLoss + ?Sized>(
    loss: &L,
    x: &[f64],
    y: &[f64],
    w: &[f64],
    batch: &[usize],
    clip: Option<f64>,
    sum: &mut [f64],
    kernels: crate::linalg::Avx2,
) -> (f64, u64) {
    fused_clipped_sum_with(loss, x, y, w, batch, clip, sum, kernels)
}

/// [`fused_clipped_sum`] with the given kernels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fused_clipped_sum_with<L: GlmLoss + ?Sized, K: Kernels>(
    loss: &L,
    x: &[f64],
    y: &[f64],
    w: &[f64],
    batch: &[usize],
    clip: Option<f64>,
    sum: &mut [f64],
    kernels: K,
) -> (f64, u64) {
    let d = w.len();
    let mut value = 0.0;
    let mut clipped = 0;
    // The clipped coefficient of one sample: φ′·c with c = C/‖∇f‖ when ‖∇f‖ > C.
    let mut coefficient = |g: f64, sq: f64| {
        let norm = g.abs() * libm::sqrt(sq);
        let c = match clip {
            Some(c) if norm > c => {
                clipped += 1;
                c / norm
            }
            _ => 1.0,
        };
        g * c
    };
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let ahead = |k: usize| {
        if let Some(&i) = batch.get(k + PREFETCH_DISTANCE) {
            prefetch(row(i));
        }
    };
    // Phases of [`PHASE`] samples (see `crate::fused`): the dot products and squared norms of
    // four blocks of four, then their four derivatives (independent, so their latencies
    // overlap), then the axpys, in sample order.
    let mut done = 0;
    for phase in batch.chunks_exact(PHASE) {
        let xs: [&[f64]; PHASE] = core::array::from_fn(|k| row(phase[k]));
        let mut c = [0.0; PHASE];
        for (b, (cb, xb)) in c.chunks_exact_mut(4).zip(xs.chunks_exact(4)).enumerate() {
            for k in 0..4 {
                ahead(done + 4 * b + k);
            }
            let (t, sq) = kernels.dot_square4(w, [xb[0], xb[1], xb[2], xb[3]]);
            let ys = core::array::from_fn(|k| y[phase[4 * b + k]]);
            let (v, g) = kernels.derivative4(loss, t, ys);
            for vk in v {
                value += vk;
            }
            for k in 0..4 {
                cb[k] = coefficient(g[k], sq[k]);
            }
        }
        for (cb, xb) in c.chunks_exact(4).zip(xs.chunks_exact(4)) {
            kernels.axpy4(
                [cb[0], cb[1], cb[2], cb[3]],
                [xb[0], xb[1], xb[2], xb[3]],
                sum,
            );
        }
        done += PHASE;
    }
    let blocks = batch[done..].chunks_exact(4);
    let rest = blocks.remainder();
    for block in blocks {
        for k in 0..4 {
            ahead(done + k);
        }
        let xs = [row(block[0]), row(block[1]), row(block[2]), row(block[3])];
        let (t, sq) = kernels.dot_square4(w, xs);
        let ys = core::array::from_fn(|k| y[block[k]]);
        let (v, g) = kernels.derivative4(loss, t, ys);
        for vk in v {
            value += vk;
        }
        let c: [f64; 4] = core::array::from_fn(|k| coefficient(g[k], sq[k]));
        kernels.axpy4(c, xs, sum);
        done += 4;
    }
    for (k, &i) in rest.iter().enumerate() {
        ahead(done + k);
        let xi = row(i);
        let (t, sq) = dot_and_square(w, xi);
        let (v, g) = loss.value_and_derivative(t, y[i]);
        value += v;
        axpy(coefficient(g, sq), xi, sum);
    }
    (value, clipped)
}

impl PrivateAlgorithm for DpSgd {
    fn guarantee(&self) -> &Guarantee {
        &self.calibration.guarantee
    }

    fn ledger(&self) -> Ledger {
        let c = &self.config;
        let relation = match self.calibration.relation {
            Relation::AddRemove => {
                "neighbours differ by adding or removing one record (the relation the \
             Poisson-subsampled Gaussian accountant is proved for)"
            }
            Relation::ReplaceOne => {
                "neighbours differ by replacing one record: the add/remove \
             accountant is run at (ε/2, δ/(1 + e^{ε/2})) and restated by group privacy, since a \
             replaced record is one removed and one added"
            }
        };
        let caveats = vec![
            relation.to_string(),
            format!(
                "per-sample gradients clipped to the declared C = {}; the noisy sum is divided by \
                 the declared expected batch size b = {}, not the realised batch size",
                c.clip_norm, c.batch_size
            ),
            "Poisson sampling by geometric gaps from floating-point uniforms (idealised)"
                .to_string(),
            "orders 2…1024 (integer) only: ε can only be overstated, never understated".to_string(),
        ];
        let mechanism = format!(
            "DP-SGD, T = {}, q = {:.4e}, b = {}, C = {}, z = {:.4}, η = {}",
            c.steps, c.sampling_rate, c.batch_size, c.clip_norm, self.noise_multiplier, c.step_size
        );
        let g = &self.calibration.guarantee;
        // The RDP curve is the add/remove accountant's; replace-one spends its (ε, δ) statement.
        let spend = match self.calibration.relation {
            Relation::AddRemove => Ok(PrivacyLoss::Rdp(self.calibration.accountant.curve())),
            Relation::ReplaceOne => {
                ApproxDp::new(g.epsilon, g.delta, Relation::ReplaceOne).map(PrivacyLoss::Approx)
            }
        };
        let ledger = Ledger::new(g.clone(), mechanism, self.seeded, caveats);
        let ledger = match spend {
            Ok(loss) => ledger.with_spend(
                format!("{} Poisson-subsampled Gaussian steps", c.steps),
                loss,
            ),
            Err(_) => ledger,
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
        if self.t >= self.config.steps || objective.dim() != self.w.len() || n != self.n {
            return None;
        }
        self.draw_batch();
        let (value_sum, clipped) = self.clipped_sum(objective);
        // The noise is drawn after the batch, from the same stream; nothing between them reads
        // the generator.
        self.draw_noise();
        let report = self.update(objective, value_sum, clipped);
        self.finish(objective);
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.w
    }

    fn release(&self) -> Option<Published> {
        self.finished.as_ref().map(Finished::published)
    }

    fn draws(&self) -> Vec<Draws> {
        // The step draws N(0, (zC)²I) on the sum and divides by b (see `step`).
        let b = self.config.batch_size as f64;
        vec![Draws {
            noise: NoiseShape::Gaussian {
                sigma: self.noise_multiplier * self.config.clip_norm / b,
                d: self.noise.len(),
            },
            count: self.config.steps,
            sensitivity: self.config.clip_norm / b,
        }]
    }

    fn grad_evals(&self) -> f64 {
        self.sampled as f64 / self.n.max(1) as f64
    }
}

// --- The family: card, settings, needs and the data-free plan ---------------------

/// DP-SGD's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::DpSgd,
    card: card_text! {
        name: "DP-SGD",
        source: "Abadi et al. 2016 (the industry baseline Wang, Ye & Xu 2017 compare against)",
        assumptions: "Per-sample gradients clipped at the declared C; Poisson subsampling at rate q = b/n.",
        privacy: "Subsampled Gaussian steps under add/remove adjacency, composed with an RDP accountant (checked against dp-accounting at 6 settings); replace-one by group privacy, the accountant run at (ε/2, δ/(1 + e^{ε/2})).",
        utility: "No clean rate for the last iterate; comparable to DP-GD at the same ε with far fewer gradient evaluations per step.",
        watch: "Noisy, cheap steps: the curve is jagged because each step sees a minibatch; ε grows step by step.",
        module: "algo::dp_sgd",
        summary: DESCRIPTION,
    },
    settings: &[
        setting(
            Control::Steps,
            "steps T",
            "noisy minibatch steps; each spends a share of ε",
        ),
        setting(
            Control::StepSize,
            "step size η (blank: theory)",
            "theory: 1/β for smooth F, D/(G√T) otherwise",
        ),
        setting(
            Control::Batch,
            "expected batch b",
            "Poisson subsampling at rate q = b/n",
        ),
        setting(
            Control::Clip,
            "gradient clip C (blank: G)",
            "each per-sample gradient is clipped to norm C",
        ),
        setting(
            Control::Leak,
            "demonstrate the pitfall",
            "DP-SGD without per-sample clipping, on unclipped features: NOT private",
        ),
    ],
    needs: &[Need::PlainErm {
        why: "DP-SGD's per-sample kernels and noise serve a mean of per-sample gradients (tilted or robust losses run under output perturbation)",
    }],
    solves: MINIMISATION,
    purity: Purity::Approximate,
    demonstration: Demonstration::Unclipped,
    length: RunLength::DataDependent,
    plan,
};

/// DP-SGD's plan: its RDP calibration (the bisection runs once per run, not per repeat).
struct SgdPlan {
    calibration: DpSgdCalibration,
}

fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    let clip = settings.clip.unwrap_or(declared.lipschitz());
    let step_size = settings
        .step_size
        .unwrap_or_else(|| default_step(declared, settings.steps));
    let sgd = DpSgdConfig {
        epsilon: settings.budget.epsilon,
        delta: settings.budget.delta,
        clip_norm: clip,
        batch_size: settings.batch,
        sampling_rate: settings.batch as f64 / declared.n as f64,
        steps: settings.steps,
        step_size,
        leak: if settings.leak {
            DpSgdLeak::NoClipping
        } else {
            DpSgdLeak::None
        },
    };
    let calibration = DpSgdCalibration::for_relation(sgd, settings.budget.relation)?;
    let b = settings.batch as f64;
    // The run reports ‖noise‖ on the averaged gradient: z·C per coordinate, over b.
    let sigma = calibration.noise_multiplier() * clip / b;
    let mut preview = Preview::new(
        AlgorithmKind::DpSgd,
        "DP-SGD (Abadi et al. 2016): per-sample clipping, Poisson subsampling, RDP accountant",
        calibration.guarantee().clone(),
        (
            sigma,
            NoiseShape::Gaussian {
                sigma,
                d: declared.d,
            },
        ),
        settings.steps,
        clip / b,
        declared.lipschitz(),
    )
    .leaking([sgd.leak.describe()]);
    preview.step_size = Some(step_size);
    Ok(Planned::new(preview, SgdPlan { calibration }))
}

impl Plan for SgdPlan {
    fn rdp(&self) -> Option<Rdp> {
        Some(self.calibration.rdp())
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let problem = posed.min()?;
        let sgd =
            DpSgd::from_calibration(self.calibration.clone(), &problem.objective, noise, seeded)?;
        Ok(MinRun::on(problem, sgd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::{Glm, Logistic, Regulariser};
    use crate::privacy::Relation;
    use crate::privacy::rdp::dpsgd_epsilon;
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    const N: usize = 1000;

    fn data() -> Arc<crate::data::Dataset> {
        let spec = ClassificationSpec {
            n: N,
            d: 3,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(2, Stream::Data)).unwrap();
        crate::data::clip_features(&mut data, 1.0);
        Arc::new(data)
    }

    fn objective(l2: f64) -> Objective {
        Objective::with_loss(
            data(),
            Loss {
                glm: Glm::Logistic,
                wrap: Wrap::None,
            },
            Regulariser::ridge(l2),
            Box::new(L2Ball { radius: 3.0 }),
            1.0,
        )
        .unwrap()
    }

    fn config(batch: usize, epochs: f64, epsilon: f64, step_size: f64) -> DpSgdConfig {
        DpSgdConfig::for_dataset(N, batch, epochs, epsilon, 1e-5, 1.0, step_size).unwrap()
    }

    fn run(alg: &mut DpSgd, obj: &Objective) -> Vec<StepReport> {
        std::iter::from_fn(|| alg.step(obj)).collect()
    }

    #[test]
    fn without_noise_full_batch_converges_to_the_reference_optimum() {
        // q = 1 and C = 10 > G = 1 (features clipped to 1, |φ′| < 1): nothing is clipped and
        // every record is in every batch, so with z = 0 this is projected GD with η = 4 = 1/β.
        let obj = objective(0.0);
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        let mut c = config(N, 20_000.0, 1.0, 4.0);
        c.clip_norm = 10.0;
        let mut alg = DpSgd::new(c, &obj, seeded(0, Stream::Noise), true).unwrap();
        alg.noise_multiplier = 0.0;
        alg.law = Law::silent();
        run(&mut alg, &obj);
        let excess = obj.value(alg.current()) - reference.value;
        assert!(excess.abs() < 1e-8, "excess {excess}");
        assert_eq!(alg.clipped_fraction(), 0.0);
    }

    #[test]
    fn without_noise_poisson_batches_reach_the_optimum_up_to_sgd_variance() {
        // Ridge λ = 0.1 makes F 0.1-strongly convex. Constant-step SGD stalls at excess
        // O(η·Var/μ); with η = 0.05, b = 100 this measured 1.4e-5 over 200 epochs, so 1e-4 leaves
        // a 7× margin while a wrong normalisation (by |B|² or by n) would stall far away.
        let obj = objective(0.1);
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        let mut c = config(100, 200.0, 1.0, 0.05);
        c.clip_norm = 10.0;
        let mut alg = DpSgd::new(c, &obj, seeded(3, Stream::Noise), true).unwrap();
        alg.noise_multiplier = 0.0;
        alg.law = Law::silent();
        run(&mut alg, &obj);
        let excess = obj.value(alg.current()) - reference.value;
        println!("excess {excess:e}");
        assert!((0.0..1e-4).contains(&excess), "excess {excess}");
    }

    #[test]
    fn noise_multiplier_and_epsilon_are_the_accountants() {
        let obj = objective(0.0);
        let c = config(50, 2.0, 0.8, 1.0);
        let mut alg = DpSgd::new(c, &obj, seeded(1, Stream::Noise), true).unwrap();
        let (q, t) = (c.sampling_rate, c.steps as u64);
        assert_eq!(q, 0.05);
        assert_eq!(t, 40);
        let z = dpsgd_noise_multiplier(q, t, 0.8, 1e-5).unwrap();
        assert_eq!(alg.noise_multiplier(), z);
        let eps = dpsgd_epsilon(q, z, t, 1e-5).unwrap();
        assert_eq!(alg.guarantee().epsilon, eps);
        assert_eq!(alg.guarantee().relation, Relation::AddRemove);
        assert!(eps <= 0.8 && eps > 0.8 * (1.0 - 1e-6), "{eps}");
        let spent: Vec<f64> = run(&mut alg, &obj)
            .iter()
            .map(|r| r.epsilon_spent)
            .collect();
        assert_eq!(spent.len(), 40);
        assert!(spent.windows(2).all(|w| w[0] <= w[1]));
        // The schedule re-evaluates the accountant's own expression: ε_T is bit-identical, and
        // so is ε after 10 steps.
        assert_eq!(spent[39], eps);
        assert_eq!(spent[9], dpsgd_epsilon(q, z, 10, 1e-5).unwrap());
    }

    #[test]
    fn epsilon_schedule_is_the_accountant_bit_for_bit() {
        // Including tiny spends (q = 1e-6, z = 50) where the total-variation shortcut gives 0, and
        // δ ≥ 1/2 where the shortcut test must always run.
        for (q, z, delta) in [
            (0.01, 1.1, 1e-5),
            (1e-6, 50.0, 1e-3),
            (0.3, 0.7, 0.6),
            (1.0, 3.0, 1e-7),
        ] {
            let orders: Vec<f64> = DEFAULT_ORDERS.iter().map(|&a| f64::from(a)).collect();
            let per_step = subsampled_gaussian_rdp_curve(q, z, &DEFAULT_ORDERS);
            let schedule = EpsilonSchedule::new(orders, per_step, delta);
            for t in [1u64, 2, 7, 100, 12_345] {
                let mut acc = RdpAccountant::new();
                acc.compose_poisson_subsampled_gaussian(q, z, t).unwrap();
                assert_eq!(
                    schedule.epsilon_after(t as usize),
                    acc.epsilon(delta).unwrap().0,
                    "q {q} z {z} δ {delta} t {t}"
                );
            }
        }
    }

    #[test]
    fn noise_norms_match_the_calibrated_multiplier() {
        // ‖noise‖·b/(zC) ~ χ_d; over T = 4000 steps with d = 3 the mean of ‖·‖²/(d(zC/b)²) has sd
        // √(2/(dT)) ≈ 0.013, so ±0.06 is a 4.6-sd window that a σ off by 3% falls outside of.
        let obj = objective(0.0);
        let c = config(10, 40.0, 1.0, 0.1);
        let mut alg = DpSgd::new(c, &obj, seeded(9, Stream::Noise), true).unwrap();
        assert_eq!(c.steps, 4000);
        let s = alg.gradient_noise_std();
        assert_eq!(s, alg.noise_multiplier() * 1.0 / 10.0);
        let reports = run(&mut alg, &obj);
        let ratio = reports
            .iter()
            .map(|r| r.noise_norm * r.noise_norm)
            .sum::<f64>()
            / (reports.len() as f64 * 3.0 * s * s);
        assert!((ratio - 1.0).abs() < 0.06, "ratio {ratio}");
    }

    #[test]
    fn poisson_batches_have_the_right_size_and_inclusion_rate() {
        // |B| ~ Binomial(n, q): over 2000 steps with n = 1000, q = 0.05 the mean has sd
        // √(nq(1−q)/2000) ≈ 0.15 and the variance nq(1−q) = 47.5 has relative sd ≈ √(2/2000)
        // ≈ 0.032; windows of ±0.7 (4.6 sd) and ±15% (4.7 sd). Each index's inclusion count is
        // Binomial(2000, 0.05) (mean 100, sd 9.7): all 1000 lie within ±50 (5.1 sd) unless the
        // sampler favours some indices.
        let obj = objective(0.0);
        let c = config(50, 100.0, 1.0, 0.1);
        let mut alg = DpSgd::new(c, &obj, seeded(4, Stream::Noise), true).unwrap();
        let mut sizes = Vec::new();
        let mut counts = vec![0u32; N];
        for _ in 0..2000 {
            poisson_batch(&mut alg.rng, alg.ln_1mq, N, &mut alg.batch);
            assert!(alg.batch.windows(2).all(|w| w[0] < w[1]));
            sizes.push(alg.batch.len() as f64);
            alg.batch.iter().for_each(|&i| counts[i] += 1);
        }
        let mean = sizes.iter().sum::<f64>() / 2000.0;
        let var = sizes.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / 1999.0;
        assert!((mean - 50.0).abs() < 0.7, "mean {mean}");
        assert!((var / 47.5 - 1.0).abs() < 0.15, "var {var}");
        assert!(counts.iter().all(|&k| (50..=150).contains(&k)));
    }

    #[test]
    fn blocked_kernel_gives_the_bits_of_one_sample_at_a_time() {
        // The phased kernel (portable, and its AVX2 copy where this CPU has AVX2) against the
        // one-sample loop it replaced, on every remainder of a phase and of a block, with clipping
        // active for part of the samples and margins large enough to reach the loss's rare path.
        let d = 7;
        let n = 40;
        let x: Vec<f64> = (0..n * d)
            .map(|k| (k as f64 * 0.37).sin() * (1.0 + (k % 5) as f64))
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let w: Vec<f64> = (0..d).map(|j| 40.0 * (j as f64 - 3.0)).collect();
        // Up to 39: two phases of 16, a block of four and every remainder.
        for len in 0..40 {
            let batch: Vec<usize> = (0..len).map(|k| (7 * k + 3) % n).collect();
            for clip in [None, Some(0.5)] {
                let mut fast = vec![0.25; d];
                let got = fused_clipped_sum(&Logistic, &x, &y, &w, &batch, clip, &mut fast);
                let mut portable = vec![0.25; d];
                let with_portable = fused_clipped_sum_with(
                    &Logistic,
                    &x,
                    &y,
                    &w,
                    &batch,
                    clip,
                    &mut portable,
                    Portable,
                );
                assert_eq!(got, with_portable, "len {len}");
                let mut slow = vec![0.25; d];
                let (mut value, mut clipped) = (0.0, 0);
                for &i in &batch {
                    let xi = &x[i * d..(i + 1) * d];
                    let (t, sq) = dot_and_square(&w, xi);
                    let (v, g) = Logistic.value_and_derivative(t, y[i]);
                    value += v;
                    let norm = g.abs() * libm::sqrt(sq);
                    let c = match clip {
                        Some(c) if norm > c => {
                            clipped += 1;
                            c / norm
                        }
                        _ => 1.0,
                    };
                    axpy(g * c, xi, &mut slow);
                }
                assert_eq!(got.0.to_bits(), value.to_bits(), "len {len}");
                assert_eq!(got.1, clipped, "len {len}");
                let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fast), bits(&slow), "len {len}, clip {clip:?}");
                assert_eq!(bits(&portable), bits(&slow), "len {len}, clip {clip:?}");
                if clip.is_some() && len >= 4 {
                    assert!(clipped > 0 && clipped < len as u64, "clipping is exercised");
                }
            }
        }
    }

    #[test]
    fn fused_kernel_agrees_with_the_per_sample_api() {
        // Same seed ⇒ same batches and noise; the two paths differ only in rounding (the fused one
        // scales x once by φ′·c, the general one forms φ′x then scales), so after 300 steps with
        // clipping active (C = 0.05 < typical ‖∇f‖) the iterates agree to 1e-10.
        let fused = objective(0.0);
        let boxed = Objective::new(
            data(),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius: 3.0 }),
            1.0,
        );
        let mut c = config(50, 15.0, 1.0, 0.5);
        c.clip_norm = 0.05;
        let mut a = DpSgd::new(c, &fused, seeded(5, Stream::Noise), true).unwrap();
        let mut b = DpSgd::new(c, &boxed, seeded(5, Stream::Noise), true).unwrap();
        let ra = run(&mut a, &fused);
        let rb = run(&mut b, &boxed);
        assert!(a.clipped_fraction() > 0.5, "{}", a.clipped_fraction());
        assert_eq!(a.clipped_fraction(), b.clipped_fraction());
        for (x, y) in a.current().iter().zip(b.current()) {
            assert!((x - y).abs() < 1e-10, "{x} vs {y}");
        }
        assert!((ra[299].loss - rb[299].loss).abs() < 1e-10);
    }

    #[test]
    fn ledgers_state_the_relation_and_mark_leaks() {
        let obj = objective(0.0);
        let c = config(50, 1.0, 1.0, 0.1);
        let ledger = DpSgd::new(c, &obj, seeded(1, Stream::Noise), false)
            .unwrap()
            .ledger();
        assert!(ledger.is_private());
        assert_eq!(ledger.guarantee.relation, Relation::AddRemove);
        assert!(
            ledger
                .caveats
                .iter()
                .any(|c| c.contains("adding or removing"))
        );
        assert!(matches!(ledger.spends[0].loss, PrivacyLoss::Rdp(_)));
        let leaky = DpSgdConfig {
            leak: DpSgdLeak::NoClipping,
            ..c
        };
        let ledger = DpSgd::new(leaky, &obj, seeded(1, Stream::Noise), false)
            .unwrap()
            .ledger();
        assert!(!ledger.is_private());
        assert!(ledger.leaks[0].starts_with("NOT PRIVATE"));
    }

    #[test]
    fn invalid_configurations_are_named() {
        let obj = objective(0.0);
        let c = config(50, 1.0, 1.0, 0.1);
        let field = |c: DpSgdConfig| {
            DpSgd::new(c, &obj, seeded(1, Stream::Noise), true)
                .err()
                .and_then(|e| e.field().map(str::to_string))
        };
        assert_eq!(
            field(DpSgdConfig {
                clip_norm: 0.0,
                ..c
            })
            .as_deref(),
            Some("clip_norm")
        );
        assert_eq!(
            field(DpSgdConfig {
                step_size: f64::NAN,
                ..c
            })
            .as_deref(),
            Some("step_size")
        );
        assert_eq!(
            field(DpSgdConfig {
                sampling_rate: 0.0,
                ..c
            })
            .as_deref(),
            Some("sampling_rate")
        );
        assert_eq!(
            field(DpSgdConfig { steps: 0, ..c }).as_deref(),
            Some("steps")
        );
        assert_eq!(
            field(DpSgdConfig { epsilon: -1.0, ..c }).as_deref(),
            Some("epsilon")
        );
        assert_eq!(
            field(DpSgdConfig { delta: 1.0, ..c }).as_deref(),
            Some("delta")
        );
        assert_eq!(
            DpSgdConfig::for_dataset(10, 11, 1.0, 1.0, 1e-5, 1.0, 0.1)
                .unwrap_err()
                .field(),
            Some("batch_size")
        );
        let tilted = Objective::with_loss(
            data(),
            Loss {
                glm: Glm::Logistic,
                wrap: Wrap::Tilted { tau: 1.0 },
            },
            Regulariser::ridge(0.0),
            Box::new(L2Ball { radius: 3.0 }),
            1.0,
        )
        .unwrap();
        assert_eq!(
            DpSgd::new(c, &tilted, seeded(1, Stream::Noise), true)
                .err()
                .unwrap()
                .field(),
            Some("loss")
        );
    }
}
