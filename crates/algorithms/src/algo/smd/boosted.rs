//! González, Guzmán & Paquette 2024 **Algorithm 4**: boosted private stochastic mirror descent with bias-reduced
//! sampling, a candidate chosen by the exponential mechanism.
//!
//! # Algorithm
//! Split the n records, in order, into four quarters S₁…S₄ of m = ⌊n/4⌋ (the remainder is
//! dropped). Split S₁ into I equal parts and run Algorithm 3 ([`super::bias_reduced`]) on each,
//! at the full (ε, δ): candidates (xᵢ, yᵢ), i ∈ \[I\]. Split S₂ and S₃ into I·J equal parts each;
//! on part (i, j) of S₂ a DP-SCO solver finds xᵢⱼ ≈ argmin_v F(v, yᵢ) (the best response to yᵢ),
//! on part (i, j) of S₃ it finds yᵢⱼ ≈ argmax_w F(xᵢ, w). Score each candidate on S₄ by the
//! empirical gap proxy Gᵢ = maxⱼ F_{S₄}(xᵢ, yᵢⱼ) − minⱼ F_{S₄}(xᵢⱼ, yᵢ), and release the
//! candidate i* drawn with P\[i* = i\] ∝ exp(−ε·Gᵢ/(2Δ_G)) (the exponential mechanism).
//!
//! Our choices, where the paper leaves them (González, Guzmán & Paquette 2024):
//! - **The DP-SCO solver** is Algorithm 5 ([`super::sco`]) on the best-response objective,
//!   not the private variance-reduced Frank–Wolfe of Asi et al. 2021 the paper names: any
//!   (ε, δ)-DP solver keeps the privacy of the pipeline, but Theorem 3.20's constants then do not
//!   apply (our fallback for the playground).
//! - **β** (the failure probability) is fixed at [`FAILURE_PROBABILITY`]: I = ⌈log₂(4/β)⌉ = 7
//!   and J = ⌈log₂(8I/β)⌉ = 11 (proof of Theorem 3.20), so n must be at least 4·I·J = 308.
//! - **B_f**, the bound on the record-dependent part of f, is declared from the entry bound c:
//!   on simplices |xᵀMy| ≤ c and |bᵀy| ≤ c, so B_f = c (matrix games) or 2c (games with an
//!   offset b, query release); group DRO on the simplex declares its own
//!   ([`DroSpec::value_bound`](crate::minimax::group_dro::DroSpec::value_bound)); the
//!   regularisers (μ/2)‖·‖² are the same for every record and cancel in a replacement.
//! - Candidates are run in order, each followed by its 2J best responses, then the selection.
//!   The page's plan refuses, at ε, a config whose candidate parts are too small for Algorithm
//!   3's smallest batch ⌈1/α⌉: every candidate would stay at the uniform start and so would the
//!   release ([`super::bias_reduced::refuse_stepless`]).
//!
//! # Assumptions
//! Those of Algorithm 3 (both players on simplices; every record's f convex–concave,
//! L₀-Lipschitz, L₁-smooth and L₂-second-order-smooth from ℓ1 to ℓ∞, declared) and a bounded
//! f: |f(x, y; ξ) − f(x, y; ξ′)| ≤ 2B_f for every pair of records (declared, above).
//!
//! # Privacy
//! Replace-one, n public. The parts are fixed by n alone and every record lies in exactly one:
//! one Algorithm 3 run ((ε, δ)-DP by its privacy filter), one Algorithm 5 run ((ε, δ)-DP by
//! (ACC), Proposition 4.3) or the selection. The later steps read earlier outputs only as
//! post-processing, so by parallel composition the release is (ε, δ)-DP (proof of Theorem 3.20).
//! The selection: replacing one record of S₄ (|S₄| = m) moves each F_{S₄} by at most 2B_f/m,
//! each max term of Gᵢ by as much, so Gᵢ by Δ_G = 4B_f/m (= 16B_f/n at m = n/4), and the
//! exponential mechanism exp(−εGᵢ/(2Δ_G)) is ε-DP — the paper's exp(−nεGᵢ/(32B_f)).
//! The running ε of the privacy plot is the largest any one record has been charged so far: the
//! running (ACC) of the sub-run under way, the largest of those done, ε once selected.
//!
//! # Utility
//! Theorem 3.20 (second-order-smooth, bounded f), with probability ≥ 1 − β:
//! Gap ≲ √(ℓ/n) + ℓ/√(nε) + B_f/√n + B_f/(nε), up to polylog(n, 1/β), with Asi et al.'s
//! Frank–Wolfe as the best-response solver; drawn with constants 1 and L₀ + L₁ in front of the
//! first two terms ([`theorem_3_20_bound`]).
//!
//! # Reference
//! González, Guzmán & Paquette 2024, "Mirror Descent Algorithms with Nearly
//! Dimension-Independent Rates for Differentially-Private Stochastic Saddle-Point Problems",
//! Algorithm 4, Theorem 3.20 and its proof (3.21–3.25); González, Guzmán & Paquette 2024.

use std::ops::Range;
use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::bias_reduced::{
    BiasReducedParams, BiasReducedSmd, PROP_3_17_CONSTANT, declared as declared_bias_reduced,
    least_records, records_for_budget, refuse_stepless, theorem_3_14_or_smallest,
};
use super::family::simplex_game;
use super::private_smd::ell;
use super::sco::{PrivateSco, ScoPlan};
use crate::algo::family::replace_one_only;
use crate::algo::family::{
    Demonstration, Family, Need, Plan, Preview, ProblemKind, Purity, RecordsAt, RunLength,
    card_text,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::{Posed, ProblemDeclaration};
use crate::algo::registry::Planned;
use crate::algo::run::{Diagnostic, Point, Run, Step};
use crate::algo::settings::Settings;
use crate::algo::{Draws, NoiseShape, StepReport};
use crate::error::{Error, Result};
use crate::minimax::game::GameSpec;
use crate::minimax::{GameConstants, PosedGame, RecordGame, RecordScratch};
use crate::noise::gumbel_max;
use crate::privacy::release::{Noised, Published};
use crate::privacy::{Guarantee, Ledger, Relation};
use crate::rng::DpRng;
use crate::theory::curve::Curve;

/// β, the failure probability the repetitions I and J are set for (our fixed choice).
pub const FAILURE_PROBABILITY: f64 = 0.05;

/// 4·I·J at [`FAILURE_PROBABILITY`]: the fewest records the run's parts need, declared as the
/// family's need so that a compare lane is refused at `n` before any data (tested against
/// [`repetitions`]).
pub const LEAST_RECORDS: usize = 308;

/// (I, J) for failure probability β (proof of Theorem 3.20): I = ⌈log₂(4/β)⌉ candidates,
/// J = ⌈log₂(8I/β)⌉ best responses per candidate and player.
pub fn repetitions(beta: f64) -> (usize, usize) {
    let i = libm::ceil(libm::log2(4.0 / beta)).max(1.0);
    let j = libm::ceil(libm::log2(8.0 * i / beta)).max(1.0);
    (i as usize, j as usize)
}

/// B_f for the page's games on simplices, from the declared entry bound c alone: the
/// record-dependent part xᵀMy − bᵀy of f is at most c + c (with an offset b) in size.
pub fn value_bound(spec: &GameSpec) -> f64 {
    let c = spec.entry_bound;
    if spec.offset { 2.0 * c } else { c }
}

/// Everything Algorithm 4 fixes before it reads a record: the split, each sub-run's plan, the
/// selection's sensitivity and the guarantee.
#[derive(Debug, Clone, PartialEq)]
pub struct BoostedPlan {
    /// ε of the target (every sub-run and the selection run at it: parallel composition).
    pub epsilon: f64,
    /// δ.
    pub delta: f64,
    /// n.
    pub n: usize,
    /// (dx, dy).
    pub dims: (usize, usize),
    /// The declared constants.
    pub constants: GameConstants,
    /// I: candidates.
    pub candidates: usize,
    /// J: best responses per candidate and player.
    pub responses: usize,
    /// m = ⌊n/4⌋: the size of each quarter.
    pub quarter: usize,
    /// ⌊m/I⌋: the records of each Algorithm 3 run.
    pub candidate_part: usize,
    /// ⌊m/(IJ)⌋: the records of each best-response run.
    pub response_part: usize,
    /// Algorithm 3's settings for one part (Theorem 3.14 at n = ⌊m/I⌋, or its smallest budget).
    pub candidate: BiasReducedParams,
    /// Whether that part is large enough for Theorem 3.14.
    pub theorem_3_14_applies: bool,
    /// Algorithm 3's uniform per-draw bound ε_u and its declared draws, per run.
    pub candidate_draws: (f64, usize),
    /// Algorithm 5 for x's best responses (dimension dx, n = ⌊m/(IJ)⌋).
    pub x_response: ScoPlan,
    /// Algorithm 5 for y's best responses (dimension dy).
    pub y_response: ScoPlan,
    /// B_f.
    pub value_bound: f64,
    /// Δ_G = 4B_f/m: the sensitivity of each candidate's score.
    pub selection_sensitivity: f64,
    /// The guarantee stated before the run.
    pub guarantee: Guarantee,
}

impl BoostedPlan {
    /// The plan for `n` records of a game on simplices of dimensions `dims` with declared
    /// `constants` and value bound B_f, at (ε, δ), best responses of at most `max_steps` steps
    /// each. Errors name the field to change.
    pub fn new(
        n: usize,
        dims: (usize, usize),
        constants: GameConstants,
        value_bound: f64,
        (epsilon, delta): (f64, f64),
        max_steps: usize,
    ) -> Result<Self> {
        crate::privacy::check_epsilon(epsilon)?;
        crate::privacy::check_delta(delta)?;
        let (candidates, responses) = repetitions(FAILURE_PROBABILITY);
        let least = 4 * candidates * responses;
        if n < least {
            return Err(Error::invalid(
                "n",
                format!(
                    "at least 4·I·J = {least} records: Algorithm 4 splits them into \
                     {candidates} + 2·{} parts and a scoring quarter (González, Guzmán & \
                     Paquette 2024, I = {candidates}, J = {responses} at β = {FAILURE_PROBABILITY})",
                    candidates * responses
                ),
                n,
            ));
        }
        if !(value_bound.is_finite() && value_bound > 0.0) {
            return Err(Error::invalid(
                "entry_bound",
                "a finite declared bound c > 0 (it bounds f, which the selection scores)",
                value_bound,
            ));
        }
        let quarter = n / 4;
        let candidate_part = quarter / candidates;
        let response_part = quarter / (candidates * responses);
        let (candidate, theorem_3_14_applies) = theorem_3_14_or_smallest(
            candidate_part,
            epsilon,
            delta,
            dims,
            constants,
            PROP_3_17_CONSTANT,
        )?;
        let (_, uniform, max_draws) = declared_bias_reduced(&candidate, constants.linf_lipschitz)?;
        let lipschitz = (constants.linf_lipschitz, constants.l1_smoothness);
        let sco = |d| ScoPlan::new(response_part, d, lipschitz, epsilon, delta, max_steps);
        let (x_response, y_response) = (sco(dims.0)?, sco(dims.1)?);
        let selection_sensitivity = 4.0 * value_bound / quarter as f64;
        let guarantee = Guarantee {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "parallel composition over disjoint parts: {candidates} runs of Algorithm 3 on \
                 {candidate_part} records each ((ε, δ) by their privacy filters), {} best \
                 responses by Algorithm 5 on {response_part} records each ((ε, δ) by (ACC)), and \
                 the exponential-mechanism selection on {quarter} records (ε, score sensitivity \
                 4B_f/m = {selection_sensitivity:.4e}); each record is read by one of them \
                 (González, Guzmán & Paquette 2024, Algorithm 4, proof of Theorem 3.20)",
                2 * candidates * responses
            ),
        };
        Ok(Self {
            epsilon,
            delta,
            n,
            dims,
            constants,
            candidates,
            responses,
            quarter,
            candidate_part,
            response_part,
            candidate,
            theorem_3_14_applies,
            candidate_draws: (uniform, max_draws),
            x_response,
            y_response,
            value_bound,
            selection_sensitivity,
            guarantee,
        })
    }

    /// Every draw of the run: the candidates' vertex draws (score sensitivity ε_u/2 each, at
    /// most the declared count per run), the best responses' (ε₀/2), and the one selection
    /// (score sensitivity Δ_G). [`Run::draws`] returns exactly this.
    pub fn noise_draws(&self) -> Vec<Draws> {
        let (uniform, max_draws) = self.candidate_draws;
        let pairs = self.candidates * self.responses;
        vec![
            Draws {
                noise: NoiseShape::None,
                count: self.candidates * max_draws,
                sensitivity: uniform / 2.0,
            },
            Draws {
                noise: NoiseShape::None,
                count: pairs * self.x_response.draws,
                sensitivity: self.x_response.epsilon0 / 2.0,
            },
            Draws {
                noise: NoiseShape::None,
                count: pairs * self.y_response.draws,
                sensitivity: self.y_response.epsilon0 / 2.0,
            },
            Draws {
                noise: NoiseShape::None,
                count: 1,
                sensitivity: self.selection_sensitivity,
            },
        ]
    }

    /// The records of candidate i's Algorithm 3 run (part i of S₁).
    pub fn candidate_records(&self, i: usize) -> Range<usize> {
        let start = i * self.candidate_part;
        start..start + self.candidate_part
    }

    /// The records of best response (i, j) of x (`quarter` 1, in S₂) or of y (`quarter` 2, in S₃).
    pub fn response_records(&self, quarter: usize, i: usize, j: usize) -> Range<usize> {
        let start = quarter * self.quarter + (i * self.responses + j) * self.response_part;
        start..start + self.response_part
    }

    /// S₄, the records the selection scores on.
    pub fn selection_records(&self) -> Range<usize> {
        3 * self.quarter..4 * self.quarter
    }

    /// The exponential mechanism's log-weights −ε·Gᵢ/(2Δ_G) for the scores G.
    pub fn selection_log_weights(&self, scores: &[f64]) -> Vec<f64> {
        scores
            .iter()
            .map(|g| -self.epsilon * g / (2.0 * self.selection_sensitivity))
            .collect()
    }

    /// Each candidate's score on the records `s4` of `game` (which must be m = ⌊n/4⌋ records:
    /// Δ_G is for them): Gᵢ = maxⱼ F_{S₄}(xᵢ, yᵢⱼ) − minⱼ F_{S₄}(xᵢⱼ, yᵢ), with the candidates
    /// (xᵢ, yᵢ) and the best responses xᵢⱼ (`x_responses[i]`) and yᵢⱼ (`y_responses[i]`). The
    /// run scores on its last quarter; an audit may pass a game of m records standing for it.
    /// **Non-private** on its own: only [`BoostedPlan::select`]'s draw is released.
    pub fn selection_scores(
        &self,
        game: &dyn PosedGame,
        s4: Range<usize>,
        candidates: &[(Vec<f64>, Vec<f64>)],
        x_responses: &[Vec<Vec<f64>>],
        y_responses: &[Vec<Vec<f64>>],
        scratch: &mut RecordScratch,
    ) -> Result<Vec<f64>> {
        if s4.len() != self.quarter {
            return Err(Error::invalid(
                "n",
                format!("a scoring part of m = {} records", self.quarter),
                s4.len(),
            ));
        }
        let mut scores = Vec::with_capacity(candidates.len());
        for (i, (x_i, y_i)) in candidates.iter().enumerate() {
            let mut worst_for_x = f64::NEG_INFINITY;
            for y_ij in &y_responses[i] {
                let v = game.batch_value(s4.clone(), x_i, y_ij, scratch)?;
                worst_for_x = worst_for_x.max(v);
            }
            let mut worst_for_y = f64::NEG_INFINITY;
            for x_ij in &x_responses[i] {
                let v = game.batch_value(s4.clone(), x_ij, y_i, scratch)?;
                worst_for_y = worst_for_y.max(-v);
            }
            scores.push(worst_for_x + worst_for_y);
        }
        Ok(scores)
    }

    /// The exponential mechanism on the scores G: candidate i with probability ∝ exp(−εGᵢ/(2Δ_G))
    /// (ε-DP for scores of sensitivity Δ_G). The one release of the selection.
    pub fn select(&self, scores: &[f64], rng: &mut DpRng) -> Result<usize> {
        gumbel_max(rng, &self.selection_log_weights(scores))
    }
}

/// Theorem 3.20's bound with its constants and polylog factors set to 1:
/// (L₀ + L₁)(√(ℓ/n) + ℓ/√(nε)) + B_f(1/√n + 1/(nε)).
pub fn theorem_3_20_bound(plan: &BoostedPlan) -> f64 {
    let (n, l) = (plan.n as f64, ell(plan.dims.0, plan.dims.1));
    let c = plan.constants;
    let lip = c.linf_lipschitz + c.l1_smoothness;
    let ne = n * plan.epsilon;
    lip * ((l / n).sqrt() + l / ne.sqrt()) + plan.value_bound * (1.0 / n.sqrt() + 1.0 / ne)
}

/// The sub-run under way.
enum Stage {
    /// Candidate i's Algorithm 3 run.
    Candidate(usize, Box<BiasReducedSmd>),
    /// Best response j to candidate i: of x (on S₂) when `true`, of y (on S₃) otherwise.
    Response(usize, usize, bool, Box<PrivateSco>),
    /// The selection is made.
    Selected(usize),
}

/// Algorithm 4 as a [`Run`] on a game of the page.
pub struct BoostedSmd {
    game: Arc<dyn PosedGame>,
    plan: BoostedPlan,
    rng: DpRng,
    seeded: bool,
    stage: Stage,
    /// (xᵢ, yᵢ) of the candidates done.
    candidates: Vec<(Vec<f64>, Vec<f64>)>,
    /// Each candidate's release (its run's vertex draws under the filter), beside `candidates`:
    /// the selected one is the run's release.
    candidate_releases: Vec<Option<Noised>>,
    /// xᵢⱼ and yᵢⱼ of the best responses done, by candidate.
    x_responses: Vec<Vec<Vec<f64>>>,
    y_responses: Vec<Vec<Vec<f64>>>,
    /// The current point: the candidate under way, then the selected one.
    rx: Vec<f64>,
    ry: Vec<f64>,
    /// The other player's gradient, discarded by a best response.
    spare_x: Vec<f64>,
    spare_y: Vec<f64>,
    scratch: RecordScratch,
    /// The largest running ε of the sub-runs done (parallel composition: the most any record
    /// has been charged).
    spent_done: f64,
    /// Record gradients evaluated so far.
    gradient_records: f64,
    /// Vertex draws (and the selection) made by the sub-runs done.
    draws_done: usize,
    scores: Vec<f64>,
    failure: Option<String>,
}

impl BoostedSmd {
    /// A run of `plan` on `game`, which must have the plan's n and dimensions.
    pub fn new(
        game: Arc<dyn PosedGame>,
        plan: BoostedPlan,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if game.records() != plan.n || game.dims() != plan.dims {
            return Err(Error::invalid(
                "n",
                format!("the planned {} records in {:?}", plan.n, plan.dims),
                game.records(),
            ));
        }
        let (dx, dy) = plan.dims;
        let mut run = Self {
            scratch: game.scratch(),
            game,
            rng,
            seeded,
            stage: Stage::Selected(0),
            candidates: Vec::new(),
            candidate_releases: Vec::new(),
            x_responses: Vec::new(),
            y_responses: Vec::new(),
            rx: vec![1.0 / dx as f64; dx],
            ry: vec![1.0 / dy as f64; dy],
            spare_x: vec![0.0; dx],
            spare_y: vec![0.0; dy],
            spent_done: 0.0,
            gradient_records: 0.0,
            draws_done: 0,
            scores: Vec::new(),
            failure: None,
            plan,
        };
        run.stage = run.candidate(0)?;
        Ok(run)
    }

    /// The plan fixed before the run.
    pub fn plan(&self) -> &BoostedPlan {
        &self.plan
    }

    /// The candidates' scores Gᵢ once selected (non-private on their own).
    pub fn scores(&self) -> &[f64] {
        &self.scores
    }

    /// The candidates (xᵢ, yᵢ) done, in order (non-private on their own: only the selected one is
    /// released).
    pub fn candidates(&self) -> &[(Vec<f64>, Vec<f64>)] {
        &self.candidates
    }

    /// Whether the run has stopped: a candidate selected, or a sub-run failed (what each step
    /// reports as [`StepReport::done`]).
    fn stopped(&self) -> bool {
        matches!(self.stage, Stage::Selected(_)) || self.failure.is_some()
    }

    /// The selected candidate, once done.
    pub fn selected(&self) -> Option<usize> {
        match self.stage {
            Stage::Selected(i) if self.failure.is_none() => Some(i),
            _ => None,
        }
    }

    fn candidate(&mut self, i: usize) -> Result<Stage> {
        let run = BiasReducedSmd::on_records(
            Arc::clone(&self.game) as Arc<dyn RecordGame>,
            self.plan.candidate_records(i),
            self.plan.candidate,
            DpRng::seed_from_u64(self.rng.next_u64()),
            self.seeded,
        )?;
        Ok(Stage::Candidate(i, Box::new(run)))
    }

    fn response(&mut self, i: usize, j: usize, of_x: bool) -> Stage {
        let plan = if of_x {
            &self.plan.x_response
        } else {
            &self.plan.y_response
        };
        let run = PrivateSco::new(
            plan.clone(),
            0.0,
            DpRng::seed_from_u64(self.rng.next_u64()),
            self.seeded,
        );
        Stage::Response(i, j, of_x, Box::new(run))
    }

    /// The running ε of the sub-run under way.
    fn spent_now(&self) -> f64 {
        match &self.stage {
            Stage::Candidate(_, run) => run.filter().spent(),
            Stage::Response(_, _, _, run) => run.epsilon_spent(),
            Stage::Selected(_) => self.plan.epsilon,
        }
    }

    /// One step of the sub-run under way; `Ok(None)` when it had finished (its output is then
    /// stored and the next sub-run started).
    fn advance(&mut self) -> Result<Option<StepReport>> {
        let game = Arc::clone(&self.game);
        let plan = &self.plan;
        let (spare_x, spare_y, scratch) = (&mut self.spare_x, &mut self.spare_y, &mut self.scratch);
        let report = match &mut self.stage {
            Stage::Candidate(_, run) => {
                let before = run.grad_evals();
                let step = run.step();
                let records = (run.grad_evals() - before) * plan.candidate_part as f64;
                self.gradient_records += records;
                if let Point::Saddle { x, y } = run.point() {
                    self.rx.copy_from_slice(x);
                    self.ry.copy_from_slice(y);
                }
                step.map(|s| s.report)
            }
            Stage::Response(i, j, of_x, run) => {
                let (i, j, of_x) = (*i, *j, *of_x);
                let (x_i, y_i) = &self.candidates[i];
                let start = plan.response_records(if of_x { 1 } else { 2 }, i, j).start;
                let step = run.step_with(|point, batch, g| {
                    let records = start + batch.start..start + batch.end;
                    if of_x {
                        game.batch_gradients(records, point, y_i, g, spare_y, scratch)?;
                    } else {
                        // −F(xᵢ, ·) is minimised: its gradient is −∇ᵧf.
                        game.batch_gradients(records, x_i, point, spare_x, g, scratch)?;
                        g.iter_mut().for_each(|v| *v = -*v);
                    }
                    Ok(f64::NAN)
                });
                if step.is_some() {
                    self.gradient_records += run.plan().batch as f64;
                }
                step
            }
            Stage::Selected(_) => return Ok(None),
        };
        if report.is_some() {
            return Ok(report);
        }
        self.finish_stage()?;
        Ok(None)
    }

    /// Stores the output of the sub-run that has finished and starts the next one (or selects).
    fn finish_stage(&mut self) -> Result<()> {
        self.spent_done = self.spent_done.max(self.spent_now());
        let (i_count, j_count) = (self.plan.candidates, self.plan.responses);
        // A placeholder while the next stage is made; a failure leaves the run done.
        let stage = std::mem::replace(&mut self.stage, Stage::Selected(0));
        self.draws_done += match &stage {
            Stage::Candidate(_, run) => run.filter().draws() as usize,
            Stage::Response(_, _, _, run) => run.draws_made(),
            Stage::Selected(_) => 0,
        };
        self.stage = match stage {
            Stage::Candidate(i, run) => {
                if let Point::Saddle { x, y } = run.point() {
                    self.candidates.push((x.to_vec(), y.to_vec()));
                    self.candidate_releases
                        .push(run.release().and_then(|p| p.noised().cloned()));
                }
                self.x_responses.push(Vec::new());
                self.y_responses.push(Vec::new());
                self.response(i, 0, true)
            }
            Stage::Response(i, j, true, run) => {
                self.x_responses[i].push(run.current_point().to_vec());
                self.response(i, j, false)
            }
            Stage::Response(i, j, false, run) => {
                self.y_responses[i].push(run.current_point().to_vec());
                if j + 1 < j_count {
                    self.response(i, j + 1, true)
                } else if i + 1 < i_count {
                    self.candidate(i + 1)?
                } else {
                    Stage::Selected(self.select()?)
                }
            }
            done @ Stage::Selected(_) => done,
        };
        Ok(())
    }

    /// Gᵢ on S₄ for every candidate, then the exponential mechanism; the chosen candidate becomes
    /// the current point.
    fn select(&mut self) -> Result<usize> {
        let s4 = self.plan.selection_records();
        let scores = self.plan.selection_scores(
            self.game.as_ref(),
            s4.clone(),
            &self.candidates,
            &self.x_responses,
            &self.y_responses,
            &mut self.scratch,
        )?;
        self.gradient_records +=
            (2 * self.candidates.len() * self.plan.responses * s4.len()) as f64;
        let chosen = self.plan.select(&scores, &mut self.rng)?;
        self.draws_done += 1;
        let (x, y) = &self.candidates[chosen];
        self.rx.copy_from_slice(x);
        self.ry.copy_from_slice(y);
        self.scores = scores;
        Ok(chosen)
    }
}

impl Run for BoostedSmd {
    fn guarantee(&self) -> &Guarantee {
        &self.plan.guarantee
    }

    fn ledger(&self) -> Ledger {
        let p = &self.plan;
        let mechanism = format!(
            "boosted private stochastic mirror descent (González, Guzmán & Paquette 2024, \
             Algorithm 4): {} candidates by Algorithm 3, {} best responses each per player by \
             Algorithm 5, one chosen by the exponential mechanism on the last quarter",
            p.candidates, p.responses
        );
        let caveats = vec![
            format!(
                "declared L₀ = {} and B_f = {}: every record's gradient has ‖·‖_∞ ≤ L₀ and its \
                 payoff part |xᵀMy − bᵀy| ≤ B_f (from the entry bound c, not measured)",
                p.constants.linf_lipschitz, p.value_bound
            ),
            "the best responses are Algorithm 5's, not the private Frank–Wolfe of Asi, Feldman, \
             Koren & Talwar 2021 the paper names: the guarantee holds, Theorem 3.20's constants \
             do not"
                .to_string(),
            "only the selected candidate is released; the other candidates, the best responses \
             and the scores are non-private diagnostics"
                .to_string(),
            {
                let draws = p.noise_draws();
                let planned: usize = draws.iter().map(|d| d.count).sum();
                let per_draw = draws[..3]
                    .iter()
                    .map(|d| 2.0 * d.sensitivity)
                    .fold(0.0, f64::max);
                format!(
                    "vertex draws: {} of at most {planned} planned, each ε₀ ≤ {per_draw:.4e} \
                     (exponential mechanism), composed by (ACC) within each part and in parallel \
                     across the parts to ε = {:.4} so far, of the stated ε = {}",
                    self.draws_done,
                    self.spent_done.max(self.spent_now()),
                    p.epsilon
                )
            },
        ];
        let ledger = Ledger::new(p.guarantee.clone(), mechanism, self.seeded, caveats);
        // A sub-run's failure stops the run at a time that depends on the data: NOT PRIVATE.
        match &self.failure {
            Some(f) => ledger.with_failure(f.clone()),
            None => ledger,
        }
    }

    fn draws(&self) -> Vec<Draws> {
        self.plan.noise_draws()
    }

    fn step(&mut self) -> Option<Step> {
        if self.stopped() {
            return None;
        }
        loop {
            let report = match self.advance() {
                Ok(r) => r,
                Err(e) => {
                    // The candidate under way is kept as the point; the release still happens.
                    self.failure = Some(format!("a sub-run failed: {e}"));
                    None
                }
            };
            if let Some(mut report) = report {
                report.grad_evals = self.grad_evals();
                report.loss = f64::NAN;
                report.epsilon_spent = self.spent_done.max(self.spent_now());
                report.done = self.stopped();
                return Some(Step {
                    report,
                    value: None,
                });
            }
            if self.stopped() {
                // The selection is a step of its own.
                let report = StepReport {
                    grad_evals: self.grad_evals(),
                    loss: f64::NAN,
                    noise_norm: 0.0,
                    grad_norm: f64::NAN,
                    epsilon_spent: self.plan.epsilon,
                    done: true,
                };
                return Some(Step {
                    report,
                    value: None,
                });
            }
        }
    }

    fn point(&self) -> Point<'_> {
        Point::Saddle {
            x: &self.rx,
            y: &self.ry,
        }
    }

    fn release(&self) -> Option<Published> {
        // The selected candidate's own release (the selection is Algorithm 4's exponential
        // mechanism over released candidates); a failed run publishes nothing.
        let i = self.selected()?;
        self.candidate_releases
            .get(i)?
            .clone()
            .map(Published::Private)
    }

    fn mid_update(&self) -> bool {
        // A candidate's Algorithm 3 step split across calls (its batch gradients part-read).
        matches!(&self.stage, Stage::Candidate(_, run) if run.mid_update())
    }

    fn grad_evals(&self) -> f64 {
        self.gradient_records / self.plan.n as f64
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let named = |name, value| Diagnostic { name, value };
        let (phase, candidate) = match &self.stage {
            Stage::Candidate(i, _) => (1.0, *i),
            Stage::Response(i, _, true, _) => (2.0, *i),
            Stage::Response(i, _, false, _) => (3.0, *i),
            Stage::Selected(i) => (4.0, *i),
        };
        let mut d = vec![
            named("phase", phase),
            named("candidate", candidate as f64),
            named("epsilon_spent", self.spent_done.max(self.spent_now())),
        ];
        match &self.stage {
            Stage::Candidate(_, run) => d.extend(
                run.diagnostics()
                    .into_iter()
                    .filter(|x| matches!(x.name, "vertex_draws" | "epsilon_per_draw")),
            ),
            Stage::Response(_, _, _, run) => {
                d.push(named("vertex_draws", run.draws_made() as f64));
                d.push(named("epsilon_per_draw", run.plan().epsilon0));
            }
            Stage::Selected(_) => {}
        }
        d
    }
}

/// Algorithm 4's card paragraph.
pub const CARD_ALGORITHM_4: &str = "Boosting to high probability. The records are split into \
    four quarters: Algorithm 3 runs on I parts of the first, giving I candidate equilibria; a \
    private best-response solver (Algorithm 5 here) answers each candidate J times per player on \
    parts of the second and third; the last quarter scores each candidate by its worst best \
    response (a gap proxy), and the exponential mechanism picks one. Every record is read by one \
    step only, so the whole is (ε, δ)-DP by parallel composition.";

const SOURCE_4: &str = "González, Guzmán & Paquette 2024, “Mirror Descent Algorithms with Nearly Dimension-Independent Rates for Differentially-Private Stochastic Saddle-Point Problems”, Algorithm 4, Theorem 3.20";

/// Algorithm 4's entry in [`crate::algo::registry`].
pub static FAMILY: Family = Family {
    kind: AlgorithmKind::BoostedSmd,
    card: card_text! {
        name: "boosted private mirror descent",
        source: SOURCE_4,
        assumptions: "Both players on simplices; every record's f convex–concave, L₀-Lipschitz, L₁- and L₂-smooth (ℓ1 to ℓ∞), and its payoff bounded by B_f (declared from the entry bound c); n ≥ 4·I·J = 308.",
        privacy: "Parallel composition: I runs of Algorithm 3 and 2IJ best responses by Algorithm 5, each (ε, δ) on its own part, and an ε-DP exponential-mechanism selection with score sensitivity 4B_f/m on the last quarter m = n/4.",
        utility: "With probability 1 − β: Gap ≲ √(ℓ/n) + ℓ/√(nε) + B_f/√n + B_f/(nε) up to polylog(n, 1/β) (Theorem 3.20, with the private Frank–Wolfe of Asi, Feldman, Koren & Talwar 2021, “Private Stochastic Convex Optimization: Optimal Rates in ℓ1 Geometry”, as the best-response solver; here Algorithm 5, so the constants are not the theorem's).",
        watch: "The plot of ε spent climbs within each part and never above ε: a record is read by one part only. The run ends with the selection of one candidate.",
        module: "algo::smd::boosted",
        summary: CARD_ALGORITHM_4,
    },
    settings: &[],
    needs: &[Need::MinRecords {
        min: LEAST_RECORDS,
        at_settings: RecordsAt(records_for_a_step),
        why: "Algorithm 4 splits them into 7 candidate parts, 154 best-response parts and a scoring quarter (I = 7, J = 11 at β = 0.05); a pick gives each candidate part Theorem 3.14's U ≥ 4",
    }],
    solves: &[ProblemKind::Saddle],
    purity: Purity::Approximate,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan: plan_algorithm_4,
};

/// Algorithm 4's plan.
struct BoostedFamilyPlan {
    plan: BoostedPlan,
}

/// Algorithm 4's plan for `config` (a game on simplices), from the config alone: what the page
/// runs, and what the selection's audit scores with. Errors name the field to change.
pub fn plan_of(settings: &Settings) -> Result<BoostedPlan> {
    replace_one_only(
        settings.budget.relation,
        "each sub-run's sensitivity is for a public n (González, Guzmán & Paquette 2024, \
         Algorithm 4)",
    )?;
    let (n, dims, constants) = simplex_game(settings)?;
    let (i, j) = repetitions(FAILURE_PROBABILITY);
    let max_steps = (settings.step_allowance / (2 * i * j)).max(1);
    BoostedPlan::new(
        n,
        dims,
        constants,
        super::family::lane_game(settings)?.value_bound,
        (settings.budget.epsilon, settings.budget.delta),
        max_steps,
    )
}

/// The fewest records with which each candidate part runs Algorithm 3 at Theorem 3.14's own
/// parameters (its budget U ≥ 4, [`records_for_budget`]) at the config's ε, δ and game, and at
/// least those with which it can take a step ([`least_records`]); [`LEAST_RECORDS`] where the
/// plan cannot be made (the plan's own error then shows). Below the theorem's scale a candidate
/// runs at U = 4 on too few records for its larger levels, may stop before its first step, and,
/// the uniform start being rock–paper–scissors' equilibrium, the selection then picks it: on the
/// page's defaults (n = 4228 from the step's need alone) every seed tried released the start.
fn records_for_a_step(settings: &Settings, _declared: &ProblemDeclaration) -> usize {
    plan_of(settings).map_or(LEAST_RECORDS, |plan| {
        let per_run = 4 * plan.candidates;
        let theorem = records_for_budget(
            4.0,
            plan.epsilon,
            plan.delta,
            plan.dims,
            plan.constants,
            PROP_3_17_CONSTANT,
        )
        .map_or(0, |part| part.saturating_mul(per_run));
        least_records(&plan.candidate, per_run, plan.dims, plan.constants).max(theorem)
    })
}

fn plan_algorithm_4(settings: &Settings, _declared: &ProblemDeclaration) -> Result<Planned> {
    let plan = plan_of(settings)?;
    // Candidates that could never take a step are all the uniform start, and so is the
    // selection's pick: refused here, from the declared constants, so the page previews it.
    refuse_stepless(
        &plan.candidate,
        plan.candidate_part,
        4 * plan.candidates,
        plan.dims,
        plan.constants,
    )?;
    let draws = plan.noise_draws();
    let first = draws[0];
    let mut preview = Preview::new(
        AlgorithmKind::BoostedSmd,
        "boosted private stochastic mirror descent: candidates by Algorithm 3, best responses, \
         selection by the exponential mechanism (González, Guzmán & Paquette 2024, Algorithm 4)",
        plan.guarantee.clone(),
        (first.sensitivity, NoiseShape::None),
        draws.iter().map(|d| d.count).sum(),
        first.sensitivity,
        plan.constants.linf_lipschitz,
    );
    preview.draws = draws;
    preview.step_size = Some(plan.candidate.tau);
    preview.metric = ProblemKind::Saddle.metric();
    Ok(Planned::new(preview, BoostedFamilyPlan { plan }))
}

impl Plan for BoostedFamilyPlan {
    /// Theorem 3.20's end-of-run bound (a flat line; constants and polylogs 1).
    fn theory(&self, posed: &Posed, _preview: &Preview) -> Option<Curve> {
        posed.saddle().ok()?;
        Curve::flat(
            theorem_3_20_bound(&self.plan),
            "González, Guzmán & Paquette 2024, Theorem 3.20 (constants and polylog factors 1, probability 1 − β)",
        )
    }

    fn build(&self, posed: &Posed, noise: DpRng, seeded: bool) -> Result<Box<dyn Run>> {
        let game = posed.saddle()?;
        Ok(Box::new(BoostedSmd::new(
            Arc::clone(&game.game),
            self.plan.clone(),
            noise,
            seeded,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i_and_j_follow_the_proof_of_theorem_3_20() {
        // I = ⌈log₂(4/β)⌉, J = ⌈log₂(8I/β)⌉: β = 0.01 → log₂ 400 = 8.6, log₂ 7200 = 12.8.
        assert_eq!(repetitions(0.01), (9, 13));
        assert_eq!(repetitions(FAILURE_PROBABILITY), (7, 11));
        assert_eq!(repetitions(0.5), (3, 6));
    }
}
