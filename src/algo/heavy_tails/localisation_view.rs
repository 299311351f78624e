//! What the 2-D localisation view draws of a localized run (Lowy 2026, Algorithm 1 with
//! Algorithm 4 or Algorithm 2 in every call; issue 15): W, each phase's public centre w̄_t, each
//! call's localisation ball W₀ = W ∩ B(w_loc, r₀), the point its last draw perturbs, the call's
//! output (a candidate of the aggregation step), the candidate the median trick picked, and the
//! release.
//!
//! The run fills it as it goes ([`super::localized::PopLocalize`]); the page draws it
//! (`plot_spec::localisation`, `wasm::plot::localisation`). Points are in the (x₁, x₂) plane: the
//! first two coordinates of w (x₂ = 0 when d = 1).
//!
//! # What is private
//! Only the release is. The schedule (λ_t, C_t, β_t, r₀_t and the ring E‖b‖ = d·β_t) is fixed by
//! the declared constants before any data are read (public). The centres, balls and candidates
//! are computed from the raw data: they are shown as **non-private diagnostics**, and the
//! certified points (before the noise) with them are noise realisations' other ends — a
//! diagnostic of the raw data that, beside the candidates, tells neighbouring datasets apart.
//! None of it is part of the private export (DESIGN §5 rules 4 and 7).

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
    /// w_loc, the centre of the call's localisation ball W₀ = W ∩ B(w_loc, r₀) (Algorithm 4:
    /// stage 1's output, the domain of stage 2; Algorithm 2: the call's output itself).
    #[serde(default)]
    pub ball_centre: Option<Planar>,
    /// The certified point the call's last draw perturbs (Algorithm 4's w_a, Algorithm 2's w̃):
    /// with `candidate` it shows the noise realisation.
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
    /// β_t, the scale of every ℓ2-Laplace draw of the phase (public).
    pub noise_scale: f64,
    /// E‖b‖ = d·β_t, the radius of the phase's noise ring (public).
    pub noise_ring: f64,
    /// r₀_t, the radius of every call's localisation ball (public).
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
    /// The ERM solver of every call: Lowy 2026's Algorithm 4 or 2.
    pub algorithm: u8,
    /// Every phase of the schedule, filled as the run reaches it.
    pub phases: Vec<PhaseView>,
    /// The release, once made (**private**: the run's only private output).
    #[serde(default)]
    pub release: Option<Planar>,
}
