//! Lowy 2026's certified solver pieces: Algorithm 3 (Adaptive-Inexact-ProjSubgrad), the inexact
//! projection onto W ∩ B(c, r) (Lemma 2.8) and the joint reformulation (Lemma 2.7). The localized
//! families run them as their certified solver when asked ([`super::joint`]) and when Prop 2.9's
//! iteration bound fits the work allowance: at m = 10³ it is about 10¹³ iterations, so by default they run the certified AGD on the smooth extension.
//!
//! # Algorithm 3 (Prop 2.9 / C.5)
//! x₁ ∈ K, S₀ = 0; for t = 1, 2, …: g_t a subgradient of Φ at x_t (stop if 0);
//! S_t = S_{t−1} + ‖g_t‖², η_t = D_K/√S_t, ξ_t = min(D_K, α·η_t/(6D_K)),
//! x_{t+1} = InexactProj_K^{ξ_t}(x_t − η_t g_t); stop once 3·D_K·√S_t ≤ α·t and return the average of
//! x₁…x_t, which then satisfies Φ(x̄) − min_K Φ ≤ α (a deterministic certificate: no Lipschitz
//! constant is needed, and it stops within ⌈(3D_K L/α)²⌉ iterations when Φ is L-Lipschitz on K).
//! D_K must bound the diameter of K (for the joint reformulation, of the joint domain: Lowy 2026).
//!
//! # Inexact projection (Lemma 2.8 / C.6)
//! For y and W ∩ B(c, r) with c ∈ W: x(l) = Π_W((y + l·c)/(1 + l)), g(l) = ‖x(l) − c‖² − r²,
//! bisection on [0, R/r] (R = ‖y − c‖) for N = ⌈log₂(1 + R²/(rξ))⌉ steps; the output x(hi) lies in
//! W ∩ B(c, r) and within ξ of the exact projection.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithm 3, Proposition 2.9, Lemma 2.8.

use crate::linalg::{axpy, dist2, norm2};

/// Lemma 2.8's ξ-inexact projection of `y` onto W ∩ B(c, r) (c ∈ W), given the exact Π_W.
pub fn inexact_projection(
    y: &[f64],
    project_w: impl Fn(&mut [f64]),
    c: &[f64],
    r: f64,
    xi: f64,
) -> Vec<f64> {
    let mut x0 = y.to_vec();
    project_w(&mut x0);
    if dist2(&x0, c) <= r {
        return x0;
    }
    let big_r = dist2(y, c);
    let point = |l: f64| -> Vec<f64> {
        let mut x: Vec<f64> = y
            .iter()
            .zip(c)
            .map(|(yi, ci)| (yi + l * ci) / (1.0 + l))
            .collect();
        project_w(&mut x);
        x
    };
    let (mut lo, mut hi) = (0.0, big_r / r);
    // At most 2200 steps: halving [0, R/r] (R/r < 2¹⁰²⁴) more than 1024 + 1074 times leaves an
    // interval of adjacent doubles, where further steps change nothing, so the cap changes no
    // result; it bounds the work of a ξ that underflowed to 0 (which asked for ∞ steps).
    let steps = (libm::ceil(libm::log2(1.0 + big_r * big_r / (r * xi))) as usize).min(2200);
    // Each bisection step builds a point, projects it and measures it: the page's slices count
    // this work (`crate::solver::work`), which reads no record.
    crate::solver::work::charge((steps + 1).saturating_mul(4 * y.len()));
    for _ in 0..steps {
        let mid = 0.5 * (lo + hi);
        if dist2(&point(mid), c) <= r {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    point(hi)
}

/// Algorithm 3's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Certified {
    /// x̄_t, the average of x₁…x_t.
    pub point: Vec<f64>,
    /// t at stopping.
    pub iterations: usize,
    /// Whether the stopping rule (or g = 0) held within the budget.
    pub certified: bool,
}

/// Algorithm 3's state, advanced one iteration at a time (the families step it in slices).
#[derive(Debug, Clone, PartialEq)]
pub struct Adaptive {
    x: Vec<f64>,
    sum: Vec<f64>,
    g: Vec<f64>,
    squares: f64,
    t: usize,
    diameter: f64,
    alpha: f64,
}

impl Adaptive {
    /// x₁ = `start` ∈ K, for a K of diameter ≤ `diameter` and the target gap `alpha`.
    pub fn new(start: &[f64], diameter: f64, alpha: f64) -> Self {
        Self {
            x: start.to_vec(),
            sum: vec![0.0; start.len()],
            g: vec![0.0; start.len()],
            squares: 0.0,
            t: 0,
            diameter,
            alpha,
        }
    }

    /// One iteration: `subgradient(x, g)` writes a subgradient of Φ at x, `project(x, ξ)` replaces
    /// x by a ξ-inexact projection onto K. Returns the certified point once the stopping rule
    /// 3·D_K·√S_t ≤ α·t holds (the average x̄_t), or x_t itself when its subgradient is 0.
    pub fn iterate(
        &mut self,
        mut subgradient: impl FnMut(&[f64], &mut [f64]),
        mut project: impl FnMut(&mut [f64], f64),
    ) -> Option<Vec<f64>> {
        self.t += 1;
        subgradient(&self.x, &mut self.g);
        axpy(1.0, &self.x, &mut self.sum);
        let norm = norm2(&self.g);
        if norm == 0.0 {
            return Some(self.x.clone());
        }
        self.squares += norm * norm;
        let eta = self.diameter / self.squares.sqrt();
        let xi = self.diameter.min(self.alpha * eta / (6.0 * self.diameter));
        axpy(-eta, &self.g, &mut self.x);
        project(&mut self.x, xi);
        (self.gap_bound() <= self.alpha).then(|| self.average())
    }

    /// x̄_t, the average of x₁…x_t.
    pub fn average(&self) -> Vec<f64> {
        let t = self.t.max(1) as f64;
        self.sum.iter().map(|s| s / t).collect()
    }

    /// 3·D_K·√S_t/t, the stopping rule's left side over t: the run stops once it is ≤ α, and then
    /// Φ(x̄_t) − min_K Φ ≤ α (Prop 2.9 / C.5). Infinite before the first iteration.
    pub fn gap_bound(&self) -> f64 {
        if self.t == 0 {
            return f64::INFINITY;
        }
        3.0 * self.diameter * self.squares.sqrt() / self.t as f64
    }

    /// t, the iterations so far.
    pub fn iterations(&self) -> usize {
        self.t
    }

    /// x_t, the current (non-private) iterate.
    pub fn current(&self) -> &[f64] {
        &self.x
    }
}

/// Prop 2.9's bound on Algorithm 3's iterations, ⌈(3·D_K·L/α)²⌉, for Φ L-Lipschitz on K of
/// diameter D_K; `None` when it does not fit a usize (or is not a finite number).
pub fn iteration_bound(diameter: f64, lipschitz: f64, alpha: f64) -> Option<usize> {
    let bound = libm::ceil(libm::pow(3.0 * diameter * lipschitz / alpha, 2.0));
    (bound.is_finite() && bound >= 0.0 && bound < usize::MAX as f64 / 2.0)
        .then_some(bound.max(1.0) as usize)
}

/// Algorithm 3 from `start` ∈ K: `subgradient(x, g)` writes a subgradient of Φ at x, and
/// `project(x, ξ)` replaces x by a ξ-inexact projection onto K. Stops by the certificate or
/// after `budget` iterations (then `certified` is false).
pub fn adaptive_subgradient(
    start: &[f64],
    diameter: f64,
    alpha: f64,
    mut subgradient: impl FnMut(&[f64], &mut [f64]),
    mut project: impl FnMut(&mut [f64], f64),
    budget: usize,
) -> Certified {
    let mut run = Adaptive::new(start, diameter, alpha);
    for _ in 0..budget {
        if let Some(point) = run.iterate(&mut subgradient, &mut project) {
            return Certified {
                point,
                iterations: run.iterations(),
                certified: true,
            };
        }
    }
    Certified {
        point: run.average(),
        iterations: budget,
        certified: false,
    }
}

/// The joint convex reformulation of Lemma 2.7 for one block of records:
/// Φ_Z(w, y₁…y_m) = (1/m)Σ [φ(⟨xᵢ, yᵢ⟩, labelᵢ) + C‖w − yᵢ‖] + (l2/2)‖w‖² + (λ/2)‖w − w₀‖²,
/// whose minimum over w ∈ W_w, yᵢ ∈ W is min_w F̂_{C,λ}(w) with the paper's W-constrained f_C
/// (plus the problem's ridge l2, data-free).
#[derive(Debug, Clone, Copy)]
pub struct Joint<'a> {
    /// The GLM loss φ.
    pub glm: crate::loss::Glm,
    /// The threshold C.
    pub threshold: f64,
    /// λ of the ridge around the public centre.
    pub lambda: f64,
    /// The problem's ridge l2 around 0.
    pub l2: f64,
    /// The public centre w₀.
    pub centre: &'a [f64],
}

impl Joint<'_> {
    /// Φ at `point` and a subgradient into `grad` (proof of Prop D.1, Lowy 2026's signs):
    /// sᵢ = (w − yᵢ)/‖w − yᵢ‖ (0 when w = yᵢ), g^(w) = (C/m)Σsᵢ + l2·w + λ(w − w₀),
    /// g^(yᵢ) = (1/m)(φ′·xᵢ − C·sᵢ). `point` and `grad` are (w, y₁, …, y_m), each block of
    /// length d; `records` are the block's (xᵢ, labelᵢ).
    pub fn value_and_subgradient(
        &self,
        point: &[f64],
        records: &[(&[f64], f64)],
        grad: &mut [f64],
    ) -> f64 {
        use crate::loss::GlmLoss;
        let d = self.centre.len();
        let m = records.len() as f64;
        grad.fill(0.0);
        let (w, ys) = point.split_at(d);
        let (gw, gys) = grad.split_at_mut(d);
        let mut value = 0.0;
        for (((x, label), y), gy) in records
            .iter()
            .zip(ys.chunks_exact(d))
            .zip(gys.chunks_exact_mut(d))
        {
            let (f, slope) = self
                .glm
                .value_and_derivative(crate::linalg::dot(x, y), *label);
            let dist = crate::linalg::dist2(w, y);
            value += (f + self.threshold * dist) / m;
            axpy(slope / m, x, gy);
            if dist > 0.0 {
                let s = self.threshold / (m * dist);
                for k in 0..d {
                    let gap = w[k] - y[k];
                    gw[k] += s * gap;
                    gy[k] -= s * gap;
                }
            }
        }
        for k in 0..d {
            let off = w[k] - self.centre[k];
            gw[k] += self.lambda * off + self.l2 * w[k];
            value += 0.5 * self.lambda * off * off + 0.5 * self.l2 * w[k] * w[k];
        }
        value
    }
}

/// [`Joint::value_and_subgradient`] without the problem's ridge (l2 = 0).
pub fn joint_value_and_subgradient(
    point: &[f64],
    records: &[(&[f64], f64)],
    glm: crate::loss::Glm,
    threshold: f64,
    lambda: f64,
    centre: &[f64],
    grad: &mut [f64],
) -> f64 {
    Joint {
        glm,
        threshold,
        lambda,
        l2: 0.0,
        centre,
    }
    .value_and_subgradient(point, records, grad)
}

#[cfg(test)]
mod tests {
    use super::super::localised::project_two_balls;
    use super::*;

    fn ball(radius: f64) -> impl Fn(&mut [f64]) {
        move |w: &mut [f64]| {
            let n = norm2(w);
            if n > radius {
                w.iter_mut().for_each(|v| *v *= radius / n);
            }
        }
    }

    #[test]
    fn the_inexact_projection_lands_in_the_intersection_within_xi_of_the_exact_one() {
        // W = B(0, 1), c = (0.76, 0.25) ∈ W, r = 0.5: against the exact two-ball projection.
        let c = [0.76, 0.25];
        let r = 0.5;
        for y in [
            [2.0, 2.0],
            [-0.5, 3.0],
            [3.0, -0.2],
            [0.9, -1.0],
            [0.1, 0.1],
            [-2.0, -2.0],
        ] {
            for xi in [1e-2, 1e-6, 1e-10] {
                let got = inexact_projection(&y, ball(1.0), &c, r, xi);
                let mut exact = y;
                project_two_balls(&mut exact, &[0.0, 0.0], 1.0, &c, r);
                assert!(
                    norm2(&got) <= 1.0 + 1e-12 && dist2(&got, &c) <= r + 1e-12,
                    "{got:?}"
                );
                assert!(
                    dist2(&got, &exact) <= xi + 1e-12,
                    "{y:?} ξ = {xi}: {got:?} vs {exact:?}"
                );
            }
        }
    }

    #[test]
    fn algorithm_3_certifies_its_accuracy_without_a_lipschitz_constant() {
        // Φ(x) = Σ|x_i − a_i| + 3‖x − b‖ on K = B(0, 2) (non-smooth), minimum by a fine search.
        let (a, b) = ([0.7, -0.4], [-0.3, 0.5]);
        let phi = |x: &[f64]| (x[0] - a[0]).abs() + (x[1] - a[1]).abs() + 3.0 * dist2(x, &b);
        let mut best = f64::INFINITY;
        for i in 0..=800 {
            for j in 0..=800 {
                let x = [-2.0 + i as f64 / 200.0, -2.0 + j as f64 / 200.0];
                if norm2(&x) <= 2.0 {
                    best = best.min(phi(&x));
                }
            }
        }
        let alpha = 0.05;
        let out = adaptive_subgradient(
            &[1.5, 1.0],
            4.0,
            alpha,
            |x, g| {
                let diff = [x[0] - b[0], x[1] - b[1]];
                let n = norm2(&diff);
                for k in 0..2 {
                    g[k] = (x[k] - a[k]).signum() + if n > 0.0 { 3.0 * diff[k] / n } else { 0.0 };
                }
            },
            |x, _| ball(2.0)(x),
            1_000_000,
        );
        assert!(out.certified);
        // Prop 2.9: T ≤ ⌈(3·D_K·L/α)²⌉ with L ≤ √2 + 3.
        let cap = libm::ceil(libm::pow(3.0 * 4.0 * (2f64.sqrt() + 3.0) / alpha, 2.0));
        assert!((out.iterations as f64) <= cap, "{}", out.iterations);
        let gap = phi(&out.point) - best;
        println!(
            "Algorithm 3: {} iterations, gap {gap:.3e} ≤ α = {alpha}",
            out.iterations
        );
        // The grid minimum is ≥ min_K Φ, so this gap is ≤ the true one ≤ α.
        assert!(gap <= alpha + 1e-9, "{gap}");
        // Not vacuous: the certificate is tight enough to matter (the start's gap is > 1).
        assert!(phi(&[1.5, 1.0]) - best > 1.0);
    }

    #[test]
    fn over_the_records_blocks_the_joint_minimum_is_the_papers_extension() {
        // Lemma 2.7: for fixed w, min over yᵢ ∈ W of Φ is (1/m)Σ f_C^W(w, zᵢ) + (λ/2)‖w − w₀‖².
        // Algorithm 3 on the y-blocks (w held fixed) against the numerical f_C^W of
        // `extension_on_ball`, on an example whose inner minimiser lies on W's boundary
        // and one more record.
        use super::super::extension::{Extension, extension_on_ball};
        use crate::loss::Glm;
        let glm = Glm::absolute();
        let (w, centre, lambda, c) = ([0.2, 0.5], [0.0, 0.0], 0.3, 1.0);
        let records: [(&[f64], f64); 2] = [(&[3.0, 0.5], 5.0), (&[-1.0, 2.0], 0.4)];
        let expected = records
            .iter()
            .map(|(x, y)| {
                let ext = Extension { glm, threshold: c };
                extension_on_ball(&ext, &w, x, *y, &centre, 1.0).0
            })
            .sum::<f64>()
            / 2.0
            + 0.5 * lambda * (w[0] * w[0] + w[1] * w[1]);
        let start = [w[0], w[1], 0.0, 0.0, 0.0, 0.0];
        let alpha = 1e-2;
        let out = adaptive_subgradient(
            &start[2..],
            2.0 * 2f64.sqrt(),
            alpha,
            |ys, g| {
                let mut point = w.to_vec();
                point.extend_from_slice(ys);
                let mut full = vec![0.0; 6];
                joint_value_and_subgradient(&point, &records, glm, c, lambda, &centre, &mut full);
                g.copy_from_slice(&full[2..]);
            },
            |ys, _| {
                for y in ys.chunks_exact_mut(2) {
                    ball(1.0)(y);
                }
            },
            10_000_000,
        );
        assert!(out.certified);
        let mut point = w.to_vec();
        point.extend_from_slice(&out.point);
        let mut scratch = vec![0.0; 6];
        let got =
            joint_value_and_subgradient(&point, &records, glm, c, lambda, &centre, &mut scratch);
        println!("min_y Φ = {got:.6} vs Σf_C^W/m + ridge = {expected:.6}");
        assert!(
            got >= expected - 1e-6 && got <= expected + alpha,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn the_joint_subgradient_has_the_papers_signs() {
        // Lowy 2026: d/dw ‖w − yᵢ‖ = +sᵢ and d/dyᵢ = −sᵢ. Central differences of Φ at a
        // point where Φ is differentiable (logistic loss, w ≠ yᵢ).
        use crate::loss::Glm;
        let records: [(&[f64], f64); 2] = [(&[1.0, -2.0], 1.0), (&[0.5, 0.3], -1.0)];
        let point = [0.1, 0.2, -0.3, 0.4, 0.6, -0.1];
        let (glm, c, lambda, centre) = (Glm::Logistic, 0.7, 0.5, [0.05, -0.05]);
        let mut grad = vec![0.0; 6];
        joint_value_and_subgradient(&point, &records, glm, c, lambda, &centre, &mut grad);
        let h = 1e-6;
        for k in 0..6 {
            let (mut a, mut b) = (point, point);
            a[k] += h;
            b[k] -= h;
            let mut s = vec![0.0; 6];
            let fd = (joint_value_and_subgradient(&a, &records, glm, c, lambda, &centre, &mut s)
                - joint_value_and_subgradient(&b, &records, glm, c, lambda, &centre, &mut s))
                / (2.0 * h);
            assert!(
                (fd - grad[k]).abs() < 1e-6,
                "coordinate {k}: {fd} vs {}",
                grad[k]
            );
        }
    }
}
