//! The declared, data-independent constants that set the noise: [`ObjectiveDeclaration`], read from an
//! objective or a configuration, and the checks they must pass (never the data).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::loss::{Glm, Wrap};
use crate::objective::Objective;
use crate::solver::CertificateConstants;

use super::plan::certified_gd_bound;

/// How many units in the last place two readings of one declared constant may differ by
/// ([`ObjectiveDeclaration::declares_the_same_objective`]): a sum of three terms rounds at most
/// twice, each ≤ ½ ulp of the sum, so two orders differ by ≤ 2 ulps; 4 leaves a margin.
const SAME_CONSTANT_ULPS: f64 = 4.0;

/// Whether F averages per-sample losses (sensitivity 1/n) or is a general function of the dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// F = (1/n)Σ f(w, xᵢ) + r(w): Δ_F = 2L/(μn).
    Erm,
    /// Any F(w, X) that is L-Lipschitz in w for every X (TERM): Δ_F = 2L/μ.
    NonErm,
    /// The max-loss F(w) = max_i f(w; xᵢ) + r(w) ([`crate::solver::max_loss`]), non-ERM and
    /// non-smooth: Δ_F = 2L/μ, attained (one record can be the maximum).
    MaxLoss,
}

/// The declared, data-independent description of the problem that sets the noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveDeclaration {
    /// Number of records (public under replace-one).
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// L: per-sample Lipschitz constant of the data term over W.
    pub lipschitz: f64,
    /// μ = λ₂: strong convexity of F.
    pub strong_convexity: f64,
    /// β: smoothness of the smooth part of F (data β + λ₂).
    pub smoothness: f64,
    /// ERM or not.
    pub form: Form,
    /// A bound on ‖P_W(0) − w*‖ valid for every dataset: diam(W), or L/μ on R^d.
    pub initial_distance: f64,
    /// A bound on ‖x‖ over the points GD visits (radius of W, or 2L/μ on R^d): rounding allowance.
    pub iterate_bound: f64,
    /// Whether W is bounded (then `iterate_bound` is its radius).
    pub bounded: bool,
    /// λ₁ of the ℓ1 term (the subgradient solver does not support it).
    pub l1: f64,
    /// TERM's factor min{1, C_τ/n} on Δ_F (Lowy & Razaviyayn 2021, Lemma 5.2), 1 when no bound on the loss range
    /// is available or for ERM.
    pub tilt_factor: f64,
}

/// The declared constants [`ObjectiveDeclaration`] is read from: an objective's (see [`ObjectiveDeclaration::of`]) or,
/// before any data exist, a configuration's.
#[derive(Clone, Copy)]
pub struct ObjectiveConstants<'a> {
    /// Number of records (public under replace-one).
    pub n: usize,
    /// Dimension of w.
    pub d: usize,
    /// G of the data term.
    pub lipschitz: f64,
    /// μ of F (the ridge the solved objective carries).
    pub strong_convexity: f64,
    /// β of F's smooth part, ridge included (∞ if not smooth).
    pub smoothness: f64,
    /// W: its diameter and radius bound the initial distance and the iterates (L/μ, 2L/μ on R^d).
    pub domain: &'a dyn crate::domain::Domain,
    /// λ₁ of the ℓ1 term (0 without a lasso).
    pub l1: f64,
    /// The loss, when the objective carries a [`crate::loss::Loss`] (TERM changes the form).
    pub loss: Option<crate::loss::Loss>,
    /// Declared bound on ‖x‖ (features are clipped to it): bounds TERM's loss range, hence its
    /// tilt factor.
    pub feature_bound: f64,
}

impl ObjectiveDeclaration {
    /// Reads the declared constants of `obj` (feature bound, domain, loss, regulariser, n, d);
    /// never the data.
    pub fn of(obj: &Objective) -> Result<Self> {
        Self::from_constants(ObjectiveConstants {
            n: obj.n(),
            d: obj.dim(),
            lipschitz: obj.lipschitz(),
            strong_convexity: obj.strong_convexity(),
            smoothness: obj.smoothness(),
            domain: obj.domain(),
            l1: obj.regulariser().l1,
            loss: obj.loss(),
            feature_bound: obj.feature_bound(),
        })
    }

    /// The same from the constants themselves, before any objective exists (the page's preview):
    /// [`ObjectiveDeclaration::of`] is this applied to an objective's declared constants.
    pub fn from_constants(c: ObjectiveConstants<'_>) -> Result<Self> {
        let d = c.d;
        let (lipschitz, mu) = (c.lipschitz, c.strong_convexity);
        let form = match c.loss.map(|l| l.wrap) {
            Some(Wrap::Tilted { .. }) => Form::NonErm,
            _ => Form::Erm,
        };
        if let Some(loss) = c.loss
            && matches!(loss.wrap, Wrap::Tilted { .. })
            && matches!(loss.glm, Glm::Squared { .. })
        {
            return Err(Error::invalid(
                "loss",
                "choose a loss whose Lipschitz constant does not grow with the radius: the tilted loss's smoothness must hold on all of R^d",
                "tilted squared",
            ));
        }
        let diameter = c.domain.diameter_in(d);
        let radius = c.domain.radius_in(d);
        let (initial_distance, iterate_bound) = if diameter.is_finite() {
            (diameter, radius)
        } else {
            (lipschitz / mu, 2.0 * lipschitz / mu)
        };
        let declared = Self {
            n: c.n,
            d,
            lipschitz,
            strong_convexity: mu,
            smoothness: c.smoothness,
            form,
            initial_distance,
            iterate_bound,
            bounded: diameter.is_finite(),
            l1: c.l1,
            tilt_factor: match c.loss {
                Some(crate::loss::Loss {
                    glm,
                    wrap: Wrap::Tilted { tau },
                }) => tilt_factor(glm, tau, c.feature_bound, radius, c.n),
                _ => 1.0,
            },
        };
        declared.validate()?;
        Ok(declared)
    }

    /// The declared constants of the **max-loss** form of `obj` (same records, loss, regulariser
    /// and domain; [`crate::solver::max_loss`]): form [`Form::MaxLoss`], β = ∞ (a maximum is
    /// non-smooth), no tilt. Only the subgradient method (Algorithm 2) accepts it.
    pub fn max_loss(obj: &Objective) -> Result<Self> {
        crate::solver::max_loss::MaxLoss::new(obj)?;
        let declared = Self {
            form: Form::MaxLoss,
            smoothness: f64::INFINITY,
            tilt_factor: 1.0,
            ..Self::of(obj)?
        };
        declared.validate()?;
        Ok(declared)
    }

    /// The declared constants of the objective the plan's form names: [`ObjectiveDeclaration::max_loss`] for
    /// [`Form::MaxLoss`], [`ObjectiveDeclaration::of`] otherwise.
    pub(super) fn of_form(obj: &Objective, form: Form) -> Result<Self> {
        match form {
            Form::MaxLoss => Self::max_loss(obj),
            Form::Erm | Form::NonErm => Self::of(obj),
        }
    }

    pub(super) fn validate(&self) -> Result<()> {
        if self.n == 0 || self.d == 0 {
            return Err(Error::invalid(
                "n, d",
                "at least one record and one dimension",
                0,
            ));
        }
        if !(self.lipschitz.is_finite() && self.lipschitz > 0.0) {
            return Err(Error::invalid(
                "lipschitz",
                "a finite declared Lipschitz constant > 0 (bounded domain for the squared loss)",
                self.lipschitz,
            ));
        }
        if !(self.strong_convexity.is_finite() && self.strong_convexity > 0.0) {
            return Err(Error::invalid(
                "regularizer.l2",
                "> 0: output perturbation (Lowy & Razaviyayn 2021, Algorithm 1) needs a strongly convex F",
                self.strong_convexity,
            ));
        }
        // β may be ∞ (non-smooth losses: only the subgradient solver applies, checked in `plan`).
        if self.smoothness.is_nan() || self.smoothness < self.strong_convexity {
            return Err(Error::invalid(
                "loss",
                "declared smoothness β ≥ μ",
                self.smoothness,
            ));
        }
        if !(self.initial_distance.is_finite() && self.iterate_bound.is_finite()) {
            return Err(Error::NonFinite {
                what: "initial distance bound",
            });
        }
        Ok(())
    }

    /// κ = β/μ.
    pub fn condition(&self) -> f64 {
        self.smoothness / self.strong_convexity
    }

    /// Δ_F of Prop 2.2: 2L/(μn) (ERM) or 2L/μ (non-ERM).
    pub fn sensitivity(&self) -> f64 {
        let base = 2.0 * self.lipschitz / self.strong_convexity;
        match self.form {
            Form::Erm => base / self.n as f64,
            Form::NonErm => base * self.tilt_factor,
            Form::MaxLoss => base,
        }
    }

    /// The GD budget certifying a distance `radius` on every dataset of this declaration, or the
    /// certificate's rounding allowance when it does not fit ([`certified_gd_bound`], the one
    /// check Lowy & Razaviyayn 2021's budget and both Zhang et al. 2022 algorithms make).
    pub(crate) fn certified_gd_budget(&self, radius: f64) -> std::result::Result<usize, f64> {
        certified_gd_bound(
            &self.certificate_constants(),
            self.n + self.d,
            self.iterate_bound,
            self.initial_distance,
            radius,
        )
    }

    /// Whether `other` declares the same objective: the same n, d, form and boundedness, and each
    /// constant equal up to [`SAME_CONSTANT_ULPS`] units in the last place.
    ///
    /// Why not `==`: the plan's constants are read from the configuration (β_loss + (λ₂ + λ)
    /// summed by the family) and the objective's from the objective, and two correct readings of
    /// one sum can round differently in the last bit; exact equality then refused a correct plan
    /// (this refused regularised output perturbation at 15 of 48 (n, λ₂, δ) settings while the
    /// two orders differed). Why a few ulps are safe: the noise and the certificate are set from the
    /// **plan's** constants, never from the objective's, so this check does not feed the noise; it
    /// only guards that the run solves the objective the plan declared. A genuinely different
    /// objective (another ridge, loss, bound or n) differs by far more than 4 ulps.
    pub(super) fn declares_the_same_objective(&self, other: &Self) -> bool {
        let close = |a: f64, b: f64| {
            a == b
                || a.is_finite()
                    && b.is_finite()
                    && (a - b).abs() <= SAME_CONSTANT_ULPS * f64::EPSILON * a.abs().max(b.abs())
        };
        (self.n, self.d, self.form, self.bounded) == (other.n, other.d, other.form, other.bounded)
            && close(self.lipschitz, other.lipschitz)
            && close(self.strong_convexity, other.strong_convexity)
            && close(self.smoothness, other.smoothness)
            && close(self.initial_distance, other.initial_distance)
            && close(self.iterate_bound, other.iterate_bound)
            && close(self.l1, other.l1)
            && close(self.tilt_factor, other.tilt_factor)
    }

    pub(super) fn certificate_constants(&self) -> CertificateConstants {
        CertificateConstants {
            strong_convexity: self.strong_convexity,
            smoothness: self.smoothness,
            lipschitz: self.lipschitz,
        }
    }
}

/// A data-independent bound on the range A_R − a_R of a per-sample loss over ‖w‖ ≤ R, ‖x‖ ≤ X, for
/// losses whose range does not depend on the labels: logistic ln(1 + e^{RX}) − ln(1 + e^{−RX}) = RX;
/// hinge max(0, 1 + RX) − max(0, 1 − RX); smoothed hinge h(−RX) − h(RX). `None` for the residual
/// losses (their range needs a label bound).
pub fn loss_range(glm: Glm, feature_bound: f64, radius: f64) -> Option<f64> {
    use crate::loss::GlmLoss;
    let m = feature_bound * radius;
    if !m.is_finite() {
        return None;
    }
    match glm {
        Glm::Logistic => Some(m),
        Glm::Hinge | Glm::SmoothedHinge { .. } => Some(glm.value(-m, 1.0) - glm.value(m, 1.0)),
        Glm::Squared { .. } | Glm::Huber { .. } | Glm::Absolute { .. } => None,
    }
}

/// TERM's sensitivity factor min{1, C_τ/n}, C_τ = exp(τ(A_R − a_R)) (Lowy & Razaviyayn 2021, Lemma 5.2; its proof
/// is flawed but the bound holds). It helps only when τ < ln(n)/(A_R − a_R)
/// (Lowy & Razaviyayn 2021); 1 when no range bound is known.
pub fn tilt_factor(glm: Glm, tau: f64, feature_bound: f64, radius: f64, n: usize) -> f64 {
    match loss_range(glm, feature_bound, radius) {
        Some(range) => (libm::exp(tau * range) / n as f64).min(1.0),
        None => 1.0,
    }
}
