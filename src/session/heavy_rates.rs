//! The reference curves a sweep of a heavy-tail family draws beside its measurements: Lowy 2026's
//! Theorem 4.1 pure-DP lower bound and the approximate (ε, δ)-DP rate (Asi, Liu & Tian 2024),
//! both "up to constants", at each swept run's declared numbers. They read whole runs (the
//! synthetic law's moments, the swept ε or n), so they live with the sweeps, not the families.

use serde::Serialize;

use crate::algo::heavy_tails::rates::{is_heavy_tail, log_inv_delta};
use crate::config::RunConfig;
use crate::error::Result;
use crate::theory::heavy_tails::{self, Rates};

/// The declared rates of `config`: G₁, G₂ and G_k in closed form from the generating distribution
/// ([`RunConfig::declared_moment`], never the sample), D of the ℓ2 ball the heavy-tail families need, and
/// δ = 0.1 ([`log_inv_delta`]).
pub fn declared_rates(config: &RunConfig) -> Result<Rates> {
    let declared_moment = |j: f64| config.declared_moment(j);
    Ok(Rates {
        n: config.n as f64,
        d: config.d as f64,
        epsilon: config.epsilon,
        k: config.moment_k,
        g1: declared_moment(1.0)?,
        g2: declared_moment(2.0)?,
        gk: declared_moment(config.moment_k)?,
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
