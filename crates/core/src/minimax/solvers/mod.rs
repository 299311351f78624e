//! Certified minimax base solvers for Zhang et al. 2022's output perturbation ("bring your own
//! algorithm"): projected gradient descent–ascent, extragradient and an SVRG-style
//! variance-reduced extragradient, each on a [`PhaseGame`] (a record game's chunk plus the
//! quadratic regularisers of Algorithms 3, 4, 5 and the C-SC variant), each stopped by the same
//! certificate (Zhang et al. 2022) and nothing else.
//!
//! # Why the certificate, and what happens when the budget runs out
//! Privacy needs W = wₓ‖x − x̂*‖² + wᵧ‖y − ŷ*‖² ≤ T, surely. The stopping rule is the constrained
//! certificate [`certificate_bound`] ≤ τ²T, checked after every iteration from one full pass
//! (counted), so the solver, its step sizes and its randomness can be swapped without touching
//! the noise. A solver that has not certified within its budget hands over to projected GDA
//! restarted at the phase's public start z₀, whose iteration bound [`SaddleRun::safeguard_bound`]
//! depends only on declared constants and z₀ (the same choice as `algo::byoa`'s GD
//! safeguard): an abort on budget exhaustion would itself be a data-dependent output.
//! Only if GDA fails its own bound (floating point) does the run fail.
//!
//! # Step sizes (Zhang et al. 2022 give none; ours, written down here)
//! With ℓ the game's smoothness, μ_f = min(μₓ, μᵧ) its own moduli and m_reg = min(a, b) the
//! regulariser's, the regulariser and constraint are taken exactly in the prox (Zhang et al. 2022):
//! - GDA ([`GdaSplit`]): the regulariser's moduli (a, b) are split into a prox part (p, p′) and a
//!   forward part (a − p, b − p′) taken with V_f. The forward operator is then μ′-strongly
//!   monotone, μ′ = min(μₓ + a − p, μᵧ + b − p′), and ℓ′-Lipschitz, ℓ′ = ℓ + max(a − p, b − p′),
//!   and with r = min(p, p′) and η = (μ′ + r)/(ℓ′ + r)² the forward step contracts distances to
//!   ẑ* by √(1 − 2ημ′ + η²ℓ′²), the prox by 1/(1 + ηr), so per step
//!   q = √(1 − 2ημ′ + η²ℓ′²)/(1 + ηr) < 1 (as η(ℓ′² − r²) < 2(μ′ + r)). Two splits are
//!   considered and the one with the smaller q taken: everything in the prox (p, p′) = (a, b)
//!   (Algorithms 3, 4, 5), or only the common part (p, p′) = (m, m), m = min(a, b) (the C-SC
//!   variant, whose y-block has no regulariser but the game's own μᵧ: the first split has
//!   μ′ + r = min(μₓ, μᵧ) + 0 = 0 there and no contraction).
//! - Extragradient (Tseng 1995, composite form, both prox steps centred at z): η = 1/(2ℓ).
//! - VR extragradient (Palaniappan–Bach style estimator V_i(z) − V_i(z̃) + V_f(z̃), the same
//!   record in both half-steps): η = 1/(4ℓ), epochs of |S| inner steps, snapshot at the
//!   certified-checked point (its full pass is the certificate's).
//!
//! Gradient evaluations are counted per record gradient (a full pass over the phase is |S|).

mod phase;

pub use phase::{
    PhaseConstants, PhaseGame, PhaseTarget, Regulariser, TAU, certificate_bound, certified_residual,
};

use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::minimax::RecordScratch;
use crate::rng::DpRng;
use crate::solver::work;

/// The base solver of a phase (the solver-swap menu).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SaddleSolverKind {
    /// Projected (prox) gradient descent–ascent, full batch: O(κ²) iterations.
    Gda,
    /// Extragradient (Tseng 1995), full batch: O(κ) iterations.
    #[default]
    Extragradient,
    /// SVRG-style variance-reduced extragradient (record-level gradients).
    VrExtragradient,
}

/// Where a [`SaddleRun`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SaddleStatus {
    /// Still iterating.
    Running,
    /// The certificate holds at the current point.
    Certified,
    /// A leaky demonstration's iteration cap stopped it uncertified.
    Capped,
    /// Even the GDA safeguard did not certify within its bound (floating point).
    Failed,
}

/// One phase's certified solve: a base solver, the certificate after every iteration, the GDA
/// safeguard after the budget. **Non-private** in every part but the certified point, which the
/// caller perturbs.
pub struct SaddleRun {
    kind: SaddleSolverKind,
    constants: PhaseConstants,
    target: PhaseTarget,
    budget: usize,
    safeguard_bound: usize,
    cap: Option<usize>,
    gda: GdaSplit,
    z0: (Vec<f64>, Vec<f64>),
    x: Vec<f64>,
    y: Vec<f64>,
    /// Data gradients at (x, y) from the last certificate pass.
    fx: Vec<f64>,
    fy: Vec<f64>,
    /// Whole (regularised) gradients at (x, y).
    gx: Vec<f64>,
    gy: Vec<f64>,
    hx: Vec<f64>,
    hy: Vec<f64>,
    tx: Vec<f64>,
    ty: Vec<f64>,
    sx: Vec<f64>,
    sy: Vec<f64>,
    scratch: RecordScratch,
    rng: DpRng,
    steps: usize,
    safeguard_steps: usize,
    safeguard: bool,
    record_evals: u64,
    status: SaddleStatus,
    last_bound: f64,
    /// Where the iteration in progress stands (a pass split across calls of [`SaddleRun::step`]).
    stage: Stage,
    /// Records one call of [`SaddleRun::step`] reads at most (about [`work::STEP_WORK`] numbers).
    records_per_call: usize,
}

/// The part of an iteration a [`SaddleRun`] is in: the certificate pass, the extragradient's
/// pass at the half point, or a VR epoch's inner steps, each with the records (or inner steps)
/// done so far. An iteration is the certificate pass and, unless it certifies, the update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Check { next: usize },
    Half { next: usize },
    Epoch { done: usize },
}

impl SaddleRun {
    /// A run of `kind` on `game` from its public start z₀ = Proj_Z(cx, cy) (the regulariser's
    /// centres), with `budget` iterations before the GDA safeguard, `cap` (a leaky
    /// demonstration: stop there uncertified) and `solver_seed` for the VR solver's sampling
    /// (never the noise stream).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: &PhaseGame<'_>,
        constants: PhaseConstants,
        target: PhaseTarget,
        kind: SaddleSolverKind,
        budget: Option<usize>,
        cap: Option<usize>,
        solver_seed: u64,
        scratch: RecordScratch,
    ) -> Result<Self> {
        let (dx, dy) = game.dims();
        let reg = game.regulariser();
        let (mut x0, mut y0) = (reg.cx.clone(), reg.cy.clone());
        game.project(&mut x0, &mut y0);
        let (ddx, ddy) = game.diameters(dx, dy);
        let safeguard_bound = safeguard_bound(ddx.hypot(ddy), reg, &constants, &target, &x0, &y0)?;
        let gda = GdaSplit::of(&constants);
        Ok(Self {
            kind,
            constants,
            target,
            budget: budget.unwrap_or(safeguard_bound),
            safeguard_bound,
            cap,
            gda,
            x: x0.clone(),
            y: y0.clone(),
            z0: (x0, y0),
            fx: vec![0.0; dx],
            fy: vec![0.0; dy],
            gx: vec![0.0; dx],
            gy: vec![0.0; dy],
            hx: vec![0.0; dx],
            hy: vec![0.0; dy],
            tx: vec![0.0; dx],
            ty: vec![0.0; dy],
            sx: vec![0.0; dx],
            sy: vec![0.0; dy],
            scratch,
            rng: DpRng::seed_from_u64(solver_seed),
            steps: 0,
            safeguard_steps: 0,
            safeguard: false,
            record_evals: 0,
            status: SaddleStatus::Running,
            last_bound: f64::INFINITY,
            stage: Stage::Check { next: 0 },
            // A record gradient of a dₓ × dᵧ game reads its dₓ·dᵧ payoffs and both blocks.
            records_per_call: work::per_step(dx * dy + dx + dy, usize::MAX),
        })
    }

    /// Advances the iteration in progress (one certificate check and, if it fails, one
    /// iteration: a VR epoch) by at most about [`work::STEP_WORK`] numbers of record work, so a
    /// pass over a large game is split across calls ([`SaddleRun::mid_iteration`] says when a
    /// call ended part-way). The passes accumulate in the same order as one whole pass, so the
    /// iterates are bit-identical however the work is split. Errors are bugs of the game
    /// (mis-sized or non-finite values) and end the run as [`SaddleStatus::Failed`].
    pub fn step(&mut self, game: &PhaseGame<'_>) -> SaddleStatus {
        if self.status != SaddleStatus::Running {
            return self.status;
        }
        if self.try_step(game).is_err() {
            self.status = SaddleStatus::Failed;
        }
        self.status
    }

    /// Whether the last [`SaddleRun::step`] ended part-way through an iteration (no new iterate:
    /// the point is the one the iteration started from).
    pub fn mid_iteration(&self) -> bool {
        self.status == SaddleStatus::Running && self.stage != Stage::Check { next: 0 }
    }

    fn try_step(&mut self, game: &PhaseGame<'_>) -> Result<()> {
        let mut budget = self.records_per_call;
        loop {
            match self.stage {
                Stage::Check { next } => {
                    let next = self.pass(game, next, &mut budget, false)?;
                    if next < game.len() {
                        self.stage = Stage::Check { next };
                        return Ok(());
                    }
                    self.stage = Stage::Check { next: 0 };
                    if !self.checked(game)? {
                        return Ok(());
                    }
                }
                Stage::Half { next } => {
                    let next = self.pass(game, next, &mut budget, true)?;
                    if next < game.len() {
                        self.stage = Stage::Half { next };
                        return Ok(());
                    }
                    self.stage = Stage::Check { next: 0 };
                    let eta = self.eg_eta();
                    descend(eta, &self.tx, &self.ty, &mut self.x, &mut self.y);
                    game.prox(eta, &mut self.x, &mut self.y);
                    return Ok(());
                }
                Stage::Epoch { done: start } => {
                    // An inner step reads four records; at least one per call.
                    let m = game.len();
                    let mut done = start;
                    while done < m && (budget >= 4 || done == start) {
                        self.vr_inner(game)?;
                        done += 1;
                        budget = budget.saturating_sub(4);
                    }
                    self.stage = if done < m {
                        Stage::Epoch { done }
                    } else {
                        Stage::Check { next: 0 }
                    };
                    return Ok(());
                }
            }
            if budget == 0 {
                return Ok(());
            }
        }
    }

    /// Adds records `next..` of a full pass (at most `budget` of them, at least one) into the
    /// data gradients at z (fx, fy) or, when `half`, at the half point (tx, ty), as
    /// [`PhaseGame::data_gradients`] does in one go; returns where the pass stands.
    fn pass(
        &mut self,
        game: &PhaseGame<'_>,
        next: usize,
        budget: &mut usize,
        half: bool,
    ) -> Result<usize> {
        let m = game.len();
        let (px, py, gx, gy) = if half {
            (&self.hx, &self.hy, &mut self.tx, &mut self.ty)
        } else {
            (&self.x, &self.y, &mut self.fx, &mut self.fy)
        };
        if next == 0 {
            gx.fill(0.0);
            gy.fill(0.0);
        }
        let weight = 1.0 / m as f64;
        let end = m.min(next + (*budget).max(1));
        for i in next..end {
            game.add_record_gradients(i, px, py, weight, gx, gy, &mut self.scratch)?;
        }
        self.record_evals += (end - next) as u64;
        *budget = budget.saturating_sub(end - next);
        Ok(end)
    }

    /// The certificate at z from the completed pass and, if it fails, the start of the
    /// iteration; returns whether the iteration goes on (a pass or an epoch still to do).
    fn checked(&mut self, game: &PhaseGame<'_>) -> Result<bool> {
        self.gx.copy_from_slice(&self.fx);
        self.gy.copy_from_slice(&self.fy);
        game.add_regulariser(&self.x, &self.y, &mut self.gx, &mut self.gy);
        let r = game.residual(
            &self.x,
            &self.y,
            &self.gx,
            &self.gy,
            self.constants.operator_lipschitz(),
            &mut self.hx,
            &mut self.hy,
        );
        self.last_bound = certificate_bound(&self.constants, &self.target, r);
        if !self.last_bound.is_finite() {
            return Err(Error::NonFinite {
                what: "certificate",
            });
        }
        if self.last_bound <= TAU * TAU * self.target.target {
            self.status = SaddleStatus::Certified;
            return Ok(false);
        }
        if self.cap.is_some_and(|cap| self.steps >= cap) {
            self.status = SaddleStatus::Capped;
            return Ok(false);
        }
        if self.safeguard {
            if self.safeguard_steps >= self.safeguard_bound {
                self.status = SaddleStatus::Failed;
                return Ok(false);
            }
            self.safeguard_steps += 1;
            self.gda(game);
            return Ok(false);
        }
        if self.steps >= self.budget {
            // Hand over to GDA from the public start: its bound holds from there.
            self.safeguard = true;
            self.x.copy_from_slice(&self.z0.0);
            self.y.copy_from_slice(&self.z0.1);
            return Ok(false);
        }
        self.steps += 1;
        match self.kind {
            SaddleSolverKind::Gda => {
                self.gda(game);
                Ok(false)
            }
            SaddleSolverKind::Extragradient => {
                // The half point from z with the gradients of the certificate pass; its own
                // pass follows.
                let eta = self.eg_eta();
                self.hx.copy_from_slice(&self.x);
                self.hy.copy_from_slice(&self.y);
                descend(eta, &self.fx, &self.fy, &mut self.hx, &mut self.hy);
                game.prox(eta, &mut self.hx, &mut self.hy);
                self.stage = Stage::Half { next: 0 };
                Ok(true)
            }
            SaddleSolverKind::VrExtragradient => {
                // Snapshot z̃ = z with V_f(z̃) = (fx, fy) from the certificate pass.
                self.sx.copy_from_slice(&self.x);
                self.sy.copy_from_slice(&self.y);
                self.stage = Stage::Epoch { done: 0 };
                Ok(true)
            }
        }
    }

    /// z ← prox_(p, p′)(z − η(V_f(z) + forward part of the regulariser)), with the data
    /// gradients of the certificate pass ([`GdaSplit`]).
    fn gda(&mut self, game: &PhaseGame<'_>) {
        let GdaSplit { eta, prox, .. } = self.gda;
        let reg = game.regulariser();
        self.tx.copy_from_slice(&self.fx);
        self.ty.copy_from_slice(&self.fy);
        for ((g, xi), ci) in self.tx.iter_mut().zip(&self.x).zip(&reg.cx) {
            *g += (reg.a - prox.0) * (xi - ci);
        }
        for ((g, yi), ci) in self.ty.iter_mut().zip(&self.y).zip(&reg.cy) {
            *g -= (reg.b - prox.1) * (yi - ci);
        }
        descend(eta, &self.tx, &self.ty, &mut self.x, &mut self.y);
        game.prox_with(eta, prox, &mut self.x, &mut self.y);
    }

    /// Extragradient's step η = 1/(2ℓ).
    fn eg_eta(&self) -> f64 {
        0.5 / self.constants.smoothness.max(f64::MIN_POSITIVE)
    }

    /// One inner step of a VR epoch (η = 1/(4ℓ), a record drawn uniformly, the same record in
    /// both half-steps), from the snapshot (sx, sy) and its gradients (fx, fy).
    fn vr_inner(&mut self, game: &PhaseGame<'_>) -> Result<()> {
        let eta = 0.25 / self.constants.smoothness.max(f64::MIN_POSITIVE);
        let i = self.rng.random_range(0..game.len());
        // Half-step from z with the estimator at z.
        self.estimator(game, i, false)?;
        self.hx.copy_from_slice(&self.x);
        self.hy.copy_from_slice(&self.y);
        descend(eta, &self.tx, &self.ty, &mut self.hx, &mut self.hy);
        game.prox(eta, &mut self.hx, &mut self.hy);
        // Full step from z with the estimator at the half point.
        self.estimator(game, i, true)?;
        descend(eta, &self.tx, &self.ty, &mut self.x, &mut self.y);
        game.prox(eta, &mut self.x, &mut self.y);
        Ok(())
    }

    /// (tx, ty) ← ∇f_i(p) − ∇f_i(z̃) + ∇F̂(z̃), p = the half point when `half`, else z.
    fn estimator(&mut self, game: &PhaseGame<'_>, i: usize, half: bool) -> Result<()> {
        self.tx.copy_from_slice(&self.fx);
        self.ty.copy_from_slice(&self.fy);
        let (px, py) = if half {
            (&self.hx, &self.hy)
        } else {
            (&self.x, &self.y)
        };
        game.add_record_gradients(
            i,
            px,
            py,
            1.0,
            &mut self.tx,
            &mut self.ty,
            &mut self.scratch,
        )?;
        game.add_record_gradients(
            i,
            &self.sx,
            &self.sy,
            -1.0,
            &mut self.tx,
            &mut self.ty,
            &mut self.scratch,
        )?;
        self.record_evals += 2;
        Ok(())
    }

    /// The status.
    pub fn status(&self) -> SaddleStatus {
        self.status
    }
    /// The current point (the certified point once [`SaddleStatus::Certified`]); during a VR
    /// epoch split across calls, the epoch's start (its inner steps are no iterate of their own).
    pub fn point(&self) -> (&[f64], &[f64]) {
        match self.stage {
            Stage::Epoch { .. } => (&self.sx, &self.sy),
            _ => (&self.x, &self.y),
        }
    }
    /// Record gradient evaluations so far (a full pass over the phase is |S|).
    pub fn record_evals(&self) -> u64 {
        self.record_evals
    }
    /// The certificate's bound on W at the last check (∞ before the first).
    pub fn last_bound(&self) -> f64 {
        self.last_bound
    }
    /// Solver iterations (VR: epochs) taken, safeguard iterations excluded.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// Whether the GDA safeguard took over.
    pub fn used_safeguard(&self) -> bool {
        self.safeguard
    }
    /// The GDA safeguard's iteration bound (declared constants and z₀ only).
    pub fn safeguard_bound(&self) -> usize {
        self.safeguard_bound
    }
}

/// x ← x − η·gx, y ← y + η·gy (descent in x, ascent in y).
fn descend(eta: f64, gx: &[f64], gy: &[f64], x: &mut [f64], y: &mut [f64]) {
    crate::linalg::axpy(-eta, gx, x);
    crate::linalg::axpy(eta, gy, y);
}

/// GDA's split of the regulariser between the prox and the forward step, its step and its
/// contraction (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GdaSplit {
    /// (p, p′): the regulariser's moduli taken in the prox.
    pub prox: (f64, f64),
    /// η = (μ′ + r)/(ℓ′ + r)².
    pub eta: f64,
    /// q, the contraction of ‖z − ẑ*‖ per step.
    pub contraction: f64,
}

impl GdaSplit {
    /// The split with (p, p′) = `prox`.
    fn with(c: &PhaseConstants, prox: (f64, f64)) -> Self {
        let (a, b) = c.reg;
        let mu = (c.mu_f.0 + a - prox.0).min(c.mu_f.1 + b - prox.1);
        let ell = c.smoothness + (a - prox.0).max(b - prox.1);
        let r = prox.0.min(prox.1);
        let eta = (mu + r) / ((ell + r) * (ell + r));
        let contraction = (1.0 - 2.0 * eta * mu + eta * eta * ell * ell)
            .max(0.0)
            .sqrt()
            / (1.0 + eta * r);
        Self {
            prox,
            eta,
            contraction,
        }
    }

    /// The better (smaller q) of the two splits; NaN compares as worse.
    pub fn of(c: &PhaseConstants) -> Self {
        let m = c.reg.0.min(c.reg.1);
        let all = Self::with(c, c.reg);
        let common = Self::with(c, (m, m));
        if common.contraction < all.contraction || all.contraction.is_nan() {
            common
        } else {
            all
        }
    }
}

/// GDA's contraction q per step (module docs).
pub fn gda_contraction(c: &PhaseConstants) -> f64 {
    GdaSplit::of(c).contraction
}

/// The GDA safeguard's iteration bound, from declared constants and the public start z₀ only.
///
/// D₀ ≥ ‖z₀ − ẑ*‖: the diameter of X × Y, or by strong monotonicity and the VI at ẑ*,
/// m‖z₀ − ẑ*‖² ≤ ⟨V(z₀), z₀ − ẑ*⟩, so ‖z₀ − ẑ*‖ ≤ ‖V(z₀)‖/m ≤ (L + ‖reg. gradient at z₀‖)/m.
/// After t GDA steps ‖z_t − ẑ*‖ ≤ qᵗD₀, and r(z) ≤ 3‖z − ẑ*‖ (r vanishes at ẑ*, and
/// z ↦ z − V(z)/ℓ_V is 2-Lipschitz). The bound makes 3qᵗD₀ at most half the certified residual
/// (the other half is the rounding allowance). Refused when that residual is within a thousand
/// ulps of the problem's scale: no dataset could be certified.
///
/// `diameter` is that of X × Y and `reg` the phase's regulariser: everything is declared or
/// public, so a plan can call it before any data are read.
pub fn safeguard_bound(
    diameter: f64,
    reg: &Regulariser,
    constants: &PhaseConstants,
    target: &PhaseTarget,
    x0: &[f64],
    y0: &[f64],
) -> Result<usize> {
    let m = constants.modulus();
    if !(m.is_finite() && m > 0.0) {
        return Err(Error::invalid(
            "mu",
            "a strongly monotone phase (min(μₓ + a, μᵧ + b) > 0)",
            m,
        ));
    }
    let mut reg_sq = 0.0;
    for (xi, ci) in x0.iter().zip(&reg.cx) {
        reg_sq += (reg.a * (xi - ci)).powi(2);
    }
    for (yi, ci) in y0.iter().zip(&reg.cy) {
        reg_sq += (reg.b * (yi - ci)).powi(2);
    }
    let d0 = diameter.min((constants.lipschitz + reg_sq.sqrt()) / m);
    let needed = certified_residual(constants, target);
    let scale = 1.0 + crate::linalg::norm2(x0) + crate::linalg::norm2(y0) + d0;
    if needed.is_nan() || needed <= 1e3 * f64::EPSILON * scale {
        return Err(Error::invalid(
            "n",
            format!(
                "lower it, or raise μx and μy: the certified residual {needed:.2e} must exceed the rounding allowance {:.2e}",
                1e3 * f64::EPSILON * scale
            ),
            needed,
        ));
    }
    let q = gda_contraction(constants);
    if q.is_nan() || q >= 1.0 {
        // This was stated at the solver as "(now gradient descent–ascent)" whatever the
        // config's solver; the safeguard's bound is GDA's for every solver, and what makes it
        // contract is a larger modulus.
        return Err(Error::invalid(
            "mu_x",
            "raise it and μy: the safeguard's iteration bound needs a contraction, and at these \
             moduli it rounds to none",
            "",
        ));
    }
    let ratio = 6.0 * d0 / needed;
    if ratio <= 1.0 {
        return Ok(1);
    }
    // libm's log, not the platform's: the bound is the same integer natively and in wasm.
    let t = libm::ceil(libm::log(ratio) / -libm::log(q));
    // Saturated at MAX_SAFEGUARD_BOUND on every target. A usize is 32 bits on wasm32, where
    // `t as usize + 1` (the C-SC variant's phases reach t ≈ 10¹⁰) saturated to u32::MAX and
    // wrapped to 0: the page's phases then had no budget and failed at their start while the
    // terminal's certified.
    Ok(if t >= MAX_SAFEGUARD_BOUND as f64 {
        MAX_SAFEGUARD_BOUND
    } else {
        t as usize + 1
    })
}

/// The largest iteration bound [`safeguard_bound`] returns (and so the largest default budget of
/// a [`SaddleRun`]): u32::MAX, the same on 32- and 64-bit targets. A phase that would need more
/// runs for days at any size; should its GDA safeguard reach the cap uncertified, the run fails
/// ([`SaddleStatus::Failed`]) and says so, as for any other bound it exhausts.
pub const MAX_SAFEGUARD_BOUND: usize = u32::MAX as usize;

/// A stored test game, for this crate's unit tests and the playground's (through the
/// `test-support` feature of its dev-dependency); in no build that runs.
#[cfg(any(test, feature = "test-support"))]
pub mod test_game;

#[cfg(test)]
mod tests {
    use super::test_game::TestGame;
    use super::*;
    use crate::minimax::RecordGame;

    const KINDS: [SaddleSolverKind; 3] = [
        SaddleSolverKind::Gda,
        SaddleSolverKind::Extragradient,
        SaddleSolverKind::VrExtragradient,
    ];

    fn constants_of(game: &TestGame, reg: &Regulariser) -> PhaseConstants {
        let c = game.constants();
        PhaseConstants {
            lipschitz: c.lipschitz,
            smoothness: c.smoothness,
            mu_f: (c.mu_x, c.mu_y),
            reg: (reg.a, reg.b),
        }
    }

    /// Runs `kind` to its certificate; returns the point, the record evaluations and W against
    /// the independently solved saddle point.
    fn solve(
        game: &TestGame,
        reg: &Regulariser,
        target: PhaseTarget,
        kind: SaddleSolverKind,
        budget: Option<usize>,
    ) -> (SaddleRun, f64) {
        let n = game.records();
        let phase = PhaseGame::new(game, 0..n, reg);
        let constants = constants_of(game, reg);
        let mut run = SaddleRun::new(
            &phase,
            constants,
            target,
            kind,
            budget,
            None,
            7,
            game.scratch(),
        )
        .unwrap();
        let mut checks = 0;
        while run.step(&phase) == SaddleStatus::Running {
            checks += 1;
            assert!(checks < 100_000, "{kind:?} never certified");
        }
        assert_eq!(run.status(), SaddleStatus::Certified, "{kind:?}");
        let (xs, ys) = game.interior_saddle(0..n, reg.a, &reg.cx, reg.b, &reg.cy);
        assert!(crate::linalg::norm2(&xs) < game.rx && crate::linalg::norm2(&ys) < game.ry);
        let (x, y) = run.point();
        let w = target.weight_x * crate::linalg::dist2(x, &xs).powi(2)
            + target.weight_y * crate::linalg::dist2(y, &ys).powi(2);
        (run, w)
    }

    /// Algorithm 3's phase: the game's own moduli, no regulariser, T = L²/(μn²). Every solver's
    /// certified point lies within the certified radius of the saddle point found by an
    /// independent linear solve (exact to rounding, ~1e-15).
    #[test]
    fn every_solver_certifies_within_the_radius_of_the_exact_sc_sc_saddle() {
        let game = TestGame::random(1, 200, 3, 2, 0.5, 0.2, 10.0, 10.0);
        let l = game.constants().lipschitz;
        let target = PhaseTarget {
            weight_x: 0.5,
            weight_y: 0.2,
            target: l * l / (0.2 * 200.0 * 200.0),
        };
        let reg = Regulariser::none(3, 2);
        for kind in KINDS {
            let (run, w) = solve(&game, &reg, target, kind, None);
            assert!(w <= TAU * TAU * target.target, "{kind:?}: W = {w:e}");
            assert!(run.last_bound() >= w, "the certificate under-bounds W");
            assert!(!run.used_safeguard(), "{kind:?}");
        }
    }

    /// Algorithm 4's phase shape: a merely convex–concave game, a large x-ridge μ_k centred at a
    /// (released) point and a small y-ridge at 0. Also: the three solvers take different gradient
    /// counts to the same certificate.
    #[test]
    fn every_solver_certifies_a_regularised_convex_concave_phase() {
        let game = TestGame::random(2, 150, 2, 3, 0.0, 0.0, 10.0, 10.0);
        let reg = Regulariser {
            a: 40.0,
            cx: vec![0.3, -0.2],
            b: 0.4,
            cy: vec![0.0; 3],
        };
        let l = game.constants().lipschitz;
        let target = PhaseTarget {
            weight_x: 40.0,
            weight_y: 0.4,
            target: l * l / (0.4 * 150.0 * 150.0),
        };
        let mut counts = Vec::new();
        for kind in KINDS {
            let (run, w) = solve(&game, &reg, target, kind, None);
            assert!(w <= TAU * TAU * target.target, "{kind:?}: W = {w:e}");
            counts.push(run.record_evals());
        }
        assert!(
            counts[0] != counts[1] && counts[1] != counts[2] && counts[0] != counts[2],
            "{counts:?}"
        );
    }

    /// A solver given no budget hands over to GDA from z₀, which certifies within its bound
    /// from declared constants (no data-dependent abort).
    #[test]
    fn an_exhausted_budget_hands_over_to_the_gda_safeguard_within_its_bound() {
        let game = TestGame::random(3, 100, 2, 2, 0.3, 0.3, 10.0, 10.0);
        let l = game.constants().lipschitz;
        let target = PhaseTarget {
            weight_x: 0.3,
            weight_y: 0.3,
            target: l * l / (0.3 * 100.0 * 100.0),
        };
        let reg = Regulariser::none(2, 2);
        let (run, w) = solve(
            &game,
            &reg,
            target,
            SaddleSolverKind::Extragradient,
            Some(2),
        );
        assert!(run.used_safeguard());
        assert!(w <= target.target);
        // The safeguard's passes: at most bound + 1 certificate checks after the 2 EG steps.
        let passes = run.record_evals() as usize / 100;
        assert!(passes <= 2 * 2 + 1 + run.safeguard_bound() + 1, "{passes}");
    }

    /// The bound is one integer on every target: the last phase of the C-SC variant picked on a
    /// fresh page (rock–paper–scissors, n = 2000, μᵧ = 0.1: x-ridge μ_k ≈ 1762, target ≈ 4.7·10⁻³)
    /// needs ≈ 10¹⁰ GDA steps, past a 32-bit usize, and saturates at MAX_SAFEGUARD_BOUND (it
    /// was 10¹⁰ natively and, through `as usize + 1` on wasm32, 0: the page's phase then failed at
    /// its start). A phase within the cap keeps its exact count.
    #[test]
    fn the_safeguard_bound_saturates_at_the_same_cap_on_every_target() {
        let bound = |a: f64, target: f64| {
            let reg = Regulariser {
                a,
                cx: vec![1.0 / 3.0; 3],
                b: 0.0,
                cy: vec![1.0 / 3.0; 3],
            };
            let constants = PhaseConstants {
                lipschitz: 4.313930922024598,
                smoothness: 3.1,
                mu_f: (0.0, 0.1),
                reg: (a, 0.0),
            };
            let target = PhaseTarget {
                weight_x: a,
                weight_y: 0.1,
                target,
            };
            let z0 = vec![1.0 / 3.0; 3];
            safeguard_bound(2.0, &reg, &constants, &target, &z0, &z0).unwrap()
        };
        assert_eq!(bound(1762.0285747310643, 0.0046525), MAX_SAFEGUARD_BOUND);
        let small = bound(1.0, 0.0046525);
        assert!((2..MAX_SAFEGUARD_BOUND).contains(&small), "{small}");
    }

    /// The C-SC variant's phase: an x-ridge μ_k, no y-regulariser, the game's own μᵧ. GDA with
    /// everything in the prox has no contraction there (min(μₓ, μᵧ) + min(a, b) = 0); the
    /// split that takes the x-ridge into the forward step certifies, as do the other solvers.
    #[test]
    fn gda_certifies_a_csc_phase_whose_y_block_has_only_the_games_own_modulus() {
        let game = TestGame::random(5, 120, 2, 2, 0.0, 0.5, 10.0, 10.0);
        let reg = Regulariser {
            a: 3.0,
            cx: vec![0.2, -0.1],
            b: 0.0,
            cy: vec![0.0; 2],
        };
        let l = game.constants().lipschitz;
        let target = PhaseTarget {
            weight_x: 3.0,
            weight_y: 0.5,
            target: l * l / (0.5 * 120.0 * 120.0),
        };
        assert!(gda_contraction(&constants_of(&game, &reg)) < 1.0);
        for kind in KINDS {
            let (run, w) = solve(&game, &reg, target, kind, None);
            assert!(w <= TAU * TAU * target.target, "{kind:?}: W = {w:e}");
            assert!(!run.used_safeguard(), "{kind:?}");
        }
    }

    /// A pass split across calls (three records a call) gives the same iterates, bit for bit, as
    /// whole passes, for every solver: the same certified point, record count and iterations,
    /// and the calls that end part-way leave the point where the iteration started.
    #[test]
    fn a_pass_split_across_calls_gives_bit_identical_iterates() {
        let game = TestGame::random(6, 40, 3, 2, 0.5, 0.3, 10.0, 10.0);
        let l = game.constants().lipschitz;
        let target = PhaseTarget {
            weight_x: 0.5,
            weight_y: 0.3,
            target: l * l / (0.3 * 40.0 * 40.0),
        };
        let reg = Regulariser::none(3, 2);
        let phase = PhaseGame::new(&game, 0..40, &reg);
        let constants = constants_of(&game, &reg);
        for kind in KINDS {
            let new = || {
                SaddleRun::new(
                    &phase,
                    constants,
                    target,
                    kind,
                    None,
                    None,
                    9,
                    game.scratch(),
                )
                .unwrap()
            };
            let (mut whole, mut split) = (new(), new());
            split.records_per_call = 3;
            let mut iterates = Vec::new();
            while whole.step(&phase) == SaddleStatus::Running {
                assert!(!whole.mid_iteration(), "{kind:?}: 40 records fit one call");
                iterates.push(whole.point().0.to_vec());
            }
            let (mut calls, mut mid, mut seen) = (0, 0, Vec::new());
            loop {
                let before = split.point().0.to_vec();
                let status = split.step(&phase);
                calls += 1;
                assert!(calls < 1_000_000, "{kind:?} never certified");
                if split.mid_iteration() {
                    mid += 1;
                    assert_eq!(
                        split.point().0,
                        &before[..],
                        "{kind:?}: moved mid-iteration"
                    );
                } else if status == SaddleStatus::Running {
                    seen.push(split.point().0.to_vec());
                }
                if status != SaddleStatus::Running {
                    break;
                }
            }
            assert!(mid > 0, "{kind:?}: no pass was split");
            assert_eq!(whole.status(), split.status(), "{kind:?}");
            assert_eq!(iterates, seen, "{kind:?}: the iterates differ");
            let bits = |r: &SaddleRun| {
                let (x, y) = r.point();
                x.iter().chain(y).map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            assert_eq!(bits(&whole), bits(&split), "{kind:?}");
            assert_eq!(whole.record_evals(), split.record_evals(), "{kind:?}");
            assert_eq!(whole.steps(), split.steps(), "{kind:?}");
            assert_eq!(whole.last_bound().to_bits(), split.last_bound().to_bits());
        }
    }

    #[test]
    fn a_phase_without_strong_monotonicity_is_refused() {
        let game = TestGame::random(4, 10, 2, 2, 0.0, 0.0, 1.0, 1.0);
        let reg = Regulariser::none(2, 2);
        let phase = PhaseGame::new(&game, 0..10, &reg);
        let target = PhaseTarget {
            weight_x: 1.0,
            weight_y: 1.0,
            target: 1e-3,
        };
        let err = SaddleRun::new(
            &phase,
            constants_of(&game, &reg),
            target,
            SaddleSolverKind::Gda,
            None,
            None,
            0,
            game.scratch(),
        );
        assert!(err.is_err());
    }
}
