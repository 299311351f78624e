//! Katyusha, strongly convex version (Lowy & Razaviyayn 2021, Algorithm 5, Allen-Zhu 2018).

use crate::linalg::axpy;

use super::{Anchor, BaseSolver, CertificateConstants, FiniteSum, projected_start};

/// Katyusha, strongly convex version (Lowy & Razaviyayn 2021, Algorithm 5 = Allen-Zhu 2018, Alg. 1, with two corrections: τ₁ uses the smoothness β where the paper prints "L", and the variance
/// reduction uses the snapshot x̃_t where the paper prints x̃_s).
///
/// Split: the smooth part f_s (m-strongly convex per term, ℓ-smooth) is written g + (m/2)‖·‖² with
/// g_i = (term i) − (m/2)‖·‖² convex and ℓ-smooth, and ψ = (m/2)‖·‖² + h is handled exactly by its
/// prox: argmin_z (1/(2γ))‖z − z_k‖² + ⟨∇̃, z⟩ + ψ(z) = prox_{h·γ/(1+γm)}((z_k − γ∇̃)/(1 + γm)) and
/// argmin_y (3ℓ/2)‖y − x‖² + ⟨∇̃, y⟩ + ψ(y) = prox_{h/(3ℓ+m)}((3ℓx − ∇̃)/(3ℓ + m)) (closed forms, with the constraint and ℓ1 term in h). Epoch length 2·(terms),
/// τ₂ = ½, τ₁ = min{√(2·terms·m/(3ℓ)), ½}, γ = 1/(3τ₁ℓ). Proposes the snapshot x̃. No iteration count
/// is trusted (Thm 3.3 is an O(·) in expectation); the certificate decides.
pub struct Katyusha {
    /// The snapshot x̃ (the proposal), ∇g(x̃) and the sampled term gradients.
    anchor: Anchor,
    y: Vec<f64>,
    z: Vec<f64>,
    x: Vec<f64>,
    tilde: Vec<f64>,
    acc: Vec<f64>,
    m: f64,
    ell: f64,
}

impl Katyusha {
    /// Starts at P_W(start); `seed` keys the sampling.
    pub fn new(
        obj: &dyn FiniteSum,
        constants: &CertificateConstants,
        seed: u64,
        start: &[f64],
    ) -> Self {
        let d = obj.dim();
        let x = projected_start(obj, start);
        Self {
            anchor: Anchor::at(&x, seed),
            y: x.clone(),
            z: x.clone(),
            x,
            tilde: vec![0.0; d],
            acc: vec![0.0; d],
            m: constants.strong_convexity,
            ell: constants.smoothness,
        }
    }
}

impl BaseSolver for Katyusha {
    fn name(&self) -> &'static str {
        "Katyusha"
    }
    fn iterate(&mut self, obj: &dyn FiniteSum) -> f64 {
        let n = obj.terms().max(1);
        let epoch = 2 * n;
        let (m, ell) = (self.m, self.ell);
        let tau2 = 0.5;
        let tau1 = libm::sqrt(epoch as f64 * m / (3.0 * ell)).min(0.5);
        let gamma = 1.0 / (3.0 * tau1 * ell);
        // ∇g(x̃) = ∇f_s(x̃) − m·x̃.
        let a = &mut self.anchor;
        a.full_gradient(obj);
        axpy(-m, &a.snapshot, &mut a.full);
        self.acc.fill(0.0);
        let (mut weight, mut weight_sum) = (1.0, 0.0);
        for _ in 0..epoch {
            for (((x, z), s), y) in self.x.iter_mut().zip(&self.z).zip(&a.snapshot).zip(&self.y) {
                *x = tau1 * z + tau2 * s + (1.0 - tau1 - tau2) * y;
            }
            a.sample(obj, &self.x);
            // ∇̃ = ∇g(x̃) + ∇g_i(x) − ∇g_i(x̃); the −m·(x − x̃) converts term gradients to g_i's.
            for ((((t, f), gx), gs), (x, s)) in self
                .tilde
                .iter_mut()
                .zip(&a.full)
                .zip(&a.g_x)
                .zip(&a.g_snap)
                .zip(self.x.iter().zip(&a.snapshot))
            {
                *t = f + gx - gs - m * (x - s);
            }
            let zs = 1.0 + gamma * m;
            for (z, t) in self.z.iter_mut().zip(&self.tilde) {
                *z = (*z - gamma * t) / zs;
            }
            obj.prox(gamma / zs, &mut self.z);
            let ys = 3.0 * ell + m;
            for ((y, x), t) in self.y.iter_mut().zip(&self.x).zip(&self.tilde) {
                *y = (3.0 * ell * x - t) / ys;
            }
            obj.prox(1.0 / ys, &mut self.y);
            axpy(weight, &self.y, &mut self.acc);
            weight_sum += weight;
            weight *= 1.0 + gamma * m;
        }
        for (s, a) in a.snapshot.iter_mut().zip(&self.acc) {
            *s = a / weight_sum;
        }
        1.0 + 2.0 * epoch as f64 / n as f64
    }
    fn current(&self) -> &[f64] {
        &self.anchor.snapshot
    }
}
