//! The whole-algorithm target of a saddle-point family: a family, as a [`RunConfig`] posing a game
//! names it, run on a planted neighbouring pair of games. As [`super::FamilyTarget`] does for
//! minimisation, it audits what the page runs: the claim is the plan's guarantee and every run is
//! built by the same [`Planned::build`] the session uses.
//!
//! The pair: the config's game with record 0 replaced by the planted record of sign +1 (D) or −1
//! (D′) ([`StochasticGame::with_planted_record`](crate::minimax::game::StochasticGame::with_planted_record)):
//! every entry of the record moves by 2c, the declared bound's largest change. In D the record
//! pushes x off its first strategy and y onto its first (the planted M has +c where exactly one
//! index is 0), so the statistic is y₁ − x₁ of the release: larger on D. In group DRO the planted
//! record ([`GroupDro::with_planted_record`](crate::minimax::group_dro::GroupDro::with_planted_record))
//! has features ±c·e₁ and the smallest group in D, the largest in D′: it pulls x₁ up and weighs
//! the small group in D, so the statistic is x₁ + y₃. On the ball game the planted offset moves the
//! maximising player: the statistic is y's other coordinates less its first.
//!
//! [`GameTarget::with_noise_for`] plants the bug every family can have: the noise of the plan for
//! a larger ε, tested against the claim of the plan as given.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::family::claim_of;
use super::{Auditable, Side};
use crate::algo::Draws;
use crate::algo::family::ProblemKind;
use crate::algo::problem::Posed;
use crate::algo::registry::Planned;
use crate::algo::run::Point;
use crate::config::{GameChoice, RunConfig};
use crate::config::{menu, pose};
use crate::error::{Error, Result};
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// A saddle-point family run on one side of the planted pair of games.
pub struct GameTarget {
    config: RunConfig,
    plan: Planned,
    /// The guarantee tested: the plan's, or the correct plan's when the noise is planted.
    claim: ApproxDp,
    /// D and D′ (their empirical means are computed once).
    games: [Posed; 2],
    /// The release's statistic, larger on D (the planted record's direction).
    statistic: fn(&[f64], &[f64]) -> f64,
}

/// The matrix games' statistic: the planted record favours y's first strategy and pushes x off
/// its first.
fn first_strategies(x: &[f64], y: &[f64]) -> f64 {
    y[0] - x[0]
}

/// The ball game's statistic: the planted record's offset b is +c on y's first coordinate and −c
/// on the others, and the maximising player's best response to −b̄ᵀy moves y against it: the sum
/// of y's other coordinates less its first, larger on D. On balls
/// with μᵧ > 0 and an interior saddle point the replaced offset moves y* by 2c√dᵧ/(nμᵧ), the
/// largest share of the declared sensitivity a replaced record reaches on this game.
fn offset_direction(_x: &[f64], y: &[f64]) -> f64 {
    y[1..].iter().sum::<f64>() - y[0]
}

/// Group DRO's statistic: the planted record pulls x₁ up and weighs the last (smallest) group.
fn feature_and_small_group(x: &[f64], y: &[f64]) -> f64 {
    x[0] + y[y.len() - 1]
}

impl GameTarget {
    /// `config`'s main algorithm (which must pose a game) on the planted pair.
    pub fn new(config: RunConfig) -> Result<Self> {
        Self::with_noise_for(config, 1.0)
    }

    /// The planted bug of a family with no page switch: `config`'s family run with the noise
    /// its plan calibrates for `factor`·ε (σ about `factor` times too small, the calibration the
    /// page picks at that ε), while the claim stays the plan of `config` as given. `factor` = 1
    /// is [`GameTarget::new`].
    pub fn with_noise_for(config: RunConfig, factor: f64) -> Result<Self> {
        let claimed = menu::plan(&config)?;
        let mut target = Self::noised_for(config, factor)?;
        target.claim = claim_of(&claimed);
        Ok(target)
    }

    fn noised_for(config: RunConfig, factor: f64) -> Result<Self> {
        if config.problem != ProblemKind::Saddle {
            return Err(Error::invalid("problem", "a game to audit", "minimisation"));
        }
        let plan = menu::plan(&RunConfig {
            epsilon: config.epsilon * factor,
            ..config.clone()
        })?;
        let side = |sign: f64| -> Result<Posed> {
            Ok(Posed::Saddle(Arc::new(pose::planted_game(&config, sign)?)))
        };
        let games = [side(1.0)?, side(-1.0)?];
        let statistic = if config.dro_spec().is_some() {
            feature_and_small_group
        } else if config.game == GameChoice::BallGame {
            offset_direction
        } else {
            first_strategies
        };
        Ok(Self {
            claim: claim_of(&plan),
            config,
            plan,
            games,
            statistic,
        })
    }

    /// The same target with `statistic` (of the released x, y; larger on either side) in place of
    /// the game's default: a pair built for one audit may know a better direction.
    pub fn with_statistic(mut self, statistic: fn(&[f64], &[f64]) -> f64) -> Self {
        self.statistic = statistic;
        self
    }

    /// The configuration the target runs.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }
}

impl Auditable for GameTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn draws(&self) -> Vec<Draws> {
        // The plan's noise is the claim's only when no noise is planted.
        if claim_of(&self.plan) == self.claim {
            self.plan.preview.draws.clone()
        } else {
            Vec::new()
        }
    }

    fn leaks(&self) -> Vec<String> {
        self.plan.preview.leaks.clone()
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let noise = DpRng::seed_from_u64(rng.next_u64());
        let posed = match side {
            Side::D => &self.games[0],
            Side::DPrime => &self.games[1],
        };
        let mut run = self.plan.build(posed, noise, false)?;
        while run.step().is_some() {}
        match run.point() {
            Point::Saddle { x, y } => Ok((self.statistic)(x, y)),
            Point::Min(_) => Err(Error::invalid(
                "algorithm",
                "a saddle-point algorithm",
                "a minimisation",
            )),
        }
    }
}
