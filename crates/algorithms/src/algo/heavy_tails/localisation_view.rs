//! What the 2-D localisation view draws of a localized run (Lowy 2026, Algorithm 1 with
//! Algorithm 4, 2, 5 or 7 in every call): W, each phase's public centre w̄_t, each
//! call's search ball (Algorithms 4, 2 and 7: W₀ = W ∩ B(w_loc, r₀); Algorithm 5: the phase's grid
//! ball W ∩ B(w̄_t, r_t)), the point its ℓ2-Laplace draw perturbs, the call's output (a candidate
//! of the aggregation step), the candidate the median trick picked, and the release.
//!
//! The grid families (Algorithms 5 and 7, [`super::em_phases::PhasedGrid`]) draw their output
//! from a grid on the call's ball: the ball is the grid's extent, and the draw goes from the
//! ball's centre to the grid point picked ([`LocalisationView::grid_draw`]). Algorithm 7's
//! ℓ2-Laplace draw lands on the ball's centre w_loc, Algorithms 4 and 2's on the candidate
//! ([`LocalisationView::laplace_draw`]); Algorithm 5 draws no ℓ2-Laplace noise.
//!
//! The run fills it as it goes ([`super::localised::PopLocalise`],
//! [`super::em_phases::PhasedGrid`]); the page draws it
//! (`plot_spec::localisation`, `wasm::plot::localisation`). Points are in the (x₁, x₂) plane: the
//! first two coordinates of w (x₂ = 0 when d = 1).
//!
//! # What is private
//! Only the release is. The schedule (λ_t, C_t, β_t, r₀_t and the ring E‖b‖ = d·β_t) is fixed by
//! the declared constants before any data are read (public). The centres, balls and candidates
//! are computed from the raw data: they are shown as **non-private diagnostics**, and the
//! certified points (before the noise) with them are noise realisations' other ends — a
//! diagnostic of the raw data that, beside the candidates, tells neighbouring datasets apart.
//! None of it is part of the private export (docs/PRIVACY.md rules 4 and 7).

use serde::{Deserialize, Serialize};

/// A point of the (x₁, x₂) plane.
pub type Planar = [f64; 2];

/// The first two coordinates of `w` (x₂ = 0 when d = 1).
pub fn planar(w: &[f64]) -> Planar {
    [
        w.first().copied().unwrap_or(0.0),
        w.get(1).copied().unwrap_or(0.0),
    ]
}

/// One call of a phase, as far as it has gone. **Non-private** (computed from the raw data).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallView {
    /// The centre of the call's ball: w_loc of W₀ = W ∩ B(w_loc, r₀) (Algorithm 4: stage 1's
    /// output, the domain of stage 2; Algorithm 2: the call's output itself; Algorithm 7: the
    /// localisation's output, the grid's ball), or Algorithm 5's phase centre w̄_t, the centre of
    /// its grid ball W ∩ B(w̄_t, r_t).
    #[serde(default)]
    pub ball_centre: Option<Planar>,
    /// The certified point the call's ℓ2-Laplace draw perturbs (Algorithm 4's w_a, Algorithms 2
    /// and 7's w̃; none for Algorithm 5): with [`LocalisationView::laplace_draw`] it shows the
    /// noise realisation.
    #[serde(default)]
    pub certified: Option<Planar>,
    /// The call's output (w_DP, or Algorithm 2's w_loc): a candidate of the aggregation step.
    #[serde(default)]
    pub candidate: Option<Planar>,
}

/// One phase t of the schedule: its declared numbers (public) and what its calls did so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseView {
    /// t, from 1.
    pub t: usize,
    /// m_t, the records of each call.
    pub m: usize,
    /// λ_t = 32^(t−1)·λ₁ (public).
    pub lambda: f64,
    /// C_t, the threshold of the phase's Lipschitz extension (public).
    pub clip: f64,
    /// β_t, the scale of every ℓ2-Laplace draw of the phase (public); `None` when the calls draw
    /// none (Algorithm 5: one exponential-mechanism draw each).
    #[serde(default)]
    pub noise_scale: Option<f64>,
    /// E‖b‖ = d·β_t, the radius of the phase's noise ring (public); `None` with `noise_scale`.
    #[serde(default)]
    pub noise_ring: Option<f64>,
    /// The radius of every call's ball (public): r₀_t of W₀, or Algorithm 5's grid radius r_t
    /// (at most R).
    pub ball_radius: f64,
    /// w̄_t, the centre every call of the phase is regularised towards, once the phase starts
    /// (w̄₁ is the centre of W). **Non-private**.
    #[serde(default)]
    pub centre: Option<Planar>,
    /// The calls started so far (J once the phase is over).
    #[serde(default)]
    pub calls: Vec<CallView>,
    /// Which candidate the median trick picked as w̄_{t+1}, once the phase is over.
    #[serde(default)]
    pub picked: Option<usize>,
}

/// The localisation view of a run where it stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalisationView {
    /// R of W = B(0, R).
    pub radius: f64,
    /// d (the view shows the first two coordinates when d > 2).
    pub d: usize,
    /// The ERM solver of every call (it travels as its algorithm number in Lowy 2026).
    pub algorithm: LocalSolver,
    /// Every phase of the schedule, filled as the run reaches it.
    pub phases: Vec<PhaseView>,
    /// The release, once made (**private**: the run's only private output).
    #[serde(default)]
    pub release: Option<Planar>,
}

/// The ERM solver every call of a localised run makes (Lowy 2026). In JSON it is the paper's
/// algorithm number, the form the page and the figures show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum LocalSolver {
    /// Algorithm 4: double output perturbation.
    #[default]
    DoubleOutputPerturbation,
    /// Algorithm 2: OutputPert-Localize.
    OutputPertLocalise,
    /// Algorithm 5: EM-PGM, the exponential mechanism on a grid.
    EmPgm,
    /// Algorithm 7: the localised approximate exponential mechanism, on a grid.
    ApproxEm,
}

impl LocalSolver {
    /// Its algorithm number in Lowy 2026.
    pub fn number(self) -> u8 {
        match self {
            LocalSolver::DoubleOutputPerturbation => 4,
            LocalSolver::OutputPertLocalise => 2,
            LocalSolver::EmPgm => 5,
            LocalSolver::ApproxEm => 7,
        }
    }

    /// Whether every call draws its output from a grid on its ball (Algorithms 5 and 7).
    pub fn on_grid(self) -> bool {
        matches!(self, LocalSolver::EmPgm | LocalSolver::ApproxEm)
    }
}

impl From<LocalSolver> for u8 {
    fn from(solver: LocalSolver) -> u8 {
        solver.number()
    }
}

impl TryFrom<u8> for LocalSolver {
    type Error = String;

    fn try_from(number: u8) -> Result<Self, String> {
        [
            LocalSolver::DoubleOutputPerturbation,
            LocalSolver::OutputPertLocalise,
            LocalSolver::EmPgm,
            LocalSolver::ApproxEm,
        ]
        .into_iter()
        .find(|s| s.number() == number)
        .ok_or_else(|| format!("Lowy 2026 has no localised solver numbered {number}"))
    }
}

impl std::fmt::Display for LocalSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl LocalisationView {
    /// Whether every call draws its output from a grid on its ball (Algorithms 5 and 7).
    pub fn on_grid(&self) -> bool {
        self.algorithm.on_grid()
    }

    /// A call's ℓ2-Laplace draw, from the certified point to where the draw landed (projected):
    /// the candidate (Algorithms 4 and 2) or the grid's ball centre w_loc (Algorithm 7). `None`
    /// before the draw, and always for Algorithm 5 (no ℓ2-Laplace noise).
    pub fn laplace_draw(&self, call: &CallView) -> Option<(Planar, Planar)> {
        let landed = match self.algorithm {
            LocalSolver::EmPgm => None,
            LocalSolver::ApproxEm => call.ball_centre,
            LocalSolver::DoubleOutputPerturbation | LocalSolver::OutputPertLocalise => {
                call.candidate
            }
        };
        call.certified.zip(landed)
    }

    /// A grid family's exponential-mechanism draw, from the ball's centre to the grid point
    /// picked (Algorithms 5 and 7); `None` for the others and before the draw.
    pub fn grid_draw(&self, call: &CallView) -> Option<(Planar, Planar)> {
        if self.on_grid() {
            call.ball_centre.zip(call.candidate)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_solver_travels_as_its_algorithm_number_and_reads_back() {
        // The page and the figures read `algorithm` as Lowy 2026's number.
        let view = LocalisationView {
            algorithm: LocalSolver::ApproxEm,
            ..LocalisationView::default()
        };
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(json["algorithm"], 7);
        let back: LocalisationView = serde_json::from_value(json).unwrap();
        assert_eq!(back.algorithm, LocalSolver::ApproxEm);
        let numbers: Vec<u8> = [
            LocalSolver::DoubleOutputPerturbation,
            LocalSolver::OutputPertLocalise,
            LocalSolver::EmPgm,
            LocalSolver::ApproxEm,
        ]
        .map(u8::from)
        .to_vec();
        assert_eq!(numbers, [4, 2, 5, 7]);
        assert!(LocalSolver::try_from(3).is_err());
    }
}
