//! Per-sample losses and regularisers.
//!
//! Generalised linear losses f(w; x, y) = φ(⟨w, x⟩, y) expose the scalar derivative φ'(t, y) so
//! that one fused kernel (`objective`) serves all of them. [`Glm`] names the six scalar
//! losses; [`Loss`] adds the two robust variants of Lowy & Razaviyayn 2021, Section 5 on top of any of them:
//! tilted ERM (TERM) and adversarially robust training with an ℓ2 perturbation radius.
//! [`Regulariser`] is r(w) = λ₁‖w‖₁ + (λ₂/2)‖w‖² with its prox.

mod glm;
mod logistic;
pub mod math;

pub use glm::{Absolute, Hinge, Huber, SmoothedHinge, Squared};
pub use logistic::Logistic;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A loss of the form f(w; x, y) = φ(⟨w, x⟩, y).
///
/// The declared constants are stated for features with ‖x‖ ≤ `feature_bound` (enforced by
/// data-independent clipping) and parameters with ‖w‖ ≤ `radius`; they set the privacy noise, so they
/// must never be measured from the data.
pub trait GlmLoss: Send + Sync {
    /// A short stable name (used in configs and URLs).
    fn name(&self) -> &'static str;
    /// φ(t, y).
    fn value(&self, t: f64, y: f64) -> f64;
    /// ∂φ/∂t at (t, y) (a subgradient at kinks).
    fn derivative(&self, t: f64, y: f64) -> f64;
    /// φ(t, y) and ∂φ/∂t together (one exp instead of two for most losses).
    #[inline]
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        (self.value(t, y), self.derivative(t, y))
    }
    /// [`GlmLoss::value_and_derivative`] of four samples, with its bits lane by lane. The fused
    /// pass calls this; a loss whose scalar code is a long chain of dependent operations
    /// (the logistic loss's exp and log) overrides it to interleave the four chains.
    #[inline]
    fn value_and_derivative4(&self, t: [f64; 4], y: [f64; 4]) -> ([f64; 4], [f64; 4]) {
        let pairs: [(f64, f64); 4] =
            core::array::from_fn(|i| self.value_and_derivative(t[i], y[i]));
        (pairs.map(|p| p.0), pairs.map(|p| p.1))
    }
    /// G with ‖∇f(w; x, y)‖ ≤ G for all ‖x‖ ≤ feature_bound and ‖w‖ ≤ radius.
    fn lipschitz(&self, feature_bound: f64, radius: f64) -> f64;
    /// β with ∇f(·; x, y) β-Lipschitz for all ‖x‖ ≤ feature_bound (∞ for non-smooth losses).
    fn smoothness(&self, feature_bound: f64) -> f64;
    /// μ-strong convexity of w ↦ f(w; x, y). A GLM loss is never strongly convex in w when d > 1
    /// (its Hessian has rank one), so the default is 0; strong convexity comes from the regulariser.
    fn strong_convexity(&self) -> f64 {
        0.0
    }
}

/// The scalar losses, as named in configs: `{"kind": "huber", "delta": 1.0, "label_bound": 10}`.
///
/// Every residual loss (squared, Huber, absolute) carries a declared bound B on |y|: targets are
/// clipped to [−B, B] before any use, as features are clipped to theirs (docs/PRIVACY.md rule 1).
/// For the squared loss B enters the Lipschitz constant; for Huber and absolute it does not (their
/// G holds for any label), but an unbounded target lets one record dominate every computed F value
/// (a label of 1e18 absorbs all other records in floating point), so it is bounded too.
/// Links made before Huber and absolute had the field read [`ROBUST_LABEL_BOUND`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Glm {
    Squared {
        label_bound: f64,
    },
    Logistic,
    Hinge,
    SmoothedHinge {
        gamma: f64,
    },
    Huber {
        delta: f64,
        #[serde(default = "robust_label_bound")]
        label_bound: f64,
    },
    Absolute {
        #[serde(default = "robust_label_bound")]
        label_bound: f64,
    },
}

/// The default declared label bound of the Huber and absolute losses (the page's default too): wide
/// enough to leave the synthetic targets alone, finite so that floating point stays honest.
pub const ROBUST_LABEL_BOUND: f64 = 10.0;

fn robust_label_bound() -> f64 {
    ROBUST_LABEL_BOUND
}

/// Runs `$body` with `$l` bound to the concrete loss struct of `$glm`, so that generic code
/// (the fused kernel) is monomorphised per loss instead of paying a dispatch per sample.
#[macro_export]
macro_rules! with_glm {
    ($glm:expr, $l:ident => $body:expr) => {
        match $glm {
            $crate::loss::Glm::Squared { label_bound } => {
                let $l = &$crate::loss::Squared { label_bound };
                $body
            }
            $crate::loss::Glm::Logistic => {
                let $l = &$crate::loss::Logistic;
                $body
            }
            $crate::loss::Glm::Hinge => {
                let $l = &$crate::loss::Hinge;
                $body
            }
            $crate::loss::Glm::SmoothedHinge { gamma } => {
                let $l = &$crate::loss::SmoothedHinge { gamma };
                $body
            }
            $crate::loss::Glm::Huber { delta, .. } => {
                let $l = &$crate::loss::Huber { delta };
                $body
            }
            $crate::loss::Glm::Absolute { .. } => {
                let $l = &$crate::loss::Absolute;
                $body
            }
        }
    };
}
// Exported at the crate root (as `#[macro_export]` macros are) and named here, so that
// `crate::loss::with_glm` and `dp_playground::loss::with_glm` read as before.
pub use crate::with_glm;

/// The fused pass's kernels ([`crate::linalg::Kernels::derivative4`]) evaluate a loss through
/// this: [`GlmLoss::value_and_derivative4`], the same call with the same bits.
impl<L: GlmLoss + ?Sized> crate::linalg::Derivative4 for L {
    #[inline(always)]
    fn derivative4(&self, t: [f64; 4], y: [f64; 4]) -> ([f64; 4], [f64; 4]) {
        self.value_and_derivative4(t, y)
    }
}

impl Glm {
    /// All six kinds with default parameters (tests and menus).
    pub fn all() -> [Glm; 6] {
        [
            Glm::Squared { label_bound: 1.0 },
            Glm::Logistic,
            Glm::Hinge,
            Glm::SmoothedHinge { gamma: 1.0 },
            Glm::huber(1.0),
            Glm::absolute(),
        ]
    }

    /// The absolute loss with the default label bound [`ROBUST_LABEL_BOUND`].
    pub const fn absolute() -> Glm {
        Glm::Absolute {
            label_bound: ROBUST_LABEL_BOUND,
        }
    }

    /// The Huber loss with threshold δ and the default label bound [`ROBUST_LABEL_BOUND`].
    pub const fn huber(delta: f64) -> Glm {
        Glm::Huber {
            delta,
            label_bound: ROBUST_LABEL_BOUND,
        }
    }

    /// Margin losses take labels in {−1, +1}; residual losses take real targets.
    pub fn is_margin(&self) -> bool {
        matches!(self, Glm::Logistic | Glm::Hinge | Glm::SmoothedHinge { .. })
    }

    /// Whether ∇f is Lipschitz (so the reference solver may use a gradient step on it).
    pub fn is_smooth(&self) -> bool {
        !matches!(self, Glm::Hinge | Glm::Absolute { .. })
    }

    /// The declared bound B on |y| of a residual loss (targets are clipped to [−B, B]); `None` for
    /// margin losses, whose labels are ±1.
    pub fn label_bound(&self) -> Option<f64> {
        match *self {
            Glm::Squared { label_bound }
            | Glm::Huber { label_bound, .. }
            | Glm::Absolute { label_bound } => Some(label_bound),
            Glm::Logistic | Glm::Hinge | Glm::SmoothedHinge { .. } => None,
        }
    }

    /// Checks the loss's own parameters.
    pub fn validate(&self) -> Result<()> {
        let positive = |field: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(Error::invalid(field, "a finite number > 0", v))
            }
        };
        if let Some(bound) = self.label_bound() {
            positive("loss.label_bound", bound)?;
            at_most(
                "loss.label_bound",
                bound,
                MAX_LABEL_BOUND,
                " (as the feature bound's largest)",
            )?;
        }
        match *self {
            // Beyond these the declared constants feed non-finite numbers to the
            // noise. γ > 10³ leaves β = X²/γ so small that the default step 1/β can overflow
            // (and the loss is ≈ (1 − m)²/(2γ), flat, wherever the iterates go); Huber's
            // G = δX enters squared into every σ, and δ > 10⁶ exceeds any residual the declared
            // bounds allow: it is the squared loss.
            Glm::SmoothedHinge { gamma } => {
                positive("loss.gamma", gamma)?;
                at_most("loss.gamma", gamma, MAX_SMOOTHED_HINGE_GAMMA, "")
            }
            Glm::Huber { delta, .. } => {
                positive("loss.delta", delta)?;
                at_most(
                    "loss.delta",
                    delta,
                    MAX_HUBER_DELTA,
                    " (a larger threshold is the squared loss: choose it)",
                )
            }
            Glm::Squared { .. } | Glm::Logistic | Glm::Hinge | Glm::Absolute { .. } => Ok(()),
        }
    }

    /// Whether `y` is a label this loss accepts: ±1 for margin losses, any finite number otherwise.
    pub fn accepts_label(&self, y: f64) -> bool {
        if self.is_margin() {
            y == 1.0 || y == -1.0
        } else {
            y.is_finite()
        }
    }

    /// One record's rise above the origin, f(w; x, y) − f(0; x, y), from t = ⟨w, x⟩ and s = r‖w‖
    /// (s = 0 without the adversarial wrap): the per-record difference that
    /// `objective::Objective::rise` aggregates to compare points by F.
    ///
    /// Why a difference per record: F(w) − F(w′) computed as the difference of two totals loses
    /// every record whose loss is below the rounding of the largest one, and with one huge target
    /// (y = 1e18) F is then constant in w, so a selection by F values stops depending on the other
    /// records. Each term here is bounded by G·‖w‖, whatever the label, so no record
    /// can absorb the others. The residual losses are written so that the label itself cancels
    /// exactly: with a = |t − y| + s and b = |y|, a − b = ±t + s when t − y and −y have the same
    /// sign (else y lies between 0 and t and |t − y|, |y| ≤ |t|), and h(a) − h(b) is
    /// (a − b)(a + b)/2 (squared, and Huber inside its threshold), a − b (absolute) or δ(a − b)
    /// (Huber beyond it), each accurate to a few ulps of the result. Margin losses take y = ±1, so
    /// their values are bounded and h(yt − s) − h(0) is accurate as it stands.
    #[inline]
    pub fn rise(&self, t: f64, y: f64, s: f64) -> f64 {
        if self.is_margin() {
            return with_glm!(*self, l => l.value(y * t - s, 1.0) - l.value(0.0, 1.0));
        }
        let e = t - y;
        let (a, b) = (e.abs() + s, y.abs());
        let diff = (if e >= 0.0 && y <= 0.0 {
            t
        } else if e <= 0.0 && y >= 0.0 {
            -t
        } else {
            e.abs() - b
        }) + s;
        match *self {
            Glm::Squared { .. } => 0.5 * diff * (a + b),
            Glm::Absolute { .. } => diff,
            Glm::Huber { delta, .. } if a >= delta && b >= delta => delta * diff,
            Glm::Huber { delta, .. } if a <= delta && b <= delta => 0.5 * diff * (a + b),
            // Huber across its threshold: a and b both lie within δ + |a − b| of it.
            _ => with_glm!(*self, l => l.value(a, 0.0) - l.value(b, 0.0)),
        }
    }

    /// The adversarially robust loss of Lowy & Razaviyayn 2021, Section 5.2 in closed form, as a function of t = ⟨w, x⟩
    /// and s = r‖w‖: max_{‖v‖≤r} φ(⟨w, x + v⟩, y) equals
    /// - h(y·t − s) for margin losses φ = h(y·t), h non-increasing (the adversary lowers the margin);
    /// - h(|t − y| + s) for residual losses φ = h(t − y), h even and non-decreasing in |e|.
    ///
    /// Returns (value, ∂/∂t, ∂/∂s); ∂/∂s ≥ 0. At e = 0 the residual case returns the subgradient 0 in t.
    #[inline]
    pub fn adversarial(&self, t: f64, y: f64, s: f64) -> (f64, f64, f64) {
        with_glm!(*self, l => {
            if self.is_margin() {
                let (v, h) = l.value_and_derivative(y * t - s, 1.0);
                (v, y * h, -h)
            } else {
                let e = t - y;
                let (v, h) = l.value_and_derivative(e.abs() + s, 0.0);
                let sign = if e > 0.0 { 1.0 } else if e < 0.0 { -1.0 } else { 0.0 };
                (v, sign * h, h)
            }
        })
    }
}

impl GlmLoss for Glm {
    fn name(&self) -> &'static str {
        with_glm!(*self, l => l.name())
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        with_glm!(*self, l => l.value(t, y))
    }
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        with_glm!(*self, l => l.derivative(t, y))
    }
    #[inline]
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        with_glm!(*self, l => l.value_and_derivative(t, y))
    }
    #[inline]
    fn value_and_derivative4(&self, t: [f64; 4], y: [f64; 4]) -> ([f64; 4], [f64; 4]) {
        with_glm!(*self, l => l.value_and_derivative4(t, y))
    }
    fn lipschitz(&self, feature_bound: f64, radius: f64) -> f64 {
        with_glm!(*self, l => l.lipschitz(feature_bound, radius))
    }
    fn smoothness(&self, feature_bound: f64) -> f64 {
        with_glm!(*self, l => l.smoothness(feature_bound))
    }
}

/// The smallest tilt τ accepted. TERM is ERM + (τ/2)·Var(f) + O(τ²), so as τ → 0 it is plain
/// ERM, but its value (1/τ) ln((1/n) Σ exp(τ fᵢ)) is computed to about 10⁻¹⁶/τ only: the
/// tilted reference refuses τ < 64ε/tol = 1.4·10⁻³ at the page's tolerance
/// (`reference/tilted.rs`), and the smooth losses' reference ran into its time cap for every
/// τ ≤ 10⁻⁵ on the default problem (3·10⁻⁵ passed). 10⁻² keeps a margin of 7 over the
/// first. Smaller tilts are refused with a message to choose plain ERM rather than run as ERM:
/// a run labelled tilted must be one, with the guarantee computed for it.
pub const MIN_TILT: f64 = 1e-2;

/// The largest tilt τ accepted. Beyond it TERM is the maximum loss to within ln(n)/τ ≤ 1.4·10⁻⁵
/// (n ≤ 10⁶), and the declared smoothness β + 2G²τ grows until the certified solvers' rounding
/// allowance exceeds their target (τ = 10¹⁵ was refused only after the data and the
/// reference, τ = 10³⁰⁸ made β infinite).
pub const MAX_TILT: f64 = 1e6;

/// The widest smoothed hinge accepted (see [`Glm::validate`]).
pub const MAX_SMOOTHED_HINGE_GAMMA: f64 = 1e3;

/// The largest declared label bound Y accepted (Y = 10³⁰⁰ was accepted and gave a
/// release of norm ~10³⁰⁶ with an infinite loss, excess and theory curve).
///
/// Derivation: a residual loss's declared constants are G = X(XR + Y) (its Lipschitz constant on
/// the ball) and its values reach (XR + Y)²/2, with X ≤ 10⁶ and R ≤ 10⁶ (their ranges). With
/// Y ≤ 10⁶ too, XR + Y ≤ 1.000001·10¹², so G ≤ 1.1·10¹⁸ and G² ≤ 1.1·10³⁶, which every noise
/// scale multiplies by at most T ln(1/δ)/(nε)² ≤ 10⁵ · 231 / (10 · 10⁻⁴)² ≈ 2.3·10¹⁴: σ² ≤ 10⁵¹;
/// a loss value ≤ 5·10²³ and a sum of n ≤ 10⁶ of them ≤ 5·10²⁹, every one far below
/// f64::MAX ≈ 1.8·10³⁰⁸, squared or not. A larger bound buys nothing a person can see: a
/// residual beyond XR is one no point of the ball can fit.
pub const MAX_LABEL_BOUND: f64 = 1e6;

/// The largest Huber threshold accepted (see [`Glm::validate`]).
pub const MAX_HUBER_DELTA: f64 = 1e6;

/// The largest perturbation radius of the adversarially robust loss accepted (as the feature
/// bound's).
pub const MAX_ADVERSARIAL_RADIUS: f64 = 1e6;

/// `v ≤ max`, or an error at `field` saying so (with `why`).
fn at_most(field: &str, v: f64, max: f64, why: &str) -> Result<()> {
    if v <= max {
        Ok(())
    } else {
        Err(Error::invalid(field, format!("a number ≤ {max:e}{why}"), v))
    }
}

/// How the per-sample losses are combined (Lowy & Razaviyayn 2021, Section 5).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wrap {
    /// Plain ERM: (1/n) Σ f_i.
    #[default]
    None,
    /// Tilted ERM, τ > 0: (1/τ) ln((1/n) Σ exp(τ f_i)) (Lowy & Razaviyayn 2021, Section 5.1).
    Tilted { tau: f64 },
    /// Adversarially robust loss against ‖v‖₂ ≤ radius perturbations of every feature vector,
    /// in closed form (Lowy & Razaviyayn 2021, Section 5.2, [`Glm::adversarial`]).
    Adversarial { radius: f64 },
}

/// A data term: a scalar GLM loss and how it is aggregated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Loss {
    pub glm: Glm,
    #[serde(default)]
    pub wrap: Wrap,
}

/// The declared bounds that the constants of a loss are stated for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// X: ‖x‖ ≤ X after clipping.
    pub feature: f64,
    /// R: sup over the domain of ‖w‖ (∞ for unbounded domains).
    pub radius: f64,
}

/// Declared constants of a data term (never measured from data).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LossConstants {
    /// G: bound on ‖∇f(w; z)‖ per sample over the domain.
    pub lipschitz: f64,
    /// β: smoothness (∞ if not smooth).
    pub smoothness: f64,
    /// μ: strong convexity of the data term (0 for GLMs).
    pub strong_convexity: f64,
}

impl Loss {
    /// Plain ERM with `glm`.
    pub fn erm(glm: Glm) -> Self {
        Self {
            glm,
            wrap: Wrap::None,
        }
    }

    /// Checks all parameters.
    pub fn validate(&self) -> Result<()> {
        self.glm.validate()?;
        match self.wrap {
            Wrap::None => Ok(()),
            Wrap::Tilted { tau } if (MIN_TILT..=MAX_TILT).contains(&tau) => Ok(()),
            Wrap::Tilted { tau } if tau > 0.0 && tau < MIN_TILT => Err(Error::invalid(
                "loss.tau",
                format!(
                    "a tilt τ ≥ {MIN_TILT:e}: a smaller one is plain ERM to within rounding, \
                     so choose plain ERM (no tilt)"
                ),
                tau,
            )),
            Wrap::Tilted { tau } => Err(Error::invalid(
                "loss.tau",
                format!(
                    "a tilt τ in [{MIN_TILT:e}, {MAX_TILT:e}] (a larger one is the maximum loss \
                     to within ln(n)/τ, and its smoothness defeats the certified solvers)"
                ),
                tau,
            )),
            // G is the loss's at feature bound X + r: r ≤ 10⁶ as X ≤ 10⁶ (r = 10³⁰⁰
            // overflowed the noise).
            Wrap::Adversarial { radius } if (0.0..=MAX_ADVERSARIAL_RADIUS).contains(&radius) => {
                Ok(())
            }
            Wrap::Adversarial { radius } => Err(Error::invalid(
                "loss.radius",
                format!("a number in [0, {MAX_ADVERSARIAL_RADIUS:e}]"),
                radius,
            )),
        }
    }

    /// Whether F's data term has a Lipschitz gradient on the whole domain.
    pub fn is_smooth(&self) -> bool {
        match self.wrap {
            Wrap::None | Wrap::Tilted { .. } => self.glm.is_smooth(),
            Wrap::Adversarial { radius } => radius == 0.0 && self.glm.is_smooth(),
        }
    }

    /// Declared constants for the bounds.
    ///
    /// - ERM: the scalar loss's own constants.
    /// - TERM: G unchanged (a convex combination of per-sample gradients); β_τ = β + 2G²τ, the
    ///   value the proof of Lowy & Razaviyayn 2021, Lemma 5.3 gives (the statement's β + G²τ is also valid; we keep
    ///   the larger, safe one).
    /// - Adversarial: ∇ = φ'·(x ± r w/‖w‖), so G is the scalar loss's G at feature bound X + r;
    ///   not smooth at w = 0 (β = ∞) once r > 0.
    pub fn constants(&self, bounds: Bounds) -> LossConstants {
        let (x, r) = (bounds.feature, bounds.radius);
        let (lipschitz, smoothness) = match self.wrap {
            Wrap::None => (self.glm.lipschitz(x, r), self.glm.smoothness(x)),
            Wrap::Tilted { tau } => {
                let g = self.glm.lipschitz(x, r);
                (g, self.glm.smoothness(x) + 2.0 * g * g * tau)
            }
            Wrap::Adversarial { radius } => {
                let g = self.glm.lipschitz(x + radius, r);
                let beta = if radius == 0.0 {
                    self.glm.smoothness(x)
                } else {
                    f64::INFINITY
                };
                (g, beta)
            }
        };
        LossConstants {
            lipschitz,
            smoothness,
            strong_convexity: 0.0,
        }
    }
}

/// r(w) = λ₁‖w‖₁ + (λ₂/2)‖w‖²: ridge (λ₁ = 0), lasso (λ₂ = 0) or elastic net.
///
/// The regulariser is the same for every record, so it never counts towards sensitivity
/// (Wang, Ye & Xu 2017); it contributes μ = λ₂ strong convexity.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Regulariser {
    #[serde(default)]
    pub l1: f64,
    #[serde(default)]
    pub l2: f64,
}

impl Regulariser {
    pub fn ridge(l2: f64) -> Self {
        Self { l1: 0.0, l2 }
    }
    pub fn lasso(l1: f64) -> Self {
        Self { l1, l2: 0.0 }
    }
    pub fn elastic(l1: f64, l2: f64) -> Self {
        Self { l1, l2 }
    }

    pub fn validate(&self) -> Result<()> {
        for (field, v) in [("regularizer.l1", self.l1), ("regularizer.l2", self.l2)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::invalid(field, "a finite number ≥ 0", v));
            }
        }
        Ok(())
    }

    /// r(w).
    pub fn value(&self, w: &[f64]) -> f64 {
        let l1: f64 = w.iter().map(|v| v.abs()).sum();
        self.l1 * l1 + 0.5 * self.l2 * crate::linalg::dot(w, w)
    }

    /// μ = λ₂.
    pub fn strong_convexity(&self) -> f64 {
        self.l2
    }

    /// w ← prox_{ηr}(w) = soft(w, ηλ₁)/(1 + ηλ₂) (Wang, Ye & Xu 2017).
    pub fn prox(&self, eta: f64, w: &mut [f64]) {
        let (thr, shrink) = (eta * self.l1, 1.0 / (1.0 + eta * self.l2));
        for v in w.iter_mut() {
            *v = soft(*v, thr) * shrink;
        }
    }
}

/// Soft thresholding sign(v)·max(|v| − θ, 0).
#[inline]
pub fn soft(v: f64, theta: f64) -> f64 {
    if v > theta {
        v - theta
    } else if v < -theta {
        v + theta
    } else {
        0.0
    }
}
