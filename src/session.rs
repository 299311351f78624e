//! A run, from a validated [`RunConfig`] to a release, advanced in bounded slices so that a worker
//! can yield between them (DESIGN.md §2).

use std::sync::Arc;

use serde::Serialize;

use crate::algo::noisy_gd::{Calibration, NoisyGd};
use crate::algo::output_perturbation::{
    Declared, Form, NoiseLaw, OutputPerturbation, Plan, Settings, plan,
};
use crate::algo::{PrivateAlgorithm, StepReport};
use crate::config::{AlgorithmKind, RunConfig};
use crate::data::{ClassificationSpec, clip_features, generate_classification};
use crate::domain::{Domain, L2Ball};
use crate::error::Result;
use crate::loss::{GlmLoss, Logistic};
use crate::objective::Objective;
use crate::privacy::calibration::{GaussianRow, compare_gaussian};
use crate::privacy::{Guarantee, Ledger};
use crate::reference::{self, Reference};
use crate::rng::{self, Stream, seeded};

/// Relative accuracy of F* (certified): excess risks far below the privacy noise are still resolved.
const REFERENCE_TOL: f64 = 1e-11;
const REFERENCE_MAX_ITERS: usize = 1_000_000;
/// Per-sample loss evaluations the contour grid may cost (≈ 50 ms in wasm).
pub const GRID_BUDGET: f64 = 1e7;
const MIN_GRID_RES: usize = 8;

/// What is known before any data are touched: the promise and the noise that buys it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// The algorithm and where it comes from, in words.
    pub algorithm: &'static str,
    pub guarantee: Guarantee,
    /// Per-coordinate σ of each Gaussian release: one per step for DP-GD, the single release for
    /// output perturbation.
    pub sigma: f64,
    /// How many noisy releases the run makes (T for DP-GD, 1 for output perturbation).
    pub releases: usize,
    /// Declared per-sample Lipschitz constant G.
    pub lipschitz: f64,
    /// ℓ2-sensitivity of one noisy release (for output perturbation Δ_T = Δ_F + 2ρ, which
    /// includes the solver's certified error ρ).
    pub sensitivity: f64,
    /// The step size of DP-GD (`None` for output perturbation, whose base solver picks its own).
    pub step_size: Option<f64>,
    /// For teaching: σ of a *single* Gaussian release of the same sensitivity at the whole
    /// (ε, δ), by the classical, ZWB+19 and analytic calibrations side by side. DP-GD composes T
    /// releases, so its per-step σ is larger; output perturbation makes one (with ZWB+19).
    pub single_release: Vec<GaussianRow>,
}

/// What `Session::new` needs to build the algorithm, fixed from the configuration alone.
enum Prepared {
    NoisyGd(Calibration, f64),
    OutputPerturbation(Box<Plan>),
}

/// The computation of the guarantee from the configuration alone (DESIGN.md §5 rule 2).
pub fn preview(config: &RunConfig) -> Result<Preview> {
    prepare(config).map(|(preview, _)| preview)
}

fn prepare(config: &RunConfig) -> Result<(Preview, Prepared)> {
    config.validate()?;
    let loss = Logistic;
    let lipschitz = loss.lipschitz(config.feature_bound, config.radius);
    let smoothness = loss.smoothness(config.feature_bound) + config.l2;
    match config.algorithm {
        AlgorithmKind::NoisyGd => {
            let calibration = Calibration {
                epsilon: config.epsilon,
                delta: config.delta,
                relation: config.relation,
                steps: config.steps,
                lipschitz,
                n: config.n,
            };
            let step_size = config.step_size.unwrap_or(1.0 / smoothness);
            let (sigma, guarantee) = calibration.calibrate()?;
            let sensitivity = calibration.sensitivity();
            let preview = Preview {
                algorithm: "noisy gradient descent (DP-GD; seed 002, Wang–Ye–Xu 2017, Algorithm 4)",
                guarantee,
                sigma,
                releases: config.steps,
                lipschitz,
                sensitivity,
                step_size: Some(step_size),
                single_release: compare_gaussian(sensitivity, config.epsilon, config.delta)?,
            };
            Ok((preview, Prepared::NoisyGd(calibration, step_size)))
        }
        AlgorithmKind::OutputPerturbation => {
            // The declared constants of the session's problem (logistic loss, features clipped to
            // R_x, ridge λ on the ℓ2 ball of radius R), exactly as `Declared::of` reads them from
            // the objective; `OutputPerturbation::from_plan` checks the two agree.
            let declared = Declared {
                n: config.n,
                d: config.d,
                lipschitz,
                strong_convexity: config.l2,
                smoothness,
                form: Form::Erm,
                initial_distance: 2.0 * config.radius,
                iterate_bound: config.radius,
                bounded: true,
                l1: 0.0,
                tilt_factor: 1.0,
            };
            let mut settings = Settings::new(config.epsilon, config.delta);
            settings.relation = config.relation;
            let plan = plan(declared, settings)?;
            let sigma = match plan.noise {
                NoiseLaw::Gaussian { sigma, .. } => sigma,
                NoiseLaw::L2Laplace { scale } => scale,
            };
            let preview = Preview {
                algorithm: "output perturbation (seed 000, Lowy–Razaviyayn 2021, Algorithm 1; certified AGD)",
                guarantee: plan.guarantee.clone(),
                sigma,
                releases: 1,
                lipschitz,
                sensitivity: plan.total_sensitivity,
                step_size: None,
                single_release: compare_gaussian(
                    plan.total_sensitivity,
                    config.epsilon,
                    config.delta,
                )?,
            };
            Ok((preview, Prepared::OutputPerturbation(Box::new(plan))))
        }
    }
}

/// The private output and how good it is. Only `w` is private; `loss` and `excess` are computed
/// on the raw data for the plots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    pub w: Vec<f64>,
    pub loss: f64,
    pub excess: f64,
    pub ledger: Ledger,
}

/// The events of one slice, in columns (one entry per iterate), ready to cross to JavaScript as
/// typed arrays. Everything but `release` is non-private.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    pub t: Vec<f64>,
    pub grad_evals: Vec<f64>,
    pub loss: Vec<f64>,
    /// F(w_t) − F*, floored at 0 (F* is certified to within `Reference::gap_bound`).
    pub excess: Vec<f64>,
    /// The first two coordinates of each iterate, interleaved (x₀, y₀, x₁, y₁, …).
    pub path: Vec<f64>,
    /// ‖noise‖₂ added in each step (NaN for the release entry, which adds none).
    pub noise_norm: Vec<f64>,
    pub grad_norm: Vec<f64>,
    /// ε spent after each step (the guarantee's ε at the release).
    pub epsilon_spent: Vec<f64>,
    pub release: Option<Release>,
    pub done: bool,
}

impl Batch {
    fn push(&mut self, report: &StepReport, w: &[f64], f_star: f64) {
        self.t.push(report.t as f64);
        self.grad_evals.push(report.grad_evals);
        self.loss.push(report.loss);
        self.excess.push((report.loss - f_star).max(0.0));
        self.path.push(w[0]);
        self.path.push(w.get(1).copied().unwrap_or(0.0));
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

/// One run in progress.
pub struct Session {
    config: RunConfig,
    preview: Preview,
    objective: Objective,
    reference: Reference,
    algorithm: Box<dyn PrivateAlgorithm>,
    clipped: usize,
    released: bool,
}

impl Session {
    /// Validates the config, states the guarantee, generates and clips the data, computes the
    /// reference optimum and prepares the algorithm.
    pub fn new(config: RunConfig) -> Result<Self> {
        let (preview, prepared) = prepare(&config)?;
        let spec = ClassificationSpec {
            n: config.n,
            d: config.d,
            feature_scale: config.feature_scale,
            signal: config.signal,
        };
        let mut data = generate_classification(&spec, &mut seeded(config.seed, Stream::Data))?;
        let clipped = clip_features(&mut data, config.feature_bound);
        let objective = Objective::new(
            Arc::new(data),
            Box::new(Logistic),
            config.l2,
            Box::new(L2Ball {
                radius: config.radius,
            }),
            config.feature_bound,
        );
        let reference = reference::solve(&objective, REFERENCE_TOL, REFERENCE_MAX_ITERS)?;
        let noise_rng = if config.unseeded_noise {
            rng::from_os()?
        } else {
            seeded(config.seed, Stream::Noise)
        };
        let seeded_run = !config.unseeded_noise;
        let algorithm: Box<dyn PrivateAlgorithm> = match prepared {
            Prepared::NoisyGd(calibration, step_size) => Box::new(NoisyGd::new(
                calibration,
                step_size,
                &objective,
                noise_rng,
                seeded_run,
            )?),
            Prepared::OutputPerturbation(plan) => Box::new(OutputPerturbation::from_plan(
                *plan, &objective, noise_rng, seeded_run,
            )?),
        };
        debug_assert_eq!(algorithm.guarantee(), &preview.guarantee);
        Ok(Self {
            config,
            preview,
            objective,
            reference,
            algorithm,
            clipped,
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

    pub fn reference(&self) -> &Reference {
        &self.reference
    }

    /// How many samples clipping changed. **Non-private** diagnostic.
    pub fn clipped(&self) -> usize {
        self.clipped
    }

    pub fn is_done(&self) -> bool {
        self.released
    }

    /// Runs at most `max_steps` steps, stopping early when `keep_going` says so (checked after
    /// every step, so a slice always makes progress). The batch ends with the release once the
    /// algorithm is done.
    pub fn advance(&mut self, max_steps: usize, mut keep_going: impl FnMut() -> bool) -> Batch {
        let mut batch = Batch::default();
        let f_star = self.reference.value;
        for _ in 0..max_steps {
            let w_before: [f64; 2] = first_two(self.algorithm.current());
            let Some(report) = self.algorithm.step(&self.objective) else {
                break;
            };
            batch.push(&report, &w_before, f_star);
            if !keep_going() {
                break;
            }
        }
        if self.algorithm.is_done() && !self.released {
            self.released = true;
            let w = self.algorithm.current().to_vec();
            let loss = self.objective.value(&w);
            let final_report = StepReport {
                t: batch.t.last().map_or(0.0, |t| t + 1.0) as usize,
                grad_evals: self.algorithm.grad_evals(),
                loss,
                noise_norm: f64::NAN,
                grad_norm: f64::NAN,
                epsilon_spent: self.algorithm.guarantee().epsilon,
            };
            batch.push(&final_report, &first_two(&w), f_star);
            batch.release = Some(Release {
                excess: (loss - f_star).max(0.0),
                w,
                loss,
                ledger: self.algorithm.ledger(),
            });
        }
        batch.done = self.released;
        batch
    }

    /// F on a res × res grid over [−r, r]² (r = domain radius), row by row from the bottom, for
    /// the contour view when d = 2; `None` otherwise. res ≤ `max_res`, lowered so that the grid
    /// costs at most [`GRID_BUDGET`] per-sample evaluations (a large n would stall the worker).
    /// **Non-private** (reads the data).
    pub fn loss_grid(&self, max_res: usize) -> Option<Vec<f64>> {
        if self.objective.dim() != 2 || max_res < MIN_GRID_RES {
            return None;
        }
        let res = grid_resolution(self.objective.data().n(), max_res);
        let r = self.objective.domain().radius();
        let step = 2.0 * r / (res - 1) as f64;
        let mut grid = Vec::with_capacity(res * res);
        for i in 0..res {
            for j in 0..res {
                let w = [-r + j as f64 * step, -r + i as f64 * step];
                grid.push(self.objective.value(&w));
            }
        }
        Some(grid)
    }

    /// The domain, for drawing its boundary.
    pub fn domain(&self) -> &dyn Domain {
        self.objective.domain()
    }
}

/// The largest res ≤ `max_res` with res²·n ≤ [`GRID_BUDGET`], but at least [`MIN_GRID_RES`].
fn grid_resolution(n: usize, max_res: usize) -> usize {
    let affordable = (GRID_BUDGET / n as f64).sqrt() as usize;
    max_res.min(affordable).max(MIN_GRID_RES)
}

fn first_two(w: &[f64]) -> [f64; 2] {
    [w[0], w.get(1).copied().unwrap_or(0.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> RunConfig {
        RunConfig {
            n: 500,
            steps: 30,
            ..RunConfig::default()
        }
    }

    #[test]
    fn slices_add_up_to_one_run_and_end_with_one_release() {
        let mut whole = Session::new(small()).unwrap();
        let all = whole.advance(usize::MAX, || true);
        assert_eq!(all.len(), 31);
        assert!(all.done && all.release.is_some());

        let mut sliced = Session::new(small()).unwrap();
        let mut excess = Vec::new();
        let mut releases = Vec::new();
        while !sliced.is_done() {
            let b = sliced.advance(7, || true);
            excess.extend(b.excess);
            releases.extend(b.release);
        }
        assert_eq!(excess, all.excess);
        assert_eq!(releases.len(), 1);
        assert_eq!(releases[0], all.release.unwrap());
        assert!(sliced.advance(5, || true).is_empty());
    }

    #[test]
    fn unseeded_noise_is_fresh_each_run_and_drops_the_seeded_caveat() {
        let config = RunConfig {
            unseeded_noise: true,
            ..small()
        };
        let release = |c: &RunConfig| {
            let mut s = Session::new(c.clone()).unwrap();
            s.advance(usize::MAX, || true).release.unwrap()
        };
        let (a, b) = (release(&config), release(&config));
        // Two OS-keyed noise streams coincide with negligible probability.
        assert_ne!(a.w, b.w);
        let seeded_caveat = |r: &Release| r.ledger.caveats.iter().any(|c| c.contains("seeded"));
        assert!(!seeded_caveat(&a));
        assert!(seeded_caveat(&release(&small())));
        // The data, hence F*, still come from the seed.
        let f_star = |c: RunConfig| Session::new(c).unwrap().reference().value;
        assert_eq!(f_star(config), f_star(small()));
    }

    #[test]
    fn output_perturbation_runs_to_one_certified_release_with_the_previewed_sigma() {
        let config = RunConfig {
            algorithm: AlgorithmKind::OutputPerturbation,
            l2: 0.05,
            ..small()
        };
        let p = preview(&config).unwrap();
        assert_eq!(p.releases, 1);
        assert_eq!(p.step_size, None);
        // One ZWB+19 Gaussian release of sensitivity Δ_T: the teaching table's ZWB row is the run's σ.
        assert_eq!(p.single_release[1].sigma, Some(p.sigma));
        let mut s = Session::new(config).unwrap();
        assert_eq!(s.guarantee(), &p.guarantee);
        let b = s.advance(usize::MAX, || true);
        let release = b.release.expect("the certified run releases");
        assert!(
            release.ledger.mechanism.contains("output perturbation")
                || release.ledger.mechanism.contains("Algorithm 1"),
            "{}",
            release.ledger.mechanism
        );
        // Exactly one noise draw, at the release; ε is spent all at once there.
        assert_eq!(b.noise_norm.iter().filter(|v| **v > 0.0).count(), 1);
        assert_eq!(b.epsilon_spent.iter().filter(|e| **e > 0.0).count(), 2);
        assert_eq!(*b.epsilon_spent.last().unwrap(), 1.0);
        // The non-private path converged: the certified iterate is near w*, so the excess before
        // the noise is tiny compared with the start.
        let n = b.excess.len();
        assert!(b.excess[n - 2] < 1e-3 * b.excess[0], "{:?}", &b.excess);
    }

    #[test]
    fn keep_going_stops_a_slice_after_the_current_step() {
        let mut s = Session::new(small()).unwrap();
        let b = s.advance(100, || false);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn preview_equals_the_runs_guarantee() {
        let c = small();
        let p = preview(&c).unwrap();
        let s = Session::new(c).unwrap();
        assert_eq!(&p.guarantee, s.guarantee());
        assert_eq!(p.sensitivity, 2.0 * 1.0 / 500.0);
        // One release at the whole budget needs less noise than each of T composed releases,
        // and the exact (analytic) calibration needs the least of the three.
        let sigmas: Vec<f64> = p.single_release.iter().filter_map(|r| r.sigma).collect();
        assert_eq!(sigmas.len(), 3, "ε = 1 admits all three calibrations");
        assert!(sigmas.iter().all(|&s| s < p.sigma));
        assert!(sigmas[2] <= sigmas[0] && sigmas[2] <= sigmas[1]);
    }

    #[test]
    fn excess_risk_falls_from_the_start() {
        let mut s = Session::new(RunConfig::default()).unwrap();
        let b = s.advance(usize::MAX, || true);
        let first = b.excess[0];
        let tail = &b.excess[b.len() - 20..];
        let tail_mean = tail.iter().sum::<f64>() / 20.0;
        assert!(
            tail_mean < first / 10.0,
            "first {first}, tail mean {tail_mean}"
        );
    }

    #[test]
    fn loss_grid_only_in_two_dimensions() {
        let s = Session::new(small()).unwrap();
        let g = s.loss_grid(13).unwrap();
        assert_eq!(g.len(), 169);
        // The centre of the grid is w = 0, where logistic loss is ln 2.
        assert!((g[84] - std::f64::consts::LN_2).abs() < 1e-12);
        // A large n lowers the resolution to stay within the budget, down to a floor.
        assert_eq!(grid_resolution(2_000, 72), 70);
        assert_eq!(grid_resolution(100_000, 72), 10);
        assert_eq!(grid_resolution(1_000_000, 72), MIN_GRID_RES);
        assert_eq!(grid_resolution(10, 72), 72);
        let s3 = Session::new(RunConfig { d: 3, ..small() }).unwrap();
        assert!(s3.loss_grid(13).is_none());
    }
}
