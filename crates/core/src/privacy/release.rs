//! A released point that exists only as the output of its noise.
//!
//! # How the type enforces it
//! [`Noised`] has private fields and no public constructor that takes a bare point: no
//! `Default`, no `From`, no `Deserialize`, no constructor from a slice. (It is `Clone`: a copy of
//! a release is the same release.) Outside this module one is made only by
//!
//! - [`Noised::perturb`] / [`Noised::perturb_pair`] (**output perturbation**): add one draw of a
//!   validated [`Law`] to a centre, drawn here from the caller's generator, then map it into the
//!   domain;
//! - [`Noised::iterate`] / [`Noised::iterate_pair`] (**iterative noisy methods, sampling and
//!   objective perturbation**): the point a run reached, released only when its [`Trail`] has made
//!   exactly the draws its plan fixed. A [`Trail`] is made with the planned count
//!   ([`Trail::planned`], from the plan, before the data are read) and advances only by drawing
//!   through it: additive noise from a validated [`Law`] ([`Trail::draw`]), an
//!   exponential-mechanism selection ([`Trail::select`]) or a vertex drawn from a mirror-descent
//!   player ([`Trail::pick`], González, Guzmán & Paquette 2024, Theorem 3.4). Each of them draws
//!   the randomness itself, so a trail cannot count a draw that did not happen; `Trail` is not
//!   `Clone` or `Default` either, so a finished trail cannot be copied into another run.
//!
//! A run that fails at run time (a certificate that never held, a short trail) must still make
//! its release through these constructors, around a fixed public point, and say so with
//! [`super::Ledger::with_failure`]. A non-private demonstration (a baseline that releases its
//! dense iterate) is a [`Published::NotPrivate`], never a [`Noised`], and every export of it says
//! NOT PRIVATE.
//!
//! Code outside this module cannot write the struct literal:
//!
//! ```compile_fail
//! use dp_core::privacy::release::Noised;
//! let forged = Noised { x: vec![0.0], y: None };
//! ```
//!
//! nor a trail that claims draws it never made:
//!
//! ```compile_fail
//! use dp_core::privacy::release::Trail;
//! let forged = Trail { planned: 1, drawn: 1 };
//! ```
//!
//! and `Noised::iterate` refuses a trail that drew less than planned:
//!
//! ```
//! use dp_core::privacy::release::{Law, Noised, Trail};
//! use dp_core::rng::{Stream, seeded};
//! let (law, mut rng) = (Law::gaussian(1.0).unwrap(), seeded(1, Stream::Noise));
//! let mut trail = Trail::planned(2);
//! let mut noise = [0.0; 2];
//! trail.draw(&law, &mut rng, &mut noise);
//! assert!(Noised::iterate(&[0.0, 0.0], &trail).is_none());
//! trail.draw(&law, &mut rng, &mut noise);
//! assert!(Noised::iterate(&[0.0, 0.0], &trail).is_some());
//! ```
//!
//! The laws are validated when they are built ([`Law`] holds a [`Gaussian`], a [`Laplace`] or an
//! [`L2Laplace`], each refusing a scale that is not finite and > 0), so the draw cannot fail at
//! release time; a family builds its law from the plan, before the data are read.

use serde::Serialize;

use crate::error::Result;
use crate::linalg::{axpy, norm2};
use crate::noise::{ExponentialMechanism, Gaussian, L2Laplace, Laplace, sample_cdf};
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
    /// No noise at all: only in unit tests (this crate's, and the playground's through the
    /// `test-support` feature of its dev-dependency), which check a family's noiseless skeleton
    /// (it does not exist in any build that runs).
    #[cfg(any(test, feature = "test-support"))]
    Silent,
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

    /// The law's scale (σ of the Gaussian, b of the Laplace laws).
    pub fn scale(&self) -> f64 {
        match self {
            Law::Gaussian(g) => g.sigma(),
            Law::Laplace(l) => l.scale(),
            Law::L2Laplace(l) => l.scale(),
            #[cfg(any(test, feature = "test-support"))]
            Law::Silent => 0.0,
        }
    }

    /// The noiseless law of the unit tests' skeleton runs (see [`Law::Silent`]).
    #[cfg(any(test, feature = "test-support"))]
    pub fn silent() -> Self {
        Law::Silent
    }

    /// Fills `out` (non-empty) with one draw.
    fn fill(&self, rng: &mut DpRng, out: &mut [f64]) {
        match self {
            Law::Gaussian(g) => g.fill(rng, out),
            Law::Laplace(l) => l.fill(rng, out),
            // The only error is d = 0, excluded by the caller.
            Law::L2Laplace(l) => l.fill(rng, out).unwrap_or_else(|_| out.fill(0.0)),
            #[cfg(any(test, feature = "test-support"))]
            Law::Silent => out.fill(0.0),
        }
    }
}

/// A law over the vertices of a simplex given by its cumulative sums: what [`Trail::pick`] draws
/// from (a mirror-descent player's iterate softmax(s), González, Guzmán & Paquette 2024). A trait
/// so that this module, below the algorithms, names none of their types.
pub trait VertexLaw {
    /// The cumulative sums of the vertex probabilities (non-empty, non-decreasing).
    fn cdf(&self) -> &[f64];
}

/// The record of a run's noise draws against the number its plan fixed before the data were
/// read. It advances only by drawing through it (module docs); [`Noised::iterate`] releases a
/// point only once it has drawn exactly what was planned.
#[derive(Debug, PartialEq, Eq)]
pub struct Trail {
    planned: usize,
    drawn: usize,
    /// A privacy filter's trail: any count up to `planned` is complete (see [`Trail::filtered`]).
    filtered: bool,
}

impl Trail {
    /// A trail that must make `draws` draws (each call of [`Trail::draw`], [`Trail::select`] or
    /// [`Trail::pick`] is one) before its run may release.
    pub fn planned(draws: usize) -> Self {
        Self {
            planned: draws,
            drawn: 0,
            filtered: false,
        }
    }

    /// The trail of a run under a privacy filter (González, Guzmán & Paquette 2024, Theorem
    /// 3.5 and Algorithm 3), which charges every draw as it is made and stops before the one
    /// that would exceed ε: the guarantee covers any stop, so any count up to the declared
    /// `max_draws` is complete, and more is not.
    pub fn filtered(max_draws: usize) -> Self {
        Self {
            planned: max_draws,
            drawn: 0,
            filtered: true,
        }
    }

    /// One draw of `law` into `out`, from `rng`. Bit for bit the law's own fill.
    pub fn draw(&mut self, law: &Law, rng: &mut DpRng, out: &mut [f64]) {
        if !out.is_empty() {
            law.fill(rng, out);
        }
        self.drawn += 1;
    }

    /// One exponential-mechanism selection over `utilities` (an index into them). An error (a
    /// utility that is not finite) draws nothing and counts nothing.
    pub fn select(
        &mut self,
        mechanism: &ExponentialMechanism,
        utilities: &[f64],
        rng: &mut DpRng,
    ) -> Result<usize> {
        let j = mechanism.select(rng, utilities)?;
        self.drawn += 1;
        Ok(j)
    }

    /// The one planned selection, made whatever the utilities: when [`Trail::select`] refuses
    /// them (a utility that is not finite, which the plans' finite scores exclude), it is made on
    /// flat public scores, uniformly over the candidates. Returns the index and whether that
    /// happened, for the ledger's failure (the release is then NOT PRIVATE).
    pub fn select_or_uniform(
        &mut self,
        mechanism: &ExponentialMechanism,
        utilities: &[f64],
        rng: &mut DpRng,
    ) -> (usize, bool) {
        match self.select(mechanism, utilities, rng) {
            Ok(j) => (j, false),
            Err(_) => {
                let flat = vec![0.0; utilities.len()];
                (self.select(mechanism, &flat, rng).unwrap_or(0), true)
            }
        }
    }

    /// One vertex drawn from a mirror-descent player's iterate softmax(s): the exponential
    /// mechanism with score s (González, Guzmán & Paquette 2024, Theorem 3.4).
    pub fn pick(&mut self, player: &impl VertexLaw, rng: &mut DpRng) -> usize {
        self.pick_cdf(player.cdf(), rng)
    }

    /// One vertex drawn from the law whose cumulative sums are `cdf` (non-empty): the same
    /// draw as [`Trail::pick`] for a law that is not a single player's iterate (an average of
    /// them, González, Guzmán & Paquette 2024, Algorithm 5).
    pub fn pick_cdf(&mut self, cdf: &[f64], rng: &mut DpRng) -> usize {
        self.drawn += 1;
        sample_cdf(cdf, rng)
    }

    /// Draws made so far.
    pub fn drawn(&self) -> usize {
        self.drawn
    }

    /// Draws the plan fixed.
    pub fn planned_draws(&self) -> usize {
        self.planned
    }

    /// Whether the trail has made exactly the planned draws.
    pub fn is_complete(&self) -> bool {
        if self.filtered {
            self.drawn <= self.planned
        } else {
            self.drawn == self.planned
        }
    }
}

/// A finished run's release and, when its trail came up short, the failure its ledger must
/// record ([`super::Ledger::with_failure`]): see [`Finished::iterate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    release: Noised,
    failure: Option<String>,
}

impl Finished {
    /// The release of an iterative run that is done: `point` when `trail` made exactly its
    /// planned draws ([`Noised::iterate`]); otherwise one draw of `law` around the fixed public
    /// point `public`, mapped by `project`, with the failure recorded (a run whose draw count
    /// depends on the data is NOT PRIVATE, and says so).
    pub fn iterate(
        point: &[f64],
        trail: &Trail,
        (law, public, project): (&Law, &[f64], impl FnOnce(&mut [f64])),
        rng: &mut DpRng,
    ) -> Self {
        match Noised::iterate(point, trail) {
            Some(release) => Self {
                release,
                failure: None,
            },
            None => Self {
                release: Noised::perturb(public, law, rng, project).0,
                failure: Some(short_trail(trail)),
            },
        }
    }

    /// As [`Finished::iterate`] for both players of a game; the fallback draws `law` around
    /// the public pair (x, y) (x first).
    pub fn iterate_pair(
        (x, y): (&[f64], &[f64]),
        trail: &Trail,
        (law, public_x, public_y): (&Law, &[f64], &[f64]),
        rng: &mut DpRng,
    ) -> Self {
        match Noised::iterate_pair(x, y, trail) {
            Some(release) => Self {
                release,
                failure: None,
            },
            None => Self {
                release: Noised::perturb_pair(
                    (public_x, law, |_: &mut [f64]| {}),
                    (public_y, law, |_: &mut [f64]| {}),
                    rng,
                )
                .0,
                failure: Some(short_trail(trail)),
            },
        }
    }

    /// The release.
    pub fn release(&self) -> &Noised {
        &self.release
    }

    /// What the run publishes: the release.
    pub fn published(&self) -> Published {
        Published::Private(self.release.clone())
    }

    /// `ledger` with the failure, if the trail came up short.
    pub fn record(&self, ledger: super::Ledger) -> super::Ledger {
        match &self.failure {
            Some(f) => ledger.with_failure(f.clone()),
            None => ledger,
        }
    }
}

fn short_trail(trail: &Trail) -> String {
    format!(
        "the run made {} of its {} planned noise draws: the planned noise was released around \
         the public start instead",
        trail.drawn, trail.planned
    )
}

/// What a run publishes once done: a private release, or a non-private demonstration's point
/// that every view and export labels NOT PRIVATE (serialised as `{ w, y }`, the demonstration
/// with `not_private: true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Published {
    /// A release that passed through its noise.
    Private(Noised),
    /// A demonstration that releases without noise (a non-private baseline). **NOT PRIVATE**.
    NotPrivate(Baseline),
}

impl Published {
    /// The published point w (x of a game).
    pub fn x(&self) -> &[f64] {
        match self {
            Published::Private(n) => n.x(),
            Published::NotPrivate(b) => &b.x,
        }
    }

    /// A game's published y; `None` for a minimisation.
    pub fn y(&self) -> Option<&[f64]> {
        match self {
            Published::Private(n) => n.y(),
            Published::NotPrivate(b) => b.y.as_deref(),
        }
    }

    /// The private release, `None` for a non-private demonstration.
    pub fn noised(&self) -> Option<&Noised> {
        match self {
            Published::Private(n) => Some(n),
            Published::NotPrivate(_) => None,
        }
    }
}

/// A non-private demonstration's output: a point no noise covers. **NOT PRIVATE**.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Baseline {
    #[serde(rename = "w")]
    x: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<Vec<f64>>,
    /// Always true: the label every export of it carries.
    not_private: bool,
}

impl Baseline {
    /// The non-private point (x, and y of a game) a demonstration publishes.
    pub fn not_private(x: &[f64], y: Option<&[f64]>) -> Self {
        Self {
            x: x.to_vec(),
            y: y.map(<[f64]>::to_vec),
            not_private: true,
        }
    }
}

/// A released point: the centre the run chose plus one draw of its law, mapped into the domain.
/// Only [`Noised::perturb`] and [`Noised::perturb_pair`] make one (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Noised {
    #[serde(rename = "w")]
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

    /// The point an iterative run reached, released only when `trail` has made exactly the
    /// draws its plan fixed; `None` otherwise (the run must then release the planned noise
    /// around a fixed public point with [`Noised::perturb`] and record the failure).
    pub fn iterate(point: &[f64], trail: &Trail) -> Option<Self> {
        trail.is_complete().then(|| Self {
            x: point.to_vec(),
            y: None,
        })
    }

    /// Both players' points of a game, under the same rule as [`Noised::iterate`].
    pub fn iterate_pair(x: &[f64], y: &[f64], trail: &Trail) -> Option<Self> {
        trail.is_complete().then(|| Self {
            x: x.to_vec(),
            y: Some(y.to_vec()),
        })
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
    fn iterate_refuses_a_trail_that_drew_less_or_more_than_planned() {
        let law = Law::gaussian(1.0).unwrap();
        let mut rng = seeded(3, Stream::Noise);
        let mut trail = Trail::planned(3);
        let mut out = [0.0; 2];
        for _ in 0..2 {
            trail.draw(&law, &mut rng, &mut out);
            assert!(Noised::iterate(&[1.0, 2.0], &trail).is_none());
            assert!(Noised::iterate_pair(&[1.0], &[2.0], &trail).is_none());
        }
        trail.draw(&law, &mut rng, &mut out);
        let released = Noised::iterate(&[1.0, 2.0], &trail).unwrap();
        assert_eq!(released.x(), &[1.0, 2.0]);
        trail.draw(&law, &mut rng, &mut out);
        assert!(Noised::iterate(&[1.0, 2.0], &trail).is_none());
    }

    #[test]
    fn a_short_trail_releases_the_planned_noise_around_the_public_point_and_says_so() {
        let law = Law::gaussian(0.5).unwrap();
        let ledger = || {
            let guarantee = crate::privacy::Guarantee {
                epsilon: 1.0,
                delta: 1e-6,
                relation: crate::privacy::Relation::ReplaceOne,
                rho: None,
                accounting: String::new(),
            };
            super::super::Ledger::new(guarantee, "test", true, Vec::new())
        };
        let (point, public) = ([5.0, 5.0], [0.0, 0.0]);
        let mut trail = Trail::planned(2);
        let mut rng = seeded(7, Stream::Noise);
        trail.draw(&law, &mut rng, &mut [0.0; 2]);
        let short = Finished::iterate(
            &point,
            &trail,
            (&law, &public, |_: &mut [f64]| {}),
            &mut rng,
        );
        // Not the reached point: one draw of the law around the public one.
        assert_ne!(short.release().x(), &point[..]);
        assert_ne!(short.release().x(), &public[..]);
        assert!(norm2(short.release().x()) < 5.0);
        assert!(!short.record(ledger()).is_private());
        trail.draw(&law, &mut rng, &mut [0.0; 2]);
        let full = Finished::iterate(
            &point,
            &trail,
            (&law, &public, |_: &mut [f64]| {}),
            &mut rng,
        );
        assert_eq!(full.release().x(), &point[..]);
        assert!(full.record(ledger()).is_private());
    }

    #[test]
    fn a_filtered_trail_is_complete_at_any_count_up_to_its_bound() {
        let mut trail = Trail::filtered(2);
        struct Uniform;
        impl VertexLaw for Uniform {
            fn cdf(&self) -> &[f64] {
                &[1.0 / 3.0, 2.0 / 3.0, 1.0]
            }
        }
        let player = Uniform;
        let mut rng = seeded(9, Stream::Noise);
        assert!(Noised::iterate(&[0.5], &trail).is_some());
        trail.pick(&player, &mut rng);
        trail.pick(&player, &mut rng);
        assert!(Noised::iterate(&[0.5], &trail).is_some());
        trail.pick(&player, &mut rng);
        assert!(Noised::iterate(&[0.5], &trail).is_none());
    }

    #[test]
    fn a_trail_draw_is_the_laws_own_fill() {
        let law = Law::gaussian(0.7).unwrap();
        let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
        Trail::planned(1).draw(&law, &mut seeded(5, Stream::Noise), &mut a);
        crate::noise::fill_gaussian(&mut seeded(5, Stream::Noise), 0.7, &mut b);
        assert_eq!(a, b);
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
