//! A released point that exists only as the output of its noise.
//!
//! [`Noised`] has private fields, no public constructor, no `Default`, no `From`, and no
//! `Deserialize`: the only ways to make one outside this module are [`Noised::perturb`] (add one
//! draw of a validated noise law to a point, then map it into the domain) and
//! [`Noised::perturb_pair`] (the same for both players of a game). Both draw the noise themselves
//! from the caller's generator, so a family cannot hand over a point that skipped its draw: a
//! run that fails (a certificate that never held) must still call them, around a fixed public
//! point, and say so with [`super::Ledger::with_failure`].
//!
//! The laws are validated when they are built ([`Law`] holds a [`Gaussian`], a [`Laplace`] or an
//! [`L2Laplace`], each refusing a scale that is not finite and > 0), so the draw cannot fail at
//! release time; a family builds its law from the plan, before the data are read.

use serde::Serialize;

use crate::error::Result;
use crate::linalg::{axpy, norm2};
use crate::noise::{Gaussian, L2Laplace, Laplace};
use crate::rng::DpRng;

/// The noise law of one output perturbation, validated when built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Law {
    /// N(0, σ²I).
    Gaussian(Gaussian),
    /// i.i.d. Laplace(b) per coordinate.
    Laplace(Laplace),
    /// Density ∝ exp(−‖t‖₂/b) on R^d.
    L2Laplace(L2Laplace),
}

impl Law {
    /// N(0, σ²I); σ finite and > 0.
    pub fn gaussian(sigma: f64) -> Result<Self> {
        Gaussian::new(sigma).map(Law::Gaussian)
    }

    /// ℓ2-Laplace of scale b; b finite and > 0.
    pub fn l2_laplace(scale: f64) -> Result<Self> {
        L2Laplace::new(scale).map(Law::L2Laplace)
    }

    /// Coordinate-wise Laplace of scale b; b finite and > 0.
    pub fn laplace(scale: f64) -> Result<Self> {
        Laplace::new(scale).map(Law::Laplace)
    }

    /// Fills `out` (non-empty) with one draw.
    fn fill(&self, rng: &mut DpRng, out: &mut [f64]) {
        match self {
            Law::Gaussian(g) => g.fill(rng, out),
            Law::Laplace(l) => l.fill(rng, out),
            // The only error is d = 0, excluded by the caller.
            Law::L2Laplace(l) => l.fill(rng, out).unwrap_or_else(|_| out.fill(0.0)),
        }
    }
}

/// A released point: the centre the run chose plus one draw of its law, mapped into the domain.
/// Only [`Noised::perturb`] and [`Noised::perturb_pair`] make one (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Noised {
    x: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<Vec<f64>>,
}

impl Noised {
    /// Π(`centre` + b) with b one draw of `law` from `rng` (Π is `project`, a map fixed by the
    /// domain). Returns the release and ‖b‖ (a diagnostic of the noise, never part of the private
    /// export). A zero-dimensional centre releases nothing to perturb and is returned as is.
    pub fn perturb(
        centre: &[f64],
        law: &Law,
        rng: &mut DpRng,
        project: impl FnOnce(&mut [f64]),
    ) -> (Self, f64) {
        let (x, norm) = perturbed(centre, law, rng, project);
        (Self { x, y: None }, norm)
    }

    /// Both players of a game: Π_X(`x` + b_x) and then Π_Y(`y` + b_y), each with its own law,
    /// drawn in that order from `rng`. Returns the release and (‖b_x‖, ‖b_y‖).
    pub fn perturb_pair(
        (x, x_law, project_x): (&[f64], &Law, impl FnOnce(&mut [f64])),
        (y, y_law, project_y): (&[f64], &Law, impl FnOnce(&mut [f64])),
        rng: &mut DpRng,
    ) -> (Self, (f64, f64)) {
        let (x, nx) = perturbed(x, x_law, rng, project_x);
        let (y, ny) = perturbed(y, y_law, rng, project_y);
        (Self { x, y: Some(y) }, (nx, ny))
    }

    /// The released point w (x of a game).
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// A game's released y; `None` for a minimisation.
    pub fn y(&self) -> Option<&[f64]> {
        self.y.as_deref()
    }
}

fn perturbed(
    centre: &[f64],
    law: &Law,
    rng: &mut DpRng,
    project: impl FnOnce(&mut [f64]),
) -> (Vec<f64>, f64) {
    let mut point = centre.to_vec();
    if point.is_empty() {
        return (point, 0.0);
    }
    let mut b = vec![0.0; point.len()];
    law.fill(rng, &mut b);
    axpy(1.0, &b, &mut point);
    project(&mut point);
    (point, norm2(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, seeded};

    #[test]
    fn a_release_differs_from_its_centre_and_between_noise_seeds() {
        let law = Law::l2_laplace(0.5).unwrap();
        let centre = [0.0, 0.0];
        let (a, na) = Noised::perturb(&centre, &law, &mut seeded(1, Stream::Noise), |_| {});
        let (b, _) = Noised::perturb(&centre, &law, &mut seeded(2, Stream::Noise), |_| {});
        assert_ne!(a.x(), &centre[..]);
        assert_ne!(a.x(), b.x());
        assert!((norm2(a.x()) - na).abs() < 1e-12);
    }

    #[test]
    fn a_law_with_no_noise_cannot_be_built() {
        for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Law::gaussian(scale).is_err());
            assert!(Law::l2_laplace(scale).is_err());
            assert!(Law::laplace(scale).is_err());
        }
    }
}
