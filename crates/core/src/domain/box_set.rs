use super::Domain;

/// The box [lo, hi]^d (the same bounds on every coordinate); projection is a clamp.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BoxSet {
    pub lo: f64,
    pub hi: f64,
}

impl Domain for BoxSet {
    fn name(&self) -> &'static str {
        "box"
    }

    fn project(&self, w: &mut [f64]) {
        w.iter_mut().for_each(|v| *v = v.clamp(self.lo, self.hi));
    }

    fn contains(&self, w: &[f64], tol: f64) -> bool {
        let slack = tol * (self.hi - self.lo);
        w.iter()
            .all(|&v| v >= self.lo - slack && v <= self.hi + slack)
    }

    /// Without the dimension the box has no finite size to report; use [`Domain::diameter_in`].
    fn diameter(&self) -> f64 {
        f64::INFINITY
    }

    fn radius(&self) -> f64 {
        f64::INFINITY
    }

    fn diameter_in(&self, d: usize) -> f64 {
        (self.hi - self.lo) * (d as f64).sqrt()
    }

    fn radius_in(&self, d: usize) -> f64 {
        self.lo.abs().max(self.hi.abs()) * (d as f64).sqrt()
    }

    /// Separable: each coordinate's concave piecewise-linear v·c − λ₁|c| peaks at lo, hi or 0.
    fn support_l1(&self, v: &[f64], l1: f64) -> f64 {
        let zero = 0.0f64.clamp(self.lo, self.hi);
        v.iter()
            .map(|&x| {
                [self.lo, self.hi, zero]
                    .iter()
                    .map(|&c| x * c - l1 * c.abs())
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .sum()
    }
}
