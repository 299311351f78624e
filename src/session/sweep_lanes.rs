//! The page's sweep: the terminal's grid ([`super::sweep`]) cut into tasks that a pool of Web
//! Workers runs lane by lane, and put back together by the same [`Summary`].
//!
//! Nothing here is a second implementation: the points are [`SweepSpec::points`], a lane is
//! [`sweep::finish`] on the point's [`Lab`], the table, slopes and CSV are [`Summary`]'s. What this
//! module adds is what a page needs and a terminal does not:
//! - the request as the page's panel sends it, with limits a tab can afford and errors naming
//!   the panel's controls ([`SweepRequest`], [`PageSweep::new`]);
//! - the tasks a pool shares out ([`PageSweep::tasks`]): contiguous repeats of one point, so a
//!   worker that stays on a point builds its data and reference once;
//! - one point's lanes run one at a time ([`PointLanes`]), so a worker can report each lane;
//! - what the whole sweep publishes, composed from the configs alone ([`PageSweep::composition`]);
//! - the theorem's bound at each point and its own fitted slope ([`PageSummary`]).
//!
//! Because each lane is independent (its own noise stream on its point's problem), any split of
//! the lanes across workers, in any order, gives the bits of [`sweep::run_sequential`]
//! (`tests/playground/sweep_lanes.rs` checks it).

use serde::{Deserialize, Serialize};

// The session names a family here: a sweep's dotted reference curves are the
// heavy-tail families' lower bound and rate (Lowy 2026, Theorem 4.1; Asi, Liu & Tian 2024),
// computed from each point's `RunConfig`. Their home is a hook on `Family` (say
// `sweep_reference: Option<fn(&RunConfig) -> Result<Rates>>`, read through the registry), which
// would leave this module naming none; it waits for the families' typed plan inputs, since the
// hook's argument is exactly what that change replaces.
use crate::algo::heavy_tails::rates::{ReferenceCurve, sweep_references};
use crate::config::{AlgorithmKind, DataSource, RunConfig};
use crate::error::{Error, Result};

use super::lab::Lab;
use super::publish::{self, Composition};
use super::sweep::{self, Point, PointSummary, Slope, Summary, SweepSpec};

/// Most values on the swept axis (ε or n) the page accepts.
pub const MAX_AXIS_VALUES: usize = 12;
/// Most algorithms compared in one sweep (the plot's palette has four colours).
pub const MAX_ALGORITHMS: usize = 4;
/// Most repeats per point (as a run's `repeats`).
pub const MAX_REPEATS: usize = 100;

/// The field names the panel's controls answer to (the page puts an error beside its control).
pub mod field {
    /// The list of ε or n values.
    pub const VALUES: &str = super::sweep::POINT_FIELD;
    /// The repeats R per point.
    pub const REPEATS: &str = "sweep repeats";
    /// The algorithms swept.
    pub const ALGORITHMS: &str = "sweep algorithms";
    /// The settings the sweep starts from (the page's current run).
    pub const SETTINGS: &str = "sweep settings";
}

/// Which axis the page sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// The privacy budget ε (n held at the current settings').
    Epsilon,
    /// The sample size n (ε held at the current settings').
    N,
}

/// A sweep as the page's panel sends it (JSON, camelCase keys).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SweepRequest {
    /// The axis swept.
    pub axis: Axis,
    /// Its values (ε > 0, or n as whole numbers), 2 to [`MAX_AXIS_VALUES`] of them.
    pub values: Vec<f64>,
    /// Algorithm keys (`output_perturbation`, …); empty: the current settings' algorithm.
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// Repeats R per point: a whole number from 1 to [`MAX_REPEATS`] (read as a number, so a
    /// fraction is refused at its field rather than as unreadable JSON).
    pub repeats: f64,
}

/// One task for a worker: repeats `start..end` of point `point`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Index of the point in [`PageSweep::points`].
    pub point: usize,
    /// First repeat.
    pub start: usize,
    /// One past the last repeat.
    pub end: usize,
}

/// A sweep the page runs: its grid, validated, and everything about it known before any data.
#[derive(Debug, Clone)]
pub struct PageSweep {
    axis: Axis,
    repeats: usize,
    points: Vec<Point>,
}

impl PageSweep {
    /// The grid of `request` around `base` (the page's current, validated settings). Errors name
    /// the panel's control at fault, never a panic.
    pub fn new(base: RunConfig, request: &SweepRequest) -> Result<Self> {
        if base.data == DataSource::Csv {
            return Err(Error::invalid(
                field::SETTINGS,
                "choose synthetic data under data: a sweep generates its data at each point (a loaded file cannot be swept over n, and its every release would count against it)",
                "a loaded CSV file",
            ));
        }
        let values = &request.values;
        if !(2..=MAX_AXIS_VALUES).contains(&values.len()) {
            return Err(Error::invalid(
                field::VALUES,
                format!("enter 2 to {MAX_AXIS_VALUES} values, separated by commas"),
                values.len(),
            ));
        }
        let (mut epsilons, mut ns) = (Vec::new(), Vec::new());
        for &v in values {
            match request.axis {
                Axis::Epsilon if v.is_finite() && v > 0.0 => epsilons.push(v),
                Axis::N if v.is_finite() && v >= 1.0 && v.fract() == 0.0 && v <= 1e9 => {
                    ns.push(v as usize)
                }
                Axis::Epsilon => {
                    return Err(Error::invalid(field::VALUES, "enter values of ε > 0", v));
                }
                Axis::N => {
                    return Err(Error::invalid(
                        field::VALUES,
                        "enter whole numbers of records n ≥ 1",
                        v,
                    ));
                }
            }
        }
        let r = request.repeats;
        if !(r.fract() == 0.0 && (1.0..=MAX_REPEATS as f64).contains(&r)) {
            return Err(Error::invalid(
                field::REPEATS,
                format!("a whole number of repeats from 1 to {MAX_REPEATS}"),
                r,
            ));
        }
        let repeats = r as usize;
        if request.algorithms.len() > MAX_ALGORITHMS {
            return Err(Error::invalid(
                field::ALGORITHMS,
                format!("untick some: at most {MAX_ALGORITHMS} algorithms per sweep"),
                request.algorithms.len(),
            ));
        }
        let mut algorithms = Vec::new();
        for key in &request.algorithms {
            let kind: AlgorithmKind =
                serde_json::from_value(serde_json::Value::String(key.clone())).map_err(|_| {
                    Error::invalid(field::ALGORITHMS, "pick algorithms from the list", key)
                })?;
            if !algorithms.contains(&kind) {
                algorithms.push(kind);
            }
        }
        let spec = SweepSpec {
            base,
            epsilons,
            ns,
            algorithms,
            repeats,
        };
        // A point the run would refuse is stated at the values (the message names the point).
        let points = spec.points()?;
        Ok(Self {
            axis: request.axis,
            repeats,
            points,
        })
    }

    /// The axis swept.
    pub fn axis(&self) -> Axis {
        self.axis
    }

    /// Repeats per point.
    pub fn repeats(&self) -> usize {
        self.repeats
    }

    /// The grid's points, in [`SweepSpec::points`]' order.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Lanes in all: points × repeats.
    pub fn lanes(&self) -> usize {
        self.points.len() * self.repeats
    }

    /// The guarantee of every release the sweep makes together. Every point is generated from
    /// the same seed, so at one n all points share the data and all their releases (points ×
    /// repeats × algorithms) compose; points at other n are composed in as well, which can only
    /// overstate the total. From the configs alone (docs/PRIVACY.md rule 7).
    pub fn composition(&self) -> Result<Composition> {
        let configs: Vec<RunConfig> = self.points.iter().map(|p| p.config().clone()).collect();
        publish::compose_runs(&configs)
    }

    /// The tasks for a pool of `workers`: each point's repeats cut into `workers` contiguous
    /// pieces (none empty), point-major. A pool that keeps each worker on the point it has
    /// built builds each point about once, and at the end every worker can still help with the
    /// last point; one worker gets one task per point.
    pub fn tasks(&self, workers: usize) -> Vec<Task> {
        let pieces = workers.clamp(1, self.repeats.max(1));
        let size = self.repeats.div_ceil(pieces).max(1);
        let mut out = Vec::new();
        for point in 0..self.points.len() {
            let mut start = 0;
            while start < self.repeats {
                let end = (start + size).min(self.repeats);
                out.push(Task { point, start, end });
                start = end;
            }
        }
        out
    }

    /// Builds point `point`'s problem (data and reference) and its lanes, ready to run one by one.
    pub fn point(&self, point: usize) -> Result<PointLanes> {
        let p = self.points.get(point).ok_or_else(|| {
            Error::invalid(
                "point",
                format!("a point index below {}", self.points.len()),
                point,
            )
        })?;
        Ok(PointLanes { lab: p.lab()? })
    }

    /// The summary of every lane (`lanes`: one metric per lane, point-major then repeat, as
    /// [`sweep::run_sequential`] orders them) and the theory bound at each point (`bounds`).
    pub fn summary(
        &self,
        lanes: Vec<Option<f64>>,
        bounds: Vec<Option<f64>>,
    ) -> Result<PageSummary> {
        if lanes.len() != self.lanes() || bounds.len() != self.points.len() {
            return Err(Error::invalid(
                "lanes",
                format!(
                    "{} lane values and {} bounds",
                    self.lanes(),
                    self.points.len()
                ),
                format!("{} and {}", lanes.len(), bounds.len()),
            ));
        }
        let summary = Summary::new(self.points.clone(), self.repeats, lanes);
        // The bound's slope, fitted exactly as the measured one: one "lane" per point.
        let theory = Summary::new(self.points.clone(), 1, bounds.clone());
        let against = match self.axis {
            Axis::Epsilon => "epsilon",
            Axis::N => "n",
        };
        let keep = |s: &Slope| s.against == against;
        Ok(PageSummary {
            rows: summary.rows.clone(),
            bounds,
            slopes: summary.slopes.iter().filter(|s| keep(s)).cloned().collect(),
            theory_slopes: theory.slopes.iter().filter(|s| keep(s)).cloned().collect(),
            csv: summary.points_csv(),
            lanes_csv: summary.lanes_csv(),
            references: sweep_references(self.points.iter().map(|p| {
                let x = match self.axis {
                    Axis::Epsilon => p.epsilon,
                    Axis::N => p.n as f64,
                };
                (x, p.config())
            })),
        })
    }
}

/// One point's lanes, built once (data, reference, a session per repeat) and run one by one.
pub struct PointLanes {
    lab: Lab,
}

impl PointLanes {
    /// Runs repeat `repeat` to its release: its metric (excess risk, or a game's duality gap),
    /// `None` when the reference is unavailable or the index is past the last repeat.
    pub fn lane(&mut self, repeat: usize) -> Option<f64> {
        self.lab.sessions_mut().nth(repeat).and_then(sweep::finish)
    }

    /// The theorem's bound on the metric at the release, where the family states one (the last
    /// value of the plan's theory curve: a one-release bound is flat, an iterative one ends at
    /// the release).
    pub fn bound(&self) -> Option<f64> {
        self.lab
            .theories()
            .first()
            .and_then(|c| c.as_ref())
            .and_then(|c| c.y.last().copied())
            .filter(|y| y.is_finite() && *y > 0.0)
    }
}

/// A page sweep's results: the terminal's summary rows and CSV, with the theorem's bounds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSummary {
    /// One row per point ([`Summary::rows`]).
    pub rows: Vec<PointSummary>,
    /// The theory bound at each point (none where the family states none).
    pub bounds: Vec<Option<f64>>,
    /// The fitted log-log slope of the mean along the swept axis, per algorithm.
    pub slopes: Vec<Slope>,
    /// The same fit through the bounds: the theorem's slope over the same points.
    pub theory_slopes: Vec<Slope>,
    /// [`Summary::points_csv`]: one row per point.
    pub csv: String,
    /// [`Summary::lanes_csv`]: one row per lane, exact values.
    pub lanes_csv: String,
    /// Bounds no swept algorithm attains, drawn dotted: for a heavy-tail family, Lowy 2026's
    /// pure-DP lower bound and the approximate-DP rate ([`crate::algo::heavy_tails::rates`]).
    pub references: Vec<ReferenceCurve>,
}
