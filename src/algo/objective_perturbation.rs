//! Objective perturbation for ℓ2-regularised logistic regression: the method of diffprivlib's
//! `LogisticRegression`, a baseline for the gradient-perturbation family.
//!
//! # Algorithm
//! Chaudhuri, Monteleoni & Sarwate (2011), "Differentially private empirical risk minimization",
//! JMLR 12, Algorithm 2 (Theorem 9), for J(w) = (1/n) Σᵢ ℓ(yᵢ⟨w, xᵢ⟩) + (Λ/2)‖w‖², written for a
//! declared feature bound R (the paper takes R = 1; substituting x = R x′, v = R w gives the form
//! below, every constant scaled by R or R²):
//!
//! 1. ε′ = ε − 2 ln(1 + cR²/(nΛ))   (the paper's ln(1 + 2c/(nΛ) + c²/(n²Λ²)) at R = 1);
//! 2. if ε′ > 0: Δ = 0; otherwise Δ = cR²/(n(e^{ε/4} − 1)) − Λ and ε′ = ε/2;
//! 3. draw b with density ∝ exp(−ε′‖b‖/(2R)) (‖b‖ ~ Gamma(d, 2R/ε′), direction uniform);
//! 4. release w_priv = argmin_w J(w) + ⟨b, w⟩/n + (Δ/2)‖w‖².
//!
//! Step 4 is solved here by Nesterov's accelerated gradient method for strongly convex functions
//! (η = 1/β, momentum (√κ − 1)/(√κ + 1), β = cR² + Λ + Δ, μ = Λ + Δ), one iteration per
//! [`PrivateAlgorithm::step`], until ‖∇‖ ≤ `tolerance` or `max_iters`.
//!
//! # Assumptions (checked at construction, from the configuration alone)
//! - The loss is the logistic loss: convex, twice differentiable, |ℓ′| ≤ 1, 0 ≤ ℓ″ ≤ c = 1/4
//!   (Theorem 9's conditions). Losses with unbounded ℓ′ (squared) or without a second derivative
//!   (hinge) are refused: the privacy proof needs the change of variables b ↦ w_priv to be a
//!   bijection with a bounded Jacobian ratio, which uses ℓ″ ≤ c and rank-one Hessians.
//! - The regulariser is ridge only, with Λ = λ₂ > 0 (the "required regulariser": it makes the
//!   minimiser unique and bounds the Jacobian ratio); an ℓ1 term is refused.
//! - The domain is unconstrained (Theorem 9 is for R^d; a constrained version is Kifer, Smith &
//!   Thakurta 2012, Theorem 1, not implemented here).
//! - Features are clipped to the declared bound R before the run (‖x‖ ≤ R, DESIGN.md §5 rule 1).
//!
//! # Privacy
//! Pure ε-DP under **replace-one** (the paper's neighbouring relation: datasets differing in one
//! entry), for the **exact** minimiser. The ε split: ε − ε′ pays for the data-dependent Jacobian of
//! b ↦ w_priv, ε′ for the noise; when the regulariser is too weak for ε′ > 0 the extra ridge Δ
//! restores it at ε′ = ε/2. The release here is a numerical minimiser to ‖∇‖ ≤ `tolerance`
//! (default 1e-10); its distance to the exact one is ≤ tolerance/μ, a caveat in the ledger
//! (DESIGN.md §5 rule 3 asks for a certificate, and the gradient norm is that certificate).
//! Its iteration count depends on the data, but only the final point is released.
//!
//! # Utility
//! CMS11 Theorem 18: with probability 1 − δ′ the excess regularised risk is
//! O(d² ln²(d/δ′) R² / (n² ε² Λ)) (for fixed Λ, ignoring c); seed 002 Table 1 quotes O(d/(n²ε²)).
//!
//! # Reference
//! Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2 and Theorem 9; Kifer, Smith & Thakurta 2012
//! (the constrained and Gaussian variants); seed 002 (`../shared/seeds/002_*.txt`) Table 1, refs
//! 8, 9 and 21; diffprivlib `models/logistic_regression.py` and `mechanisms/vector.py` (the same
//! ε split in the sum form, with Λ = 1/C). No digest correction applies (the method is outside
//! seed 002). Note: diffprivlib's `Vector` subtracts 2 ln(1 + c·R/Λ) (function_sensitivity ×
//! data_norm), whereas the Hessian of ℓ(y⟨w, x⟩) is ℓ″·xxᵀ with eigenvalue up to cR²; the two agree
//! at R = 1 only. We use cR², the value the change of variables above gives.

use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::loss::{Glm, Loss, Wrap};
use crate::noise::L2Laplace;
use crate::objective::Objective;
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation, check_epsilon};
use crate::rng::DpRng;

use super::{PrivateAlgorithm, StepReport};

/// The logistic loss's bound on ℓ″.
pub const LOGISTIC_CURVATURE: f64 = 0.25;

/// The algorithm card (one paragraph for the page; the preview is [`epsilon_split`] and
/// [`EpsilonSplit::noise_scale`], the theory curve
/// [`crate::theory::gradient_perturbation::objective_perturbation_bound`]).
pub const DESCRIPTION: &str = "Objective perturbation (Chaudhuri, Monteleoni & Sarwate 2011, \
Algorithm 2; the method of diffprivlib's logistic regression; seed 002 Table 1 compares \
against it): a random linear term is added to the ridge-regularised logistic objective, which is \
then minimised. Assumptions: the logistic loss, a ridge term, no constraint, features clipped to \
the declared bound. Guarantee: pure ε-DP under replace-one, for the exact minimiser; part of ε \
pays for the noise and part for the change of variables. The plot shows the solver converging \
to the perturbed minimiser, whose excess risk shrinks like 1/(nε)² (dashed: the bound).";

/// The declared inputs of objective perturbation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectivePerturbationConfig {
    /// Target ε (pure DP, replace-one).
    pub epsilon: f64,
    /// Stop when the perturbed objective's gradient norm is ≤ this.
    pub tolerance: f64,
    /// Iteration cap of the solver.
    pub max_iters: usize,
}

impl Default for ObjectivePerturbationConfig {
    fn default() -> Self {
        Self {
            epsilon: 1.0,
            tolerance: 1e-10,
            max_iters: 100_000,
        }
    }
}

/// The ε split of CMS11 Algorithm 2: the noise's ε′ and the extra ridge Δ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpsilonSplit {
    /// ε′ spent on the noise vector b.
    pub epsilon_noise: f64,
    /// Extra ridge Δ ≥ 0 added to the objective.
    pub extra_ridge: f64,
}

impl EpsilonSplit {
    /// The scale 2R/ε′ of the noise's norm (‖b‖ ~ Gamma(d, 2R/ε′)), for feature bound R.
    pub fn noise_scale(&self, feature_bound: f64) -> f64 {
        2.0 * feature_bound / self.epsilon_noise
    }
}

/// Steps 1–2 of Algorithm 2 for n records, regulariser Λ > 0, feature bound R, curvature bound c.
pub fn epsilon_split(
    epsilon: f64,
    n: usize,
    lambda: f64,
    feature_bound: f64,
    curvature: f64,
) -> Result<EpsilonSplit> {
    check_epsilon(epsilon)?;
    if n == 0 {
        return Err(Error::invalid("n", "at least 1 record", 0));
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(Error::invalid(
            "l2",
            "a ridge regulariser λ > 0 (objective perturbation needs it)",
            lambda,
        ));
    }
    let cr2 = curvature * feature_bound * feature_bound;
    let n = n as f64;
    let eps_prime = epsilon - 2.0 * libm::log1p(cr2 / (n * lambda));
    if eps_prime > 0.0 {
        Ok(EpsilonSplit {
            epsilon_noise: eps_prime,
            extra_ridge: 0.0,
        })
    } else {
        Ok(EpsilonSplit {
            epsilon_noise: epsilon / 2.0,
            extra_ridge: cr2 / (n * libm::expm1(epsilon / 4.0)) - lambda,
        })
    }
}

/// Objective perturbation state: the noise vector (drawn at construction), the solver's iterates.
pub struct ObjectivePerturbation {
    config: ObjectivePerturbationConfig,
    guarantee: Guarantee,
    split: EpsilonSplit,
    seeded: bool,
    n: usize,
    /// b/n, the linear term's gradient.
    linear: Vec<f64>,
    w: Vec<f64>,
    y: Vec<f64>,
    w_prev: Vec<f64>,
    grad: Vec<f64>,
    step_size: f64,
    momentum: f64,
    t: usize,
    done: bool,
}

impl ObjectivePerturbation {
    /// Checks the conditions, splits ε and draws b, all from the configuration and the declared
    /// constants (n, Λ, R, the loss) before reading any record; starts the solver at 0.
    pub fn new(
        config: ObjectivePerturbationConfig,
        objective: &Objective,
        mut rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        match objective.loss() {
            Some(Loss {
                glm: Glm::Logistic,
                wrap: Wrap::None,
            }) => {}
            other => {
                return Err(Error::invalid(
                    "loss",
                    "the logistic loss (objective perturbation needs |ℓ′| ≤ 1 and a bounded ℓ″)",
                    other.map_or("an unchecked boxed loss".to_string(), |l| {
                        format!("{:?}", l.glm)
                    }),
                ));
            }
        }
        let reg = objective.regularizer();
        if reg.l1 != 0.0 {
            return Err(Error::invalid(
                "l1",
                "0 (objective perturbation's proof needs a twice-differentiable objective)",
                reg.l1,
            ));
        }
        let d = objective.dim();
        if objective.domain().diameter_in(d).is_finite() {
            return Err(Error::invalid(
                "domain",
                "unconstrained (CMS11 Theorem 9 is for R^d)",
                "a bounded domain",
            ));
        }
        if !(config.tolerance.is_finite() && config.tolerance > 0.0) {
            return Err(Error::invalid(
                "tolerance",
                "a finite number > 0",
                config.tolerance,
            ));
        }
        if config.max_iters == 0 {
            return Err(Error::invalid("max_iters", "at least 1", 0));
        }
        // The declared n (`Objective::n`), never the file's row count.
        let n = objective.n();
        let r = objective.feature_bound();
        let split = epsilon_split(config.epsilon, n, reg.l2, r, LOGISTIC_CURVATURE)?;
        let mut linear = vec![0.0; d];
        L2Laplace::new(split.noise_scale(r))?.fill(&mut rng, &mut linear)?;
        linear.iter_mut().for_each(|v| *v /= n as f64);
        let beta = LOGISTIC_CURVATURE * r * r + reg.l2 + split.extra_ridge;
        let mu = reg.l2 + split.extra_ridge;
        let root = libm::sqrt(beta / mu);
        let guarantee = Guarantee {
            epsilon: config.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: format!(
                "objective perturbation (CMS11 Alg. 2): ε′ = {:.4} on the noise, the rest on the Jacobian, extra ridge Δ = {:.3e}",
                split.epsilon_noise, split.extra_ridge
            ),
        };
        Ok(Self {
            config,
            guarantee,
            split,
            seeded,
            n,
            linear,
            w: vec![0.0; d],
            y: vec![0.0; d],
            w_prev: vec![0.0; d],
            grad: vec![0.0; d],
            step_size: 1.0 / beta,
            momentum: (root - 1.0) / (root + 1.0),
            t: 0,
            done: false,
        })
    }

    /// The ε split used.
    pub fn split(&self) -> EpsilonSplit {
        self.split
    }

    /// Multiplies the drawn noise by `factor` (the audit's planted "noise halved" bug only).
    pub(crate) fn scale_noise_for_audit(&mut self, factor: f64) {
        self.linear.iter_mut().for_each(|v| *v *= factor);
    }

    /// ‖b‖/n, the norm of the perturbation's gradient.
    pub fn noise_norm(&self) -> f64 {
        norm2(&self.linear)
    }

    /// Gradient of the perturbed objective at `w` into `grad`; returns J(w) (without the noise term).
    fn perturbed_gradient(&mut self, objective: &Objective, at_y: bool) -> f64 {
        let point = if at_y { &self.y } else { &self.w };
        let value = objective.value_and_gradient(point, &mut self.grad);
        for ((g, l), p) in self.grad.iter_mut().zip(&self.linear).zip(point) {
            *g += l + self.split.extra_ridge * p;
        }
        value
    }
}

impl PrivateAlgorithm for ObjectivePerturbation {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let caveats = vec![
            "features clipped to the declared bound R; logistic loss (|ℓ′| ≤ 1, ℓ″ ≤ 1/4); ridge Λ > 0"
                .to_string(),
            format!(
                "the proof is for the exact minimiser; the release solves to ‖∇‖ ≤ {:e}",
                self.config.tolerance
            ),
        ];
        let mechanism = format!(
            "objective perturbation (Chaudhuri–Monteleoni–Sarwate 2011, Algorithm 2), ε′ = {:.4}, Δ = {:.3e}",
            self.split.epsilon_noise, self.split.extra_ridge
        );
        let ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        match PureDp::new(self.guarantee.epsilon, Relation::ReplaceOne) {
            Ok(p) => ledger.with_spend("one perturbed objective", PrivacyLoss::Pure(p)),
            Err(_) => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.done || objective.dim() != self.w.len() || objective.n() != self.n {
            return None;
        }
        // Nesterov (constant momentum, strongly convex): y_t = w_t + m(w_t − w_{t−1}),
        // w_{t+1} = y_t − η∇(y_t). The report is at w_t.
        let loss = self.perturbed_gradient(objective, false);
        let grad_norm = norm2(&self.grad);
        let report = StepReport {
            t: self.t,
            grad_evals: (2 * self.t + 1) as f64,
            loss,
            noise_norm: norm2(&self.linear),
            grad_norm,
            epsilon_spent: self.guarantee.epsilon,
        };
        if grad_norm <= self.config.tolerance || self.t >= self.config.max_iters {
            self.done = true;
            return Some(report);
        }
        for ((y, w), p) in self.y.iter_mut().zip(&self.w).zip(&self.w_prev) {
            *y = w + self.momentum * (w - p);
        }
        self.perturbed_gradient(objective, true);
        self.w_prev.copy_from_slice(&self.w);
        for ((w, y), g) in self.w.iter_mut().zip(&self.y).zip(&self.grad) {
            *w = y - self.step_size * g;
        }
        self.t += 1;
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.w
    }

    fn is_done(&self) -> bool {
        self.done
    }

    fn grad_evals(&self) -> f64 {
        2.0 * self.t as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::{L2Ball, Unconstrained};
    use crate::loss::Regularizer;
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn objective(loss: Loss, reg: Regularizer, bounded: bool) -> Result<Objective> {
        let spec = ClassificationSpec {
            n: 1000,
            d: 3,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(2, Stream::Data)).unwrap();
        crate::data::clip_features(&mut data, 1.0);
        let domain: Box<dyn crate::domain::Domain> = if bounded {
            Box::new(L2Ball { radius: 3.0 })
        } else {
            Box::new(Unconstrained)
        };
        Objective::with_loss(Arc::new(data), loss, reg, domain, 1.0)
    }

    fn logistic() -> Loss {
        Loss {
            glm: Glm::Logistic,
            wrap: Wrap::None,
        }
    }

    #[test]
    fn epsilon_split_follows_algorithm_2() {
        // n = 1000, Λ = 0.01, R = 1, c = 1/4: cR²/(nΛ) = 0.025, ε′ = 1 − 2 ln 1.025 = 0.950614 77…
        let s = epsilon_split(1.0, 1000, 0.01, 1.0, 0.25).unwrap();
        assert!(
            (s.epsilon_noise - 0.950_614_774_819_257).abs() < 1e-9,
            "{s:?}"
        );
        assert_eq!(s.extra_ridge, 0.0);
        // n = 10, Λ = 1e-3, ε = 0.1: ε′ = 0.1 − 2 ln 26 < 0, so ε′ = 0.05 and
        // Δ = 0.25/(10(e^{0.025} − 1)) − 0.001 = 0.986 552…
        let s = epsilon_split(0.1, 10, 1e-3, 1.0, 0.25).unwrap();
        assert_eq!(s.epsilon_noise, 0.05);
        assert!((s.extra_ridge - 0.986_552_1).abs() < 1e-6, "{s:?}");
        // R scales c by R²: R = 2 with Λ = 0.04 is the R = 1, Λ = 0.01 case.
        let s2 = epsilon_split(1.0, 1000, 0.04, 2.0, 0.25).unwrap();
        assert!((s2.epsilon_noise - 0.950_614_774_819_257).abs() < 1e-9);
        assert_eq!(
            epsilon_split(1.0, 10, 0.0, 1.0, 0.25).unwrap_err().field(),
            Some("l2")
        );
    }

    #[test]
    fn without_noise_it_converges_to_the_reference_optimum() {
        let obj = objective(logistic(), Regularizer::ridge(0.01), false).unwrap();
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        let mut alg = ObjectivePerturbation::new(
            ObjectivePerturbationConfig::default(),
            &obj,
            seeded(0, Stream::Noise),
            true,
        )
        .unwrap();
        assert_eq!(alg.split().extra_ridge, 0.0);
        alg.linear.fill(0.0);
        while alg.step(&obj).is_some() {}
        assert!(alg.is_done() && alg.t < 10_000, "{} iterations", alg.t);
        let excess = obj.value(alg.current()) - reference.value;
        assert!(excess.abs() < 1e-12, "excess {excess}");
    }

    #[test]
    fn the_noise_norm_is_gamma_with_the_split_scale() {
        // n‖b/n‖ = ‖b‖ ~ Gamma(d = 3, 2R/ε′) with ε′ = 0.9506: mean 6.312, sd 3.64; the mean of
        // 2000 draws has sd 0.081, so ±0.4 is a 4.9-sd window (a scale from ε instead of ε′ is
        // 5% off: 0.3 — caught only with more draws; one from ε/2 or R² ≠ R would be far off).
        let obj = objective(logistic(), Regularizer::ridge(0.01), false).unwrap();
        let mean = (0..2000)
            .map(|seed| {
                ObjectivePerturbation::new(
                    ObjectivePerturbationConfig::default(),
                    &obj,
                    seeded(seed, Stream::Noise),
                    true,
                )
                .unwrap()
                .noise_norm()
                    * 1000.0
            })
            .sum::<f64>()
            / 2000.0;
        let expected = 3.0 * 2.0 / 0.950_614_774_819_257;
        assert!((mean - expected).abs() < 0.4, "{mean} vs {expected}");
    }

    #[test]
    fn conditions_are_checked_before_any_data() {
        let cfg = ObjectivePerturbationConfig::default();
        let field = |obj: Objective| {
            ObjectivePerturbation::new(cfg, &obj, seeded(0, Stream::Noise), true)
                .err()
                .and_then(|e| e.field().map(str::to_string))
        };
        let squared = Loss {
            glm: Glm::Squared { label_bound: 1.0 },
            wrap: Wrap::None,
        };
        // Squared loss needs labels in range, which ±1 are.
        assert_eq!(
            field(objective(squared, Regularizer::ridge(0.01), false).unwrap()).as_deref(),
            Some("loss")
        );
        assert_eq!(
            field(objective(logistic(), Regularizer::ridge(0.0), false).unwrap()).as_deref(),
            Some("l2")
        );
        assert_eq!(
            field(objective(logistic(), Regularizer { l1: 0.1, l2: 0.01 }, false).unwrap())
                .as_deref(),
            Some("l1")
        );
        assert_eq!(
            field(objective(logistic(), Regularizer::ridge(0.01), true).unwrap()).as_deref(),
            Some("domain")
        );
        let ok = objective(logistic(), Regularizer::ridge(0.01), false).unwrap();
        let ledger = ObjectivePerturbation::new(cfg, &ok, seeded(0, Stream::Noise), false)
            .unwrap()
            .ledger();
        assert_eq!(ledger.guarantee.delta, 0.0);
        assert_eq!(ledger.guarantee.relation, Relation::ReplaceOne);
        assert!(ledger.is_private());
    }
}
