//! The whole-algorithm target: a family, as a [`RunConfig`] names it, plus a neighbouring pair
//! of datasets. It audits what the page runs: the claim is the plan's guarantee
//! ([`crate::config::menu::plan`]), and every run is built by the same [`Planned::build`] the session uses,
//! on the same [`Problem`] the session builds from a loaded file (clipped features and labels,
//! declared objective). Nothing of the algorithm is restated here.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::{Auditable, Side};
use crate::algo::Draws;
use crate::algo::problem::Posed;
use crate::algo::problem::Problem;
use crate::algo::registry::Planned;
use crate::config::{DataSource, RunConfig};
use crate::config::{menu, pose};
use crate::data::Dataset;
use crate::data::gate::{GateBounds, Records};
use crate::error::Result;
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// A family run on one side of a fixed neighbouring pair, released first coordinate as the
/// statistic (the pairs are one-dimensional; D − D′ points along it).
pub struct FamilyTarget {
    config: RunConfig,
    plan: Planned,
    /// The problems of D and D′, built once: [`crate::config::pose::problem`] also solves a (non-private,
    /// capped) reference, a diagnostic no release depends on, which thousands of runs need not
    /// repeat.
    problems: [Arc<Problem>; 2],
    /// The claim tested when it is not the plan's (a planted noise: the correct plan's).
    claim: Option<ApproxDp>,
}

impl FamilyTarget {
    /// `config`'s main algorithm on the pair (D, D′), which enter as a loaded file does
    /// (`data` is set to [`DataSource::Csv`]). Errors name the config field at fault.
    pub fn new(config: RunConfig, pair: [Dataset; 2]) -> Result<Self> {
        Self::with_problems(config, pair, |problem, _| Ok(problem))
    }

    /// As [`FamilyTarget::new`], with the session's clipping skipped: the problems hold the pair
    /// as given, features beyond the declared bound included, while the plan still calibrates
    /// to that bound. The planted [`Bug::ClippingSkipped`](super::Bug::ClippingSkipped) of a
    /// family that has no such demonstration of its own.
    pub fn with_clipping_skipped(config: RunConfig, pair: [Dataset; 2]) -> Result<Self> {
        Self::with_problems(config, pair, |mut problem, raw| {
            // The gate with no bound declared (finite values only: features and labels as the
            // pair holds them), while the plan still calibrates to the config's bounds: the
            // records carry the bounds they passed.
            let bounds = GateBounds {
                feature: f64::INFINITY,
                label: f64::INFINITY,
            };
            problem.data = Records::gate(raw, bounds)?;
            problem.objective = problem.declared.objective(&problem.data, 0.0)?;
            Ok(problem)
        })
    }

    /// The planted bug of a family with no page switch: [`FamilyTarget::new`] with the noise its
    /// plan calibrates for `factor`·ε (σ or the Laplace scale about `factor` times too small, the
    /// calibration the page picks at that ε), while the claim stays the plan of `config` as
    /// given.
    pub fn with_noise_for(config: RunConfig, pair: [Dataset; 2], factor: f64) -> Result<Self> {
        let csv = RunConfig {
            data: DataSource::Csv,
            ..config.clone()
        };
        let claimed = menu::plan(&csv)?;
        let plan = menu::plan(&RunConfig {
            epsilon: config.epsilon * factor,
            ..csv
        })?;
        let mut target = Self::assemble(config, plan, pair, |problem, _| Ok(problem))?;
        target.claim = Some(claim_of(&claimed));
        Ok(target)
    }

    /// As [`FamilyTarget::new`], with the plan made from `config` as given, its data source
    /// kept: the heavy-tail families declare G_k from the synthetic generating distribution the
    /// config names (and refuse a file, which has none). The runs are on the pair, entered as a
    /// loaded file.
    pub fn declared_by(config: RunConfig, pair: [Dataset; 2]) -> Result<Self> {
        let plan = menu::plan(&config)?;
        Self::assemble(config, plan, pair, |problem, _| Ok(problem))
    }

    fn with_problems(
        config: RunConfig,
        pair: [Dataset; 2],
        prepare: impl Fn(Problem, Dataset) -> Result<Problem>,
    ) -> Result<Self> {
        let plan = menu::plan(&RunConfig {
            data: DataSource::Csv,
            ..config.clone()
        })?;
        Self::assemble(config, plan, pair, prepare)
    }

    fn assemble(
        mut config: RunConfig,
        plan: Planned,
        pair: [Dataset; 2],
        prepare: impl Fn(Problem, Dataset) -> Result<Problem>,
    ) -> Result<Self> {
        config.data = DataSource::Csv;
        let [d, d_prime] = pair;
        let problem = |data: Dataset| -> Result<Arc<Problem>> {
            let built = pose::problem(&config, Some(data.clone()))?;
            Ok(Arc::new(prepare(built, data)?))
        };
        let problems = [problem(d)?, problem(d_prime)?];
        Ok(Self {
            config,
            plan,
            problems,
            claim: None,
        })
    }

    /// The configuration the target runs.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The family's plan: the guarantee and noise law every run shares.
    pub fn plan(&self) -> &Planned {
        &self.plan
    }

    /// The problem of `side`, as the session builds it.
    pub fn problem(&self, side: Side) -> &Arc<Problem> {
        match side {
            Side::D => &self.problems[0],
            Side::DPrime => &self.problems[1],
        }
    }
}

/// The plan's guarantee as the (ε, δ) statement an audit tests.
pub fn claim_of(plan: &Planned) -> ApproxDp {
    let g = &plan.preview.guarantee;
    ApproxDp {
        epsilon: g.epsilon,
        delta: g.delta,
        relation: g.relation,
    }
}

impl Auditable for FamilyTarget {
    fn claim(&self) -> ApproxDp {
        self.claim.unwrap_or_else(|| claim_of(&self.plan))
    }

    fn draws(&self) -> Vec<Draws> {
        match self.claim {
            Some(_) => Vec::new(),
            None => self.plan.preview.draws.clone(),
        }
    }

    fn leaks(&self) -> Vec<String> {
        self.plan.preview.leaks.clone()
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let noise = DpRng::seed_from_u64(rng.next_u64());
        let posed = Posed::Min(Arc::clone(self.problem(side)));
        let mut run = self.plan.build(&posed, noise, false)?;
        while run.step().is_some() {}
        Ok(run.point().primal()[0])
    }
}
