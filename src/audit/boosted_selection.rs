//! The selection of González, Guzmán & Paquette's Algorithm 4 on a pair built to make it tip.
//!
//! Algorithm 4's release is one of I candidates, drawn by the exponential mechanism from scores
//! Gᵢ computed on the last quarter S₄ of m = ⌊n/4⌋ records, which nothing else reads. The
//! candidates and best responses are outputs of the other quarters, identical on D and D′ when
//! the replaced record lies in S₄; the audit conditions on them, as the proof of Theorem 3.20
//! does (parallel composition), and fixes them where the pair moves the scores most. Auditing the
//! whole pipeline instead sees almost nothing: at any n it runs in seconds, its candidates sit
//! near the uniform start and the record moves each score far less than Δ_G.
//!
//! The pair: rock–paper–scissors at d = 3 with every record of S₄ equal to the base game M₀
//! (heavy-tailed records of scale 0), and record 0 of S₄ replaced by the audits' planted record
//! of sign ±1 ([`StochasticGame::with_planted_record`]): entries ±c·P with P₀₀ = −1 and
//! P₀₁ = P₀₂ = +1. The candidates, all x = e₀: candidate 0 has y = (0, ½, ½) and best responses
//! yᵢⱼ = e₀; the other six have y = e₀ and yᵢⱼ = (0, ½, ½); every xᵢⱼ = e₀. M₀'s first row is
//! (0, ½, −½), so the m − 1 base records add nothing to any score, while the planted record gives
//! G₀ = −2sc/m and Gᵢ = +2sc/m: replacing it (s = +1 → −1) moves every score by the full
//! Δ_G = 4B_f/m (B_f = c), candidate 0's one way and the others' the other. The statistic is
//! whether candidate 0 is selected: P = e^{ε/2}/(e^{ε/2} + 6) on D against
//! e^{−ε/2}/(e^{−ε/2} + 6) on D′, a ratio of e^{0.85} at ε = 1 (e^ε as the candidates grow many).
//! The planted bug halves Δ_G, which doubles the exponent: a ratio of e^{1.69}.
//!
//! The scores are computed once per side by [`BoostedPlan::selection_scores`], the run's own, and
//! each audit run is one draw of [`BoostedPlan::select`], the run's own.

use std::sync::Arc;

use super::{Auditable, Side};
use crate::algo::family::ProblemKind;
use crate::algo::smd::boosted::{BoostedPlan, plan_of};
use crate::config::{AlgorithmKind, GameChoice, RunConfig};
use crate::data::Tail;
use crate::error::Result;
use crate::minimax::game::{RecordLaw, StochasticGame};
use crate::minimax::{PosedGame, RecordGame};
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// A bug planted in the selection, beside the plan's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionBug {
    /// The score sensitivity Δ_G halved (e.g. the max terms' 2B_f/m counted once, not twice).
    HalvedSensitivity,
}

/// Algorithm 4's selection at (ε, δ) on the tipping pair, as the module says.
pub struct BoostedSelectionTarget {
    plan: BoostedPlan,
    claim: ApproxDp,
    /// The candidates' scores on D and on D′.
    scores: [Vec<f64>; 2],
}

impl BoostedSelectionTarget {
    /// The selection of the page's Algorithm 4 on rock–paper–scissors at d = 3 with its fewest
    /// records (n = 4·I·J = 308, m = 77), at (ε, δ); with `bug`, the plan's Δ_G is changed as
    /// it says (the claim stays the plan's).
    pub fn new((epsilon, delta): (f64, f64), bug: Option<SelectionBug>) -> Result<Self> {
        let config = RunConfig {
            problem: ProblemKind::Saddle,
            game: GameChoice::RockPaperScissors,
            d: 3,
            n: crate::algo::smd::boosted::LEAST_RECORDS,
            algorithm: AlgorithmKind::BoostedSmd,
            epsilon,
            delta,
            ..RunConfig::default()
        };
        config.validate()?;
        let mut plan = plan_of(&config.settings())?;
        let claim = ApproxDp {
            epsilon: plan.guarantee.epsilon,
            delta: plan.guarantee.delta,
            relation: plan.guarantee.relation,
        };
        if bug == Some(SelectionBug::HalvedSensitivity) {
            plan.selection_sensitivity /= 2.0;
        }
        // S₄ alone: m records, each the base game, the first planted.
        let mut spec = config.game_spec();
        spec.n = plan.quarter;
        spec.law = RecordLaw::Heavy {
            tail: Tail::Gaussian,
            scale: 0.0,
        };
        let (e0, spread) = (vec![1.0, 0.0, 0.0], vec![0.0, 0.5, 0.5]);
        let candidates: Vec<(Vec<f64>, Vec<f64>)> = (0..plan.candidates)
            .map(|i| (e0.clone(), if i == 0 { spread.clone() } else { e0.clone() }))
            .collect();
        let x_responses = vec![vec![e0.clone(); plan.responses]; plan.candidates];
        let y_responses: Vec<Vec<Vec<f64>>> = (0..plan.candidates)
            .map(|i| vec![if i == 0 { e0.clone() } else { spread.clone() }; plan.responses])
            .collect();
        let score = |sign: f64| -> Result<Vec<f64>> {
            let game = Arc::new(StochasticGame::with_planted_record(spec, sign)?);
            let mut scratch = game.scratch();
            plan.selection_scores(
                game.as_ref() as &dyn PosedGame,
                0..plan.quarter,
                &candidates,
                &x_responses,
                &y_responses,
                &mut scratch,
            )
        };
        let scores = [score(1.0)?, score(-1.0)?];
        Ok(Self {
            plan,
            claim,
            scores,
        })
    }

    /// The plan the selection draws with (Δ_G as the bug left it).
    pub fn plan(&self) -> &BoostedPlan {
        &self.plan
    }

    /// The candidates' scores on D and on D′.
    pub fn scores(&self) -> &[Vec<f64>; 2] {
        &self.scores
    }
}

impl Auditable for BoostedSelectionTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let scores = match side {
            Side::D => &self.scores[0],
            Side::DPrime => &self.scores[1],
        };
        let chosen = self.plan.select(scores, rng)?;
        Ok(if chosen == 0 { 1.0 } else { 0.0 })
    }
}
