//! González, Guzmán & Paquette 2024 **Algorithm 2** (the bias-reduced gradient) and **Algorithm 3** (private SMD with
//! bias-reduced vertex sampling, stopped by a privacy filter).
//!
//! # Algorithm
//! Algorithm 2, given the iterates (x, y), a level N ~ TG(1/2, M) and a batch: draw 2^{N+1}
//! vertices from each iterate; x₊ is their average, x₋ the average of the first 2^N, x₁ the first
//! (likewise y); with w_N = 1/P\[N\] = C_M·2^N,
//! G = w_N·(∇F(x₊, y₊; B) − ∇F(x₋, y₋; B)) + ∇F(x₁, y₁; B), the same batch B for all three.
//! Conditioning on N and summing telescopes: E G = E ∇F at a Maurey average of 2^{M+1}
//! vertices, for about M + 1 expected draws (Lemma 3.15).
//!
//! Algorithm 3 runs Algorithm 1 with this gradient: at step t it draws N_t, takes a fresh batch
//! of b_t = max(1, ⌈2^{N_t}/α⌉) records, draws one output vertex per block, steps
//! s_x ← s_x − τG_x, s_y ← s_y + τG_y (ascent in y: the pseudo-code's sign is wrong, González, Guzmán & Paquette 2024),
//! and continues while Σ 2^{N_t} ≤ U − 2^M. The release is the average of the output vertices of
//! the iterates at which gradients were taken (T_stop + 1 of them; the pseudo-code's extra draw is
//! not in the paper's privacy count). Our choices, written down here: the
//! run also stops, before a step, when the next batch would exceed the records left (a
//! guard of ours) or when the privacy filter refuses the step's draws. Both depend only on the
//! N_t, never on the data.
//!
//! # Assumptions
//! Both players on simplices; every record's f convex–concave, L₀-Lipschitz (ℓ∞ gradients),
//! L₁-smooth and L₂-second-order-smooth from ℓ1 to ℓ∞ (declared [`GameConstants`]).
//!
//! # Privacy
//! Replace-one. A replaced record sits in one batch r; it moves every later score coordinate by at
//! most Δ_r = τ·(2L₀/b_r)·(2w_{N_r} + 1) (González, Guzmán & Paquette 2024; a conservative bound).
//! A draw at step t is therefore ε_m = 2·max_{r<t} Δ_r -DP (0 at t = 1: no data yet); these are
//! fixed by the N_r alone. The run charges 2(2^{N_t+1} + 1) draws of ε_m per step to a
//! [`PrivacyFilter`] on (ACC) and stops before any step it would not admit (Theorem 3.5, fully
//! adaptive composition), so the release is (ε, δ)-DP whatever U, τ, α are. Proposition 3.17's
//! closed form is kept as [`prop_3_17_budget`] with the corrected constant c = 20 in place of
//! the paper's 9 (which drops C_M; the tight constant is 2(4C_M + 1) < 18).
//!
//! # Utility
//! Theorem 3.14 (second-order-smooth, U ≥ 4), with probability 0.99:
//! Gap ≲ log n·(√C·√(ℓ/n) + √L₀·C^{1/4}·(ℓ^{3/2}√(ln 1/δ)/(nε))^{1/2}), C = L₀² + L₂² + ℓML₁²,
//! at the parameters of [`theorem_3_14`]. Lemma 3.15: the estimator's bias is ≤ 2L₂/2^M and its
//! second moment ≲ L₀² + L₂² + L₁²Mℓ; single draws can be 2^M times the typical size.
//!
//! # Reference
//! González, Guzmán & Paquette 2024, Algorithms 2 and 3, Lemma 3.15, Theorem 3.14,
//! Proposition 3.17, Theorem 3.5.

use crate::solver::work;
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::primitives::{
    EntropicPlayer, PrivacyFilter, SparseAverage, TruncatedGeometric, equal_epsilon0,
};
use super::private_smd::ell;
use crate::algo::extras::{Extra, Extras};
use crate::algo::run::{Diagnostic, Point, Run, Step, VertexView};
use crate::algo::{Draws, NoiseShape, StepReport};
use crate::domain::{Domain, Simplex};
use crate::error::{Error, Result};
use crate::minimax::{GameConstants, RecordGame, RecordScratch};
use crate::privacy::release::{Noised, Published, Trail};
use crate::privacy::{Guarantee, Ledger, Relation};
use crate::rng::DpRng;

/// The constant c of Proposition 3.17 with C_M restored: each draw is
/// ≤ 20·τ·α·L₀ -DP. The paper prints 9.
pub const PROP_3_17_CONSTANT: f64 = 20.0;

/// Proposition 3.17's closed form with constant `c`: U ≤ ε²/(48 ln(1/δ)(c·τ·α·L₀)²).
pub fn prop_3_17_budget(epsilon: f64, delta: f64, tau: f64, alpha: f64, l0: f64, c: f64) -> f64 {
    let e = c * tau * alpha * l0;
    epsilon * epsilon / (48.0 * -libm::log(delta) * e * e)
}

/// Δ_r = τ·(2L₀/b)·(2w_N + 1): how far one replaced record in a batch of b records at level N
/// moves each later score coordinate (González, Guzmán & Paquette 2024).
pub fn batch_score_sensitivity(tau: f64, l0: f64, batch: usize, weight: f64) -> f64 {
    tau * 2.0 * l0 / batch as f64 * (2.0 * weight + 1.0)
}

/// The settings of Algorithm 3.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BiasReducedParams {
    /// ε > 0 of the target.
    pub epsilon: f64,
    /// δ ∈ (0, 1).
    pub delta: f64,
    /// U ≥ 4: the run stops once Σ 2^{N_t} would pass U − 2^M.
    pub budget: f64,
    /// M: the truncation level of TG(1/2, M).
    pub level: u32,
    /// τ > 0.
    pub tau: f64,
    /// α ∈ (0, 1]: batch sizes b_t = ⌈2^{N_t}/α⌉.
    pub alpha: f64,
}

/// Theorem 3.14's parameters by fixed point (constants set to 1): starting from
/// U = n/2, repeat M = ⌊log₂(U)/2⌋, C = L₀² + L₂² + ℓML₁²,
/// U = min(nε√C/(√(4·48c²ℓ ln(1/δ))·L₀), n/2); then τ = √(ℓ/(CU)) and
/// α = (2ε²/(48c² ln(1/δ)(τL₀)²n))^{1/3}, which makes Proposition 3.17's U bound equal nα/2.
/// `c` is Proposition 3.17's constant ([`PROP_3_17_CONSTANT`]; 9 reproduces the paper).
pub fn theorem_3_14(
    n: usize,
    epsilon: f64,
    delta: f64,
    dims: (usize, usize),
    constants: GameConstants,
    c: f64,
) -> Result<BiasReducedParams> {
    crate::privacy::check_epsilon(epsilon)?;
    crate::privacy::check_delta(delta)?;
    let (l0, l1, l2) = (
        constants.linf_lipschitz,
        constants.l1_smoothness,
        constants.second_order,
    );
    if !(l0.is_finite() && l0 > 0.0 && l1.is_finite() && l2.is_finite()) {
        return Err(Error::invalid(
            "lipschitz",
            "finite declared L₀ > 0, L₁ and L₂ (Theorem 3.14 needs second-order smoothness)",
            l0,
        ));
    }
    let (nf, l, lg) = (n as f64, ell(dims.0, dims.1), -libm::log(delta));
    let mut u = nf / 2.0;
    let mut m = 0;
    let mut cc = l0 * l0;
    for _ in 0..50 {
        m = (libm::log2(u.max(1.0)) / 2.0).floor().max(0.0) as u32;
        cc = l0 * l0 + l2 * l2 + l * f64::from(m) * l1 * l1;
        u = (nf * epsilon * cc.sqrt() / ((4.0 * 48.0 * c * c * l * lg).sqrt() * l0)).min(nf / 2.0);
    }
    if u < 4.0 {
        return Err(Error::invalid(
            "n",
            "enough records for Theorem 3.14's budget U ≥ 4 (raise n or ε)",
            n,
        ));
    }
    Ok(parameters_at(u, m, cc, n, epsilon, delta, l, l0, c))
}

/// The fewest records at which Theorem 3.14's gradient budget reaches `budget` (≥ 4) at ε, δ and
/// the declared game: U = min(nε√C/(√(4·48c²ℓ ln(1/δ))·L₀), n/2) with C = L₀² + L₂² + ℓML₁² and
/// M = ⌊log₂(U)/2⌋, solved for n at the target's M, then raised by 1% steps until
/// [`theorem_3_14`] confirms it (C grows with M, so the first guess is at most a little short
/// when L₁ > 0). What picking Algorithm 3 (and, per candidate part, Algorithm 4) sets n to, so
/// that a newcomer's run is the paper's own at a scale it bounds. `None` when the declared
/// constants give no such n.
pub fn records_for_budget(
    budget: f64,
    epsilon: f64,
    delta: f64,
    dims: (usize, usize),
    constants: GameConstants,
    c: f64,
) -> Option<usize> {
    let (l0, l1, l2) = (
        constants.linf_lipschitz,
        constants.l1_smoothness,
        constants.second_order,
    );
    let l = ell(dims.0, dims.1);
    let lg = -libm::log(delta);
    let m = (libm::log2(budget) / 2.0).floor().max(0.0);
    let cc = l0 * l0 + l2 * l2 + l * m * l1 * l1;
    let guess = budget * (4.0 * 48.0 * c * c * l * lg).sqrt() * l0 / (epsilon * cc.sqrt());
    if !(guess.is_finite() && guess > 0.0) {
        return None;
    }
    let mut n = (guess * (1.0 + 1e-9)).ceil().max(2.0 * budget) as usize;
    for _ in 0..100 {
        match theorem_3_14(n, epsilon, delta, dims, constants, c) {
            Ok(p) if p.budget >= budget * (1.0 - 1e-9) => return Some(n),
            Ok(_) | Err(_) => n = (n as f64 * 1.01).ceil() as usize,
        }
    }
    None
}

/// Theorem 3.14's parameters, or — when n is too small for its U ≥ 4 — the same formulas at
/// U = 4 (M = 1): the theorem's bound then does not apply (`false`), but the privacy filter keeps
/// the run (ε, δ)-DP whatever U is, so the algorithm still runs and shows the filter at work.
/// This is our choice for the page, not the paper's.
pub fn theorem_3_14_or_smallest(
    n: usize,
    epsilon: f64,
    delta: f64,
    dims: (usize, usize),
    constants: GameConstants,
    c: f64,
) -> Result<(BiasReducedParams, bool)> {
    match theorem_3_14(n, epsilon, delta, dims, constants, c) {
        Ok(p) => Ok((p, true)),
        Err(e) if e.field() == Some("n") => {
            let (l0, l1, l2) = (
                constants.linf_lipschitz,
                constants.l1_smoothness,
                constants.second_order,
            );
            let l = ell(dims.0, dims.1);
            let cc = l0 * l0 + l2 * l2 + l * l1 * l1;
            Ok((
                parameters_at(4.0, 1, cc, n, epsilon, delta, l, l0, c),
                false,
            ))
        }
        Err(e) => Err(e),
    }
}

/// The smallest batch any step of a run with `params` reads: ⌈2^N/α⌉ at level N = 0.
pub fn smallest_batch(params: &BiasReducedParams) -> f64 {
    (1.0 / params.alpha).ceil().max(1.0)
}

/// Whether a run with `params` on `records` records can take a step at all: its smallest batch
/// ⌈1/α⌉ (level N = 0) must fit in the records. When it does not, every run stops before its
/// first step, on every draw of the levels, and releases the uniform start (a constant, carrying
/// none of the guarantee's noise). Fixed by the declared constants, n, ε and δ alone.
pub fn can_step(params: &BiasReducedParams, records: usize) -> bool {
    smallest_batch(params) <= records as f64
}

/// The product n·ε at which Theorem 3.14's smallest budget (U = 4, M = 1: the parameters of
/// [`theorem_3_14_or_smallest`] when n is too small for the theorem) first lets a level-0 batch
/// fit in the n records: α = (2ε²/(48c² ln(1/δ)(τL₀)²n))^{1/3} ≥ 1/n ⟺
/// nε ≥ √(24 ln(1/δ))·c·τL₀, with τ = √(ℓ/(4C)), C = L₀² + L₂² + ℓL₁².
pub fn least_n_epsilon(delta: f64, dims: (usize, usize), constants: GameConstants, c: f64) -> f64 {
    let (l0, l1, l2) = (
        constants.linf_lipschitz,
        constants.l1_smoothness,
        constants.second_order,
    );
    let l = ell(dims.0, dims.1);
    let tau = (l / (4.0 * (l0 * l0 + l2 * l2 + l * l1 * l1))).sqrt();
    (24.0 * -libm::log(delta)).sqrt() * c * tau * l0
}

/// `x` rounded up to three significant digits (a value the page can show and type back).
fn round_up_3(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    // Scaled by an exact power of ten, divided (not multiplied) when it is below 1, so that
    // 15.1 prints as 15.1, not 15.100000000000001.
    let e = libm::floor(libm::log10(x)) - 2.0;
    if e < 0.0 {
        let up = libm::pow(10.0, -e);
        libm::ceil(x * up * (1.0 - 1e-12)) / up
    } else {
        let scale = libm::pow(10.0, e);
        libm::ceil(x / scale * (1.0 - 1e-12)) * scale
    }
}

#[cfg(test)]
#[test]
fn round_up_3_keeps_three_digits_that_print_as_typed() {
    assert_eq!(round_up_3(15.0321).to_string(), "15.1");
    assert_eq!(round_up_3(2.5101).to_string(), "2.52");
    assert_eq!(round_up_3(0.0012345).to_string(), "0.00124");
    assert_eq!(round_up_3(12345.0).to_string(), "12400");
    assert_eq!(round_up_3(151.0), 151.0);
}

/// The fewest n with which Algorithm 3 runs on n/`per_run` records each, with `params`' ε and
/// δ, can take a step ([`least_n_epsilon`]), from the declared constants alone.
pub fn least_records(
    params: &BiasReducedParams,
    per_run: usize,
    dims: (usize, usize),
    constants: GameConstants,
) -> usize {
    let s = least_n_epsilon(params.delta, dims, constants, PROP_3_17_CONSTANT);
    (s / params.epsilon * (1.0 + 1e-9)).ceil() as usize * per_run
}

/// Refuses, at the ε control, a plan whose Algorithm 3 runs (on `records` records each, with
/// `params` planned for them; each run's records are n/`per_run` of the n, rounded down) could
/// never take a step: the release would be the uniform start on every draw. The error states
/// the ε (at this n) and the n (at this ε) from which a level-0 batch fits, from the declared
/// constants alone.
pub fn refuse_stepless(
    params: &BiasReducedParams,
    records: usize,
    per_run: usize,
    dims: (usize, usize),
    constants: GameConstants,
) -> Result<()> {
    if can_step(params, records) {
        return Ok(());
    }
    let s = least_n_epsilon(params.delta, dims, constants, PROP_3_17_CONSTANT);
    let epsilon = round_up_3(s / records.max(1) as f64 * (1.0 + 1e-9));
    let n = least_records(params, per_run, dims, constants);
    let part = if per_run > 1 { " per candidate" } else { "" };
    Err(Error::invalid(
        crate::controls::Control::Epsilon.id(),
        format!(
            "raise it to {epsilon} (or n to {n}): at this ε Algorithm 3's smallest batch \
             ⌈1/α⌉ = {} exceeds its {records} records{part}, so no step could run and the \
             release would be the uniform start (González, Guzmán & Paquette 2024)",
            smallest_batch(params)
        ),
        params.epsilon,
    ))
}

/// Algorithm 3's settings at a gradient budget U chosen by hand (the page's `budget_u`), by
/// Theorem 3.14's formulas at that U: M = ⌊log₂(U)/2⌋, C = L₀² + L₂² + ℓML₁², τ = √(ℓ/(CU)), and
/// α the larger of the theorem's balance α* = (2ε²/(48c² ln(1/δ)(τL₀)²n))^{1/3} and 2U/n, the
/// least α for which the n records last for the budget (Σb_t ≤ (T_stop + 1) + U/α ≤ n).
/// Up to the theorem's own U both of its conditions hold (α = α*) and the budget ends
/// the run; above it α = 2U/n breaks Proposition 3.17's closed form, the draws cost more, and the
/// privacy filter stops the run before ε is exceeded. Our choice for the page, not the paper's;
/// the guarantee is the filter's either way. Errors name `budget_u`: U must lie in [4, n/2].
pub fn at_budget(
    u: f64,
    n: usize,
    epsilon: f64,
    delta: f64,
    dims: (usize, usize),
    constants: GameConstants,
    c: f64,
) -> Result<BiasReducedParams> {
    let field = crate::controls::Control::BudgetU.id();
    let half = n as f64 / 2.0;
    if !(u.is_finite() && u >= 4.0) {
        return Err(Error::invalid(
            field,
            "raise it to at least 4 (Theorem 3.14)",
            u,
        ));
    }
    if u > half {
        return Err(Error::invalid(
            field,
            format!(
                "lower it to at most n/2 = {half}: each step reads ⌈2^N/α⌉ fresh records \
                 (α ≤ 1), so the n records last only for U ≤ nα/2 (González, Guzmán & Paquette \
                 2024, Algorithm 3)"
            ),
            u,
        ));
    }
    crate::privacy::check_epsilon(epsilon)?;
    crate::privacy::check_delta(delta)?;
    let (l0, l1, l2) = (
        constants.linf_lipschitz,
        constants.l1_smoothness,
        constants.second_order,
    );
    let l = ell(dims.0, dims.1);
    let m = (libm::log2(u) / 2.0).floor() as u32;
    let cc = l0 * l0 + l2 * l2 + l * f64::from(m) * l1 * l1;
    let mut params = parameters_at(u, m, cc, n, epsilon, delta, l, l0, c);
    params.alpha = params.alpha.max(u / half).min(1.0);
    Ok(params)
}

/// τ = √(ℓ/(CU)) and α = (2ε²/(48c² ln(1/δ)(τL₀)²n))^{1/3} at budget U and level M.
#[allow(clippy::too_many_arguments)]
fn parameters_at(
    u: f64,
    m: u32,
    cc: f64,
    n: usize,
    epsilon: f64,
    delta: f64,
    l: f64,
    l0: f64,
    c: f64,
) -> BiasReducedParams {
    let (nf, lg) = (n as f64, -libm::log(delta));
    let tau = (l / (cc * u)).sqrt();
    let alpha = libm::cbrt(2.0 * epsilon * epsilon / (48.0 * c * c * lg * (tau * l0).powi(2) * nf));
    BiasReducedParams {
        epsilon,
        delta,
        budget: u,
        level: m.min(super::primitives::MAX_LEVEL),
        tau,
        alpha: alpha.min(1.0),
    }
}

/// What Algorithm 3 states before it reads a record, from its settings and the declared L₀:
/// the guarantee, the uniform per-draw bound ε_u = 4τL₀α(2C_M + 1) ≥ every ε_m it charges, and
/// the largest number of ε_u-draws the filter admits (the declared draws; see
/// [`BiasReducedSmd::max_draws`]). Errors name the setting to change.
pub fn declared(params: &BiasReducedParams, l0: f64) -> Result<(Guarantee, f64, usize)> {
    crate::privacy::check_epsilon(params.epsilon)?;
    crate::privacy::check_delta(params.delta)?;
    let tg = TruncatedGeometric::new(params.level)?;
    if !(params.tau.is_finite() && params.tau > 0.0) {
        return Err(Error::invalid("tau", "a finite step size > 0", params.tau));
    }
    if !(params.alpha > 0.0 && params.alpha <= 1.0) {
        return Err(Error::invalid(
            "alpha",
            "a batch parameter in (0, 1]",
            params.alpha,
        ));
    }
    if !(params.budget.is_finite() && params.budget >= 4.0) {
        return Err(Error::invalid(
            "budget",
            "U ≥ 4 (Theorem 3.14)",
            params.budget,
        ));
    }
    if !(l0.is_finite() && l0 > 0.0) {
        return Err(Error::invalid("lipschitz", "a finite declared L₀ > 0", l0));
    }
    let epsilon_uniform = 4.0 * params.tau * l0 * params.alpha * (2.0 * tg.normaliser() + 1.0);
    let guarantee = Guarantee {
        epsilon: params.epsilon,
        delta: params.delta,
        relation: Relation::ReplaceOne,
        rho: None,
        accounting: format!(
            "vertex draws of ε_m = 2·max Δ_r ≤ {epsilon_uniform:.4e} each, stopped by a privacy \
             filter on (ACC) (González, Guzmán & Paquette 2024, Thm 3.5, Prop. 3.17 with c = 20)"
        ),
    };
    // m draws of ε_u fit iff ε_u ≤ equal_epsilon0(m); search the largest such m.
    let fits = |m: u64| {
        equal_epsilon0(params.epsilon, params.delta, m).is_ok_and(|e0| epsilon_uniform <= e0)
    };
    let (mut lo, mut hi) = (0u64, 1u64);
    while fits(hi) && hi < 1 << 50 {
        lo = hi;
        hi *= 2;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    Ok((guarantee, epsilon_uniform, lo as usize))
}

/// Algorithm 2's working memory: the 2^{N+1} draws per block as three nested averages, the
/// dense points and one gradient buffer pair.
pub struct BiasReducedGradient {
    plus: (SparseAverage, SparseAverage),
    minus: (SparseAverage, SparseAverage),
    first: (SparseAverage, SparseAverage),
    px: Vec<f64>,
    py: Vec<f64>,
    hx: Vec<f64>,
    hy: Vec<f64>,
}

impl BiasReducedGradient {
    /// Buffers for a dx × dy game.
    pub fn new(dx: usize, dy: usize) -> Self {
        let pair = || (SparseAverage::new(dx), SparseAverage::new(dy));
        Self {
            plus: pair(),
            minus: pair(),
            first: pair(),
            px: vec![0.0; dx],
            py: vec![0.0; dy],
            hx: vec![0.0; dx],
            hy: vec![0.0; dy],
        }
    }

    /// Algorithm 2: (gx, gy) ← w_N(∇F(x₊, y₊; B) − ∇F(x₋, y₋; B)) + ∇F(x₁, y₁; B), with the
    /// 2^{N+1} vertex draws per block taken from `x`, `y` and w_N = C_M·2^N. Returns the vertex
    /// draws made (2·2^{N+1}), each through `trail`. `gy` is ∇ᵧ (the caller ascends on it).
    #[allow(clippy::too_many_arguments)]
    pub fn estimate(
        &mut self,
        game: &dyn RecordGame,
        x: &EntropicPlayer,
        y: &EntropicPlayer,
        tg: TruncatedGeometric,
        level: u32,
        batch: Range<usize>,
        (trail, rng): (&mut Trail, &mut DpRng),
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<usize> {
        let drawn = self.draw(x, y, level, (trail, rng));
        gx.fill(0.0);
        gy.fill(0.0);
        let w = tg.weight(level);
        for part in 0..3 {
            self.part(game, part, batch.clone(), 0..batch.len(), scratch)?;
            self.add_part(part, w, gx, gy);
        }
        Ok(drawn)
    }

    /// Algorithm 2's vertex draws: 2^{N+1} per block from `x`, `y`, through `trail` (all of the
    /// estimate's randomness, drawn before any record is read). Returns the draws made.
    fn draw(
        &mut self,
        x: &EntropicPlayer,
        y: &EntropicPlayer,
        level: u32,
        (trail, rng): (&mut Trail, &mut DpRng),
    ) -> usize {
        let half = 1usize << level;
        for a in [&mut self.plus, &mut self.minus, &mut self.first] {
            a.0.clear();
            a.1.clear();
        }
        for r in 0..2 * half {
            let (j, i) = (trail.pick(x, rng), trail.pick(y, rng));
            self.plus.0.push(j);
            self.plus.1.push(i);
            if r < half {
                self.minus.0.push(j);
                self.minus.1.push(i);
            }
            if r == 0 {
                self.first.0.push(j);
                self.first.1.push(i);
            }
        }
        4 * half
    }

    /// Records `part` (a sub-range of 0..|B|) of ∇F(p; B) into (hx, hy) for the estimate's
    /// `which`-th point set (0: x₊, 1: x₋, 2: x₁), as one call of
    /// [`RecordGame::batch_gradients`] over `batch` would sum them: (hx, hy) start at zero with
    /// the first record, each record weighted 1/|B|, in order. A whole batch is one call (a
    /// game may sum it in closed form).
    fn part(
        &mut self,
        game: &dyn RecordGame,
        which: usize,
        batch: Range<usize>,
        part: Range<usize>,
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        let pts = [&self.plus, &self.minus, &self.first][which];
        if part.start == 0 {
            pts.0.write_dense(&mut self.px);
            pts.1.write_dense(&mut self.py);
        }
        if part == (0..batch.len()) {
            return game.batch_gradients(
                batch,
                &self.px,
                &self.py,
                &mut self.hx,
                &mut self.hy,
                scratch,
            );
        }
        if part.start == 0 {
            self.hx.fill(0.0);
            self.hy.fill(0.0);
        }
        let weight = 1.0 / batch.len() as f64;
        for i in part {
            game.add_record_gradients(
                batch.start + i,
                &self.px,
                &self.py,
                weight,
                &mut self.hx,
                &mut self.hy,
                scratch,
            )?;
        }
        Ok(())
    }

    /// (gx, gy) += coef·(hx, hy) for the completed `which`-th part (coefficients w, −w, 1).
    fn add_part(&self, which: usize, w: f64, gx: &mut [f64], gy: &mut [f64]) {
        let coef = [w, -w, 1.0][which];
        for (g, h) in gx.iter_mut().zip(&self.hx) {
            *g += coef * h;
        }
        for (g, h) in gy.iter_mut().zip(&self.hy) {
            *g += coef * h;
        }
    }
}

/// A step of Algorithm 3 whose three batch gradients are split across calls of
/// [`Run::step`]: its draws are made, the records read so far are summed.
#[derive(Debug, Clone)]
struct Pending {
    level: u32,
    batch: Range<usize>,
    /// Which of the estimate's three batch gradients is under way, and its records done.
    which: usize,
    next: usize,
}

/// Algorithm 3 as a [`Run`] over a record game.
pub struct BiasReducedSmd {
    game: Arc<dyn RecordGame>,
    params: BiasReducedParams,
    guarantee: Guarantee,
    tg: TruncatedGeometric,
    l0: f64,
    /// The uniform per-draw bound 4τL₀α(2C_M + 1) ≥ every ε_m the run charges.
    epsilon_uniform: f64,
    /// The declared draws ([`declared`]).
    max_draws: usize,
    rng: DpRng,
    seeded: bool,
    x: EntropicPlayer,
    y: EntropicPlayer,
    estimator: BiasReducedGradient,
    out_x: SparseAverage,
    out_y: SparseAverage,
    rx: Vec<f64>,
    ry: Vec<f64>,
    gx: Vec<f64>,
    gy: Vec<f64>,
    scratch: RecordScratch,
    filter: PrivacyFilter,
    /// max_{r<t} Δ_r over the batches used so far.
    max_score_change: f64,
    used: f64,
    next_record: usize,
    t: usize,
    grad_records: usize,
    last_level: u32,
    /// The output vertices the last step drew (x's, y's): the public view's newest draw.
    last_draw: Option<(usize, usize)>,
    /// Every vertex draw (the output's and the estimator's), under the privacy filter
    /// ([`Trail::filtered`]).
    trail: Trail,
    /// When the run stopped: the step it did not take, its draws, their ε_m, and the (ACC) ε
    /// they would have brought the total to (the filter's refusal, for the readout).
    refused: Option<Refused>,
    stop: Option<&'static str>,
    /// The records this run may read: all of the game's, or one part of a split (Algorithm 4).
    records: Range<usize>,
    /// A caveat of the plan's for the ledger (a budget U typed off Theorem 3.14's).
    note: Option<String>,
    /// The step under way when its batch gradients are split across calls.
    pending: Option<Pending>,
    /// Records one call of [`Run::step`] reads at most (about [`work::STEP_WORK`] numbers).
    records_per_call: usize,
}

/// The step the privacy filter refused: what it would have cost.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Refused {
    step: usize,
    draws: u64,
    epsilon_m: f64,
    would_spend: f64,
}

impl BiasReducedSmd {
    /// A run on `game` with `params` (e.g. [`theorem_3_14`]); the guarantee (ε, δ) is enforced by
    /// the privacy filter, whatever the parameters. Errors name the field to change.
    pub fn new(
        game: Arc<dyn RecordGame>,
        params: BiasReducedParams,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        let all = 0..game.records();
        Self::on_records(game, all, params, rng, seeded)
    }

    /// A run that reads only the records `records` of `game` (a part of a public, data-independent
    /// split: Algorithm 4 runs one per part); its batches are taken in order from that range, and
    /// `params` must be planned for its length. Errors name the field to change.
    pub fn on_records(
        game: Arc<dyn RecordGame>,
        records: Range<usize>,
        params: BiasReducedParams,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if records.is_empty() || records.end > game.records() {
            return Err(Error::invalid(
                "n",
                format!("a non-empty part of the {} records", game.records()),
                format!("{records:?}"),
            ));
        }
        for (who, dom) in [("x domain", game.x_domain()), ("y domain", game.y_domain())] {
            if dom.name() != Simplex.name() {
                return Err(Error::invalid(
                    who,
                    "the probability simplex (entropic mirror descent)",
                    dom.name(),
                ));
            }
        }
        let l0 = game.constants().linf_lipschitz;
        let (guarantee, epsilon_uniform, max_draws) = declared(&params, l0)?;
        let filter = PrivacyFilter::new(params.epsilon, params.delta)?;
        let tg = TruncatedGeometric::new(params.level)?;
        let (dx, dy) = game.dims();
        Ok(Self {
            scratch: game.scratch(),
            game,
            params,
            guarantee,
            tg,
            l0,
            epsilon_uniform,
            max_draws,
            rng,
            seeded,
            x: EntropicPlayer::uniform(dx),
            y: EntropicPlayer::uniform(dy),
            estimator: BiasReducedGradient::new(dx, dy),
            out_x: SparseAverage::new(dx),
            out_y: SparseAverage::new(dy),
            rx: vec![1.0 / dx as f64; dx],
            ry: vec![1.0 / dy as f64; dy],
            gx: vec![0.0; dx],
            gy: vec![0.0; dy],
            filter,
            max_score_change: 0.0,
            used: 0.0,
            next_record: records.start,
            t: 0,
            grad_records: 0,
            last_level: 0,
            last_draw: None,
            // The filter, not a count, bounds the draws (ε_m ≤ ε_u lets more than the declared m
            // through): the release checks that the trail drew exactly what the filter charged.
            trail: Trail::filtered(usize::MAX),
            refused: None,
            stop: None,
            records,
            note: None,
            pending: None,
            // A record gradient of a dₓ × dᵧ game reads its dₓ·dᵧ payoffs and both blocks.
            records_per_call: work::per_step(dx * dy + dx + dy, usize::MAX),
        })
    }

    /// The start of a step: its level, batch and privacy charge, the output vertex and every
    /// vertex draw of its estimate (all of its randomness, in the order of one whole step);
    /// `None` when the run stops instead.
    fn begin(&mut self) -> Option<Pending> {
        let top = libm::exp2(f64::from(self.params.level));
        if self.used > self.params.budget - top {
            self.stop = Some("budget U");
            return None;
        }
        let level = self.tg.sample(&mut self.rng);
        let half = libm::exp2(f64::from(level));
        let b = ((half / self.params.alpha).ceil() as usize).max(1);
        if self.next_record + b > self.records.end {
            self.stop = Some("records");
            return None;
        }
        // This step's draws come from scores built from the batches before it.
        let epsilon_m = 2.0 * self.max_score_change;
        let count = 2 * ((2usize << level) + 1) as u64;
        if !self.filter.charge(epsilon_m, count) {
            self.refused = Some(Refused {
                step: self.t,
                draws: count,
                epsilon_m,
                would_spend: super::primitives::acc_epsilon(
                    self.filter.sum_sq() + count as f64 * epsilon_m * epsilon_m,
                    self.params.delta,
                ),
            });
            self.stop = Some("privacy filter");
            return None;
        }
        let drawn = (
            self.trail.pick(&self.x, &mut self.rng),
            self.trail.pick(&self.y, &mut self.rng),
        );
        self.out_x.push(drawn.0);
        self.out_y.push(drawn.1);
        self.last_draw = Some(drawn);
        self.estimator
            .draw(&self.x, &self.y, level, (&mut self.trail, &mut self.rng));
        self.gx.fill(0.0);
        self.gy.fill(0.0);
        let batch = self.next_record..self.next_record + b;
        Some(Pending {
            level,
            batch,
            which: 0,
            next: 0,
        })
    }

    /// The run with a caveat of its plan's on its ledger (e.g. a budget U typed off Theorem
    /// 3.14's value).
    pub fn noting(mut self, caveat: String) -> Self {
        self.note = Some(caveat);
        self
    }

    /// The privacy filter's state: draws charged and (ACC) spent.
    pub fn filter(&self) -> &PrivacyFilter {
        &self.filter
    }

    /// Why the run stopped, once it has: "budget U", "records", "privacy filter" or "error".
    pub fn stopped_by(&self) -> Option<&'static str> {
        self.stop
    }

    /// Steps taken (T_stop + 1 once done).
    pub fn steps_taken(&self) -> usize {
        self.t
    }

    /// The output vertex counts so far (x, y): the public view's draws, one per block per step.
    pub fn output_draws(&self) -> (&SparseAverage, &SparseAverage) {
        (&self.out_x, &self.out_y)
    }

    /// The dense iterate (x^t, y^t): the curator view, **non-private**.
    pub fn dense_iterate(&self) -> (&[f64], &[f64]) {
        (self.x.iterate(), self.y.iterate())
    }

    /// Σε_m²/ε_u² of the draws charged so far: how many draws at the uniform bound ε_u would
    /// have cost the same (the realised draws are more numerous, most at ε_m < ε_u, the first
    /// step's at 0).
    pub fn worst_case_equivalent_draws(&self) -> f64 {
        self.filter.sum_sq() / (self.epsilon_uniform * self.epsilon_uniform)
    }

    /// The largest number of draws the filter can admit at the uniform per-draw bound ε_u: what
    /// [`Run::draws`] declares before the run. The realised draws are random (fixed by the N_t)
    /// and each costs ε_m ≤ ε_u, so their Σε_m² stays below that of this count plus one (the
    /// count is rounded down; both satisfy (ACC) ≤ ε).
    pub fn max_draws(&self) -> usize {
        self.max_draws
    }
}

impl Run for BiasReducedSmd {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.params;
        let mechanism = format!(
            "private stochastic mirror descent with bias-reduced vertex sampling (González, Guzmán \
             & Paquette 2024, Algorithms 2–3), U = {:.1}, M = {}, τ = {:.4e}, α = {:.4e}",
            p.budget, p.level, p.tau, p.alpha
        );
        let mut caveats = vec![
            format!(
                "declared L₀ = {}: every record's gradient has ‖·‖_∞ ≤ L₀ (not measured)",
                self.l0
            ),
            "the number of steps is random (fixed by the truncated-geometric levels, never by the \
             data); a privacy filter on (ACC) stops the run before it could exceed ε"
                .to_string(),
            "only the sampled output vertices and their average are released".to_string(),
            super::private_smd::draws_so_far(
                self.filter.draws() as usize,
                self.max_draws,
                self.epsilon_uniform,
                self.filter.spent(),
                self.params.epsilon,
            ),
        ];
        caveats.extend(self.note.clone());
        let ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        match self.stop {
            // The stop depends on the data: NOT PRIVATE.
            Some("error") => ledger.with_failure("the game refused a gradient; the run stopped"),
            _ => ledger,
        }
    }

    fn draws(&self) -> Vec<Draws> {
        // Each draw is the exponential mechanism with score sensitivity ε_m/2 ≤ ε_u/2.
        vec![Draws {
            noise: NoiseShape::None,
            count: self.max_draws(),
            sensitivity: self.epsilon_uniform / 2.0,
        }]
    }

    fn step(&mut self) -> Option<Step> {
        if self.stop.is_some() {
            return None;
        }
        let pending = match self.pending.take() {
            Some(pending) => pending,
            None => self.begin()?,
        };
        // The estimate's three batch gradients, at most `records_per_call` records a call
        // (whole batches in one go when they fit).
        let Pending {
            level,
            batch,
            mut which,
            mut next,
        } = pending;
        let b = batch.len();
        let w = self.tg.weight(level);
        let mut budget = self.records_per_call;
        let unit = self.game.batch_work(1);
        while which < 3 {
            let end = if next == 0 && self.game.batch_work(b) <= budget.saturating_mul(unit) {
                b
            } else {
                b.min(next + budget.max(1))
            };
            if self
                .estimator
                .part(
                    self.game.as_ref(),
                    which,
                    batch.clone(),
                    next..end,
                    &mut self.scratch,
                )
                .is_err()
            {
                self.stop = Some("error");
                return None;
            }
            budget = budget.saturating_sub(end - next);
            self.grad_records += end - next;
            next = end;
            if next < b {
                break;
            }
            self.estimator
                .add_part(which, w, &mut self.gx, &mut self.gy);
            which += 1;
            next = 0;
            if budget == 0 {
                break;
            }
        }
        if which < 3 {
            self.pending = Some(Pending {
                level,
                batch,
                which,
                next,
            });
            let report = StepReport {
                grad_evals: self.grad_evals(),
                loss: f64::NAN,
                noise_norm: 0.0,
                grad_norm: f64::NAN,
                epsilon_spent: self.filter.spent(),
                done: false,
            };
            return Some(Step {
                report,
                value: None,
            });
        }
        self.out_x.write_dense(&mut self.rx);
        self.out_y.write_dense(&mut self.ry);
        let tau = self.params.tau;
        self.x.step(-tau, &self.gx);
        self.y.step(tau, &self.gy);
        let change = batch_score_sensitivity(tau, self.l0, b, w);
        self.max_score_change = self.max_score_change.max(change);
        self.next_record += b;
        self.used += libm::exp2(f64::from(level));
        self.last_level = level;
        let grad_norm = self
            .gx
            .iter()
            .chain(&self.gy)
            .fold(0.0_f64, |m, g| m.max(g.abs()));
        let report = StepReport {
            grad_evals: self.grad_evals(),
            loss: f64::NAN,
            noise_norm: 0.0,
            grad_norm,
            epsilon_spent: self.filter.spent(),
            // The filter stops the run when the next step is asked for (`begin`).
            done: self.stop.is_some(),
        };
        self.t += 1;
        Some(Step {
            report,
            value: None,
        })
    }

    fn point(&self) -> Point<'_> {
        Point::Saddle {
            x: &self.rx,
            y: &self.ry,
        }
    }

    fn release(&self) -> Option<Published> {
        // The average of the output vertices drawn under the filter, once it stopped, and only
        // if the trail drew exactly what the filter charged.
        let charged = self.filter.draws() as usize == self.trail.drawn();
        (self.stop.is_some() && charged)
            .then(|| Noised::iterate_pair(&self.rx, &self.ry, &self.trail))
            .flatten()
            .map(Published::Private)
    }

    fn mid_update(&self) -> bool {
        self.pending.is_some()
    }

    fn grad_evals(&self) -> f64 {
        self.grad_records as f64 / self.records.len() as f64
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let named = |name, value| Diagnostic { name, value };
        vec![
            named("vertex_draws", self.filter.draws() as f64),
            named("epsilon_spent", self.filter.spent()),
            named("epsilon_per_draw", 2.0 * self.max_score_change),
            named("level", f64::from(self.last_level)),
            named("budget_used", self.used),
            named(
                "records_used",
                (self.next_record - self.records.start) as f64,
            ),
            named(
                "filter_stopped",
                if self.stop == Some("privacy filter") {
                    1.0
                } else {
                    0.0
                },
            ),
            named("output_support_x", self.out_x.nonzeros() as f64),
            named("output_support_y", self.out_y.nonzeros() as f64),
        ]
    }

    /// Its vertex draws and, once the run has stopped early, why (see
    /// [`BiasReducedSmd::stopped`]).
    fn extras(&self) -> Extras<'_> {
        Extras::none()
            .with(Extra::Vertices(VertexView {
                dense_x: self.x.iterate(),
                dense_y: self.y.iterate(),
                last_draw: self.last_draw,
            }))
            .with_some(self.stopped().map(Extra::Stopped))
    }
}

impl BiasReducedSmd {
    /// Why the run ended before its planned steps, once it has, as a sentence; `None` while it
    /// runs. Each reason depends on the truncated-geometric levels N_t alone, never on the records
    /// (González, Guzmán & Paquette 2024), so saying it reveals nothing about them.
    pub fn stopped(&self) -> Option<String> {
        let steps = self.t;
        let reason = match self.stop? {
            "privacy filter" => {
                let r = self.refused?;
                format!(
                    "the privacy filter stopped the run before step {}: that step's {} vertex \
                     draws at ε_m = {:.3e} each would have brought (ACC) to ε = {:.4}, above the \
                     budget ε = {}; {} draws were charged, ε spent {:.4}",
                    r.step + 1,
                    r.draws,
                    r.epsilon_m,
                    r.would_spend,
                    self.params.epsilon,
                    self.filter.draws(),
                    self.filter.spent()
                )
            }
            "budget U" => format!(
                "the run spent its budget: Σ2^N_t = {} would pass U − 2^M = {:.1} at the next \
                 step (the privacy filter did not bind; ε spent {:.4} of {})",
                self.used,
                self.params.budget - libm::exp2(f64::from(self.params.level)),
                self.filter.spent(),
                self.params.epsilon
            ),
            "records" => format!(
                "the next step's batch would pass the n = {} records ({} used; the privacy \
                 filter did not bind, ε spent {:.4} of {})",
                self.game.records(),
                self.next_record,
                self.filter.spent(),
                self.params.epsilon
            ),
            _ => "the game refused a gradient".to_string(),
        };
        Some(format!("Stopped after {steps} steps: {reason}."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::smd::test_games::{
        MatrixRecords, SoftplusGame, exact_maurey_gradient0, random_matrix,
    };
    use crate::rng::{Stream, seeded};

    fn unit_constants() -> GameConstants {
        GameConstants {
            linf_lipschitz: 1.0,
            l1_smoothness: 1.0,
            second_order: 1.0,
            lipschitz: f64::NAN,
            smoothness: f64::NAN,
            mu_x: 0.0,
            mu_y: 0.0,
        }
    }

    /// E\[G\] = Σ_k P\[N = k\]·(w_k·(G_{k+1} − G_k)) + G₀ for level means G_k (the gradient's
    /// expectation at a Maurey average of 2^k draws), with importance weights `weight`.
    fn telescoped_mean(tg: TruncatedGeometric, g: &[f64], weight: impl Fn(u32) -> f64) -> f64 {
        g[0] + (0..=tg.level())
            .map(|k| tg.probability(k) * weight(k) * (g[k as usize + 1] - g[k as usize]))
            .sum::<f64>()
    }

    #[test]
    fn p2_the_corrected_weight_c_m_2_pow_n_reproduces_the_exact_target_1_144776() {
        // Checked numerically: d = 5, M = 3, exact level means G₀ = 1.125117 and
        // G_{M+1} = 1.144776. The intermediate G₁..G_M cancel (any values do); the worked
        // three figures follow from C_M alone.
        let tg = TruncatedGeometric::new(3).unwrap();
        let g = [1.125117, 1.13, 1.141, 1.1432, 1.144776];
        let c = tg.normaliser();
        assert_eq!(c, 1.875);
        let corrected = telescoped_mean(tg, &g, |k| tg.weight(k));
        assert!((corrected - 1.144776).abs() < 1e-12, "{corrected}");
        // The two misreadings: weight 2^N (C_M dropped) and 2^N/C_M ("C_M ≤ 1", i.e. C_M = 1/S).
        let dropped = telescoped_mean(tg, &g, |k| libm::exp2(f64::from(k)));
        assert!((dropped - 1.135601).abs() < 1e-6, "{dropped}");
        let inverted = telescoped_mean(tg, &g, |k| libm::exp2(f64::from(k)) / c);
        assert!((inverted - 1.130708).abs() < 1e-6, "{inverted}");
    }

    #[test]
    fn p2_algorithm_2_is_unbiased_for_the_2_pow_m_plus_1_draw_average_exactly_and_by_simulation() {
        // A softplus record game (L₂ > 0, so a K-draw gradient is biased). Exact multinomial
        // enumeration of the level means G_k = E ∂₀F(x̂_{2^k}) on d = 5, M = 3.
        let a = vec![3.0, -2.0, 1.0, -3.0, 2.0];
        let x = [0.3, 0.25, 0.2, 0.15, 0.1];
        let tg = TruncatedGeometric::new(3).unwrap();
        let g: Vec<f64> = (0..=4)
            .map(|k| exact_maurey_gradient0(&a, &x, 1 << k))
            .collect();
        let exact = telescoped_mean(tg, &g, |k| tg.weight(k));
        assert!((exact - g[4]).abs() < 1e-12);
        let biased = telescoped_mean(tg, &g, |k| libm::exp2(f64::from(k)));
        // The bias the correction removes: (G₄ − G₀)(1 − 1/C_M).
        assert!((g[4] - biased - (g[4] - g[0]) * (1.0 - 1.0 / 1.875)).abs() < 1e-12);
        println!("G = {g:?}, corrected {exact:.6}, 2^N weight {biased:.6}");
        // The code path: Algorithm 2 on the iterate x (scores ln x), one record per batch.
        let game = SoftplusGame {
            a,
            b: vec![0.0; 2],
            n: 1,
        };
        let mut xp = EntropicPlayer::uniform(5);
        let scores: Vec<f64> = x.iter().map(|v| libm::log(*v)).collect();
        xp.step(1.0, &scores);
        let yp = EntropicPlayer::uniform(2);
        let mut est = BiasReducedGradient::new(5, 2);
        let (mut gx, mut gy) = (vec![0.0; 5], vec![0.0; 2]);
        let mut scratch = game.scratch();
        let mut rng = seeded(21, Stream::Noise);
        let mut trail = Trail::filtered(usize::MAX);
        let runs = 400_000;
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for _ in 0..runs {
            let level = tg.sample(&mut rng);
            est.estimate(
                &game,
                &xp,
                &yp,
                tg,
                level,
                0..1,
                (&mut trail, &mut rng),
                &mut gx,
                &mut gy,
                &mut scratch,
            )
            .unwrap();
            sum += gx[0];
            sum_sq += gx[0] * gx[0];
        }
        let mean = sum / runs as f64;
        let se = ((sum_sq / runs as f64 - mean * mean) / runs as f64).sqrt();
        println!("Monte Carlo {mean:.5} ± {se:.5}");
        // Within 4 standard errors of the exact target, and the dropped-C_M value is not.
        assert!((mean - exact).abs() < 4.0 * se, "{mean} vs {exact} ± {se}");
        assert!(
            (mean - biased).abs() > 4.0 * se,
            "{mean} vs {biased} ± {se}"
        );
    }

    #[test]
    fn theorem_3_14_fixed_point_with_the_papers_constant_9_matches_a_worked_example() {
        // A worked example with the paper's c = 9 (González, Guzmán & Paquette 2024, Theorem 3.14):
        // n = 1e5, ε = 1,
        // δ = 1e-6, dx = dy = 100, L₀ = L₁ = L₂ = 1 → U ≈ 443, M = 4, τ ≈ 0.023, α ≈ 0.0089,
        // about 172 expected steps.
        let p = theorem_3_14(100_000, 1.0, 1e-6, (100, 100), unit_constants(), 9.0).unwrap();
        assert!((p.budget - 443.0).abs() < 1.0, "{}", p.budget);
        assert_eq!(p.level, 4);
        assert!((p.tau - 0.023).abs() < 5e-4, "{}", p.tau);
        assert!((p.alpha - 0.0089).abs() < 5e-5, "{}", p.alpha);
        let tg = TruncatedGeometric::new(p.level).unwrap();
        assert!((p.budget / tg.mean_pow2() - 172.0).abs() < 1.0);
    }

    #[test]
    fn p3_theorem_3_14_fixed_point_uses_the_corrected_prop_3_17_constant_20() {
        // Checked numerically: with c = 20, U = 174, M = 3, τ = 0.042, α = 0.0035, about 82
        // expected steps; the solution meets Proposition 3.17's U bound and the sample bound nα/2.
        assert_eq!(PROP_3_17_CONSTANT, 20.0);
        let n = 100_000;
        let p = theorem_3_14(
            n,
            1.0,
            1e-6,
            (100, 100),
            unit_constants(),
            PROP_3_17_CONSTANT,
        )
        .unwrap();
        assert!((p.budget - 174.0).abs() < 1.0, "{}", p.budget);
        assert_eq!(p.level, 3);
        assert!((p.tau - 0.042).abs() < 5e-4, "{}", p.tau);
        assert!((p.alpha - 0.0035).abs() < 5e-5, "{}", p.alpha);
        let tg = TruncatedGeometric::new(p.level).unwrap();
        assert!((p.budget / tg.mean_pow2() - 82.0).abs() < 1.0);
        let closed = prop_3_17_budget(1.0, 1e-6, p.tau, p.alpha, 1.0, PROP_3_17_CONSTANT);
        assert!(p.budget <= closed * (1.0 + 1e-9), "{} > {closed}", p.budget);
        assert!(p.budget <= n as f64 * p.alpha / 2.0 * (1.0 + 1e-9));
    }

    #[test]
    fn p3_the_per_draw_epsilon_exceeds_the_papers_9_tau_alpha_l0_but_not_20() {
        // Each draw costs 2Δ_r with Δ_r = τ(2L₀/b)(2w_N + 1), b = max(1, ⌈2^N/α⌉): scan every
        // level of M = 1..10 at α = 1/8 and α = 0.003.
        let (tau, l0) = (0.04, 1.0);
        for alpha in [0.125, 0.003] {
            for m in 1..=10 {
                let tg = TruncatedGeometric::new(m).unwrap();
                let worst = (0..=m)
                    .map(|k| {
                        let b = ((libm::exp2(f64::from(k)) / alpha).ceil() as usize).max(1);
                        2.0 * batch_score_sensitivity(tau, l0, b, tg.weight(k)) / (tau * alpha * l0)
                    })
                    .fold(0.0_f64, f64::max);
                assert!(worst > 9.0, "M = {m}, α = {alpha}: {worst}");
                assert!(worst <= PROP_3_17_CONSTANT, "M = {m}, α = {alpha}: {worst}");
            }
        }
    }

    fn run_to_end(run: &mut BiasReducedSmd) {
        let mut steps = 0;
        while run.step().is_some() {
            steps += usize::from(!run.mid_update());
        }
        assert!(run.stop.is_some());
        assert_eq!(steps, run.steps_taken());
    }

    /// Algorithm 3 with its batch gradients split across calls (five records a call) makes the
    /// same draws and iterates, bit for bit, as whole steps: the same release, vertex draws,
    /// record count and stopping reason; a call that ends mid-step leaves the point unchanged.
    #[test]
    fn a_step_split_across_calls_gives_a_bit_identical_run() {
        let n = 20_000;
        let game = bilinear(10, n);
        let p = theorem_3_14(n, 1.0, 1e-6, (10, 10), game.constants(), PROP_3_17_CONSTANT).unwrap();
        let new = || BiasReducedSmd::new(game.clone(), p, seeded(5, Stream::Noise), true).unwrap();
        let (mut whole, mut split) = (new(), new());
        whole.records_per_call = usize::MAX;
        split.records_per_call = 5;
        run_to_end(&mut whole);
        let mut mid = 0;
        loop {
            let before = split.rx.clone();
            if split.step().is_none() {
                break;
            }
            if split.mid_update() {
                mid += 1;
                assert_eq!(split.rx, before);
            }
        }
        assert!(mid > 0, "no step was split");
        let bits = |r: &BiasReducedSmd| {
            let published = r.release().expect("a release");
            let y = published.y().unwrap_or_default().to_vec();
            published
                .x()
                .iter()
                .chain(&y)
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&whole), bits(&split));
        assert_eq!(whole.steps_taken(), split.steps_taken());
        assert_eq!(whole.filter().draws(), split.filter().draws());
        assert_eq!(whole.grad_records, split.grad_records);
        assert_eq!(whole.stopped_by(), split.stopped_by());
        assert_eq!(whole.x.iterate(), split.x.iterate());
    }

    fn bilinear(d: usize, n: usize) -> Arc<dyn RecordGame> {
        Arc::new(MatrixRecords::signs(d, d, &random_matrix(d, 8), n, 3))
    }

    #[test]
    fn algorithm_3_stops_on_its_budget_u_within_epsilon_at_theorem_3_14s_parameters() {
        // With c = 20 the closed form leaves (ACC) at most ε/2 + ε²/(16 ln 1/δ): the budget U,
        // never the filter, ends the run; the release averages exactly the T_stop + 1 output
        // vertices of the iterates gradients were taken at (the paper's extra draw is not made).
        let n = 20_000;
        let game = bilinear(10, n);
        let p = theorem_3_14(n, 1.0, 1e-6, (10, 10), game.constants(), PROP_3_17_CONSTANT).unwrap();
        let mut run = BiasReducedSmd::new(game, p, seeded(5, Stream::Noise), true).unwrap();
        let before = run.guarantee().clone();
        run_to_end(&mut run);
        assert_eq!(run.stopped_by(), Some("budget U"));
        // The page's sentence says the budget ended it and the filter did not bind.
        let said = run.stopped().expect("a sentence once stopped");
        assert!(
            said.starts_with(&format!(
                "Stopped after {} steps: the run spent its budget",
                run.steps_taken()
            )),
            "{said}"
        );
        assert!(said.contains("the privacy filter did not bind"), "{said}");
        assert_eq!(run.guarantee(), &before);
        assert!(run.filter().spent() <= 1.0);
        assert!(run.worst_case_equivalent_draws() < run.draws()[0].count as f64 + 1.0);
        let t = run.steps_taken();
        assert_eq!(run.output_draws().0.draws() as usize, t);
        // At most T_stop + 1 non-zeros per block, every coordinate a multiple of 1/(T_stop + 1).
        let Point::Saddle { x, y } = run.point() else {
            panic!()
        };
        for v in [x, y] {
            assert!(v.iter().filter(|p| **p > 0.0).count() <= t);
            for p in v {
                assert!((p * t as f64 - (p * t as f64).round()).abs() < 1e-9);
            }
        }
        assert!(run.ledger().is_private());
    }

    #[test]
    fn algorithm_3s_privacy_filter_stops_the_run_before_epsilon_is_exceeded() {
        // A step size 4 times Theorem 3.14's and an unreachable U: only the filter can stop it.
        let n = 200_000;
        let game = bilinear(10, n);
        let mut p =
            theorem_3_14(n, 1.0, 1e-6, (10, 10), game.constants(), PROP_3_17_CONSTANT).unwrap();
        p.tau *= 4.0;
        p.budget = 1e9;
        let mut run = BiasReducedSmd::new(game, p, seeded(6, Stream::Noise), true).unwrap();
        run_to_end(&mut run);
        println!(
            "steps {}, draws {}",
            run.steps_taken(),
            run.filter().draws()
        );
        assert_eq!(run.stopped_by(), Some("privacy filter"));
        let spent = run.filter().spent();
        assert!(spent <= 1.0 && spent > 0.5, "{spent}");
        // The page says when (the step it refused) and why (what that step would have spent).
        let refused = run.refused.expect("the refused step is kept");
        assert_eq!(refused.step, run.steps_taken());
        assert!(refused.would_spend > 1.0, "{refused:?}");
        let said = run.stopped().expect("a sentence once stopped");
        assert!(
            said.contains(&format!(
                "the privacy filter stopped the run before step {}",
                run.steps_taken() + 1
            )),
            "{said}"
        );
        assert!(said.contains("above the budget ε = 1"), "{said}");
        assert!(run.steps_taken() > 1);
        let d = run.diagnostics();
        let get = |k: &str| d.iter().find(|x| x.name == k).unwrap().value;
        assert_eq!(get("filter_stopped"), 1.0);
        assert!(get("records_used") < n as f64);
        // The filter stopped within the declared worst case: its Σε_m² is below that of one more
        // than the declared count of draws at the uniform bound ε_u (the count is rounded down).
        let declared = run.draws()[0].count as f64;
        assert!(run.worst_case_equivalent_draws() < declared + 1.0);
        // It stopped only when the next step's draws (at most 2(2^{M+1} + 1)) would not fit.
        let equiv = run.worst_case_equivalent_draws();
        let largest_step = 2.0 * (libm::exp2(f64::from(p.level) + 1.0) + 1.0);
        assert!(equiv > declared - largest_step, "{equiv} of {declared}");
        assert!(run.ledger().is_private());
    }

    #[test]
    fn algorithm_3_stops_when_the_next_batch_would_exceed_the_records() {
        let n = 300;
        let game = bilinear(5, n);
        let p = BiasReducedParams {
            epsilon: 1.0,
            delta: 1e-6,
            budget: 1e9,
            level: 3,
            tau: 1e-6,
            alpha: 0.05,
        };
        let mut run = BiasReducedSmd::new(game, p, seeded(7, Stream::Noise), true).unwrap();
        run_to_end(&mut run);
        assert_eq!(run.stopped_by(), Some("records"));
        let d = run.diagnostics();
        let used = d.iter().find(|x| x.name == "records_used").unwrap().value;
        assert!(used <= n as f64);
    }

    #[test]
    fn algorithm_3_closes_the_gap_of_a_random_game() {
        let n = 200_000;
        let game = bilinear(10, n);
        let p = theorem_3_14(n, 4.0, 1e-6, (10, 10), game.constants(), PROP_3_17_CONSTANT).unwrap();
        let mut run = BiasReducedSmd::new(game.clone(), p, seeded(9, Stream::Noise), true).unwrap();
        run_to_end(&mut run);
        let Point::Saddle { x, y } = run.point() else {
            panic!()
        };
        let (mut gx, mut gy) = (vec![0.0; 10], vec![0.0; 10]);
        let gap = game.duality_gap(x, y, &mut gx, &mut gy).unwrap().gap();
        let start = game
            .duality_gap(&[0.1; 10], &[0.1; 10], &mut gx, &mut gy)
            .unwrap()
            .gap();
        println!(
            "steps {}, gap {gap:.4}, start {start:.4}",
            run.steps_taken()
        );
        assert!(gap < start, "{gap} vs {start}");
    }

    #[test]
    fn bad_algorithm_3_settings_are_errors_naming_the_field() {
        let game = bilinear(3, 100);
        let ok = BiasReducedParams {
            epsilon: 1.0,
            delta: 1e-6,
            budget: 16.0,
            level: 2,
            tau: 0.01,
            alpha: 0.5,
        };
        let bad = |p: BiasReducedParams| {
            BiasReducedSmd::new(game.clone(), p, seeded(1, Stream::Noise), true)
                .err()
                .unwrap()
                .to_string()
        };
        assert!(bad(BiasReducedParams { tau: 0.0, ..ok }).contains("tau"));
        assert!(bad(BiasReducedParams { alpha: 2.0, ..ok }).contains("alpha"));
        assert!(bad(BiasReducedParams { budget: 2.0, ..ok }).contains("budget"));
        assert!(bad(BiasReducedParams { level: 40, ..ok }).contains("M"));
        assert!(
            bad(BiasReducedParams {
                epsilon: -1.0,
                ..ok
            })
            .contains("privacy ε")
        );
        assert!(
            theorem_3_14(10, 1.0, 1e-6, (3, 3), unit_constants(), 20.0)
                .err()
                .unwrap()
                .to_string()
                .contains("n")
        );
    }
}
