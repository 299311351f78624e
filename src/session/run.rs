//! One algorithm with one noise stream on a shared problem: the [`Session`], the [`Batch`] of
//! events each slice returns and the [`Release`] it ends with.

use std::sync::Arc;

use serde::Serialize;

use crate::algo::byoa::{PhasedOutputPerturbation, plan_algorithm_1};
use crate::algo::dp_accmd::DpAccMd;
use crate::algo::dp_sgd::DpSgd;
use crate::algo::dp_svrg::DpSvrg;
use crate::algo::exponential_grid::GridExponential;
use crate::algo::noisy_gd::NoisyGd;
use crate::algo::objective_perturbation::ObjectivePerturbation;
use crate::algo::output_perturbation::OutputPerturbation;
use crate::algo::{CertificateStatus, PrivateAlgorithm, StepReport, same_law};
use crate::config::RunConfig;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::objective::Objective;
use crate::privacy::{Guarantee, Ledger};
use crate::reference::{Estimate, Reference};
use crate::rng::{self, Stream, seeded_repeat};

use super::bounds::{self, Curve};
use super::prepare::{Prepared, Preview, prepare, same_promise};
use super::problem::{self, Problem};

/// The private output and how good it is. Only `w` (with its `ledger`) is private; `plane`,
/// `loss`, `excess` and `population` are computed on the raw data for the plots. The noise drawn
/// is not here: its norm is a diagnostic of the raw data and the noise (with the non-private
/// path it names the dataset), kept in [`Batch::noise_norm`].
///
/// [`publish::private_part`](super::publish::private_part) is the one definition of what may be
/// exported as private.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    pub w: Vec<f64>,
    /// `w` in the parameter view's plane coordinates.
    pub plane: [f64; 2],
    pub loss: f64,
    /// F(w) − F*; `None` when the reference is unavailable ([`Problem::reference`]). Computed
    /// after the release, never before it or for it. **Non-private**.
    pub excess: Option<f64>,
    /// Excess population risk F_pop(w) − F_pop(w*_pop), estimated on a fresh sample with its
    /// standard error (synthetic data only). **Non-private**.
    pub population: Option<Estimate>,
    pub ledger: Ledger,
}

/// The events of one slice, in columns (one entry per iterate), ready to cross to JavaScript as
/// typed arrays. Everything but `release` is non-private.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    pub t: Vec<f64>,
    pub grad_evals: Vec<f64>,
    pub loss: Vec<f64>,
    /// F(w_t) − F*, floored at 0 (F* is certified to within `Reference::gap_bound`); NaN
    /// throughout when the reference is unavailable (the page draws no curve and says why).
    pub excess: Vec<f64>,
    /// Each iterate in the view's plane coordinates, interleaved (a₀, b₀, a₁, b₁, …); for d ≤ 2
    /// these are the first two coordinates.
    pub path: Vec<f64>,
    /// ‖noise‖₂ added in each step (NaN for the release entry, which adds none). **Non-private**:
    /// with the path it tells the dataset apart (‖(w_t − w_{t+1})/η − ∇F_D(w_t)‖ equals it only
    /// for the true D).
    pub noise_norm: Vec<f64>,
    pub grad_norm: Vec<f64>,
    /// ε spent after each step (the guarantee's ε at the release).
    pub epsilon_spent: Vec<f64>,
    pub release: Option<Release>,
    /// For methods that release after an accuracy certificate: where it stood at the end of the
    /// slice. **Non-private**.
    pub certificate: Option<CertificateStatus>,
    pub done: bool,
}

impl Batch {
    fn push(&mut self, report: &StepReport, excess: f64, plane: [f64; 2]) {
        self.t.push(report.t as f64);
        self.grad_evals.push(report.grad_evals);
        self.loss.push(report.loss);
        self.excess.push(excess);
        self.path.extend(plane);
        self.noise_norm.push(report.noise_norm);
        self.grad_norm.push(report.grad_norm);
        self.epsilon_spent.push(report.epsilon_spent);
    }

    /// Number of iterates in the batch.
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// What every repeat of one algorithm shares: its promise, its prepared settings and its bound,
/// computed once from the config (and, for the bound's plot ingredients, the problem).
pub(super) struct LanePlan {
    preview: Preview,
    prepared: Prepared,
    theory: Option<Curve>,
}

impl LanePlan {
    pub(super) fn new(problem: &Problem, config: &RunConfig) -> Result<Self> {
        let (preview, prepared) = prepare(config)?;
        let theory = bounds::curve(problem, config, &preview, &prepared);
        Ok(Self {
            preview,
            prepared,
            theory,
        })
    }
}

/// One algorithm with one noise stream on a shared problem.
pub struct Session {
    config: RunConfig,
    preview: Preview,
    problem: Arc<Problem>,
    /// The objective the algorithm solves when it is not the problem's (Algorithm 6 adds a ridge);
    /// excess risk is always measured on the problem's F.
    solved: Option<Objective>,
    pub(super) algorithm: Box<dyn PrivateAlgorithm>,
    theory: Option<Curve>,
    before: Vec<f64>,
    released: bool,
}

impl Session {
    /// Validates the config, states the guarantee, generates and clips the data, computes the
    /// reference optimum and prepares the algorithm (synthetic data, repeat 0).
    pub fn new(config: RunConfig) -> Result<Self> {
        let problem = Arc::new(Problem::new(&config, None)?);
        Self::on(problem, config, 0)
    }

    /// The config's main algorithm on `problem`, with the noise stream of repeat `repeat`.
    pub fn on(problem: Arc<Problem>, config: RunConfig, repeat: u32) -> Result<Self> {
        config.validate()?;
        let plan = LanePlan::new(&problem, &config)?;
        Self::planned(problem, config, &plan, repeat)
    }

    /// Repeat `repeat` of an algorithm already prepared for `problem` (see
    /// [`Lab::new`](super::Lab::new)).
    pub(super) fn planned(
        problem: Arc<Problem>,
        config: RunConfig,
        plan: &LanePlan,
        repeat: u32,
    ) -> Result<Self> {
        let (preview, prepared, theory) = (
            plan.preview.clone(),
            plan.prepared.clone(),
            plan.theory.clone(),
        );
        let noise_rng = if config.unseeded_noise {
            rng::from_os()?
        } else {
            seeded_repeat(config.seed, Stream::Noise, repeat)
        };
        let seeded_run = !config.unseeded_noise;
        let objective = &problem.objective;
        let mut solved = None;
        let algorithm: Box<dyn PrivateAlgorithm> = match prepared {
            Prepared::NoisyGd(calibration, step_size) => Box::new(
                NoisyGd::new(calibration, step_size, objective, noise_rng, seeded_run)?
                    .with_leak(problem::gd_leak(&config)),
            ),
            Prepared::DpAccMd(settings) => {
                Box::new(DpAccMd::new(settings, objective, noise_rng, seeded_run)?)
            }
            Prepared::DpSgd(calibration) => Box::new(DpSgd::from_calibration(
                *calibration,
                objective,
                noise_rng,
                seeded_run,
            )?),
            Prepared::DpSvrg(calibration) => Box::new(DpSvrg::from_calibration(
                *calibration,
                objective,
                noise_rng,
                seeded_run,
            )?),
            Prepared::ObjectivePerturbation(settings) => Box::new(ObjectivePerturbation::new(
                settings, objective, noise_rng, seeded_run,
            )?),
            Prepared::OutputPerturbation(plan, extra_ridge) => {
                if extra_ridge > 0.0 {
                    let own = problem
                        .declared
                        .objective(Arc::clone(&problem.data), extra_ridge)?;
                    let algorithm =
                        OutputPerturbation::from_plan(*plan, &own, noise_rng, seeded_run)?;
                    solved = Some(own);
                    Box::new(algorithm)
                } else {
                    Box::new(OutputPerturbation::from_plan(
                        *plan, objective, noise_rng, seeded_run,
                    )?)
                }
            }
            Prepared::Byoa(settings) => {
                let plan = plan_algorithm_1(objective, settings)?;
                Box::new(OutputPerturbation::from_plan(
                    plan, objective, noise_rng, seeded_run,
                )?)
            }
            Prepared::ByoaPhased(settings) => Box::new(PhasedOutputPerturbation::new(
                settings, objective, noise_rng, seeded_run,
            )?),
            Prepared::Grid(settings, relation) => Box::new(GridExponential::under(
                settings, relation, config.n, objective, noise_rng, seeded_run,
            )?),
        };
        // The promise shown before the run must be the one the algorithm keeps: the guarantee and
        // the whole noise law (every draw's kind, scale, count and sensitivity).
        if !same_promise(algorithm.guarantee(), &preview.guarantee) {
            return Err(Error::invalid(
                "algorithm",
                format!("the previewed guarantee {:?}", preview.guarantee),
                format!("{:?} (a bug: please report it)", algorithm.guarantee()),
            ));
        }
        if !same_law(&algorithm.draws(), &preview.draws) {
            return Err(Error::invalid(
                "algorithm",
                format!("the previewed noise {:?}", preview.draws),
                format!("{:?} (a bug: please report it)", algorithm.draws()),
            ));
        }
        let before = algorithm.current().to_vec();
        Ok(Self {
            config,
            preview,
            problem,
            solved,
            algorithm,
            theory,
            before,
            released: false,
        })
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    pub fn guarantee(&self) -> &Guarantee {
        self.algorithm.guarantee()
    }

    /// The guarantee and noise scale, as stated before the run.
    pub fn preview(&self) -> &Preview {
        &self.preview
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The algorithm's theory bound against gradient evaluations, when its theory covers the
    /// setting (drawn dashed beside the measured excess risk).
    pub fn theory(&self) -> Option<&Curve> {
        self.theory.as_ref()
    }

    /// The certified reference, if it was available (see [`Problem::reference`]).
    pub fn reference(&self) -> Option<&Reference> {
        self.problem.reference.as_ref().ok()
    }

    /// How many samples clipping changed. **Non-private** diagnostic.
    pub fn clipped(&self) -> usize {
        self.problem.clipped
    }

    pub fn is_done(&self) -> bool {
        self.released
    }

    /// The ledger of the (eventual) release; a residual loss's declared label bound is among its
    /// caveats (the algorithms' own ledgers name the feature bound).
    pub fn ledger(&self) -> Ledger {
        let mut ledger = self.algorithm.ledger();
        let loss = self.problem.declared.loss.glm;
        if let Some(bound) = loss.label_bound() {
            ledger.caveats.push(format!(
                "declared label bound, not measured: targets clipped to |y| ≤ {bound} ({} loss)",
                crate::loss::GlmLoss::name(&loss)
            ));
        }
        ledger
    }

    /// F(w) − F* on the problem's objective, floored at 0, or NaN without a reference;
    /// `reported` is the algorithm's own F(w) when it solves the problem's objective.
    fn excess(&self, w: &[f64], reported: f64) -> f64 {
        let Ok(reference) = &self.problem.reference else {
            return f64::NAN;
        };
        let value = match &self.solved {
            Some(_) => self.problem.objective.value(w),
            None => reported,
        };
        (value - reference.value).max(0.0)
    }

    /// Runs at most `max_steps` steps, stopping early when `keep_going` says so (checked after
    /// every step, so a slice always makes progress). The batch ends with the release once the
    /// algorithm is done.
    ///
    /// A `max_steps` of 0 runs one step: the worker's play loop schedules slice after slice until
    /// the run is done, so a slice that made no progress would spin forever.
    pub fn advance(&mut self, max_steps: usize, mut keep_going: impl FnMut() -> bool) -> Batch {
        let mut batch = Batch::default();
        for _ in 0..max_steps.max(1) {
            self.before.copy_from_slice(self.algorithm.current());
            let objective = self.solved.as_ref().unwrap_or(&self.problem.objective);
            let Some(report) = self.algorithm.step(objective) else {
                break;
            };
            let excess = self.excess(&self.before, report.loss);
            batch.push(&report, excess, self.problem.plane.project(&self.before));
            if !keep_going() {
                break;
            }
        }
        if self.algorithm.is_done() && !self.released {
            self.released = true;
            let w = self.algorithm.current().to_vec();
            let loss = self.problem.objective.value(&w);
            let excess = self.excess(&w, loss);
            let plane = self.problem.plane.project(&w);
            let final_report = StepReport {
                t: batch.t.last().map_or(0.0, |t| t + 1.0) as usize,
                grad_evals: self.algorithm.grad_evals(),
                loss,
                noise_norm: f64::NAN,
                grad_norm: f64::NAN,
                epsilon_spent: self.algorithm.guarantee().epsilon,
            };
            batch.push(&final_report, excess, plane);
            let population = self
                .problem
                .population
                .as_ref()
                .and_then(|p| p.excess_risk(&w).ok());
            batch.release = Some(Release {
                excess: self.reference().map(|_| excess),
                population,
                w,
                plane,
                loss,
                ledger: self.ledger(),
            });
        }
        batch.certificate = self.algorithm.certificate();
        batch.done = self.released;
        batch
    }

    /// F on a res × res grid over the parameter view, row by row from the bottom (see
    /// [`Problem::loss_grid`]). **Non-private** (reads the data).
    pub fn loss_grid(&self, max_res: usize) -> Option<Vec<f64>> {
        self.problem.loss_grid(max_res).map(|(grid, _)| grid)
    }

    /// The domain, for drawing its boundary.
    pub fn domain(&self) -> &dyn Domain {
        self.problem.objective.domain()
    }
}
