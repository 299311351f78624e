//! Non-private base solvers ("bring your own algorithm") and the certificate that makes any of them
//! safe to use inside output perturbation.
//!
//! Everything here reads the private data and is **not private**: a base solver's iterates are shown
//! as "non-private internals". Privacy comes from the wrapper (`algo::output_perturbation`),
//! which releases only after [`certify`] has bounded the distance to the exact minimiser, whatever
//! the solver did (Lowy & Razaviyayn 2021; Zhang et al. 2022). So a solver's step sizes,
//! epochs and randomness can be changed freely **without touching privacy**: a wrong constant only
//! costs time.
//!
//! # The certificate
//! Write F = f + h with f the smooth part (data term + (λ₂/2)‖·‖²), m-strongly convex and
//! ℓ-smooth on R^d (m = λ₂, ℓ = declared β of the data term + λ₂), and h = λ₁‖·‖₁ + I_W. For any
//! point x let x⁺ = prox_{h/ℓ}(x − ∇f(x)/ℓ) (the projected/proximal gradient step) and
//! r = ‖x − x⁺‖ (the gradient-mapping norm divided by ℓ). Then, with κ = ℓ/m,
//!
//! ‖x⁺ − w*‖ ≤ (κ − 1)·r   and   ‖x − w*‖ ≤ κ·r.
//!
//! *Proof.* w* is a fixed point of the same map. The prox is non-expansive, so
//! ‖x⁺ − w*‖ ≤ ‖(x − w*) − (∇f(x) − ∇f(w*))/ℓ‖. For f ∈ S_{m,ℓ}, Nesterov (2004, Thm 2.1.12)
//! gives ⟨∇f(x) − ∇f(y), x − y⟩ ≥ mℓ/(m+ℓ)‖x − y‖² + 1/(m+ℓ)‖∇f(x) − ∇f(y)‖²; expanding the
//! square with step 1/ℓ and using ‖∇f(x) − ∇f(y)‖ ≥ m‖x − y‖ (its coefficient is ≤ 0) gives
//! the contraction factor 1 − 1/κ. Then ‖x − w*‖ ≤ r + (1 − 1/κ)‖x − w*‖. ∎
//!
//! This is the "gradient-mapping norm" certificate of docs/PRIVACY.md rule 3. It bounds the
//! distance, which is exactly what the sensitivity argument uses (Lowy & Razaviyayn 2021, Prop 3.1 proof:
//! ‖w_T − w*‖ ≤ √(2α/μ)); it is slightly sharper than the 2ℓr/m of Zhang et al. 2022 because it certifies x⁺ rather than x. `tests::certificate_bounds_hold`
//! checks both inequalities against the certified reference optimum.
//!
//! Checked a second time: re-derived independently (the gradient step is a (1 − 1/κ)-contraction
//! since I − ∇²f/ℓ has spectrum in [0, 1 − 1/κ]); the bound is **attained** (f = (m/2)‖x‖² declared
//! ℓ-smooth: x⁺ = (1 − 1/κ)x, r = ‖x‖/κ), so it cannot be sharpened. It needs m and ℓ valid on
//! R^d (points and gradient steps may leave W) and an exact prox. `crates/core/tests/base/solver_certificate.rs`
//! tries to break it on 400 random quadratics with known w* (box, ball, R^d, ℓ1; κ up to 10³):
//! 148 800 points (every iterate of GD, AGD, SGD, SVRG, Katyusha; extreme eigen-directions at
//! scales 1e-9 to 1e2): max ‖x⁺ − w*‖/((κ − 1)r) = 1 + 2.2e-10, always within the rounding
//! allowance (at most 2.4% of it used).
//!
//! Floating point: the computed x⁺ differs from the exact one by rounding in the gradient pass.
//! [`certify`] adds an allowance 4κ·ε_mach·((n + d)·G/ℓ + ‖x‖ + ‖x⁺‖) to the bound (G the declared
//! Lipschitz constant), the same spirit as [`crate::reference`]'s allowance.
//!
//! # Solvers
//! | solver | iteration | cost per iteration (full passes) | reference |
//! |---|---|---|---|
//! | [`ProjectedGd`] | x ← prox(x − ∇f(x)/ℓ) | 1 (its step *is* the certificate's step) | Lowy & Razaviyayn 2021, §3, Bubeck 2015 Thm 3.10 |
//! | [`ProjectedAgd`] | Nesterov's constant-momentum scheme | 1 (+1 for the certificate) | Lowy & Razaviyayn 2021, Algorithm 4 |
//! | [`Sgd`] | one-sample projected SGD, η_s = 2/(μ(s+1)), weighted average | 1/n (+1 per n steps for the certificate) | Lowy & Razaviyayn 2021, Algorithm 3 (Bubeck's indexing) |
//! | [`Svrg`] | proximal SVRG, one epoch of 2m steps per iteration | 5 (+1 for the certificate) | Xiao & Zhang 2014; Zhang et al. 2022 |
//! | [`SubgradientBest`] | projected subgradient, η_t = 2/(μ(t+1)), best iterate | 1 (fixed count T of Prop 3.2, no certificate) | Lowy & Razaviyayn 2021, Algorithm 2 |
//! | [`Sgd`] as [`SolverKind::StochasticSubgradient`] | the same one-sample step with a subgradient (hinge, absolute) | 1/n (+3 per n steps for the [`dual`] duality-gap certificate) | Lowy & Razaviyayn 2021, Algorithm 3, Cor 3.2 |
//! | [`Katyusha`] | accelerated variance reduction, one epoch of 2m steps per iteration | 5 (+1 for the certificate) | Lowy & Razaviyayn 2021, Algorithm 5 (Allen-Zhu 2018, Alg. 1) |
//!
//! Solvers are written against [`FiniteSum`] (a finite sum plus a prox), so the same code runs on the
//! whole objective (Lowy & Razaviyayn 2021, Algorithm 1, Zhang et al. 2022, Algorithm 1) and on the chunked, centred phase
//! problems of Zhang et al. 2022, Algorithm 2.

mod agd;
mod certified;
pub mod dual;
mod gd;
mod katyusha;
pub mod logistic_pass;
pub mod max_loss;
pub mod newton;
mod sgd;
mod subgradient;
mod svrg;
pub mod work;

pub use agd::ProjectedAgd;
pub use certified::CertifiedRun;
pub use gd::ProjectedGd;
pub use katyusha::Katyusha;
pub use sgd::Sgd;
pub use subgradient::SubgradientBest;
pub use svrg::Svrg;

use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::linalg::{axpy, norm2};
use crate::objective::{Objective, Rise};
use crate::rng::DpRng;

/// What a base solver and the certificate need from a problem: a finite sum of smooth terms plus
/// a prox-friendly part h = λ₁‖·‖₁ + I_W. Implemented by [`Objective`] (all records) and by the
/// phase problems of Zhang et al. 2022, Algorithm 2 (a chunk plus a centred ridge).
pub trait FiniteSum: Sync {
    /// Dimension d.
    fn dim(&self) -> usize;
    /// Number of terms m of the finite sum (records used).
    fn terms(&self) -> usize;
    /// F(w); writes ∇(smooth part)(w) into `grad`. One pass over the m terms.
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64;
    /// F(w) and its rise F(w) − F(0) computed from per-record differences (see
    /// [`Objective::rise`]); writes ∇(smooth part)(w) into `grad` as
    /// [`FiniteSum::value_and_gradient`] does. One pass. Every choice among points by F goes
    /// through the rise, never through differences of values (floating-point absorption: one
    /// huge record would make F constant in w).
    fn rise_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> Rise;
    /// The gradient of term i's share of the smooth part (data term of record i plus the
    /// record-independent regularisers), an unbiased one-sample estimate of the smooth gradient.
    fn term_gradient(&self, w: &[f64], i: usize, grad: &mut [f64]);
    /// w ← prox_{ηh}(w).
    fn prox(&self, eta: f64, w: &mut [f64]);
    /// w ← P_W(w).
    fn project(&self, w: &mut [f64]);
}

impl FiniteSum for Objective {
    fn dim(&self) -> usize {
        Objective::dim(self)
    }
    fn terms(&self) -> usize {
        self.data().n()
    }
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        Objective::value_and_gradient(self, w, grad)
    }
    fn rise_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> Rise {
        Objective::rise(self, w, Some(grad))
    }
    fn term_gradient(&self, w: &[f64], i: usize, grad: &mut [f64]) {
        // Solvers draw i < n; an out-of-range index (a caller bug) yields the regulariser's
        // gradient alone instead of a panic.
        if self.minibatch_gradient(w, &[i], grad).is_err() {
            grad.fill(0.0);
        }
        // The data term divides the records' sum by the declared n (`Objective::with_declared_n`):
        // m/n·∇fᵢ is the unbiased one-record estimate of it (the factor is exactly 1 when m = n).
        if self.n() != self.data().n() {
            let scale = self.data().n() as f64 / self.n() as f64;
            grad.iter_mut().for_each(|g| *g *= scale);
        }
        axpy(self.regulariser().l2, w, grad);
    }
    fn prox(&self, eta: f64, w: &mut [f64]) {
        self.domain().prox_l1(w, eta * self.regulariser().l1);
    }
    fn project(&self, w: &mut [f64]) {
        self.domain().project(w);
    }
}

/// The result of one certificate evaluation at a point x.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Certificate {
    /// F(x).
    pub value: f64,
    /// ‖∇f(x)‖ (gradient of the smooth part).
    pub grad_norm: f64,
    /// r = ‖x − x⁺‖.
    pub residual: f64,
    /// Certified upper bound on ‖x⁺ − w*‖, rounding allowance included.
    pub distance_bound: f64,
}

/// Declared constants the certificate is stated for (never measured from the data).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CertificateConstants {
    /// m: strong convexity of the smooth part (λ₂).
    pub strong_convexity: f64,
    /// ℓ: smoothness of the smooth part (data β + λ₂).
    pub smoothness: f64,
    /// G: declared per-sample Lipschitz constant (only for the rounding allowance).
    pub lipschitz: f64,
}

impl CertificateConstants {
    /// The declared constants of `obj`.
    pub fn of(obj: &Objective) -> Self {
        Self {
            strong_convexity: obj.strong_convexity(),
            smoothness: obj.smoothness(),
            lipschitz: obj.lipschitz(),
        }
    }

    /// κ = ℓ/m.
    pub fn condition(&self) -> f64 {
        self.smoothness / self.strong_convexity
    }
}

/// Evaluates the certificate at `x`: writes ∇f(x) into `grad` and x⁺ into `x_plus`.
/// One full pass over the data.
pub fn certify(
    obj: &dyn FiniteSum,
    constants: &CertificateConstants,
    x: &[f64],
    grad: &mut [f64],
    x_plus: &mut [f64],
) -> Certificate {
    let value = obj.value_and_gradient(x, grad);
    let eta = 1.0 / constants.smoothness;
    prox_step(obj, eta, x, grad, x_plus);
    let residual = crate::linalg::dist2(x, x_plus);
    let kappa = constants.condition();
    let n = obj.terms() as f64;
    let d = obj.dim() as f64;
    let allowance = 4.0
        * kappa
        * f64::EPSILON
        * ((n + d) * constants.lipschitz * eta + norm2(x) + norm2(x_plus));
    Certificate {
        value,
        grad_norm: norm2(grad),
        residual,
        distance_bound: (kappa - 1.0).max(0.0) * residual + allowance,
    }
}

/// out ← prox_{η(λ₁‖·‖₁ + I_W)}(x − η·g).
fn prox_step(obj: &dyn FiniteSum, eta: f64, x: &[f64], g: &[f64], out: &mut [f64]) {
    out.copy_from_slice(x);
    axpy(-eta, g, out);
    obj.prox(eta, out);
}

/// P_W(`start`): every solver's first point.
fn projected_start(obj: &dyn FiniteSum, start: &[f64]) -> Vec<f64> {
    let mut w = start.to_vec();
    obj.project(&mut w);
    w
}

/// The anchor of a variance-reduced method (SVRG, Katyusha): the snapshot x̃, ∇f(x̃), and the
/// buffers of one step's two term gradients, with the generator that draws the terms.
struct Anchor {
    snapshot: Vec<f64>,
    full: Vec<f64>,
    g_x: Vec<f64>,
    g_snap: Vec<f64>,
    rng: DpRng,
}

impl Anchor {
    /// Snapshot at `x`; `seed` keys the sampling of terms.
    fn at(x: &[f64], seed: u64) -> Self {
        let d = x.len();
        Self {
            snapshot: x.to_vec(),
            full: vec![0.0; d],
            g_x: vec![0.0; d],
            g_snap: vec![0.0; d],
            rng: DpRng::seed_from_u64(seed),
        }
    }

    /// ∇f at the snapshot into `full` (one full pass).
    fn full_gradient(&mut self, obj: &dyn FiniteSum) {
        obj.value_and_gradient(&self.snapshot, &mut self.full);
    }

    /// The two gradient evaluations of a variance-reduced step: draws i uniformly from the terms
    /// and writes ∇f_i at the iterate `x` and at the snapshot.
    fn sample(&mut self, obj: &dyn FiniteSum, x: &[f64]) {
        let i = self.rng.random_range(0..obj.terms().max(1));
        obj.term_gradient(x, i, &mut self.g_x);
        obj.term_gradient(&self.snapshot, i, &mut self.g_snap);
    }
}

/// Which base solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// Projected (proximal) gradient descent with step 1/ℓ.
    Gd,
    /// Projected accelerated gradient descent (Nesterov, constant momentum).
    Agd,
    /// One-sample projected stochastic gradient descent with weighted averaging.
    Sgd,
    /// Proximal SVRG (Xiao & Zhang 2014), one epoch per iteration.
    Svrg,
    /// Katyusha (Allen-Zhu 2017/2018), strongly convex version, one epoch per iteration.
    Katyusha,
    /// Projected subgradient method with the best iterate (Lowy & Razaviyayn 2021, Algorithm 2) for non-smooth
    /// losses: stopped by its deterministic iteration count (Prop 3.2), not by the certificate.
    Subgradient,
    /// Projected stochastic subgradient method with the weighted average (Lowy & Razaviyayn 2021, Algorithm 3)
    /// for non-smooth ERM (hinge, absolute): the same iteration as [`SolverKind::Sgd`], released
    /// when the duality-gap certificate of [`dual`] holds (its accuracy is only in expectation).
    StochasticSubgradient,
}

impl SolverKind {
    /// Builds the solver, starting at P_W(`start`) (a data-independent point or a released one:
    /// never an un-noised iterate, Zhang et al. 2022). `seed` drives a stochastic solver's
    /// sampling (data-independent randomness; unused by deterministic solvers).
    pub fn build(
        self,
        obj: &dyn FiniteSum,
        constants: &CertificateConstants,
        seed: u64,
        start: &[f64],
    ) -> Box<dyn BaseSolver> {
        match self {
            SolverKind::Gd => Box::new(ProjectedGd::new(obj, constants, start)),
            SolverKind::Agd => Box::new(ProjectedAgd::new(obj, constants, start)),
            SolverKind::Sgd => Box::new(Sgd::new(obj, constants, seed, start)),
            SolverKind::StochasticSubgradient => {
                let mut sgd = Sgd::new(obj, constants, seed, start);
                sgd.name = "stochastic subgradient method (weighted average, Lowy & Razaviyayn 2021, Algorithm 3)";
                Box::new(sgd)
            }
            SolverKind::Svrg => Box::new(Svrg::new(obj, constants, seed, start)),
            SolverKind::Katyusha => Box::new(Katyusha::new(obj, constants, seed, start)),
            SolverKind::Subgradient => Box::new(SubgradientBest::new(obj, constants, start)),
        }
    }
}

impl SolverKind {
    /// One plain-words sentence for the page's card: what the solver does, what stops it, and the
    /// paper it comes from.
    pub fn card(self) -> &'static str {
        match self {
            SolverKind::Gd => {
                "Projected gradient descent (step 1/β): one full pass per step; its step is the certificate's, and a worst-case step count follows from the declared constants."
            }
            SolverKind::Agd => {
                "Nesterov's accelerated projected gradient (Lowy & Razaviyayn 2021, Algorithm 4): about √κ times fewer passes than GD; stopped by the certificate, not by the paper's iteration count (proved only without projection)."
            }
            SolverKind::Sgd => {
                "One-record stochastic gradient steps with a weighted average (Lowy & Razaviyayn 2021, Algorithm 3's iteration): cheap steps, accurate only on average, so a full-pass certificate is checked once per pass."
            }
            SolverKind::Svrg => {
                "Proximal SVRG (Xiao & Zhang 2014): variance-reduced stochastic steps, one full gradient per epoch; stopped by the certificate."
            }
            SolverKind::Katyusha => {
                "Katyusha (Lowy & Razaviyayn 2021, Algorithm 5, Allen-Zhu 2018): accelerated variance reduction with corrected constants; stopped by the certificate, never by its O(·) count."
            }
            SolverKind::Subgradient => {
                "Projected subgradient method with the best iterate (Lowy & Razaviyayn 2021, Algorithm 2): for non-smooth losses and max-loss; runs exactly Prop 3.2's count T = ⌈2L_F²/(μα)⌉ of full passes, a theorem instead of a certificate."
            }
            SolverKind::StochasticSubgradient => {
                "Stochastic subgradient method with the weighted average (Lowy & Razaviyayn 2021, Algorithm 3, Cor 3.2): for hinge or absolute-loss ERM; one-record steps, released once a duality gap proves the accuracy (no failure probability added to δ); Algorithm 2 takes over if its budget runs out."
            }
        }
    }
}

/// A non-private solver advanced one iteration at a time.
pub trait BaseSolver: Send {
    /// A short name for reports.
    fn name(&self) -> &'static str;
    /// One iteration; returns the gradient evaluations it used, in full passes (per-sample
    /// gradients / n).
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64;
    /// The point the solver currently proposes (what the certificate is evaluated at).
    fn current(&self) -> &[f64];
    /// Offered the certificate's step x⁺ = prox(x − ∇f(x)/ℓ) from [`BaseSolver::current`]; a solver
    /// whose own next iterate is exactly x⁺ adopts it and returns true (that was its iteration, at no
    /// extra cost). Default: false.
    fn adopt_gradient_step(&mut self, _x_plus: &[f64]) -> bool {
        false
    }
    /// F at the point the last iteration started from, if the solver computed it anyway
    /// (saves a pass for reporting). Default: `None`.
    fn last_value(&self) -> Option<f64> {
        None
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, clip_features, generate_classification};
    use crate::domain::{DomainKind, L2Ball};
    use crate::linalg::dist2;
    use crate::loss::{Glm, Loss, Regulariser};
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn problem(domain: DomainKind, l1: f64, seed: u32) -> Objective {
        let spec = ClassificationSpec {
            n: 300,
            d: 3,
            feature_scale: 1.0,
            signal: 3.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(seed, Stream::Data)).unwrap();
        clip_features(&mut data, 1.0);
        Objective::with_loss(
            Arc::new(data),
            Loss::erm(Glm::Logistic),
            Regulariser::elastic(l1, 0.05),
            domain.boxed(),
            1.0,
        )
        .unwrap()
    }

    #[test]
    fn certificate_bounds_hold() {
        // Both inequalities of the module-level lemma, at points along GD, AGD and SGD paths and
        // at random points, on the ball (active and inactive), the box, R^d and with an ℓ1 term.
        // w* is certified by the reference solver to 1e-13 relative in F, i.e. to ≈ 2e-6 in
        // distance (√(2·gap/μ)); the bounds must hold up to that slack.
        let domains = [
            (DomainKind::L2Ball { radius: 0.3 }, 0.0),
            (DomainKind::L2Ball { radius: 5.0 }, 0.0),
            (DomainKind::Box { lo: -0.2, hi: 0.2 }, 0.0),
            (DomainKind::Unconstrained, 0.0),
            (DomainKind::L2Ball { radius: 5.0 }, 0.01),
        ];
        for (k, (domain, l1)) in domains.into_iter().enumerate() {
            let obj = problem(domain, l1, k as u32);
            let reference = reference::solve(&obj, 1e-13, 200_000).unwrap();
            let slack = libm::sqrt(2.0 * reference.gap_bound / obj.strong_convexity()) + 1e-9;
            let c = CertificateConstants::of(&obj);
            let (mut g, mut xp) = (vec![0.0; 3], vec![0.0; 3]);
            let mut points: Vec<Vec<f64>> = Vec::new();
            for kind in [
                SolverKind::Gd,
                SolverKind::Agd,
                SolverKind::Sgd,
                SolverKind::Svrg,
            ] {
                let mut s = kind.build(&obj, &c, 7, &[0.0; 3]);
                for _ in 0..40 {
                    s.iterate(&obj);
                    points.push(s.current().to_vec());
                }
            }
            let mut rng = seeded(k as u32, Stream::Noise);
            for _ in 0..40 {
                let mut p = vec![0.0; 3];
                crate::noise::fill_gaussian(&mut rng, 2.0, &mut p);
                points.push(p);
            }
            for p in &points {
                let cert = certify(&obj, &c, p, &mut g, &mut xp);
                let d_plus = dist2(&xp, &reference.w);
                let d_x = dist2(p, &reference.w);
                assert!(
                    d_plus <= cert.distance_bound + slack,
                    "{domain:?}: {d_plus} > {cert:?}"
                );
                assert!(
                    d_x <= c.condition() * cert.residual + slack,
                    "{domain:?}: {d_x}"
                );
            }
        }
    }

    #[test]
    fn every_solver_converges_to_the_reference_optimum() {
        // Noise-free sanity: each solver's point reaches the certified optimum (to 1e-6 after
        // enough iterations) on a ball with an active constraint and with an ℓ1 term.
        for (domain, l1) in [
            (DomainKind::L2Ball { radius: 0.3 }, 0.0),
            (DomainKind::L2Ball { radius: 5.0 }, 0.01),
        ] {
            let obj = problem(domain, l1, 5);
            let reference = reference::solve(&obj, 1e-13, 200_000).unwrap();
            let c = CertificateConstants::of(&obj);
            for (kind, iters) in [
                (SolverKind::Gd, 3000),
                (SolverKind::Agd, 600),
                (SolverKind::Svrg, 60),
                (SolverKind::Katyusha, 60),
            ] {
                let mut s = kind.build(&obj, &c, 3, &[0.0; 3]);
                for _ in 0..iters {
                    s.iterate(&obj);
                }
                let gap = dist2(s.current(), &reference.w);
                assert!(gap < 1e-6, "{kind:?} on {domain:?}: {gap}");
            }
        }
    }

    #[test]
    fn gd_contracts_at_the_declared_rate() {
        // ‖x_t − w*‖ ≤ (1 − 1/κ)^t ‖x₀ − w*‖ (the lemma); checked over 200 steps.
        let obj = problem(DomainKind::L2Ball { radius: 5.0 }, 0.0, 3);
        let reference = reference::solve(&obj, 1e-13, 200_000).unwrap();
        let c = CertificateConstants::of(&obj);
        let mut gd = ProjectedGd::new(&obj, &c, &[0.0; 3]);
        let d0 = dist2(gd.current(), &reference.w);
        let rate = 1.0 - 1.0 / c.condition();
        for t in 1..=200 {
            gd.iterate(&obj);
            let dt = dist2(gd.current(), &reference.w);
            assert!(dt <= libm::pow(rate, t as f64) * d0 + 1e-6, "t = {t}");
        }
        let ball = L2Ball { radius: 5.0 };
        assert!(crate::domain::Domain::contains(&ball, gd.current(), 1e-12));
    }
}
