//! A theory bound as a curve against gradient evaluations, drawn dashed beside the measured
//! excess risk. Each family's plan draws its own from the functions of [`crate::theory`].

use serde::Serialize;

/// Points of an iterative method's curve at most (it is smooth: a few hundred suffice).
const CURVE_POINTS: usize = 200;
/// Where a one-release bound's horizontal line reaches (the page clips it to the data's range).
const FAR: f64 = 1e9;

/// A bound as a curve: y is an upper bound on the expected excess empirical risk after x full
/// passes of gradient evaluations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// Gradient evaluations, in full passes.
    pub x: Vec<f64>,
    /// The bound after `x` passes.
    pub y: Vec<f64>,
    /// Which inequality, in words.
    pub source: &'static str,
}

impl Curve {
    /// The horizontal line of a one-release bound `y` (none unless finite and positive).
    pub fn flat(y: f64, source: &'static str) -> Option<Curve> {
        (y.is_finite() && y > 0.0).then(|| Curve {
            x: vec![1.0, FAR],
            y: vec![y, y],
            source,
        })
    }

    /// A bound after t = 0, s, 2s, … T steps of an iterative method (one full pass each), at
    /// most 200 of them; t = 0 is drawn at x = 1 on the log axis.
    pub fn over_steps(
        steps: usize,
        bound: impl Fn(usize) -> crate::error::Result<f64>,
        source: &'static str,
    ) -> Option<Curve> {
        let stride = steps.div_ceil(CURVE_POINTS).max(1);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for t in (0..=steps).step_by(stride) {
            x.push(t.max(1) as f64);
            y.push(bound(t).ok()?);
        }
        Some(Curve { x, y, source })
    }
}
