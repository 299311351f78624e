//! The saddle page's views of a run: the ternary plot's path when both players have
//! three strategies, the vertices a vertex-sampling run draws (the public view) beside its dense
//! iterate (the curator's view), a phased run's timeline, and why a run stopped early. Each slice
//! carries what it added, its per-step rows thinned to at most [`KEPT_PER_SLICE`] before they
//! cross to the main thread.

use serde::Serialize;

use super::problem::Posed;
use super::run::Players;
use crate::algo::run::{PhaseRow, Run};
use crate::domain::DomainKind;
use crate::plot_spec::thin::Thinned;

/// Most per-step rows one slice sends (the page thins its history again before drawing).
pub const KEPT_PER_SLICE: usize = 256;

/// What a slice of a game's run adds to the saddle views. Everything is **non-private** but the
/// vertex draws, which the run's guarantee covers (each is an exponential-mechanism release
/// counted in its ε), and the schedule columns of the phase rows (n̄, μ_k, σ_k, the released
/// block, the target radius), which are fixed before the data are read. A phase row's gradients
/// and state, the steps kept (how far the run has gone, which for a certified solver or a
/// privacy filter is measured on the data) and why the run stopped are **non-private**: the page
/// labels them NOT PRIVATE.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GameViews {
    /// Whether both players are simplices of three strategies (the page draws them as ternary
    /// plots; `simplex_path` holds their path).
    pub ternary: bool,
    /// The steps t whose rows were kept, evenly spaced, the slice's last always among them.
    /// **Non-private** where the run's length depends on the data
    /// ([`super::readouts::length_depends_on_data`]).
    pub steps: Vec<f64>,
    /// For each kept step, the output vertices drawn (x's, y's), 0-based; NaN where the step
    /// drew none (the release entry). Empty unless the run samples vertices.
    pub draws: Vec<f64>,
    /// For each kept step, both players' points (x₁, x₂, x₃, y₁, y₂, y₃) at the start of the
    /// step, and at the release: the ternary plot's path. Empty unless both players are
    /// simplices of three strategies. **Non-private** until the release.
    pub simplex_path: Vec<f64>,
    /// The dense iterate (x^t, y^t) at the end of the slice: the curator's view of a
    /// vertex-sampling run. **Non-private**.
    pub dense: Option<Players>,
    /// A phased run's timeline, one row per phase (empty for unphased runs): its schedule is
    /// public, its `gradients` and `state` **non-private** ([`PhaseRow`]).
    pub phases: Vec<PhaseRow>,
    /// Why the run ended before its planned steps, once it has. **Non-private**: when a privacy
    /// filter or a budget stops the run depends on the data.
    pub stopped: Option<String>,
}

/// Collects one slice's [`GameViews`] step by step.
pub(super) struct ViewRecorder {
    draws: bool,
    ternary: bool,
    rows: Thinned,
}

impl ViewRecorder {
    /// A recorder for a slice of `run` on `posed`; `None` for a minimisation.
    pub(super) fn new(posed: &Posed, run: &dyn Run) -> Option<Self> {
        let Posed::Saddle(game) = posed else {
            return None;
        };
        let three = |dims: usize, domain: DomainKind| dims == 3 && domain == DomainKind::Simplex;
        let (dx, dy) = crate::minimax::SaddleProblem::dims(game.game.as_ref());
        let ternary = three(dx, game.game.x_domain_kind()) && three(dy, game.game.y_domain_kind());
        let draws = run.extras().vertices().is_some();
        let width = 1 + if draws { 2 } else { 0 } + if ternary { 6 } else { 0 };
        Some(Self {
            draws,
            ternary,
            rows: Thinned::new(width, KEPT_PER_SLICE),
        })
    }

    /// Offers step `t`'s row: the players (x, y) it started from and the vertices it drew.
    pub(super) fn record(
        &mut self,
        t: f64,
        (x, y): (&[f64], &[f64]),
        draw: Option<(usize, usize)>,
    ) {
        let mut row = [f64::NAN; 9];
        row[0] = t;
        let mut at = 1;
        if self.draws {
            if let Some((i, j)) = draw {
                row[1] = i as f64;
                row[2] = j as f64;
            }
            at = 3;
        }
        if self.ternary {
            row[at..at + 3].copy_from_slice(&x[..3]);
            row[at + 3..at + 6].copy_from_slice(&y[..3]);
            at += 6;
        }
        self.rows.offer(&row[..at]);
    }

    /// The slice's views, with the run's state at its end.
    pub(super) fn finish(self, run: &dyn Run) -> GameViews {
        let width = 1 + if self.draws { 2 } else { 0 } + if self.ternary { 6 } else { 0 };
        let rows = self.rows.finish();
        let extras = run.extras();
        let mut views = GameViews {
            ternary: self.ternary,
            dense: extras.vertices().map(|v| Players {
                x: v.dense_x.to_vec(),
                y: v.dense_y.to_vec(),
            }),
            phases: extras.phases(),
            stopped: extras.stopped(),
            ..GameViews::default()
        };
        for row in rows.chunks_exact(width) {
            views.steps.push(row[0]);
            let mut at = 1;
            if self.draws {
                views.draws.extend_from_slice(&row[1..3]);
                at = 3;
            }
            if self.ternary {
                views.simplex_path.extend_from_slice(&row[at..at + 6]);
            }
        }
        views
    }
}
