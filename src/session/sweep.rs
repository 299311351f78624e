//! A sweep: the released excess risk (a game's duality gap) against ε and/or n, for several
//! algorithms, R repeats per point — the researcher's "how does the risk fall?" question, for
//! the terminal binary's `sweep` command.
//!
//! The sweep is a grid of [`Point`]s, each an ordinary run ([`Lab`]) of the base config with ε, n
//! and the algorithm replaced; its lanes are its repeats. Each lane is independent of every other
//! (its own noise stream, on its point's problem), so an executor may run them in any order or
//! in parallel and gets the same bits: [`finish`] is all a lane needs. The summary (mean and
//! spread per point, the fitted log-log slope along each swept axis) and the CSV files are built
//! here too, so the binary only handles arguments, threads and files.

use serde::Serialize;

use crate::algo::registry;
use crate::config::menu;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::{Error, Result};

use super::export::cell;
use super::lab::Lab;
use super::problem::ReferenceClock;
use super::run::Session;

/// Most points a sweep's grid may have (ε values × n values × algorithms): every point is
/// validated, generated and solved for its reference before its lanes run, so a grid is bounded
/// before it starts (a 200 × 200 ε × n grid ran with no cap).
pub const MAX_SWEEP_POINTS: usize = 1000;
/// Most runs (points × repeats) a sweep may make: the page's largest (12 values × 4 algorithms
/// × 100 repeats = 4,800) with room for a terminal's finer grids.
pub const MAX_SWEEP_LANES: usize = 20_000;
/// The field a refused point or grid is named at: the page's sweep panel's values (the
/// terminal restates it at its flags).
pub const POINT_FIELD: &str = "sweep values";
/// Most repeats per point, as a run's `repeats`.
pub const MAX_SWEEP_REPEATS: usize = 100;

/// The grid a sweep runs: every ε × every n × every algorithm, `repeats` lanes each.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// The settings every point shares (a page link's config).
    pub base: RunConfig,
    /// The privacy budgets ε (empty: the base config's).
    pub epsilons: Vec<f64>,
    /// The sample sizes n (empty: the base config's).
    pub ns: Vec<usize>,
    /// The algorithms (empty: the base config's main algorithm).
    pub algorithms: Vec<AlgorithmKind>,
    /// Repeats R per point (independent noise streams on the point's data).
    pub repeats: usize,
}

/// One point of the grid: a run of its own.
#[derive(Debug, Clone)]
pub struct Point {
    /// The algorithm run.
    pub algorithm: AlgorithmKind,
    /// Its ε.
    pub epsilon: f64,
    /// Its n.
    pub n: usize,
    /// What picking the algorithm changed in the base config, and why (as the page's notes).
    pub notes: Vec<String>,
    config: RunConfig,
}

impl SweepSpec {
    /// The grid's points, algorithm-major, then n, then ε; every config is validated before any
    /// data are made, and an error names the point and the field.
    pub fn points(&self) -> Result<Vec<Point>> {
        if self.repeats == 0 {
            return Err(Error::invalid("repeats", "at least 1 repeat per point", 0));
        }
        let or = |v: &[f64], d: f64| if v.is_empty() { vec![d] } else { v.to_vec() };
        let epsilons = or(&self.epsilons, self.base.epsilon);
        let ns = if self.ns.is_empty() {
            vec![self.base.n]
        } else {
            self.ns.clone()
        };
        let algorithms = if self.algorithms.is_empty() {
            vec![self.base.algorithm]
        } else {
            self.algorithms.clone()
        };
        let repeats = self.repeats;
        if repeats > MAX_SWEEP_REPEATS {
            return Err(Error::invalid(
                "repeats",
                format!("at most {MAX_SWEEP_REPEATS} repeats per point, as a run's"),
                repeats,
            ));
        }
        let grid = epsilons.len() * ns.len() * algorithms.len();
        if grid > MAX_SWEEP_POINTS || grid * repeats > MAX_SWEEP_LANES {
            return Err(Error::invalid(
                POINT_FIELD,
                format!(
                    "enter fewer values, algorithms or repeats: at most {MAX_SWEEP_POINTS} \
                     points (ε values × n values × algorithms) and {MAX_SWEEP_LANES} runs in all"
                ),
                format!("{grid} points × {repeats}"),
            ));
        }
        let mut points = Vec::new();
        for &algorithm in &algorithms {
            // An algorithm other than the config's is picked as from the page's menu: each of its
            // needs met (a ridge, a domain …), each change stated in the point's notes.
            let (picked, notes) = if algorithm == self.base.algorithm {
                (self.base.clone(), Vec::new())
            } else {
                menu::pick(&self.base, algorithm)
            };
            for &n in &ns {
                for &epsilon in &epsilons {
                    let config = RunConfig {
                        compare: Vec::new(),
                        epsilon,
                        n,
                        repeats: self.repeats,
                        ..picked.clone()
                    };
                    // The whole refusal is restated at the panel's values, the point named by
                    // the menu's words and ε in short (a 309-digit ε and the
                    // algorithm's key were echoed back).
                    config.validate().map_err(|e| {
                        let eps = epsilon.to_string();
                        let eps = if eps.len() > 12 {
                            format!("{epsilon:e}")
                        } else {
                            eps
                        };
                        Error::invalid(
                            POINT_FIELD,
                            format!(
                                "enter other values or pick other algorithms: {} refuses ε = \
                                 {eps}, n = {n} ({})",
                                registry::family(algorithm).card.name,
                                e.to_string().trim_end_matches('.')
                            ),
                            "",
                        )
                    })?;
                    points.push(Point {
                        algorithm,
                        epsilon,
                        n,
                        notes: notes.clone(),
                        config,
                    });
                }
            }
        }
        Ok(points)
    }
}

impl Point {
    /// The point's settings: the base config with its algorithm, ε, n and repeats.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The point's run: its problem (data and reference) and its `repeats` lanes. The reference
    /// is capped by work only, so the metric does not depend on the load (threads, machine).
    pub fn lab(&self) -> Result<Lab> {
        Lab::with_clock(self.config.clone(), None, ReferenceClock::WorkOnly)
    }
}

/// Runs one lane to its release and returns the released point's metric (excess risk, or a
/// game's duality gap); `None` when the reference is unavailable.
pub fn finish(session: &mut Session) -> Option<f64> {
    let mut metric = None;
    while !session.is_done() {
        if let Some(release) = session.advance(usize::MAX, || true).release {
            metric = release.excess;
        }
    }
    metric
}

/// Runs the sweep on this thread, lane after lane: the reference the parallel executor of the
/// binary must match bit for bit. Returns one metric per lane, point by point, repeat by repeat.
pub fn run_sequential(points: &[Point]) -> Result<Vec<Option<f64>>> {
    let mut out = Vec::new();
    for point in points {
        let mut lab = point.lab()?;
        out.extend(lab.sessions_mut().map(finish));
    }
    Ok(out)
}

/// Least-squares slope of ln y on ln x (the rate a log-log plot shows).
pub fn loglog_slope(xs: &[f64], ys: &[f64]) -> f64 {
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let ly: Vec<f64> = ys.iter().map(|y| y.ln()).collect();
    let k = lx.len() as f64;
    let (mx, my) = (lx.iter().sum::<f64>() / k, ly.iter().sum::<f64>() / k);
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// One point's released metrics, summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointSummary {
    /// The algorithm.
    pub algorithm: AlgorithmKind,
    /// ε of the point.
    pub epsilon: f64,
    /// n of the point.
    pub n: usize,
    /// Lanes with a metric (the reference may be unavailable for some).
    pub scored: usize,
    /// Mean of the metric over the scored repeats (NaN if none).
    pub mean: f64,
    /// Sample standard deviation over the scored repeats (NaN below two).
    pub sd: f64,
    /// Smallest and largest metric.
    pub min: f64,
    /// See `min`.
    pub max: f64,
}

/// Mean and spread of one metric over repeats (a sweep's point, the page's compare readout).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Values summarised.
    pub scored: usize,
    /// Their mean (NaN if none).
    pub mean: f64,
    /// Their sample standard deviation (NaN below two).
    pub sd: f64,
    /// The smallest value (NaN if none).
    pub min: f64,
    /// The largest value (NaN if none).
    pub max: f64,
}

impl Spread {
    /// Summarises `values` (the caller leaves out repeats without a metric).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let v: Vec<f64> = values.into_iter().collect();
        let k = v.len() as f64;
        let mean = v.iter().sum::<f64>() / k;
        let sd = if v.len() > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt()
        } else {
            f64::NAN
        };
        let fold = |f: fn(f64, f64) -> f64| v.iter().copied().reduce(f).unwrap_or(f64::NAN);
        Spread {
            scored: v.len(),
            mean,
            sd,
            min: fold(f64::min),
            max: fold(f64::max),
        }
    }
}

/// A fitted rate: the slope of ln(mean metric) against ln ε or ln n, with the other held fixed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slope {
    /// The algorithm.
    pub algorithm: AlgorithmKind,
    /// "epsilon" or "n": the axis swept.
    pub against: &'static str,
    /// The other axis's value, held fixed.
    pub at: f64,
    /// The least-squares log-log slope over the points with a positive mean.
    pub slope: f64,
    /// Points it was fitted on.
    pub points: usize,
}

/// A sweep's results: every lane, each point's summary and the fitted slopes.
#[derive(Debug, Clone)]
pub struct Summary {
    points: Vec<Point>,
    repeats: usize,
    lanes: Vec<Option<f64>>,
    /// One summary per point, in the grid's order.
    pub rows: Vec<PointSummary>,
    /// One slope per algorithm and fixed value of the other axis, for each axis with ≥ 2 values.
    pub slopes: Vec<Slope>,
}

impl Summary {
    /// Summarises `lanes` (one metric per lane, as [`run_sequential`] orders them).
    pub fn new(points: Vec<Point>, repeats: usize, lanes: Vec<Option<f64>>) -> Self {
        let rows: Vec<PointSummary> = points
            .iter()
            .zip(lanes.chunks(repeats.max(1)))
            .map(|(p, values)| {
                let s = Spread::of(values.iter().flatten().copied());
                PointSummary {
                    algorithm: p.algorithm,
                    epsilon: p.epsilon,
                    n: p.n,
                    scored: s.scored,
                    mean: s.mean,
                    sd: s.sd,
                    min: s.min,
                    max: s.max,
                }
            })
            .collect();
        let slopes = fit_slopes(&rows);
        Self {
            points,
            repeats,
            lanes,
            rows,
            slopes,
        }
    }

    /// The summary table, aligned for a terminal, then the slopes.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<28} {:>10} {:>8} {:>6} {:>12} {:>12} {:>12} {:>12}\n",
            "algorithm", "epsilon", "n", "R", "mean", "sd", "min", "max"
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{:<28} {:>10} {:>8} {:>6} {:>12.4e} {:>12.4e} {:>12.4e} {:>12.4e}\n",
                r.algorithm.key(),
                r.epsilon,
                r.n,
                r.scored,
                r.mean,
                r.sd,
                r.min,
                r.max
            ));
        }
        for s in &self.slopes {
            let other = if s.against == "epsilon" { "n" } else { "ε" };
            let axis = if s.against == "epsilon" { "ε" } else { "n" };
            out.push_str(&format!(
                "slope of ln(mean) against ln {axis} for {} at {other} = {}: {:.3} ({} points)\n",
                s.algorithm.key(),
                s.at,
                s.slope,
                s.points
            ));
        }
        out
    }

    /// One row per point: `algorithm,epsilon,n,repeats_scored,mean,sd,min,max` (empty cells for
    /// NaN), then no slopes (they are in [`Summary::table`]).
    pub fn points_csv(&self) -> String {
        let mut out = String::from("algorithm,epsilon,n,repeats_scored,mean,sd,min,max\n");
        for r in &self.rows {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                r.algorithm.key(),
                cell(r.epsilon),
                r.n,
                r.scored,
                cell(r.mean),
                cell(r.sd),
                cell(r.min),
                cell(r.max)
            ));
        }
        out
    }

    /// One row per lane: `algorithm,epsilon,n,repeat,metric` (shortest round-trip decimals, so
    /// the file holds the exact bits; empty where the reference was unavailable).
    pub fn lanes_csv(&self) -> String {
        let mut out = String::from("algorithm,epsilon,n,repeat,metric\n");
        for (i, v) in self.lanes.iter().enumerate() {
            let p = &self.points[i / self.repeats.max(1)];
            out.push_str(&format!(
                "{},{},{},{},{}\n",
                p.algorithm.key(),
                cell(p.epsilon),
                p.n,
                i % self.repeats.max(1),
                v.map_or(String::new(), cell)
            ));
        }
        out
    }
}

/// Slopes along ε (n fixed) and along n (ε fixed), per algorithm, where the axis has ≥ 2 points
/// with a positive mean.
fn fit_slopes(rows: &[PointSummary]) -> Vec<Slope> {
    let mut out = Vec::new();
    let mut groups: Vec<(AlgorithmKind, &'static str, f64)> = Vec::new();
    for r in rows {
        for key in [
            (r.algorithm, "epsilon", r.n as f64),
            (r.algorithm, "n", r.epsilon),
        ] {
            if !groups.contains(&key) {
                groups.push(key);
            }
        }
    }
    for (algorithm, against, at) in groups {
        let (xs, ys): (Vec<f64>, Vec<f64>) = rows
            .iter()
            .filter(|r| r.algorithm == algorithm && r.mean > 0.0 && r.mean.is_finite())
            .filter_map(|r| match against {
                "epsilon" if r.n as f64 == at => Some((r.epsilon, r.mean)),
                "n" if r.epsilon == at => Some((r.n as f64, r.mean)),
                _ => None,
            })
            .unzip();
        let distinct = xs.iter().any(|x| *x != xs[0]);
        if xs.len() >= 2 && distinct {
            out.push(Slope {
                algorithm,
                against,
                at,
                slope: loglog_slope(&xs, &ys),
                points: xs.len(),
            });
        }
    }
    out
}
