//! The pure-DP rates of Lowy 2026 ([`crate::theory::heavy_tails`]) at a run's declared numbers, and
//! the reference curves a sweep of a heavy-tail family draws beside its measurements: Theorem
//! 4.1's pure-DP lower bound and the approximate (ε, δ)-DP rate, both "up to constants" (Lowy 2026). The families' own dashed bound is Theorem 3.1's upper bound, from the same function.

use serde::Serialize;

use super::extension::declared_moment;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;
use crate::theory::heavy_tails::{self, Rates};

/// ln(1/δ) of the failure probability δ = 0.1 every heavy-tail curve is drawn at (Theorem 4.1
/// needs δ < 1/5).
pub fn log_inv_delta() -> f64 {
    libm::log(10.0)
}

/// Whether `kind` is a heavy-tail family (its sweeps get the reference curves).
pub fn is_heavy_tail(kind: AlgorithmKind) -> bool {
    matches!(
        kind,
        AlgorithmKind::LocalisedDoubleOutputPerturbation
            | AlgorithmKind::PureClippedGd
            | AlgorithmKind::OutputPerturbationLipschitzExtension
    )
}

/// The rates of a localized schedule's declared numbers (G₁ bounded by G₂: the upper bound does
/// not read it), at δ = 0.1 ([`log_inv_delta`]): the families' dashed bound.
pub fn schedule_rates(declared: &super::localised::Declared) -> Rates {
    Rates {
        n: declared.n as f64,
        d: declared.d as f64,
        epsilon: declared.epsilon,
        k: declared.k,
        g1: declared.moment_2,
        g2: declared.moment_2,
        gk: declared.moment_k,
        diameter: declared.diameter,
        log_inv_delta: log_inv_delta(),
    }
}

/// The declared rates of `config`: G₁, G₂ and G_k in closed form from the generating distribution
/// ([`declared_moment`], never the sample), D of the ℓ2 ball the heavy-tail families need, and
/// δ = 0.1 ([`log_inv_delta`]).
pub fn declared_rates(config: &RunConfig) -> Result<Rates> {
    Ok(Rates {
        n: config.n as f64,
        d: config.d as f64,
        epsilon: config.epsilon,
        k: config.moment_k,
        g1: declared_moment(config, 1.0)?,
        g2: declared_moment(config, 2.0)?,
        gk: declared_moment(config, config.moment_k)?,
        diameter: 2.0 * config.radius,
        log_inv_delta: log_inv_delta(),
    })
}

/// A curve drawn dotted beside a sweep's measurements (no algorithm of the sweep attains it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReferenceCurve {
    /// The legend text: which bound, from which paper, up to constants.
    pub label: String,
    /// The swept axis's values (ε or n).
    pub x: Vec<f64>,
    /// The bound at `x`.
    pub y: Vec<f64>,
}

/// Legend of the pure-DP lower bound.
pub const LOWER_LABEL: &str = "pure-DP lower bound (Lowy 2026, Thm 4.1), up to constants";
/// Legend of the approximate-DP rate.
pub const APPROXIMATE_LABEL: &str =
    "(ε, δ)-DP optimal rate (Asi, Liu & Tian 2024), up to constants";

/// The reference curves of a sweep whose points are `(x, config)` along its axis: when a
/// heavy-tail family is among them, Theorem 4.1's lower bound (at the points with ε ≤ 1, where it
/// is stated) and the approximate-DP rate, at the first heavy-tail family's points. Empty
/// otherwise, or where the declared moments do not exist (a file's data).
pub fn sweep_references<'a>(
    points: impl IntoIterator<Item = (f64, &'a RunConfig)>,
) -> Vec<ReferenceCurve> {
    let mut first = None;
    let mut rows = Vec::new();
    for (x, config) in points {
        if !is_heavy_tail(config.algorithm)
            || *first.get_or_insert(config.algorithm) != config.algorithm
        {
            continue;
        }
        let Ok(rates) = declared_rates(config) else {
            return Vec::new();
        };
        rows.push((x, rates));
    }
    let curve = |label: &str, f: &dyn Fn(&Rates) -> Option<f64>| {
        let (x, y) = rows
            .iter()
            .filter_map(|(x, r)| f(r).filter(|y| y.is_finite() && *y > 0.0).map(|y| (*x, y)))
            .unzip();
        ReferenceCurve {
            label: label.to_string(),
            x,
            y,
        }
    };
    [
        curve(LOWER_LABEL, &heavy_tails::pure_lower),
        curve(APPROXIMATE_LABEL, &|r| Some(heavy_tails::approximate_dp(r))),
    ]
    .into_iter()
    .filter(|c| !c.x.is_empty())
    .collect()
}
