//! The regularised view of a record game that one phase of Zhang et al. 2022's Algorithms 3, 4, 5 and the
//! C-SC variant solves, and the certificate that says when its point is close enough.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::minimax::{RecordGame, RecordScratch};

/// The safety factor τ of the certificates (Zhang et al. 2022): the certified bound must be at most
/// τ²·T, leaving 19% of the target to floating-point rounding.
pub const TAU: f64 = 0.9;

/// The quadratic regularisers a phase adds: (a/2)‖x − cx‖² − (b/2)‖y − cy‖².
/// Centres are public (released points or data-independent starts).
#[derive(Debug, Clone, PartialEq)]
pub struct Regulariser {
    /// a ≥ 0, the x-modulus.
    pub a: f64,
    /// cx, the x-centre.
    pub cx: Vec<f64>,
    /// b ≥ 0, the y-modulus.
    pub b: f64,
    /// cy, the y-centre.
    pub cy: Vec<f64>,
}

impl Regulariser {
    /// No regulariser (Algorithm 3 solves the empirical game itself).
    pub fn none(dx: usize, dy: usize) -> Self {
        Self {
            a: 0.0,
            cx: vec![0.0; dx],
            b: 0.0,
            cy: vec![0.0; dy],
        }
    }
}

/// What a phase must reach, all from declared constants (never from the records).
///
/// The phase's operator is V(z) = (∇ₓG, −∇ᵧG) with G the regularised empirical game. The
/// requirement is W = wₓ‖x − x̂*‖² + wᵧ‖y − ŷ*‖² ≤ T (Zhang et al. 2022).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseTarget {
    /// wₓ, the requirement's x-weight.
    pub weight_x: f64,
    /// wᵧ, the requirement's y-weight.
    pub weight_y: f64,
    /// T, the bound on W.
    pub target: f64,
}

/// The constants of one phase's operator: moduli and Lipschitz bounds, declared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseConstants {
    /// L, the game's joint Lipschitz bound (bounds ‖V_f(z)‖ for every record).
    pub lipschitz: f64,
    /// ℓ, the game's smoothness (the Lipschitz constant of V_f).
    pub smoothness: f64,
    /// The game's own moduli (μₓ, μᵧ) (0 when merely convex–concave).
    pub mu_f: (f64, f64),
    /// The regulariser's moduli (a, b).
    pub reg: (f64, f64),
}

impl PhaseConstants {
    /// m: V is m-strongly monotone, m = min(μₓ + a, μᵧ + b).
    pub fn modulus(&self) -> f64 {
        (self.mu_f.0 + self.reg.0).min(self.mu_f.1 + self.reg.1)
    }
    /// ℓ_V = ℓ + max(a, b), a Lipschitz bound for the whole V.
    pub fn operator_lipschitz(&self) -> f64 {
        self.smoothness + self.reg.0.max(self.reg.1)
    }
}

/// The constrained certificate of Zhang et al. 2022: with
/// r = ‖z − Proj_Z(z − V(z)/ℓ_V)‖, ‖z − ẑ*‖ ≤ 2ℓ_V·r/m, so W ≤ max(wₓ, wᵧ)·(2ℓ_V·r/m)².
/// Returns that bound on W; the phase is certified when it is ≤ τ²T.
pub fn certificate_bound(constants: &PhaseConstants, target: &PhaseTarget, r: f64) -> f64 {
    let distance = 2.0 * constants.operator_lipschitz() * r / constants.modulus();
    target.weight_x.max(target.weight_y) * distance * distance
}

/// The residual r at which [`certificate_bound`] meets τ²T exactly.
pub fn certified_residual(constants: &PhaseConstants, target: &PhaseTarget) -> f64 {
    let distance = TAU * (target.target / target.weight_x.max(target.weight_y)).sqrt();
    distance * constants.modulus() / (2.0 * constants.operator_lipschitz())
}

/// Phase game: min_x max_y (1/|S|) Σ_{i∈S} f(x, y; ξᵢ) + (a/2)‖x − cx‖² − (b/2)‖y − cy‖² over
/// X × Y, S a range of records (a borrowed view, cheap to build every step).
pub struct PhaseGame<'a> {
    game: &'a dyn RecordGame,
    records: Range<usize>,
    reg: &'a Regulariser,
}

impl<'a> PhaseGame<'a> {
    /// The chunk `records` (non-empty, within 0..n) of `game`, regularised by `reg`.
    pub fn new(game: &'a dyn RecordGame, records: Range<usize>, reg: &'a Regulariser) -> Self {
        Self { game, records, reg }
    }

    /// |S|.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether S is empty (never, for a valid phase).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// (dim x, dim y).
    pub fn dims(&self) -> (usize, usize) {
        self.game.dims()
    }

    /// The regulariser.
    pub fn regulariser(&self) -> &Regulariser {
        self.reg
    }

    /// gx ← ∇ₓF̂_S(x, y), gy ← ∇ᵧF̂_S(x, y): the data part of the gradients, one full pass over
    /// S. (Everything here is in the gradient convention; the operator is V = (gx, −gy).)
    pub fn data_gradients(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        self.game
            .batch_gradients(self.records.clone(), x, y, gx, gy, scratch)
    }

    /// gx += weight·∇ₓf(x, y; ξ), gy += weight·∇ᵧf(x, y; ξ) for the i-th record of S (i < |S|).
    #[allow(clippy::too_many_arguments)]
    pub fn add_record_gradients(
        &self,
        i: usize,
        x: &[f64],
        y: &[f64],
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        if i >= self.records.len() {
            return Err(Error::invalid("record", "an index within the phase", i));
        }
        self.game
            .add_record_gradients(self.records.start + i, x, y, weight, gx, gy, scratch)
    }

    /// gx += a(x − cx), gy −= b(y − cy): the regulariser's part of the gradients.
    pub fn add_regulariser(&self, x: &[f64], y: &[f64], gx: &mut [f64], gy: &mut [f64]) {
        for ((g, xi), ci) in gx.iter_mut().zip(x).zip(&self.reg.cx) {
            *g += self.reg.a * (xi - ci);
        }
        for ((g, yi), ci) in gy.iter_mut().zip(y).zip(&self.reg.cy) {
            *g -= self.reg.b * (yi - ci);
        }
    }

    /// The exact prox of the regulariser plus the constraint for a step η (Zhang et al. 2022):
    /// x ← Proj_X((x + ηa·cx)/(1 + ηa)), y ← Proj_Y((y + ηb·cy)/(1 + ηb)).
    pub fn prox(&self, eta: f64, x: &mut [f64], y: &mut [f64]) {
        self.prox_with(eta, (self.reg.a, self.reg.b), x, y);
    }

    /// The prox of the regulariser with moduli `(a, b)` in place of its own (same centres) plus
    /// the constraint: the part of the regulariser GDA takes exactly (the rest goes into its
    /// forward step).
    pub fn prox_with(&self, eta: f64, (a, b): (f64, f64), x: &mut [f64], y: &mut [f64]) {
        for (xi, ci) in x.iter_mut().zip(&self.reg.cx) {
            *xi = (*xi + eta * a * ci) / (1.0 + eta * a);
        }
        for (yi, ci) in y.iter_mut().zip(&self.reg.cy) {
            *yi = (*yi + eta * b * ci) / (1.0 + eta * b);
        }
        self.project(x, y);
    }

    /// The diameters of X ⊆ R^dx and Y ⊆ R^dy (∞ when unbounded).
    pub fn diameters(&self, dx: usize, dy: usize) -> (f64, f64) {
        (
            self.game.x_domain().diameter_in(dx),
            self.game.y_domain().diameter_in(dy),
        )
    }

    /// x ← Proj_X(x), y ← Proj_Y(y).
    pub fn project(&self, x: &mut [f64], y: &mut [f64]) {
        self.game.x_domain().project(x);
        self.game.y_domain().project(y);
    }

    /// The residual r = ‖z − Proj_Z(z − V(z)/ℓ_V)‖ given the whole gradients (gx, gy) of the
    /// regularised game at z (V = (gx, −gy)), with (px, py) as scratch.
    #[allow(clippy::too_many_arguments)]
    pub fn residual(
        &self,
        x: &[f64],
        y: &[f64],
        gx: &[f64],
        gy: &[f64],
        lipschitz_v: f64,
        px: &mut [f64],
        py: &mut [f64],
    ) -> f64 {
        for ((p, xi), g) in px.iter_mut().zip(x).zip(gx) {
            *p = xi - g / lipschitz_v;
        }
        for ((p, yi), g) in py.iter_mut().zip(y).zip(gy) {
            *p = yi + g / lipschitz_v;
        }
        self.project(px, py);
        let sq: f64 = x
            .iter()
            .zip(px.iter())
            .chain(y.iter().zip(py.iter()))
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        sq.sqrt()
    }
}
