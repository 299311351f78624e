//! The max-loss objective F(w) = max_i f(w; zᵢ) + r(w): Lowy & Razaviyayn 2021's example of a general
//! **non-ERM** F (as τ → ∞ only the bound 2L/μ holds: Lowy & Razaviyayn 2021, Section 5.1).
//!
//! Built from an ERM [`Objective`] (its records, GLM loss, regulariser and domain), it is a
//! [`FiniteSum`] for the subgradient method (Lowy & Razaviyayn 2021, Algorithm 2), the solver the paper pairs with
//! the non-smooth non-ERM class F_{μ,L,R} (Cor 3.1). F is non-smooth (a maximum) whatever the loss,
//! so no gradient-mapping certificate applies; the sure accuracy is Prop 3.2's.
//!
//! Constants, for the privacy argument: a maximum of L-Lipschitz functions is L-Lipschitz, so
//! F(·, X′) − F(·, X) is 2L-Lipschitz for neighbours and Lemma B.2 gives Δ_F ≤ 2L/μ (Prop 2.2,
//! non-ERM). The bound is attained (a pair is in the tests), n times the ERM sensitivity 2L/(μn):
//! one record can be *the* maximum. The subgradients are bounded by L + μR on B(0, R) (ridge
//! included), the L_F of Prop 3.2.
//!
//! Non-private: the solver reads the data.

use crate::error::{Error, Result};
use crate::linalg::{axpy, dot};
use crate::loss::{Glm, GlmLoss, Wrap};
use crate::objective::{Objective, Rise};

use super::FiniteSum;

/// max_i φ(⟨xᵢ, w⟩, yᵢ) + λ₁‖w‖₁ + (λ₂/2)‖w‖² over the objective's domain.
pub struct MaxLoss<'a> {
    obj: &'a Objective,
    glm: Glm,
}

impl<'a> MaxLoss<'a> {
    /// The max-loss form of `obj`, whose loss must be a plain GLM loss (no TERM or adversarial
    /// wrap: those are objectives of their own).
    pub fn new(obj: &'a Objective) -> Result<Self> {
        match obj.loss() {
            Some(loss) if loss.wrap == Wrap::None => Ok(Self { obj, glm: loss.glm }),
            _ => Err(Error::invalid(
                "loss",
                "a plain GLM loss (no TERM or adversarial wrap) for the max-loss objective",
                "a wrapped loss",
            )),
        }
    }

    /// (max_i f(w; zᵢ), the first index attaining it, and with `rise` the maximum's rise above
    /// the origin max_i f(w; zᵢ) − max_i f(0; zᵢ), NaN without): one pass.
    ///
    /// The rise is max_i [(f(0; zᵢ) − M₀) + riseᵢ], M₀ = max_i f(0; zᵢ), riseᵢ = f(w; zᵢ) − f(0; zᵢ)
    /// ([`Glm::rise`]): the record on top at the origin has offset exactly 0, so its per-record
    /// difference enters as it is, never as the difference of two rounded maxima.
    fn worst(&self, w: &[f64], rise: bool) -> (f64, usize, f64) {
        let d = self.obj.dim();
        let data = self.obj.data();
        let origin = if rise {
            data.labels()
                .iter()
                .map(|&y| self.glm.value(0.0, y))
                .fold(f64::NEG_INFINITY, f64::max)
        } else {
            f64::NAN
        };
        let mut best = (f64::NEG_INFINITY, 0);
        let mut top = f64::NEG_INFINITY;
        for (i, (xi, y)) in data
            .matrix_slice()
            .chunks_exact(d)
            .zip(data.labels())
            .enumerate()
        {
            let t = dot(xi, w);
            let v = self.glm.value(t, *y);
            // `>` keeps the first maximiser; a NaN value never wins (and F is then NaN below).
            if v > best.0 {
                best = (v, i);
            }
            if rise {
                top = top.max((self.glm.value(0.0, *y) - origin) + self.glm.rise(t, *y, 0.0));
            }
        }
        (best.0, best.1, if rise { top } else { f64::NAN })
    }

    /// F(w).
    pub fn value(&self, w: &[f64]) -> f64 {
        self.worst(w, false).0 + self.obj.regulariser().value(w)
    }

    /// F(w), its rise (when `rise`) and a subgradient (see [`FiniteSum::value_and_gradient`]).
    fn evaluate(&self, w: &[f64], grad: &mut [f64], rise: bool) -> Rise {
        let (worst, k, top) = self.worst(w, rise);
        let reg = self.obj.regulariser();
        grad.fill(0.0);
        if worst.is_finite() {
            let data = self.obj.data();
            let xk = data.features(k);
            axpy(self.glm.derivative(dot(xk, w), data.label(k)), xk, grad);
        }
        axpy(reg.l2, w, grad);
        let r = reg.value(w);
        Rise {
            value: worst + r,
            rise: top + r,
        }
    }
}

impl FiniteSum for MaxLoss<'_> {
    fn dim(&self) -> usize {
        self.obj.dim()
    }
    /// n: one evaluation reads every record (costs are counted in passes).
    fn terms(&self) -> usize {
        self.obj.data().n()
    }
    /// F(w) and a subgradient of the smooth-in-pieces part: φ′(⟨x_k, w⟩, y_k)·x_k + λ₂w for a
    /// maximising record k (an active piece's gradient is a subgradient of the maximum).
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        self.evaluate(w, grad, false).value
    }
    fn rise_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> Rise {
        self.evaluate(w, grad, true)
    }
    /// The maximum is not a finite sum: the "term" is the whole subgradient (stochastic solvers,
    /// which would need an unbiased one-record estimate, are refused for this form).
    fn term_gradient(&self, w: &[f64], _i: usize, grad: &mut [f64]) {
        self.value_and_gradient(w, grad);
    }
    fn prox(&self, eta: f64, w: &mut [f64]) {
        FiniteSum::prox(self.obj, eta, w);
    }
    fn project(&self, w: &mut [f64]) {
        self.obj.domain().project(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::domain::L2Ball;
    use crate::loss::{Loss, Regulariser};
    use std::sync::Arc;

    #[test]
    fn value_and_subgradient_of_the_worst_record() {
        // Absolute loss, records (x, y) = (1, 3), (1, −1), (0, 0): at w = 0.5 the worst is the
        // first (|0.5 − 3| = 2.5), subgradient sign(0.5 − 3)·1 + λ₂w = −1 + 0.05.
        let data = Dataset::from_samples(1, vec![1.0, 1.0, 0.0], vec![3.0, -1.0, 0.0]).unwrap();
        let obj = Objective::with_loss(
            Arc::new(data),
            Loss::erm(Glm::absolute()),
            Regulariser::ridge(0.1),
            Box::new(L2Ball { radius: 5.0 }),
            1.0,
        )
        .unwrap();
        let f = MaxLoss::new(&obj).unwrap();
        let mut g = [0.0];
        let v = f.value_and_gradient(&[0.5], &mut g);
        assert!((v - (2.5 + 0.05 * 0.25)).abs() < 1e-15);
        assert!((g[0] - (-1.0 + 0.05)).abs() < 1e-15);
        // At w = 2 the worst is the second record (|2 + 1| = 3 > 1).
        let v = f.value_and_gradient(&[2.0], &mut g);
        assert!((v - (3.0 + 0.2)).abs() < 1e-15);
        assert!((g[0] - (1.0 + 0.2)).abs() < 1e-15);
        assert_eq!(f.value(&[2.0]), v);
        let tilted = Objective::with_loss(
            Arc::new(obj.data().clone()),
            Loss {
                glm: Glm::absolute(),
                wrap: Wrap::Tilted { tau: 1.0 },
            },
            Regulariser::ridge(0.1),
            Box::new(L2Ball { radius: 5.0 }),
            1.0,
        );
        if let Ok(tilted) = tilted {
            assert_eq!(MaxLoss::new(&tilted).err().unwrap().field(), Some("loss"));
        }
    }

    #[test]
    fn the_maximum_rises_by_per_record_differences_even_with_a_huge_target() {
        // The rise max_i f(w; zᵢ) − max_i f(0; zᵢ) + r(w) is the value's difference on moderate
        // data; with a target of 1e18 the values no longer see w's ridge and the record's
        // movement (F(w) − F(0) = 0 in floating point) while the rise still does.
        let make = |first: f64| {
            let data =
                Dataset::from_samples(1, vec![1.0, 1.0, 0.5], vec![first, -1.0, 0.3]).unwrap();
            Objective::with_loss(
                Arc::new(data),
                Loss::erm(Glm::absolute()),
                Regulariser::ridge(0.1),
                Box::new(L2Ball { radius: 5.0 }),
                1.0,
            )
            .unwrap()
        };
        let mut g = [0.0];
        let (clean, huge) = (make(3.0), make(1e18));
        let f = MaxLoss::new(&clean).unwrap();
        let r = f.rise_and_gradient(&[0.5], &mut g);
        assert!((r.rise - (f.value(&[0.5]) - f.value(&[0.0]))).abs() < 1e-15);
        assert_eq!(r.value, f.value(&[0.5]));
        let f = MaxLoss::new(&huge).unwrap();
        assert_eq!(f.value(&[0.5]) - f.value(&[0.0]), 0.0);
        // |0.5 − 1e18| − |1e18| = −0.5 exactly, plus the ridge 0.1·0.25/2.
        let r = f.rise_and_gradient(&[0.5], &mut g);
        assert_eq!(r.rise, -0.5 + 0.0125);
    }
}
