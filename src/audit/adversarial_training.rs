//! The audit of Lowy & Razaviyayn 2021's Algorithm 8 ([`crate::algo::adversarial_training`]):
//! the family's config on its game with record 0 planted at the declared bound's two extremes (as
//! [`super::GameTarget`]), its claim the plan's guarantee, each run with **the worst black box
//! the algorithm's contract allows** ([`BlackBox::WorstCase`]).
//!
//! Why a worst case: Algorithm 8 promises privacy for any solver whose output is α-accurate, and
//! its sensitivity term 2√(2α/μ) is what pays for a solver that ends √(2α/μ) from the solution
//! in a direction that depends on the data. The page's solvers stop where they first certify,
//! which on a planted pair is rarely that adversarial, so the paper's misprint (2α/μ in place of
//! 2√(2α/μ)) would go unseen. The worst-case black box solves to 10⁻⁶ of its target, then moves
//! x by 0.99·√(2α/μₓ) along +e₁ on D and −e₁ on D′ (it is told which dataset it runs on: any
//! function of the data is a valid black box). The statistic is x̃₁, larger on D.
//!
//! The solver is forced to extragradient, which is deterministic: each side is solved once,
//! through the algorithm's own run, and every audit run redraws the release's noise through the
//! same [`release_model`] the run releases with.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::family::claim_of;
use super::{Auditable, Side};
use crate::algo::adversarial_training::{
    AdversarialLeak, AdversarialSettings, AdversarialTraining, BlackBox, release_model,
};
use crate::algo::family::ProblemKind;
use crate::algo::run::Run;
use crate::config::menu;
use crate::config::{AlgorithmKind, RunConfig};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::minimax::RecordGame;
use crate::minimax::game::StochasticGame;
use crate::minimax::solvers::SaddleSolverKind;
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// Algorithm 8 on the planted pair of `config`'s game, with the worst-case black box.
pub struct AdversarialTrainingTarget {
    claim: ApproxDp,
    sigma: f64,
    x_domain: DomainKind,
    /// The worst-case black box's output x_T on D (pushed along +e₁) and on D′ (along −e₁).
    solved: [Vec<f64>; 2],
    noise: Vec<f64>,
    out: Vec<f64>,
}

impl AdversarialTrainingTarget {
    /// `config` (which must pose a game and pick Algorithm 8; its `leak` switch selects the
    /// misprint) at solver accuracy `alpha`. The claim is the page's plan's guarantee.
    pub fn new(config: &RunConfig, alpha: f64) -> Result<Self> {
        if config.problem != ProblemKind::Saddle
            || config.algorithm != AlgorithmKind::AdversarialTraining
        {
            return Err(Error::invalid(
                "algorithm",
                "black-box adversarial training on a game",
                config.algorithm.key(),
            ));
        }
        let claim = claim_of(&menu::plan(config)?);
        let mut settings = AdversarialSettings::new(config.epsilon, config.delta);
        settings.solver = SaddleSolverKind::Extragradient;
        settings.alpha = Some(alpha);
        if config.leak {
            settings.leak = AdversarialLeak::Misprint;
        }
        let spec = config.game_spec();
        let solve = |sign: f64| -> Result<(Vec<f64>, f64)> {
            let game: Arc<dyn RecordGame> =
                Arc::new(StochasticGame::with_planted_record(spec, sign)?);
            let settings = AdversarialSettings {
                black_box: BlackBox::WorstCase { sign },
                ..settings
            };
            let mut run = AdversarialTraining::new(game, settings, DpRng::seed_from_u64(0), false)?;
            while run.step().is_some() {}
            if run.aborted() {
                return Err(Error::invalid("n", "a game the solver certifies", spec.n));
            }
            Ok((run.solved_point().to_vec(), run.calibration().sigma))
        };
        let (on_d, sigma) = solve(1.0)?;
        let (on_d_prime, _) = solve(-1.0)?;
        let dx = on_d.len();
        Ok(Self {
            claim,
            sigma,
            x_domain: spec.x_domain,
            solved: [on_d, on_d_prime],
            noise: vec![0.0; dx],
            out: vec![0.0; dx],
        })
    }

    /// The black box's outputs on D and D′ (non-private), for the test's report.
    pub fn solved(&self) -> &[Vec<f64>; 2] {
        &self.solved
    }

    /// σ of the release.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
}

impl Auditable for AdversarialTrainingTarget {
    fn claim(&self) -> ApproxDp {
        self.claim
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let mut noise = DpRng::seed_from_u64(rng.next_u64());
        let x_t = match side {
            Side::D => &self.solved[0],
            Side::DPrime => &self.solved[1],
        };
        release_model(
            x_t,
            self.sigma,
            &self.x_domain as &dyn Domain,
            &mut noise,
            &mut self.noise,
            &mut self.out,
        );
        Ok(self.out[0])
    }
}
