//! The scalar losses φ(t, y) of generalised linear models, t = ⟨w, x⟩.
//!
//! Each is a unit (or small) struct implementing [`GlmLoss`] so that the fused kernel can be
//! monomorphised per loss (see [`super::Glm::with`]); the [`super::Glm`] enum names them in configs.
//!
//! Two families:
//! - **margin** losses (logistic, hinge, smoothed hinge) φ(t, y) = h(y·t) with y ∈ {−1, +1} and h
//!   convex, non-increasing;
//! - **residual** losses (squared, Huber, absolute) φ(t, y) = h(t − y) with h convex and even.
//!
//! Constants are stated for ‖x‖ ≤ X (feature bound), ‖w‖ ≤ R (domain radius) and, for the squared
//! loss, |y| ≤ B (declared label bound). "Lipschitz" is the bound on ‖∇_w f‖ = |φ'|·‖x‖.

use serde::{Deserialize, Serialize};

use super::GlmLoss;

/// Hinge loss φ(t, y) = max(0, 1 − y t). G = X; not smooth (β = ∞).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Hinge;

impl GlmLoss for Hinge {
    fn name(&self) -> &'static str {
        "hinge"
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        (1.0 - y * t).max(0.0)
    }
    /// At the kink y·t = 1 the subgradient 0 is returned.
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        if y * t < 1.0 { -y } else { 0.0 }
    }
    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }
    fn smoothness(&self, _feature_bound: f64) -> f64 {
        f64::INFINITY
    }
}

/// Smoothed (Huberised) hinge with width γ > 0, of the margin m = y t:
/// h(m) = 0 for m ≥ 1, (1 − m)²/(2γ) for 1 − γ < m < 1, 1 − m − γ/2 for m ≤ 1 − γ.
/// G = X, β = X²/γ (γ = 1 is Wang, Ye & Xu 2017's version).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SmoothedHinge {
    pub gamma: f64,
}

impl GlmLoss for SmoothedHinge {
    fn name(&self) -> &'static str {
        "smoothed_hinge"
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        let m = y * t;
        if m >= 1.0 {
            0.0
        } else if m > 1.0 - self.gamma {
            (1.0 - m) * (1.0 - m) / (2.0 * self.gamma)
        } else {
            1.0 - m - 0.5 * self.gamma
        }
    }
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        // h'(m) = −clamp((1 − m)/γ, 0, 1).
        -y * ((1.0 - y * t) / self.gamma).clamp(0.0, 1.0)
    }
    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }
    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound / self.gamma
    }
}

/// Squared loss φ(t, y) = (t − y)²/2. G = X(XR + B) (only on a bounded domain), β = X².
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Squared {
    /// Declared bound B on |y| (targets are clipped to [−B, B]).
    pub label_bound: f64,
}

impl GlmLoss for Squared {
    fn name(&self) -> &'static str {
        "squared"
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        0.5 * (t - y) * (t - y)
    }
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        t - y
    }
    #[inline]
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        let e = t - y;
        (0.5 * e * e, e)
    }
    fn lipschitz(&self, feature_bound: f64, radius: f64) -> f64 {
        feature_bound * (feature_bound * radius + self.label_bound)
    }
    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound
    }
}

/// Huber loss of the residual e = t − y with threshold δ > 0: e²/2 for |e| ≤ δ, δ|e| − δ²/2
/// otherwise. G = δX for any label (robust to heavy-tailed targets), β = X².
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Huber {
    pub delta: f64,
}

impl GlmLoss for Huber {
    fn name(&self) -> &'static str {
        "huber"
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        let e = (t - y).abs();
        if e <= self.delta {
            0.5 * e * e
        } else {
            self.delta * e - 0.5 * self.delta * self.delta
        }
    }
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        (t - y).clamp(-self.delta, self.delta)
    }
    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        self.delta * feature_bound
    }
    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound
    }
}

/// Absolute loss φ(t, y) = |t − y| (least absolute deviations). G = X; not smooth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Absolute;

impl GlmLoss for Absolute {
    fn name(&self) -> &'static str {
        "absolute"
    }
    #[inline]
    fn value(&self, t: f64, y: f64) -> f64 {
        (t - y).abs()
    }
    /// At t = y the subgradient 0 is returned.
    #[inline]
    fn derivative(&self, t: f64, y: f64) -> f64 {
        let e = t - y;
        if e > 0.0 {
            1.0
        } else if e < 0.0 {
            -1.0
        } else {
            0.0
        }
    }
    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }
    fn smoothness(&self, _feature_bound: f64) -> f64 {
        f64::INFINITY
    }
}
