//! A deterministic accuracy certificate for **non-smooth** ERM (hinge, absolute loss): the Fenchel
//! duality gap at a given primal point, with a dual point improved by stochastic dual coordinate
//! ascent (SDCA, Shalev-Shwartz & Zhang 2013).
//!
//! Used by Lowy & Razaviyayn 2021, Algorithm 3 (the stochastic subgradient method) inside output perturbation:
//! the solver's weighted average ŵ is only accurate in expectation, so the release waits until this
//! certificate proves F(ŵ) − F* ≤ α **surely**, hence ‖ŵ − w*‖ ≤ √(2α/μ) = ρ (μ-strong convexity
//! of F); the gradient-mapping certificate of the parent module needs a smooth loss.
//!
//! # Why the gap bounds F(ŵ) − F*
//! F(u) = (1/n)Σ φ(⟨xᵢ, u⟩, yᵢ) + g(u), g = λ₁‖·‖₁ + (λ₂/2)‖·‖² + I_W, λ₂ > 0. For φ = hinge and
//! every αᵢ with αᵢyᵢ ∈ [0, 1], and for φ = absolute and αᵢ ∈ [−1, 1], φ(t, yᵢ) ≥ yᵢαᵢ − αᵢt. Hence
//! for every u, F(u) ≥ (1/n)Σ yᵢαᵢ − ⟨v, u⟩ + g(u) ≥ D(α) := (1/n)Σ yᵢαᵢ − g*(v), v = (1/n)Σ αᵢxᵢ,
//! so F* ≥ D(α) and F(ŵ) − F* ≤ F(ŵ) − D(α) for **any** feasible α (weak duality; the same
//! certificate as [`crate::reference`]'s dual solver). The ascent only makes the bound tighter; its
//! correctness does not depend on it. g* is evaluated in closed form by the domain.
//!
//! # The ascent
//! g is λ₂-strongly convex, so g* is (1/λ₂)-smooth with ∇g*(v) = prox_{(λ₁‖·‖₁+I_W)/λ₂}(v/λ₂) =: w(v),
//! and D(α + t·eᵢ) ≥ D(α) + t(yᵢ − ⟨xᵢ, w(v)⟩)/n − t²‖xᵢ‖²/(2λ₂n²). Each coordinate step maximises
//! this lower model over the box (SDCA's closed form), so D never decreases. Coordinates are swept
//! in a fixed cyclic order (no randomness). The dual starts from αᵢ = −φ'(⟨xᵢ, ŵ⟩, yᵢ), the
//! subgradient coefficients at the first point certified.
//!
//! # Floating point
//! The computed gap gets the allowance (n + d + 8)·ε_mach·M, M the sum of the magnitudes of the
//! summed terms (recursive summation of n terms errs by at most ≈ n·ε_mach·M).

use crate::error::{Error, Result};
use crate::linalg::{axpy, dot};
use crate::loss::{Glm, GlmLoss, Wrap};
use crate::objective::Objective;

/// Dual state of the certificate for one objective.
pub struct DualCertificate {
    glm: Glm,
    alpha: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// v = (1/n)Σ αᵢxᵢ, maintained incrementally during the ascent and recomputed for the gap.
    v: Vec<f64>,
    /// w(v) = ∇g*(v).
    w: Vec<f64>,
    buf: Vec<f64>,
    started: bool,
}

/// One evaluation of the certificate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualGap {
    /// F(ŵ).
    pub value: f64,
    /// D(α) ≤ F*.
    pub dual: f64,
    /// F(ŵ) − D(α) plus the rounding allowance: a sure upper bound on F(ŵ) − F*.
    pub gap: f64,
}

impl DualCertificate {
    /// For an ERM objective with the hinge or absolute loss (no wrap) and λ₂ > 0; anything else is
    /// refused (reads the declared loss and regulariser, never the data).
    pub fn new(obj: &Objective) -> Result<Self> {
        let glm = match obj.loss() {
            Some(loss)
                if loss.wrap == Wrap::None
                    && matches!(loss.glm, Glm::Hinge | Glm::Absolute { .. }) =>
            {
                loss.glm
            }
            _ => {
                return Err(Error::invalid(
                    "loss",
                    "the hinge or absolute loss (ERM) for the stochastic subgradient method: its duality-gap certificate is implemented for those; smooth losses use SGD with the gradient-mapping certificate",
                    "another loss",
                ));
            }
        };
        if obj.regulariser().l2.is_nan() || obj.regulariser().l2 <= 0.0 {
            return Err(Error::invalid(
                "regularizer.l2",
                "> 0 (the duality-gap certificate needs strong convexity)",
                obj.regulariser().l2,
            ));
        }
        let (n, d) = (obj.data().n(), obj.dim());
        let (lo, hi): (Vec<f64>, Vec<f64>) = match glm {
            Glm::Hinge => obj
                .data()
                .labels()
                .iter()
                .map(|&y| (y.min(0.0), y.max(0.0)))
                .unzip(),
            _ => (vec![-1.0; n], vec![1.0; n]),
        };
        Ok(Self {
            glm,
            alpha: vec![0.0; n],
            lo,
            hi,
            v: vec![0.0; d],
            w: vec![0.0; d],
            buf: vec![0.0; d],
            started: false,
        })
    }

    /// v ← (1/n)Σ αᵢxᵢ from scratch (one pass), then w ← ∇g*(v).
    fn refresh(&mut self, obj: &Objective) {
        let d = obj.dim();
        let n = obj.n() as f64;
        self.v.fill(0.0);
        for (xi, ai) in obj.data().matrix_slice().chunks_exact(d).zip(&self.alpha) {
            if *ai != 0.0 {
                axpy(*ai / n, xi, &mut self.v);
            }
        }
        self.update_w(obj);
    }

    fn update_w(&mut self, obj: &Objective) {
        let reg = obj.regulariser();
        for (w, v) in self.w.iter_mut().zip(&self.v) {
            *w = v / reg.l2;
        }
        obj.domain().prox_l1(&mut self.w, reg.l1 / reg.l2);
    }

    /// One cyclic SDCA sweep over the n coordinates (one pass over the data).
    fn ascend(&mut self, obj: &Objective) {
        let d = obj.dim();
        let data = obj.data();
        let n = obj.n() as f64;
        let l2 = obj.regulariser().l2;
        for (i, xi) in data.matrix_slice().chunks_exact(d).enumerate() {
            let sq = dot(xi, xi);
            if sq == 0.0 {
                continue;
            }
            let y = data.labels()[i];
            let step = n * l2 * (y - dot(xi, &self.w)) / sq;
            let next = (self.alpha[i] + step).clamp(self.lo[i], self.hi[i]);
            let delta = next - self.alpha[i];
            if delta != 0.0 {
                self.alpha[i] = next;
                axpy(delta / n, xi, &mut self.v);
                self.update_w(obj);
            }
        }
    }

    /// Evaluates the certificate at `w_hat` after `sweeps` ascent sweeps (the first call starts the
    /// dual at the subgradient coefficients of `w_hat`). Cost: `sweeps` + 2 passes.
    pub fn evaluate(&mut self, obj: &Objective, w_hat: &[f64], sweeps: usize) -> DualGap {
        let d = obj.dim();
        let data = obj.data();
        if !self.started {
            for (i, xi) in data.matrix_slice().chunks_exact(d).enumerate() {
                let a = -self.glm.derivative(dot(xi, w_hat), data.labels()[i]);
                self.alpha[i] = a.clamp(self.lo[i], self.hi[i]);
            }
            self.started = true;
        }
        self.refresh(obj);
        for _ in 0..sweeps {
            self.ascend(obj);
        }
        // Recompute v exactly for the bound (the ascent updated it incrementally).
        self.refresh(obj);
        let n = obj.n() as f64;
        let reg = obj.regulariser();
        let value = obj.value(w_hat);
        let (ya, ya_mag) = data
            .labels()
            .iter()
            .zip(&self.alpha)
            .fold((0.0, 0.0), |(s, m), (y, a)| (s + y * a, m + (y * a).abs()));
        let conj = obj
            .domain()
            .conjugate(&self.v, reg.l1, reg.l2, &mut self.buf);
        let dual = ya / n - conj;
        // Hinge/absolute values and the regulariser are ≥ 0, so |F| is the magnitude of its terms.
        let magnitude = value.abs() + ya_mag / n + conj.abs();
        let allowance = (data.n() + d + 8) as f64 * f64::EPSILON * magnitude;
        DualGap {
            value,
            dual,
            gap: value - dual + allowance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, clip_features, generate_classification};
    use crate::domain::DomainKind;
    use crate::loss::{Loss, Regulariser};
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn hinge(domain: DomainKind, l1: f64) -> Objective {
        let spec = ClassificationSpec {
            n: 200,
            d: 3,
            feature_scale: 1.0,
            signal: 3.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(11, Stream::Data)).unwrap();
        clip_features(&mut data, 1.0);
        Objective::with_loss(
            Arc::new(data),
            Loss::erm(Glm::Hinge),
            Regulariser::elastic(l1, 0.05),
            domain.boxed(),
            1.0,
        )
        .unwrap()
    }

    #[test]
    fn the_gap_bounds_the_excess_and_closes_at_the_optimum() {
        // At the certified reference optimum, enough sweeps close the gap below 1e-6; at any
        // point the gap is ≥ F(point) − F* (weak duality), checked against the reference value.
        for (domain, l1) in [
            (DomainKind::L2Ball { radius: 5.0 }, 0.0),
            (DomainKind::L2Ball { radius: 0.3 }, 0.0),
            (DomainKind::Unconstrained, 0.01),
        ] {
            let obj = hinge(domain, l1);
            let r = reference::solve(&obj, 1e-12, 200_000).unwrap();
            let f_star_low = r.value - r.gap_bound;
            let mut cert = DualCertificate::new(&obj).unwrap();
            let g = cert.evaluate(&obj, &r.w, 400);
            assert!(g.gap < 1e-6, "{domain:?}: {g:?}");
            assert!(g.dual <= r.value + 1e-12, "{g:?}");
            let mut rng = seeded(3, Stream::Noise);
            for _ in 0..20 {
                let mut p = r.w.clone();
                let mut z = vec![0.0; 3];
                crate::noise::fill_gaussian(&mut rng, 0.2, &mut z);
                axpy(1.0, &z, &mut p);
                obj.domain().project(&mut p);
                let g = DualCertificate::new(&obj).unwrap().evaluate(&obj, &p, 3);
                assert!(g.gap >= obj.value(&p) - f_star_low - 1e-12, "{g:?}");
            }
        }
    }

    #[test]
    fn smooth_losses_and_missing_ridge_are_refused() {
        let obj = hinge(DomainKind::L2Ball { radius: 1.0 }, 0.0);
        let logistic = Objective::with_loss(
            Arc::new(obj.data().clone()),
            Loss::erm(Glm::Logistic),
            Regulariser::ridge(0.1),
            DomainKind::L2Ball { radius: 1.0 }.boxed(),
            1.0,
        )
        .unwrap();
        assert_eq!(
            DualCertificate::new(&logistic).err().unwrap().field(),
            Some("loss")
        );
        let flat = Objective::with_loss(
            Arc::new(obj.data().clone()),
            Loss::erm(Glm::Hinge),
            Regulariser::ridge(0.0),
            DomainKind::L2Ball { radius: 1.0 }.boxed(),
            1.0,
        )
        .unwrap();
        assert_eq!(
            DualCertificate::new(&flat).err().unwrap().field(),
            Some("regularizer.l2")
        );
    }
}
