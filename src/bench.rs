//! The benchmark cases that native code (`cargo bench --bench cases`) and the browser
//! (`/bench.html`, through `wasm::bench`) both time, so that a wasm/native ratio compares the
//! same code on the same data.
//!
//! A [`Workload`] owns the generated data of one size and everything the cases need, built once
//! and untimed. For each [`Case`], the driver calls [`Workload::prepare`] (untimed: e.g. fresh
//! DP-SGD runs from the calibrated configuration) and then times [`Workload::run`] with its own
//! clock (`Instant` natively, `performance.now()` in the browser): this module reads no clock.
//! [`plan`] lists the sizes, cases and repeats, so both drivers run the same plan.
//!
//! Both drivers time each repeat over [`runs_per_timing`] consecutive runs (chosen from one
//! untimed warm-up run), because Firefox's `performance.now()` ticks in whole milliseconds and a
//! single pass at a small size takes microseconds; a repeat's time is the batch's time over its
//! runs.
//!
//! `cargo bench --bench dp_sgd` times the DP-SGD case through this module too, so the two native
//! DP-SGD figures are one figure.
//!
//! The data are the page's kind: Student-t (ν = 5) features clipped to the declared bound 1,
//! logistic labels with 5 % flipped, from a fixed seed. Nothing here is a private release; the
//! DP-SGD case runs the private algorithm only to time it.

use std::sync::Arc;

use serde::Serialize;

use crate::algo::PrivateAlgorithm;
use crate::algo::dp_sgd::parts::Part;
use crate::algo::dp_sgd::{DpSgd, DpSgdCalibration, DpSgdConfig};
use crate::data::{Dataset, GeneratorSpec, Link, Tail, Task, clip_features, generate};
use crate::domain::DomainKind;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Regulariser};
use crate::objective::Objective;
use crate::reference;
use crate::rng::{Stream, seeded};

/// Declared feature bound: features are clipped to it, as the page does by default.
const FEATURE_BOUND: f64 = 1.0;
/// DP-SGD's expected batch, clip norm, target (ε, δ) and step size: the issue's (and the peers')
/// settings, declared.
const DP_SGD_BATCH: usize = 256;
const DP_SGD_CLIP: f64 = 1.0;
const DP_SGD_EPSILON: f64 = 1.0;
const DP_SGD_DELTA: f64 = 1e-5;
const DP_SGD_STEP: f64 = 0.5;
/// The reference solve: ridge μ on R^d and the relative certified-gap target of
/// `benches/gradient.rs`'s reference block.
const REFERENCE_RIDGE: f64 = 0.01;
const REFERENCE_TOL: f64 = 1e-9;
const REFERENCE_MAX_ITERS: usize = 200_000;
/// A timed batch lasts at least this long (ms), so a clock that ticks in milliseconds still
/// resolves it to a few per cent.
const MIN_TIMED_MS: f64 = 20.0;
/// At most this many runs in one timed batch: a case of 50 ns (a few noise draws) still fills
/// 5 ms, five ticks of a millisecond clock.
const MAX_RUNS: usize = 100_000;
/// The batch when the warm-up run read as 0 ms (a clock tick hides how fast it was): the page
/// grows it tenfold while a batch still reads 0, rather than risk 10⁵ runs of a case that
/// only read 0 because it ran between two ticks.
const UNRESOLVED_RUNS: usize = 1_000;

/// How many runs to time together, given one untimed run that took `first_ms`: enough for
/// 20 ms (`MIN_TIMED_MS`), at least 1, at most 100,000 (`MAX_RUNS`); 1,000 (`UNRESOLVED_RUNS`)
/// when it read 0.
pub fn runs_per_timing(first_ms: f64) -> usize {
    if first_ms > 0.0 {
        (MIN_TIMED_MS / first_ms).ceil().clamp(1.0, MAX_RUNS as f64) as usize
    } else {
        UNRESOLVED_RUNS
    }
}

/// One timed case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Case {
    /// One pass over the feature matrix summing every entry: the memory floor every ratio uses.
    Read,
    /// The fused squared-loss value and gradient (one pass).
    Squared,
    /// The fused logistic value and gradient (one pass).
    Logistic,
    /// One DP-SGD epoch: ⌈n/b⌉ Poisson-subsampled steps with per-sample clipping.
    DpSgdEpoch,
    /// The epoch's parts, each over the epoch's steps with the step's own code (so they add up
    /// to about the epoch): the Poisson batch draws,
    DpSgdBatches,
    /// the clipped sums (on the batches of a real epoch, at the iterate it ends at),
    DpSgdClippedSums,
    /// the noise draws,
    DpSgdNoise,
    /// and the update with the step's report.
    DpSgdUpdate,
    /// A certified non-private reference solve (ridge-regularised logistic regression).
    Reference,
    /// Generating the data set (without clipping).
    Generate,
}

impl Case {
    /// Every case, in the order the drivers run them (the read first).
    pub const ALL: [Case; 10] = [
        Case::Read,
        Case::Squared,
        Case::Logistic,
        Case::DpSgdEpoch,
        Case::DpSgdBatches,
        Case::DpSgdClippedSums,
        Case::DpSgdNoise,
        Case::DpSgdUpdate,
        Case::Reference,
        Case::Generate,
    ];

    /// The name both drivers print and the runner matches on.
    pub fn name(self) -> &'static str {
        match self {
            Case::Read => "read",
            Case::Squared => "squared value+gradient",
            Case::Logistic => "logistic value+gradient",
            Case::DpSgdEpoch => "DP-SGD epoch (b = 256, clip 1)",
            Case::DpSgdBatches => "DP-SGD part: batch draws",
            Case::DpSgdClippedSums => "DP-SGD part: clipped sums",
            Case::DpSgdNoise => "DP-SGD part: noise draws",
            Case::DpSgdUpdate => "DP-SGD part: update and report",
            Case::Reference => "certified reference solve",
            Case::Generate => "generate data",
        }
    }

    /// The case of that name (see [`Case::name`]).
    pub fn from_name(name: &str) -> Result<Case> {
        Case::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| Error::invalid("case", "a case of bench::plan", name))
    }

    /// The part of a DP-SGD step this case times, if it is one.
    fn part(self) -> Option<Part> {
        match self {
            Case::DpSgdBatches => Some(Part::Batches),
            Case::DpSgdClippedSums => Some(Part::ClippedSums),
            Case::DpSgdNoise => Some(Part::Noise),
            Case::DpSgdUpdate => Some(Part::Update),
            _ => None,
        }
    }

    /// How many timed repeats: many for a single pass, few for the long cases.
    fn repeats(self, quick: bool) -> usize {
        match (self, quick) {
            (_, true) => 3,
            (Case::Read | Case::Squared | Case::Logistic, false) => 20,
            (Case::DpSgdEpoch, false) => 5,
            // Parts are short: more repeats for a steady minimum.
            (
                Case::DpSgdBatches | Case::DpSgdClippedSums | Case::DpSgdNoise | Case::DpSgdUpdate,
                false,
            ) => 10,
            (Case::Reference | Case::Generate, false) => 3,
        }
    }
}

/// One size of the plan and the cases run at it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizePlan {
    pub n: usize,
    pub d: usize,
    pub cases: Vec<CasePlan>,
}

/// A case and its number of timed repeats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CasePlan {
    pub case: &'static str,
    pub repeats: usize,
}

/// The plan: n = 10⁵, d = 100 and n = 10⁶, d = 20; `quick` shrinks both sizes and the repeats so
/// that a test of the page takes seconds.
pub fn plan(quick: bool) -> Vec<SizePlan> {
    let sizes: [(usize, usize); 2] = if quick {
        [(2_000, 10), (5_000, 4)]
    } else {
        [(100_000, 100), (1_000_000, 20)]
    };
    sizes
        .into_iter()
        .map(|(n, d)| SizePlan {
            n,
            d,
            cases: Case::ALL
                .into_iter()
                .map(|c| CasePlan {
                    case: c.name(),
                    repeats: c.repeats(quick),
                })
                .collect(),
        })
        .collect()
}

/// The generator spec of a size: the page's heavy-tailed logistic task (also the data of
/// `benches/logreg.rs`, the diffprivlib case).
pub fn spec(n: usize, d: usize) -> GeneratorSpec {
    GeneratorSpec {
        n,
        d,
        features: Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0 / (d as f64).sqrt(),
        signal: 2.0,
        task: Task::Classification {
            link: Link::Logistic,
            flip: 0.05,
        },
    }
}

/// The data of one size and what the cases need, built once (untimed).
pub struct Workload {
    data: Arc<Dataset>,
    squared: Objective,
    logistic: Objective,
    ridge: Objective,
    calibration: DpSgdCalibration,
    /// Fresh DP-SGD runs, one per run of the next timed batch.
    runs: Vec<DpSgd>,
    /// For [`Case::DpSgdClippedSums`], the batches of each run's recorded epoch.
    batches: Vec<Vec<Vec<usize>>>,
    w: Vec<f64>,
    grad: Vec<f64>,
    repeat: u32,
}

/// The n × d data of the cases (seed `seed`), features clipped to the declared bound: what
/// [`Workload::new`] uses (seed 1) and what `examples/peers.rs` writes for the peers to read.
pub fn dataset(n: usize, d: usize, seed: u32) -> Result<Dataset> {
    let mut data = generate(&spec(n, d), seeded(seed, Stream::Data))?;
    clip_features(&mut data, FEATURE_BOUND);
    Ok(data)
}

impl Workload {
    /// Generates the n × d data ([`dataset`], seed 1) and prepares the cases on it.
    pub fn new(n: usize, d: usize) -> Result<Self> {
        Self::on(Arc::new(dataset(n, d, 1)?))
    }

    /// Prepares the cases on `data` (labels ±1, features within the declared bound 1) and
    /// calibrates DP-SGD from n alone.
    pub fn on(data: Arc<Dataset>) -> Result<Self> {
        let (n, d) = (data.n(), data.d());
        let objective = |glm: Glm, reg: Regulariser| {
            Objective::with_loss(
                Arc::clone(&data),
                Loss::erm(glm),
                reg,
                DomainKind::Unconstrained.boxed(),
                FEATURE_BOUND,
            )
        };
        let squared = objective(Glm::Squared { label_bound: 1.0 }, Regulariser::default())?;
        let logistic = objective(Glm::Logistic, Regulariser::default())?;
        let ridge = objective(Glm::Logistic, Regulariser::ridge(REFERENCE_RIDGE))?;
        let config = DpSgdConfig::for_dataset(
            n,
            DP_SGD_BATCH.min(n),
            1.0,
            DP_SGD_EPSILON,
            DP_SGD_DELTA,
            DP_SGD_CLIP,
            DP_SGD_STEP,
        )?;
        let calibration = DpSgdCalibration::new(config)?;
        // A fixed, non-trivial point: margins of both signs, so both branches of the losses run.
        let w = (0..d).map(|j| 0.01 * (j as f64 - d as f64 / 2.0)).collect();
        Ok(Self {
            data,
            squared,
            logistic,
            ridge,
            calibration,
            runs: Vec::new(),
            batches: Vec::new(),
            w,
            grad: vec![0.0; d],
            repeat: 0,
        })
    }

    /// The untimed set-up before a timed [`Workload::run`] of `runs` runs of `case`.
    pub fn prepare(&mut self, case: Case, runs: usize) -> Result<()> {
        self.runs.clear();
        self.batches.clear();
        if case == Case::DpSgdEpoch || case.part().is_some() {
            for _ in 0..runs {
                self.repeat = self.repeat.wrapping_add(1);
                let mut run = DpSgd::from_calibration(
                    self.calibration.clone(),
                    &self.logistic,
                    seeded(self.repeat, Stream::Noise),
                    true,
                )?;
                if case == Case::DpSgdClippedSums {
                    self.batches.push(run.record_epoch(&self.logistic));
                }
                self.runs.push(run);
            }
        }
        Ok(())
    }

    /// `runs` timed runs of `case`. Returns the sum of a number computed from each result (a sum,
    /// a value, a step count), so that no work can be optimised away and a driver can check it is
    /// finite.
    pub fn run(&mut self, case: Case, runs: usize) -> Result<f64> {
        if (case == Case::DpSgdEpoch || case.part().is_some()) && self.runs.len() != runs {
            return Err(Error::invalid(
                "case",
                "prepare(case, runs) before run(case, runs)",
                case.name(),
            ));
        }
        let mut check = 0.0;
        for _ in 0..runs {
            check += self.run_once(case)?;
        }
        Ok(check)
    }

    fn run_once(&mut self, case: Case) -> Result<f64> {
        Ok(match case {
            Case::Read => read_once(self.data.matrix_slice()),
            Case::Squared => self.squared.data_term(&self.w, Some(&mut self.grad)) + self.grad[0],
            Case::Logistic => self.logistic.data_term(&self.w, Some(&mut self.grad)) + self.grad[0],
            Case::DpSgdEpoch => {
                let Some(mut run) = self.runs.pop() else {
                    return Err(Error::invalid("case", "a prepared DP-SGD run", case.name()));
                };
                let mut steps = 0.0;
                while run.step(&self.logistic).is_some() {
                    steps += 1.0;
                }
                steps
            }
            Case::DpSgdBatches | Case::DpSgdClippedSums | Case::DpSgdNoise | Case::DpSgdUpdate => {
                let (Some(part), Some(mut run)) = (case.part(), self.runs.pop()) else {
                    return Err(Error::invalid("case", "a prepared DP-SGD run", case.name()));
                };
                let batches = self.batches.pop().unwrap_or_default();
                run.run_part(part, &self.logistic, &batches)
            }
            Case::Reference => {
                reference::solve(&self.ridge, REFERENCE_TOL, REFERENCE_MAX_ITERS)?.value
            }
            Case::Generate => {
                self.repeat = self.repeat.wrapping_add(1);
                let (n, d) = (self.data.n(), self.data.d());
                let fresh = generate(&spec(n, d), seeded(self.repeat, Stream::Data))?;
                fresh.labels().iter().sum()
            }
        })
    }
}

/// The native driver's timing, for native code only: `Instant` compiles on wasm32 but panics
/// there, where the page's worker times with `performance.now()` instead.
pub mod native {
    use super::{Case, Summary, Workload, runs_per_timing};
    use crate::error::Result;
    use std::time::Instant;

    /// A case's times over its repeats, and how many runs each repeat timed.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Measured {
        pub summary: Summary,
        pub runs_per_repeat: usize,
    }

    /// Times `case` on `workload`: one untimed warm-up run sets the runs per repeat
    /// ([`runs_per_timing`]), then `repeats` batches, each reported as ms per run.
    pub fn measure(workload: &mut Workload, case: Case, repeats: usize) -> Result<Measured> {
        let mut time = |runs: usize| -> Result<f64> {
            workload.prepare(case, runs)?;
            let t = Instant::now();
            let check = workload.run(case, runs)?;
            let ms = t.elapsed().as_secs_f64() * 1e3 / runs as f64;
            std::hint::black_box(check);
            Ok(ms)
        };
        let runs = runs_per_timing(time(1)?);
        let times = (0..repeats.max(1))
            .map(|_| time(runs))
            .collect::<Result<Vec<f64>>>()?;
        Ok(Measured {
            summary: Summary::of(&times),
            runs_per_repeat: runs,
        })
    }
}

/// One pass over the matrix: the sum of every entry with four accumulators (the memory floor).
fn read_once(x: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = x.chunks_exact(4);
    let tail: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        for k in 0..4 {
            acc[k] += c[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// The minimum and median of a case's times (ms).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub min: f64,
    pub median: f64,
}

impl Summary {
    /// Summarises a non-empty list of times.
    pub fn of(times: &[f64]) -> Summary {
        let mut t = times.to_vec();
        t.sort_by(f64::total_cmp);
        Summary {
            min: t[0],
            median: t[t.len() / 2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_runs_at_a_tiny_size_and_gives_a_finite_number() {
        let mut w = Workload::new(600, 5).expect("workload");
        for case in Case::ALL {
            w.prepare(case, 2).expect("prepare");
            let v = w.run(case, 2).expect("run");
            assert!(v.is_finite(), "{}: {v}", case.name());
        }
    }

    #[test]
    fn one_dp_sgd_epoch_is_n_over_b_steps_and_needs_a_prepare() {
        let mut w = Workload::new(1_000, 3).expect("workload");
        w.prepare(Case::DpSgdEpoch, 2).unwrap();
        assert_eq!(
            w.run(Case::DpSgdEpoch, 2).unwrap(),
            8.0,
            "2 × ⌈1000/256⌉ steps"
        );
        let e = w.run(Case::DpSgdEpoch, 1).unwrap_err();
        assert_eq!(e.field(), Some("case"));
    }

    #[test]
    fn runs_per_timing_fills_the_minimum_and_stays_in_bounds() {
        assert_eq!(runs_per_timing(7.0), 3);
        assert_eq!(runs_per_timing(500.0), 1);
        assert_eq!(runs_per_timing(0.0), UNRESOLVED_RUNS);
        assert_eq!(runs_per_timing(1e-9), MAX_RUNS);
    }

    #[test]
    fn read_sums_every_entry_including_the_tail() {
        assert_eq!(read_once(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 21.0);
    }

    #[test]
    fn names_round_trip_and_an_unknown_name_is_an_error_on_case() {
        for c in Case::ALL {
            assert_eq!(Case::from_name(c.name()).unwrap(), c);
        }
        assert_eq!(Case::from_name("nope").unwrap_err().field(), Some("case"));
    }

    #[test]
    fn the_plan_has_the_issue_sizes_and_every_case() {
        let p = plan(false);
        assert_eq!(
            p.iter().map(|s| (s.n, s.d)).collect::<Vec<_>>(),
            [(100_000, 100), (1_000_000, 20)]
        );
        assert!(p.iter().all(|s| s.cases.len() == Case::ALL.len()));
        assert_eq!(p[0].cases[0].case, "read");
    }

    #[test]
    fn summary_is_min_and_upper_median() {
        let s = Summary::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.min, s.median), (1.0, 3.0));
    }
}
