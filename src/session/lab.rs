//! Every lane of a run on one problem: the [`Lab`] and the [`LaneBatch`] each lane contributes to
//! a slice.

use crate::config::{CheckedRun, RunConfig};
use crate::config::{menu, pose};
use crate::data::Dataset;
use crate::error::{Error, Result};

use super::prepare::Preview;
use super::problem::{Posed, Problem, ReferenceClock};
use super::run::{Batch, LanePlan, Role, Session};
use crate::theory::curve::Curve;

/// One lane's share of a slice.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneBatch {
    /// Index of the algorithm (0 = the main one, then `compare` in order).
    pub algorithm: usize,
    /// Index r of the repeat, i.e. of the lane's independent noise stream (0 ≤ r < R).
    pub repeat: usize,
    /// The lane's events in this slice.
    pub batch: Batch,
}

/// Every lane of a run on one problem: the main and compared algorithms, each repeated R times
/// with independent noise streams.
pub struct Lab {
    config: CheckedRun,
    problem: Posed,
    previews: Vec<Preview>,
    theories: Vec<Option<Curve>>,
    /// Per algorithm without a bound: what would make one apply.
    theory_missing: Vec<Option<String>>,
    pub(super) lanes: Vec<LaneBatchSource>,
    cursor: usize,
}

pub(super) struct LaneBatchSource {
    pub(super) algorithm: usize,
    repeat: usize,
    pub(super) session: Session,
}

impl Lab {
    /// Builds the problem once (from the seed or the loaded `file`) and every lane on it.
    pub fn new(config: RunConfig, file: Option<Dataset>) -> Result<Self> {
        Self::with_clock(config, file, ReferenceClock::Capped)
    }

    /// [`Lab::new`] with the reference solves capped by `clock`: the terminal binary asks for
    /// [`ReferenceClock::WorkOnly`], so its diagnostics do not depend on the machine's load (the
    /// releases never depend on the reference either way).
    pub fn with_clock(
        config: RunConfig,
        file: Option<Dataset>,
        clock: ReferenceClock,
    ) -> Result<Self> {
        let config = config.check()?;
        // A compared algorithm's errors are restated at `compare`.
        let in_lane = |a: usize, kind| move |e: Error| if a == 0 { e } else { e.in_compare(kind) };
        // Every plan first, from the settings alone: a refusal never waits for the data and the
        // reference (they took seconds before a refused tilt was reported).
        let plans = config
            .algorithms()
            .enumerate()
            .map(|(a, kind)| menu::plan(&config.lane(kind)).map_err(in_lane(a, kind)))
            .collect::<Result<Vec<_>>>()?;
        // What the run publishes must compose to a guarantee before it starts (2³² − 1
        // noise draws ran, and only the export's composition refused them).
        super::publish::compose_run(&config)?;
        let problem = pose::posed_with_clock(&config, file, clock)?;
        let mut lanes = Vec::new();
        let mut previews = Vec::new();
        let mut theories = Vec::new();
        let mut theory_missing = Vec::new();
        for ((a, kind), plan) in config.algorithms().enumerate().zip(plans) {
            let lane = config.lane(kind);
            let plan = LanePlan::on(plan, &problem);
            for r in 0..config.repeats {
                let role = if a == 0 { Role::Main } else { Role::Compared };
                let session =
                    Session::planned(problem.clone(), lane.clone(), &plan, r as u32, role)
                        .map_err(in_lane(a, kind))?;
                if r == 0 {
                    previews.push(session.preview().clone());
                    theories.push(session.theory().cloned());
                    theory_missing.push(plan.theory_missing.clone());
                }
                lanes.push(LaneBatchSource {
                    algorithm: a,
                    repeat: r,
                    session,
                });
            }
        }
        Ok(Self {
            config,
            problem,
            previews,
            theories,
            theory_missing,
            lanes,
            cursor: 0,
        })
    }

    /// The minimisation problem every lane shares (data, objective, reference and plane);
    /// `None` for a game.
    pub fn problem(&self) -> Option<&Problem> {
        self.problem.min().ok().map(|p| p.as_ref())
    }

    /// What every lane shares: a minimisation problem or a game.
    pub fn posed(&self) -> &Posed {
        &self.problem
    }

    /// The run's settings as given: main algorithm, `compare` and `repeats`.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// One preview per algorithm (main first).
    pub fn previews(&self) -> &[Preview] {
        &self.previews
    }

    /// One theory curve (or none) per algorithm, main first.
    pub fn theories(&self) -> &[Option<Curve>] {
        &self.theories
    }

    /// Per algorithm, where [`Lab::theories`] has no bound, what would make one apply: one
    /// line naming the missing condition and its control (`None` where a bound is drawn, or
    /// where the family does not say).
    pub fn theory_missing(&self) -> &[Option<String>] {
        &self.theory_missing
    }

    /// The main algorithm's first lane's game views before it steps (its phase schedule, its
    /// dense start; no rows), or `None` for a minimisation: what the page shows before Play.
    pub fn game_views(&self) -> Option<super::game_views::GameViews> {
        self.lanes.first()?.session.game_views()
    }

    /// The main algorithm's first lane's localisation view before it steps (W and the phase
    /// schedule), or `None` unless it is a localized heavy-tail run: what the page shows before
    /// Play.
    pub fn localisation(
        &self,
    ) -> Option<crate::algo::heavy_tails::localisation_view::LocalisationView> {
        self.lanes.first()?.session.localisation()
    }

    /// (lanes released, lanes in all).
    pub fn progress(&self) -> (usize, usize) {
        let done = self.lanes.iter().filter(|l| l.session.is_done()).count();
        (done, self.lanes.len())
    }

    /// Whether every lane has made its release.
    pub fn is_done(&self) -> bool {
        self.lanes.iter().all(|l| l.session.is_done())
    }

    /// Every lane's session, in order (algorithm-major, then repeat). Lanes share nothing
    /// mutable, so an executor may advance them in any order, or in parallel, with the same bits.
    pub fn sessions_mut(&mut self) -> impl Iterator<Item = &mut Session> {
        self.lanes.iter_mut().map(|l| &mut l.session)
    }

    /// Advances lanes round-robin, each by at most `max_steps` steps (0 counts as 1), until
    /// `keep_going` says stop (checked after every step; at least one step is made). Lanes are
    /// visited from where the last slice stopped, so every lane progresses however many there are.
    pub fn advance(
        &mut self,
        max_steps: usize,
        mut keep_going: impl FnMut() -> bool,
    ) -> Vec<LaneBatch> {
        let mut out = Vec::new();
        let total = self.lanes.len();
        for _ in 0..total {
            let i = self.cursor;
            self.cursor = (self.cursor + 1) % total;
            let lane = &mut self.lanes[i];
            if lane.session.is_done() {
                continue;
            }
            let mut go = true;
            let batch = lane.session.advance(max_steps, || {
                go = keep_going();
                go
            });
            out.push(LaneBatch {
                algorithm: lane.algorithm,
                repeat: lane.repeat,
                batch,
            });
            if !go {
                break;
            }
        }
        out
    }
}
