//! The run contract between an algorithm and the session, for both kinds of problem: the
//! algorithm owns its problem instance, steps until done and reports its current point; the
//! session scores the point (excess risk, or a duality-gap bracket) and never asks an algorithm
//! what kind it is. Per-algorithm diagnostics travel as named values.

use std::sync::Arc;

use serde::Serialize;

use super::extras::Extras;
use super::{Draws, PrivateAlgorithm, StepReport};
use crate::algo::problem::Problem;
use crate::objective::Objective;
use crate::privacy::release::Published;
use crate::privacy::{Guarantee, Ledger};

/// Where a run stands: a point of a minimisation problem, or a pair of a saddle problem.
/// **Non-private** view of where the run stands; what it publishes is [`Run::release`] alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Point<'a> {
    /// w ∈ W.
    Min(&'a [f64]),
    /// (x, y) ∈ X × Y.
    Saddle {
        /// x ∈ X, the minimising player's point (the one the parameter view draws).
        x: &'a [f64],
        /// y ∈ Y, the maximising player's point.
        y: &'a [f64],
    },
}

impl Point<'_> {
    /// The coordinates the parameter view draws: w, or x (the minimising player).
    pub fn primal(&self) -> &[f64] {
        match self {
            Point::Min(w) => w,
            Point::Saddle { x, .. } => x,
        }
    }
}

/// A named value a run reports beside its iterates (a certificate, a phase, a gap, a privacy
/// filter's state). **Non-private**: computed from the data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The snake_case key the page reads it by (e.g. `certificate_bound`).
    pub name: &'static str,
    /// Its value where the run stands; a yes/no is 1.0 or 0.0.
    pub value: f64,
}

/// One step's report, and the problem's objective at the point the step started from when the
/// run computed it on the way (the session evaluates it otherwise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// What the step did (**non-private**).
    pub report: StepReport,
    /// The problem's F at the iterate the step started from, when the run computed it on the way
    /// (DP-SGD: its minibatch estimate); `None` (a run on its own objective) makes the session
    /// evaluate F.
    pub value: Option<f64>,
}

/// What every run has in common, kept by whoever drives it (the session) and updated from what
/// each [`Run::step`] reports: the steps taken and whether the run is done. The family decides
/// when it stops and says so in its [`StepReport::done`]; the iterate stays with the family,
/// whose next step starts from it. Gradient evaluations stay with the family too
/// ([`Run::grad_evals`]): some report them at the iterate a step started from, others after the
/// step, so no count the driver could keep would be theirs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunState {
    /// Steps that made an iterate so far: the index of the iterate the next step starts from.
    /// A step that left an update part-done ([`Run::mid_update`]) is not counted.
    pub steps_taken: usize,
    /// Whether the last step was the run's last (or the run had nothing left to do): its
    /// release is due.
    pub done: bool,
}

impl RunState {
    /// Records whether the run is done from what one step returned: a report, or `None` from a
    /// run with nothing left to do.
    pub fn record(&mut self, report: Option<&StepReport>) {
        self.done |= report.is_none_or(|r| r.done);
    }

    /// Counts a step that made an iterate and returns the index of the iterate it started from.
    pub fn count_step(&mut self) -> usize {
        self.steps_taken += 1;
        self.steps_taken - 1
    }
}

/// A private algorithm on its own problem instance, as the session drives it.
pub trait Run: Send {
    /// The guarantee of the release, fixed before the run from the configuration alone.
    fn guarantee(&self) -> &Guarantee;
    /// The guarantee with the mechanism and every caveat it depends on.
    fn ledger(&self) -> Ledger;
    /// Every noise draw the run makes, read from the values it samples with.
    fn draws(&self) -> Vec<Draws>;
    /// Performs one step, or returns `None` once the run has finished.
    fn step(&mut self) -> Option<Step>;
    /// Where the run stands: **non-private** while it runs, and never what is published (that
    /// is [`Run::release`]).
    fn point(&self) -> Point<'_>;
    /// What the run publishes, once a step reported [`StepReport::done`] (or [`Run::step`]
    /// returned `None`): a release made only through its noise ([`crate::privacy::release`]),
    /// or a NOT PRIVATE demonstration's point; `None` before.
    fn release(&self) -> Option<Published>;
    /// Gradient evaluations used so far, in full passes over the data.
    fn grad_evals(&self) -> f64;
    /// Named diagnostics where the run stands (empty for most). **Non-private**.
    fn diagnostics(&self) -> Vec<Diagnostic>;
    /// Whether the last [`Run::step`] left an update part-done (a pass over the records split
    /// across steps so that each stays within [`crate::solver::work::STEP_WORK`]): it made no
    /// new iterate, and [`Run::point`] is still the one the update started from, so the session
    /// records no entry for it. `false` for runs whose every step is an update.
    fn mid_update(&self) -> bool {
        false
    }
    /// The run's per-family views where it stands, by name (a vertex-sampling run's draws, a
    /// phased run's timeline, why it stopped, a localisation view): see [`Extras`]. None for
    /// most runs. **Non-private**.
    fn extras(&self) -> Extras<'_> {
        Extras::none()
    }
}

/// A vertex-sampling run (González, Guzmán & Paquette 2024) seen two ways: the vertices it drew
/// for its output, which the guarantee covers (each draw is an exponential-mechanism release
/// counted in ε: what an outsider may see), and the dense iterate they are drawn from (the
/// curator's view, **non-private**).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexView<'a> {
    /// The dense iterate x^t (**non-private**).
    pub dense_x: &'a [f64],
    /// The dense iterate y^t (**non-private**).
    pub dense_y: &'a [f64],
    /// The output vertices (x's, y's) the last step drew; `None` before the first step.
    pub last_draw: Option<(usize, usize)>,
}

/// Which of Zhang, Thekumparampil, Oh & He 2022's minimax algorithms a phase belongs to. In JSON,
/// the ledger and the diagnostics it is the paper's algorithm number, as the page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(into = "u8")]
pub enum MinimaxAlgorithm {
    /// Algorithm 3: SC-SC output perturbation, one phase releasing x and y.
    ScSc,
    /// Algorithm 4: the phases releasing x (the C-SC variant of Section 4.3 too).
    PhasedX,
    /// Algorithm 5: the phases releasing y.
    PhasedY,
}

impl MinimaxAlgorithm {
    /// Its number in the paper.
    pub fn number(self) -> u8 {
        match self {
            MinimaxAlgorithm::ScSc => 3,
            MinimaxAlgorithm::PhasedX => 4,
            MinimaxAlgorithm::PhasedY => 5,
        }
    }
}

impl From<MinimaxAlgorithm> for u8 {
    fn from(algorithm: MinimaxAlgorithm) -> u8 {
        algorithm.number()
    }
}

impl std::fmt::Display for MinimaxAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// One phase of a phased run's schedule (Zhang, Thekumparampil, Oh & He 2022, Algorithms 3–5).
/// Everything but `gradients` and `state` is fixed by the configuration before the data are read
/// (public); those two depend on the data (**non-private**).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseRow {
    /// Which of the paper's algorithms the phase belongs to (it travels as its number).
    pub algorithm: MinimaxAlgorithm,
    /// k = 1..K within its algorithm.
    pub k: usize,
    /// n̄: the records of the phase's chunk.
    pub records: usize,
    /// μ_k, the phase's regularisation.
    pub mu_k: f64,
    /// σ_k of the phase's release (x's, or y's for Algorithm 5).
    pub sigma: f64,
    /// Which block the phase releases: "x", "y" or "x, y".
    pub releases: &'static str,
    /// The certified radius the solver must reach before the release: the distance to the
    /// phase's saddle point, in the released block's ℓ2 norm, that its target allows.
    pub target_radius: f64,
    /// Record gradient evaluations the phase has used so far (0 before it starts).
    /// **Non-private**.
    pub gradients: f64,
    /// "waiting", "running", "released" or "released by the GDA safeguard". **Non-private**.
    pub state: &'static str,
}

/// The objective a minimisation algorithm steps on.
enum Solves {
    /// The problem's own F (its reported losses are the problem's F values).
    Problem(Arc<Problem>),
    /// An objective of its own (regularised output perturbation adds a ridge); the session
    /// scores its points on the problem's F.
    Own(Objective),
}

/// A minimisation algorithm with the objective it solves: the [`Run`] of every
/// [`PrivateAlgorithm`].
pub struct MinRun {
    algorithm: Box<dyn PrivateAlgorithm>,
    solves: Solves,
}

impl MinRun {
    /// `algorithm` solving the problem's own objective.
    pub fn on(problem: &Arc<Problem>, algorithm: impl PrivateAlgorithm + 'static) -> Box<Self> {
        Box::new(Self {
            algorithm: Box::new(algorithm),
            solves: Solves::Problem(Arc::clone(problem)),
        })
    }

    /// `algorithm` solving `objective`, which is not the problem's.
    pub fn own(objective: Objective, algorithm: impl PrivateAlgorithm + 'static) -> Box<Self> {
        Box::new(Self {
            algorithm: Box::new(algorithm),
            solves: Solves::Own(objective),
        })
    }
}

impl Run for MinRun {
    fn guarantee(&self) -> &Guarantee {
        self.algorithm.guarantee()
    }

    fn ledger(&self) -> Ledger {
        self.algorithm.ledger()
    }

    fn draws(&self) -> Vec<Draws> {
        self.algorithm.draws()
    }

    fn step(&mut self) -> Option<Step> {
        let (objective, own) = match &self.solves {
            Solves::Problem(problem) => (&problem.objective, false),
            Solves::Own(objective) => (objective, true),
        };
        let report = self.algorithm.step(objective)?;
        Some(Step {
            report,
            value: (!own).then_some(report.loss),
        })
    }

    fn point(&self) -> Point<'_> {
        Point::Min(self.algorithm.current())
    }

    fn release(&self) -> Option<Published> {
        self.algorithm.release()
    }

    fn grad_evals(&self) -> f64 {
        self.algorithm.grad_evals()
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.algorithm
            .certificate()
            .map(|c| c.diagnostics().to_vec())
            .unwrap_or_default()
    }

    fn extras(&self) -> Extras<'_> {
        self.algorithm.extras()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_row_names_its_algorithm_by_the_papers_number_in_json() {
        // The page's phase table shows `algorithm` as Zhang et al.'s number.
        let numbers = [
            MinimaxAlgorithm::ScSc,
            MinimaxAlgorithm::PhasedX,
            MinimaxAlgorithm::PhasedY,
        ]
        .map(|a| serde_json::to_value(a).unwrap());
        assert_eq!(numbers, [3, 4, 5].map(serde_json::Value::from));
    }
}
