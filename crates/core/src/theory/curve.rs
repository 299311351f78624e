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
    /// The paper's lower bound for the problem's class at the same settings, where it proves
    /// one: drawn dotted beside the upper bound, labelled as a lower bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<Lower>,
}

/// A lower bound on the excess risk of **every** algorithm with the same guarantee, worst case
/// over the problem's class, at the run's n, d and (ε, δ): a horizontal "floor". It holds up to
/// an absolute constant the paper does not give, drawn at constant 1, so a run on one dataset
/// may fall below it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Lower {
    /// The bound's level.
    pub y: f64,
    /// Which theorem, in words.
    pub source: &'static str,
}

impl Curve {
    /// The horizontal line of a one-release bound `y` (none unless finite and positive).
    pub fn flat(y: f64, source: &'static str) -> Option<Curve> {
        (y.is_finite() && y > 0.0).then(|| Curve {
            x: vec![1.0, FAR],
            y: vec![y, y],
            source,
            lower: None,
        })
    }

    /// The curve with the lower bound `y` beside it (none unless finite and positive).
    pub fn with_lower(self, y: Option<f64>, source: &'static str) -> Curve {
        Curve {
            lower: y
                .filter(|y| y.is_finite() && *y > 0.0)
                .map(|y| Lower { y, source }),
            ..self
        }
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
        Some(Curve {
            x,
            y,
            source,
            lower: None,
        })
    }
}
