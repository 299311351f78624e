//! One algorithm with one noise stream on a shared problem: the [`Session`], the [`Batch`] of
//! events each slice returns and the [`Release`] it ends with.

use std::sync::Arc;

use serde::Serialize;

use crate::algo::StepReport;
use crate::algo::registry::Planned;
use crate::algo::run::{Diagnostic, Point, Run, RunState};
use crate::config::RunConfig;
use crate::config::{menu, pose};
use crate::domain::Domain;
use crate::error::Result;
use crate::minimax::Readout;
use crate::privacy::release::Published;
use crate::privacy::{Guarantee, Ledger};
use crate::reference::{Estimate, Reference};
use crate::rng::{self, Stream};
use crate::session::ProblemView;
use crate::theory::curve::Curve;

use super::game_views::{GameViews, ViewRecorder};
use super::prepare::Preview;
use super::problem::{Posed, Problem};
use crate::algo::heavy_tails::localisation_view::LocalisationView;

/// The private output and how good it is. Only `published` (with its `ledger`) is private, and
/// it comes only from [`Run::release`]: a point that passed through its noise
/// ([`crate::privacy::release::Noised`]) or a demonstration typed NOT PRIVATE; `plane`,
/// `loss`, `excess` and `population` are computed on the raw data for the plots. The noise drawn
/// is not here: its norm is a diagnostic of the raw data and the noise (with the non-private
/// path it names the dataset), kept in [`Batch::noise_norm`].
///
/// [`publish::private_part`](super::publish::private_part) is the one definition of what may be
/// exported as private.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    /// The released point w ∈ W (x ∈ X of a game, with its y), exactly as the run published it
    /// ([`Run::release`]): the private output, with `ledger`. Serialised as `w` and `y`.
    #[serde(flatten)]
    pub published: Published,
    /// `w` in the parameter view's plane coordinates.
    pub plane: [f64; 2],
    /// F(w) on the problem's objective. **Non-private**.
    pub loss: f64,
    /// F(w) − F*, or a game's duality gap at (w, y); `None` when the reference is unavailable
    /// ([`Problem::reference`]). Computed after the release, never before it or for it.
    /// **Non-private**.
    pub excess: Option<f64>,
    /// Excess population risk F_pop(w) − F_pop(w*_pop), estimated on a fresh sample with its
    /// standard error (synthetic data only). **Non-private**.
    pub population: Option<Estimate>,
    /// The game's own measure of the released x and of its reference saddle point (AUC
    /// maximisation's AUC; [`PosedGame::readout`](crate::minimax::PosedGame::readout)).
    /// **Non-private**, computed after the release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readout: Option<Readout>,
    /// What the release promises: guarantee, mechanism, caveats, any leaks
    /// ([`Session::ledger`]).
    pub ledger: Ledger,
}

impl Release {
    /// The released point w ∈ W (x ∈ X of a game).
    pub fn w(&self) -> &[f64] {
        self.published.x()
    }

    /// A game's released y ∈ Y; `None` for a minimisation.
    pub fn y(&self) -> Option<&[f64]> {
        self.published.y()
    }
}

/// Both players' points of a game, full length (the plane view shows only two coordinates).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Players {
    /// x ∈ X, the minimising player.
    pub x: Vec<f64>,
    /// y ∈ Y, the maximising player.
    pub y: Vec<f64>,
}

/// The events of one slice, in columns (one entry per iterate), ready to cross to JavaScript as
/// typed arrays. Everything but `release` is non-private.
///
/// NaN in a column is "no value" at that step (DP-SGD's loss on an empty Poisson batch, the
/// subgradient method's value before its first check, the excess without a reference): the plots
/// skip it and break the line there (`wasm/plot`), the CSV export leaves the cell empty
/// ([`super::export`]). The numbers that feed the noise are checked finite before the run
/// ([`menu::plan`]), so the noise cannot overflow a column to ±∞.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// Step index t of each entry (the release entry follows the last step, at t + 1).
    pub t: Vec<f64>,
    /// Gradient evaluations used by then, in full passes over the data.
    pub grad_evals: Vec<f64>,
    /// F at each iterate as the algorithm reports it (DP-SGD: a minibatch estimate; a run on its
    /// own objective: that objective's); at the release, the problem's F(w).
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
    /// ‖∇F‖₂ at each iterate, as [`StepReport::grad_norm`] (NaN for the release entry).
    pub grad_norm: Vec<f64>,
    /// ε spent after each step (the guarantee's ε at the release).
    pub epsilon_spent: Vec<f64>,
    /// The release, in the slice where the run finishes.
    pub release: Option<Release>,
    /// The run's named diagnostics where it stood at the end of the slice (a certificate, a
    /// phase, a gap …), each finite (one not yet known is absent). **Non-private**.
    pub diagnostics: Vec<Diagnostic>,
    /// A game's players where the run stood at the end of the slice (the curator's dense view of
    /// both mixed strategies, not the release). **Non-private**. `None` for a minimisation.
    pub players: Option<Players>,
    /// What the slice adds to a game's views (ternary path, vertex draws beside the dense
    /// iterate, phase timeline, why the run stopped); `None` for a minimisation.
    pub views: Option<GameViews>,
    /// A localized heavy-tail run's 2-D localisation view where it stood at the end of the slice
    /// (centres, balls, candidates: **non-private** diagnostics, never exported as private; its
    /// `release` is the release); `None` for every other run.
    pub localisation: Option<LocalisationView>,
    /// Whether the run has released: no later slice adds to it.
    pub done: bool,
}

impl Batch {
    fn push(&mut self, t: usize, report: &StepReport, excess: f64, plane: [f64; 2]) {
        self.t.push(t as f64);
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

    /// Whether the slice holds no iterate (a session advanced after its release).
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// What every repeat of one algorithm shares: its plan and its bound, computed once from the
/// config (and, for the bound's plot ingredients, the problem).
pub(super) struct LanePlan {
    plan: Planned,
    theory: Option<Curve>,
    /// Without a bound, what would make one apply ([`Planned::theory_missing`]).
    pub(super) theory_missing: Option<String>,
}

impl LanePlan {
    /// `plan` (from [`menu::plan`], made before the problem is built so that a refused plan
    /// never waits for the data and the reference) with its bound on `problem`.
    pub(super) fn on(plan: Planned, problem: &Posed) -> Self {
        let theory = plan.theory(problem);
        let theory_missing = match theory {
            Some(_) => None,
            None => plan.theory_missing(problem),
        };
        Self {
            plan,
            theory,
            theory_missing,
        }
    }
}

/// An algorithm's place in a run, which picks its noise stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// The run's main algorithm (or a run alone).
    Main,
    /// An algorithm of `compare`.
    Compared,
}

/// The noise generator of repeat `repeat` of `config.algorithm` in `role`: the OS generator in
/// unseeded mode; seeded, the main algorithm's stream is (seed, repeat, draw)
/// ([`rng::seeded_draw`], so a run alone keeps its bits) and a compared algorithm's is
/// (seed, its key, repeat, draw) ([`rng::seeded_algorithm`]): no two lanes of one run share a
/// stream, so no two releases carry proportional noise. A seeded run still demonstrates the
/// mechanism and is no private release: the seed names every stream.
fn noise_stream(config: &RunConfig, role: Role, repeat: u32) -> Result<rng::DpRng> {
    if config.unseeded_noise {
        return rng::from_os();
    }
    let (seed, draw) = (config.seed, config.noise_draw);
    Ok(match role {
        Role::Main => rng::seeded_draw(seed, Stream::Noise, repeat, draw),
        Role::Compared => {
            rng::seeded_algorithm(seed, Stream::Noise, &config.algorithm.key(), repeat, draw)
        }
    })
}

/// One algorithm with one noise stream on a shared problem.
pub struct Session {
    config: RunConfig,
    preview: Preview,
    problem: Posed,
    pub(super) run: Box<dyn Run>,
    theory: Option<Curve>,
    /// The point each step starts from, scored once the step reports: x (or w), and y of a game.
    before: (Vec<f64>, Vec<f64>),
    /// The steps taken and whether the run is done, from what its steps report: the session
    /// keeps this for every family, none keeps its own copy.
    state: RunState,
    released: bool,
}

impl Session {
    /// Validates the config, states the guarantee, generates and clips the data, computes the
    /// reference optimum and prepares the algorithm (synthetic data, repeat 0).
    pub fn new(config: RunConfig) -> Result<Self> {
        config.validate()?;
        let plan = menu::plan(&config)?;
        let problem = pose::posed(&config, None)?;
        let plan = LanePlan::on(plan, &problem);
        Self::planned(problem, config, &plan, 0, Role::Main)
    }

    /// The config's main algorithm on the minimisation `problem`, with the noise stream of repeat
    /// `repeat`.
    pub fn on(problem: Arc<Problem>, config: RunConfig, repeat: u32) -> Result<Self> {
        config.validate()?;
        let problem = Posed::Min(problem);
        let plan = LanePlan::on(menu::plan(&config)?, &problem);
        Self::planned(problem, config, &plan, repeat, Role::Main)
    }

    /// Repeat `repeat` of an algorithm already planned for `problem` (see
    /// [`Lab::new`](super::Lab::new)), in the run's `role`.
    pub(super) fn planned(
        problem: Posed,
        config: RunConfig,
        plan: &LanePlan,
        repeat: u32,
        role: Role,
    ) -> Result<Self> {
        let noise_rng = noise_stream(&config, role, repeat)?;
        let run = plan
            .plan
            .build(&problem, noise_rng, !config.unseeded_noise)?;
        let before = match run.point() {
            Point::Min(w) => (w.to_vec(), Vec::new()),
            Point::Saddle { x, y } => (x.to_vec(), y.to_vec()),
        };
        Ok(Self {
            config,
            preview: plan.plan.preview.clone(),
            problem,
            run,
            theory: plan.theory.clone(),
            before,
            state: RunState::default(),
            released: false,
        })
    }

    /// The settings it runs: `algorithm` is this session's (a lab's lanes have no `compare`).
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The guarantee of the release, fixed before the run from the configuration alone.
    pub fn guarantee(&self) -> &Guarantee {
        self.run.guarantee()
    }

    /// The guarantee and noise scale, as stated before the run.
    pub fn preview(&self) -> &Preview {
        &self.preview
    }

    /// The minimisation problem this lane shares with the others (data, objective, reference
    /// and plane); `None` for a game.
    pub fn problem(&self) -> Option<&Problem> {
        self.problem.min().ok().map(|p| p.as_ref())
    }

    /// What this lane shares with the others: a minimisation problem or a game.
    pub fn posed(&self) -> &Posed {
        &self.problem
    }

    /// The algorithm's theory bound against gradient evaluations, when its theory covers the
    /// setting (drawn dashed beside the measured excess risk).
    pub fn theory(&self) -> Option<&Curve> {
        self.theory.as_ref()
    }

    /// The certified reference, if it was available (see [`Problem::reference`]).
    pub fn reference(&self) -> Option<&Reference> {
        self.problem()?.reference.as_ref().ok()
    }

    /// How many samples clipping changed (0 for a game, whose records are clipped as they are
    /// streamed). **Non-private** diagnostic.
    pub fn clipped(&self) -> usize {
        self.problem().map_or(0, |p| p.clipped)
    }

    /// Where the run stands (w, or x and y of a game): before the first step, its
    /// data-independent start. **Non-private** once a step is taken, and never the release (that
    /// is [`Release::published`]); the test that every family's release moves away from its start
    /// reads it before Play.
    pub fn point(&self) -> Point<'_> {
        self.run.point()
    }

    /// Gradient evaluations the run has used so far, in full passes over the data (also counted
    /// by steps that made no new iterate, which add no entry to a [`Batch`]).
    pub fn grad_evals(&self) -> f64 {
        self.run.grad_evals()
    }

    /// Whether the release has been made (the batch that carried it has been returned).
    pub fn is_done(&self) -> bool {
        self.released
    }

    /// The ledger of the (eventual) release; a residual loss's declared label bound is among its
    /// caveats (the algorithms' own ledgers name the feature bound).
    pub fn ledger(&self) -> Ledger {
        let mut ledger = self.run.ledger();
        let problem = match &self.problem {
            Posed::Min(problem) => problem,
            Posed::Saddle(game) => {
                ledger.leaks.extend(game.game.leak().map(String::from));
                return ledger;
            }
        };
        let loss = problem.declared.loss.glm;
        if let Some(bound) = loss.label_bound() {
            ledger.caveats.push(format!(
                "declared label bound, not measured: targets clipped to |y| ≤ {bound} ({} loss)",
                crate::loss::GlmLoss::name(&loss)
            ));
        }
        ledger
    }

    /// The session's score of a point: F(w) − F* on the problem's objective, floored at 0, or
    /// NaN without a reference; for a game, the exact duality gap of the empirical game at
    /// (x, y). `value` is F(w) when the run computed it on the way.
    fn score(&self, point: Point<'_>, value: Option<f64>) -> f64 {
        match (point, &self.problem) {
            (Point::Min(w), Posed::Min(problem)) => {
                let Ok(reference) = &problem.reference else {
                    return f64::NAN;
                };
                let value = value.unwrap_or_else(|| problem.objective.value(w));
                (value - reference.value).max(0.0)
            }
            (Point::Saddle { x, y }, Posed::Saddle(game)) => {
                let (mut gx, mut gy) = (vec![0.0; x.len()], vec![0.0; y.len()]);
                game.game
                    .duality_gap(x, y, &mut gx, &mut gy)
                    .map_or(f64::NAN, |gap| gap.gap().max(0.0))
            }
            _ => f64::NAN,
        }
    }

    /// The value the problem takes at a point: F(w), or f̂(x, y) of a game.
    fn value(&self, point: Point<'_>) -> f64 {
        match (point, &self.problem) {
            (Point::Min(w), Posed::Min(problem)) => problem.objective.value(w),
            (Point::Saddle { x, y }, Posed::Saddle(game)) => {
                game.game.value(x, y).unwrap_or(f64::NAN)
            }
            _ => f64::NAN,
        }
    }

    /// The point a step started from (copied before the step).
    fn before(&self) -> Point<'_> {
        let (x, y) = &self.before;
        match self.problem {
            Posed::Min(_) => Point::Min(x),
            Posed::Saddle(_) => Point::Saddle { x, y },
        }
    }

    /// Runs at most `max_steps` steps that make an iterate, stopping early when `keep_going`
    /// says so (checked after every step, so a slice always makes progress). A step that leaves
    /// an update part-done ([`Run::mid_update`]: a pass over a large game split across steps)
    /// adds no entry and does not count against `max_steps`, so the page's single step shows a
    /// new iterate; its work still counts against the slice's budget through `keep_going`. The
    /// batch ends with the release once the algorithm is done.
    ///
    /// A `max_steps` of 0 runs one step: the worker's play loop schedules slice after slice until
    /// the run is done, so a slice that made no progress would spin forever.
    pub fn advance(&mut self, max_steps: usize, mut keep_going: impl FnMut() -> bool) -> Batch {
        let mut batch = Batch::default();
        let mut views = ViewRecorder::new(&self.problem, self.run.as_ref());
        let mut recorded = 0;
        while recorded < max_steps.max(1) {
            match self.run.point() {
                Point::Min(w) => self.before.0.copy_from_slice(w),
                Point::Saddle { x, y } => {
                    self.before.0.copy_from_slice(x);
                    self.before.1.copy_from_slice(y);
                }
            }
            // A run is never stepped once done: whether it is, is the session's record.
            let step = if self.state.done {
                None
            } else {
                self.run.step()
            };
            self.state.record(step.as_ref().map(|s| &s.report));
            let Some(step) = step else {
                break;
            };
            if self.run.mid_update() {
                // Part of an update split across steps: no new iterate to record or score.
                if !keep_going() {
                    break;
                }
                continue;
            }
            recorded += 1;
            let t = self.state.count_step();
            let excess = self.score(self.before(), step.value);
            let mut report = step.report;
            if let Posed::Saddle(_) = self.problem {
                // A game's loss column is f̂ at the point the step started from.
                report.loss = self.value(self.before());
            }
            batch.push(
                t,
                &report,
                excess,
                self.problem.plane().project(&self.before.0),
            );
            if let Some(views) = &mut views {
                let draw = self.run.extras().vertices().and_then(|v| v.last_draw);
                views.record(t as f64, (&self.before.0, &self.before.1), draw);
            }
            if !keep_going() {
                break;
            }
        }
        if self.state.done && !self.released {
            self.released = true;
            // The published point comes only from the run's release, never from `point()`; a
            // run that is done without one publishes nothing.
            if let Some(published) = self.run.release() {
                batch.release = Some(self.publish(published, &mut batch, views.as_mut()));
            }
        }
        // A value not yet known (a certificate before its first check, ∞) is left out
        // rather than published as ∞ (a JSON export writes it as null).
        batch.diagnostics = self.run.diagnostics();
        batch.diagnostics.retain(|d| d.value.is_finite());
        if let Point::Saddle { x, y } = self.run.point() {
            batch.players = Some(Players {
                x: x.to_vec(),
                y: y.to_vec(),
            });
        }
        batch.views = views.map(|v| v.finish(self.run.as_ref()));
        batch.localisation = self.run.extras().localisation().cloned();
        batch.done = self.released;
        batch
    }

    /// The release entry of the batch and the [`Release`] of `published`, scored after the
    /// release (never before it or for it).
    fn publish(
        &self,
        published: Published,
        batch: &mut Batch,
        views: Option<&mut ViewRecorder>,
    ) -> Release {
        let w = published.x().to_vec();
        let y = published.y().map(<[f64]>::to_vec);
        // A game that releases x alone (Zhang et al. 2022's C-SC variant) is scored at x and
        // the run's own y (non-private; for that variant its data-independent start): the
        // duality gap there bounds x's primal gap from above. Only what was released is shown.
        let scored_y = match (&y, self.run.point()) {
            (None, Point::Saddle { y: own, .. }) => Some(own.to_vec()),
            _ => y.clone(),
        };
        let point = match &scored_y {
            Some(y) => Point::Saddle { x: &w, y },
            None => Point::Min(&w),
        };
        let loss = self.value(point);
        let excess = self.score(point, Some(loss));
        let plane = self.problem.plane().project(&w);
        // The release entry follows the last iterate.
        let t = self.state.steps_taken;
        let final_report = StepReport {
            grad_evals: self.run.grad_evals(),
            loss,
            noise_norm: f64::NAN,
            grad_norm: f64::NAN,
            epsilon_spent: self.run.guarantee().epsilon,
            done: true,
        };
        batch.push(t, &final_report, excess, plane);
        if let (Some(views), Some(y)) = (views, &y) {
            views.record(t as f64, (&w, y), None);
        }
        let population = self
            .problem()
            .and_then(|p| p.population.as_ref())
            .and_then(|p| p.excess_risk(&w).ok());
        let scored = self.reference().is_some() || scored_y.is_some();
        let readout = match &self.problem {
            Posed::Saddle(game) => game.game.readout(&w),
            Posed::Min(_) => None,
        };
        // A point published without noise says NOT PRIVATE in its ledger (the headline), even
        // if the run's own ledger forgot to.
        let mut ledger = self.ledger();
        if matches!(published, Published::NotPrivate(_)) && ledger.is_private() {
            ledger = ledger.with_leak("NOT PRIVATE: the run publishes its point without noise");
        }
        Release {
            excess: scored.then_some(excess),
            population,
            readout,
            published,
            plane,
            loss,
            ledger,
        }
    }

    /// A localized heavy-tail run's localisation view where it stands (before Play: W and the
    /// schedule); `None` for every other run.
    pub fn localisation(&self) -> Option<LocalisationView> {
        self.run.extras().localisation().cloned()
    }

    /// The game views where the run stands, without per-step rows (see [`GameViews`]); `None`
    /// for a minimisation.
    pub fn game_views(&self) -> Option<GameViews> {
        ViewRecorder::new(&self.problem, self.run.as_ref()).map(|v| v.finish(self.run.as_ref()))
    }

    /// F on a res × res grid over the parameter view, row by row from the bottom (see
    /// [`ProblemView::loss_grid`]). **Non-private** (reads the data).
    pub fn loss_grid(&self, max_res: usize) -> Option<Vec<f64>> {
        self.problem()?.loss_grid(max_res).map(|(grid, _)| grid)
    }

    /// The domain (x's, for a game), for drawing its boundary.
    pub fn domain(&self) -> &dyn Domain {
        match &self.problem {
            Posed::Min(problem) => problem.objective.domain(),
            Posed::Saddle(game) => game.game.x_domain(),
        }
    }
}
