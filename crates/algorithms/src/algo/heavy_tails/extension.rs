//! The Lipschitz extension f_C(w, z) = inf_y [f(y, z) + C‖w − y‖] of a GLM loss, as an objective
//! (values and gradients), and the threshold C* that balances its bias against the noise.
//!
//! # Two extensions
//! - **On R^d** (the inf over every y ∈ R^d): for a GLM f(w, z) = φ(⟨x, w⟩, y) the cheapest way to
//!   move t = ⟨x, w⟩ by Δ is a step of length |Δ|/‖x‖ along x, so
//!   f_C^Rd(w, z) = φ_c(⟨x, w⟩) with c = C/‖x‖ and φ_c(t) = inf_s φ(s) + c|t − s|, whose
//!   derivative is clamp(φ'(t), −c, c): **its gradient is the clipped gradient**
//!   clip_C(∇f(w, z)) (Lowy 2026). Closed forms in
//!   [`Extension`].
//! - **On W** (the paper's, Lowy 2026 eq. (5), inf over y ∈ W): f_C^Rd ≤ f_C^W ≤ f on W, and the
//!   two differ when the inner minimiser would leave W, where the gradients differ in direction.
//!   Computed numerically on a ball by
//!   [`extension_on_ball`] (the minimiser lies in the plane through the centre spanned by x and
//!   w − centre, Lowy 2026): a non-private diagnostic and teaching tool, never a noise setting.
//!
//! Both are convex and C-Lipschitz for every z, which is all the sensitivity analyses need.
//!
//! # The threshold
//! C* = G_k (m ε/d)^(1/k) (Lowy 2026, Prop 2.5, Prop 3.2 and Thm E.1): m is
//! the sample size of the call, ε its whole budget, G_k the **declared** k-th moment bound of the
//! sample-wise Lipschitz constant A(z) = sup_W ‖∇f(w, z)‖, from the generating distribution
//! ([`declared_moment`]), never from the sample (Lowy 2026).
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: eq. (5), Lemma 2.2, Prop 2.5, Prop 3.2.

use crate::algo::problem::ProblemDeclaration;
use crate::algo::settings::Settings;
use crate::controls::choice_label;
use crate::data::Tail;
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot, norm2};
use crate::loss::{Glm, GlmLoss};

/// The GLM losses whose extension the heavy-tail families use, with sup |φ'| (the factor in
/// A(z) ≤ sup|φ'|·‖x‖) and sup φ'' (the per-sample smoothness is sup φ''·‖x‖²). `None` for a loss
/// with an unbounded derivative (squared), whose A(z) depends on the label and the domain.
pub fn derivative_bounds(glm: Glm) -> Option<(f64, f64)> {
    match glm {
        Glm::Logistic => Some((1.0, 0.25)),
        Glm::Hinge | Glm::Absolute { .. } => Some((1.0, f64::INFINITY)),
        Glm::SmoothedHinge { gamma } => Some((1.0, 1.0 / gamma)),
        Glm::Huber { delta, .. } => Some((delta, 1.0)),
        Glm::Squared { .. } => None,
    }
}

/// The R^d Lipschitz extension of one GLM loss at threshold C, in closed form.
///
/// For a margin loss h(m), m = y·t, non-increasing: |h'(m)| ≤ c exactly for m ≥ s_c, and below it
/// h_c(m) = h(s_c) + c(s_c − m). For a residual loss h(e), e = t − y, even: |h'(e)| ≤ c exactly
/// for |e| ≤ s_c, and beyond it h_c(e) = h(s_c) + c(|e| − s_c). The knots s_c (c = C/‖x‖):
/// logistic ln((1 − c)/c), hinge 1, smoothed hinge 1 − cγ (all for c < 1); absolute 0 (c < 1);
/// Huber and squared c (c < δ, resp. always): Huber_c. For c at or above sup|φ'| the loss is
/// unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extension {
    /// The loss φ.
    pub glm: Glm,
    /// The threshold C > 0.
    pub threshold: f64,
}

impl Extension {
    /// The knot s_c of the scalar extension at slope bound c, or `None` where φ_c = φ.
    fn knot(&self, c: f64) -> Option<f64> {
        match self.glm {
            Glm::Logistic if c < 1.0 => Some(libm::log((1.0 - c) / c)),
            Glm::Hinge if c < 1.0 => Some(1.0),
            Glm::SmoothedHinge { gamma } if c < 1.0 => Some(1.0 - c * gamma),
            Glm::Absolute { .. } if c < 1.0 => Some(0.0),
            Glm::Huber { delta, .. } if c < delta => Some(c),
            Glm::Squared { .. } => Some(c),
            _ => None,
        }
    }

    /// φ_c(t) and φ_c'(t) for label y at slope bound c = C/‖x‖.
    pub fn scalar(&self, t: f64, y: f64, c: f64) -> (f64, f64) {
        let knot = self.knot(c);
        if self.glm.is_margin() {
            let m = y * t;
            match knot {
                Some(s) if m < s => (self.glm.value(s, 1.0) + c * (s - m), -c * y),
                _ => self.glm.value_and_derivative(t, y),
            }
        } else {
            let e = t - y;
            match knot {
                Some(s) if e.abs() > s => {
                    (self.glm.value(s, 0.0) + c * (e.abs() - s), c * e.signum())
                }
                _ => self.glm.value_and_derivative(t, y),
            }
        }
    }

    /// f_C^Rd(w, z) for z = (x, y); adds its gradient (scaled by `weight`) into `grad`.
    pub fn value_and_gradient(
        &self,
        w: &[f64],
        x: &[f64],
        y: f64,
        weight: f64,
        grad: &mut [f64],
    ) -> f64 {
        let norm = norm2(x);
        let t = dot(w, x);
        if norm == 0.0 {
            // f(·, z) is constant in w: its own value, gradient 0.
            return self.glm.value(t, y);
        }
        let (value, slope) = self.scalar(t, y, self.threshold / norm);
        axpy(weight * slope, x, grad);
        value
    }

    /// f_C^Rd(w, z).
    pub fn value(&self, w: &[f64], x: &[f64], y: f64) -> f64 {
        let norm = norm2(x);
        let t = dot(w, x);
        if norm == 0.0 {
            return self.glm.value(t, y);
        }
        self.scalar(t, y, self.threshold / norm).0
    }
}

/// The threshold C* = G_k (m ε/d)^(1/k) of a call on m records with budget ε in dimension d
/// (Lowy 2026, Prop 3.2), from the declared G_k.
pub fn threshold(moment: f64, m: usize, epsilon: f64, d: usize, k: f64) -> f64 {
    moment * libm::pow(m as f64 * epsilon / d as f64, 1.0 / k)
}

/// The declared G_j = (E A(z)^j)^(1/j) of synthetic data whose features have the j-th norm
/// moment (E‖x‖^j)^(1/j) = `feature_moment` (`None`: the data were not drawn from a declared
/// law), in closed form, for j ≥ 1: A(z) ≤ sup|φ'|·‖x‖ for the bounded-derivative losses, so
/// G_j ≤ sup|φ'|·(E‖x‖^j)^(1/j). Features are clipped to the declared bound B before any run,
/// and clipping only shrinks ‖x‖, so sup|φ'|·B bounds it too: the smaller is declared. +∞ when
/// the moment does not exist (j ≥ the tail index and no finite B). From the declaration alone,
/// never the sample (Lowy 2026); the feature moment is the synthetic law's
/// (`RunConfig::feature_moment`, beside the law it reads).
pub fn declared_moment(glm: Glm, feature_moment: Option<f64>, feature_bound: f64) -> Result<f64> {
    let (slope, _) = derivative_bounds(glm).ok_or_else(|| {
        Error::invalid(
            "loss",
            "choose a loss with a bounded derivative (logistic, smoothed hinge or Huber): the \
             squared loss's slope grows with the label and the domain",
            choice_label(&glm),
        )
    })?;
    let raw = feature_moment.ok_or_else(|| {
        Error::invalid(
            "data",
            "choose synthetic data: the moment bound is declared from the generating distribution (a file has none)",
            "data not drawn from the synthetic law",
        )
    })?;
    Ok(slope * raw.min(feature_bound))
}

/// The declared G_k and G₂ of a lane's problem ([`declared_moment`] at the settings' k and at 2).
pub fn declared_moments(settings: &Settings, declared: &ProblemDeclaration) -> Result<(f64, f64)> {
    let moment = |m: Option<f64>| declared_moment(declared.loss.glm, m, declared.feature_bound);
    let moments = settings.feature_moments;
    Ok((
        moment(moments.map(|m| m.k))?,
        moment(moments.map(|m| m.two))?,
    ))
}

/// The paper's outlier probability of Appendix G, p = min{ln((|V| − 1)/(4eζ))/(nε), 1} with a
/// 1/2-packing of |V| = 2^d points (Lowy 2026, proof of Thm G.6), floored at 0 for tiny d.
pub fn outlier_probability(n: usize, d: usize, epsilon: f64, zeta: f64) -> f64 {
    let packing = libm::pow(2.0, d as f64);
    let p = libm::log((packing - 1.0) / (4.0 * std::f64::consts::E * zeta)) / (n as f64 * epsilon);
    p.clamp(0.0, 1.0)
}

/// The paper's rare-large-outlier law of Appendix G with k-th moment exactly `moment`: an
/// outlier of norm a = G_k·p^(−1/k) with probability p ([`Tail::RareOutlier`]).
pub fn rare_outlier(p: f64, moment: f64, k: f64) -> Tail {
    Tail::RareOutlier {
        p,
        a: moment * libm::pow(p, -1.0 / k),
    }
}

/// The minimum of a convex function on [lo, hi] by golden-section search (to width 1e-15·span).
fn golden(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> (f64, f64) {
    const INV_PHI: f64 = 0.618_033_988_749_894_8;
    let tol = 1e-15 * (hi - lo).abs().max(1e-300);
    let (mut a, mut b) = (hi - INV_PHI * (hi - lo), lo + INV_PHI * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    while hi - lo > tol {
        if fa <= fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - INV_PHI * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + INV_PHI * (hi - lo);
            fb = f(b);
        }
    }
    let mid = 0.5 * (lo + hi);
    (mid, f(mid))
}

/// The paper's f_C^W(w, z) = min_{y ∈ W} φ(⟨x, y⟩) + C‖w − y‖ on the ball W = B(centre, radius),
/// and a subgradient: C(w − y*)/‖w − y*‖ when y* ≠ w, else the clipped gradient (an element of
/// ∂f(w) ∩ B(0, C) for w inside W). The minimiser lies in the plane through the centre spanned by
/// x and w − centre (Lowy 2026), searched by nested golden sections (the partial minimum
/// of a jointly convex function is convex). Accurate to about 1e-7 in y*; **non-private**
/// (a diagnostic of one record, never a noise setting).
pub fn extension_on_ball(
    extension: &Extension,
    w: &[f64],
    x: &[f64],
    y: f64,
    centre: &[f64],
    radius: f64,
) -> (f64, Vec<f64>) {
    let d = w.len();
    // An orthonormal basis (u, v) of span{x, w − c}.
    let mut u = x.to_vec();
    let nu = norm2(&u);
    if nu > 0.0 {
        u.iter_mut().for_each(|a| *a /= nu);
    }
    let mut v: Vec<f64> = w.iter().zip(centre).map(|(a, b)| a - b).collect();
    let along = dot(&v, &u);
    axpy(-along, &u, &mut v);
    let nv = norm2(&v);
    if nv > 1e-300 {
        v.iter_mut().for_each(|a| *a /= nv);
    } else {
        v.fill(0.0);
    }
    let point =
        |a: f64, b: f64| -> Vec<f64> { (0..d).map(|i| centre[i] + a * u[i] + b * v[i]).collect() };
    let objective = |a: f64, b: f64| {
        let p = point(a, b);
        let gap: Vec<f64> = w.iter().zip(&p).map(|(s, t)| s - t).collect();
        extension.glm.value(dot(&p, x), y) + extension.threshold * norm2(&gap)
    };
    let inner = |a: f64| {
        let half = (radius * radius - a * a).max(0.0).sqrt();
        if nv <= 1e-300 {
            return (0.0, objective(a, 0.0));
        }
        golden(-half, half, |b| objective(a, b))
    };
    let (a, value) = golden(-radius, radius, |a| inner(a).1);
    let b = inner(a).0;
    let y_star = point(a, b);
    let gap: Vec<f64> = w.iter().zip(&y_star).map(|(s, t)| s - t).collect();
    let dist = norm2(&gap);
    let scale = norm2(w).max(radius).max(1.0);
    let grad = if dist > 1e-6 * scale {
        gap.iter().map(|g| extension.threshold * g / dist).collect()
    } else {
        let mut g = vec![0.0; d];
        extension.value_and_gradient(w, x, y, 1.0, &mut g);
        g
    };
    (value, grad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::dist2;
    use crate::rng::{Stream, seeded};
    use rand::RngExt;

    fn losses() -> [Glm; 6] {
        [
            Glm::Logistic,
            Glm::Hinge,
            Glm::SmoothedHinge { gamma: 0.5 },
            Glm::huber(1.5),
            Glm::absolute(),
            Glm::Squared { label_bound: 10.0 },
        ]
    }

    /// inf_s φ(s) + c|t − s| by brute force: a golden section on a wide bracket.
    fn brute_scalar(glm: Glm, t: f64, y: f64, c: f64) -> f64 {
        golden(t - 60.0, t + 60.0, |s| glm.value(s, y) + c * (t - s).abs()).1
    }

    #[test]
    fn the_rd_extension_matches_its_one_dimensional_infimum_for_every_glm_loss() {
        // The closed forms of Lowy 2026 against inf_s φ(s) + c|t − s| computed numerically,
        // for slope bounds on both sides of sup|φ'| and margins/residuals on both sides of the knot.
        let mut rng = seeded(5, Stream::Data);
        for glm in losses() {
            for _ in 0..300 {
                let t = 8.0 * (rng.random::<f64>() - 0.5);
                let y = if glm.is_margin() {
                    if rng.random::<f64>() < 0.5 { -1.0 } else { 1.0 }
                } else {
                    3.0 * (rng.random::<f64>() - 0.5)
                };
                let c = 2.0 * rng.random::<f64>() + 1e-3;
                let ext = Extension {
                    glm,
                    threshold: 1.0,
                };
                let (closed, _) = ext.scalar(t, y, c);
                let brute = brute_scalar(glm, t, y, c);
                assert!(
                    (closed - brute).abs() <= 1e-9 * (1.0 + brute.abs()),
                    "{glm:?} t={t} y={y} c={c}: {closed} vs {brute}"
                );
                // f_C ≤ f.
                assert!(closed <= glm.value(t, y) + 1e-12);
            }
        }
    }

    #[test]
    fn the_rd_extension_gradient_is_the_clipped_gradient_for_glms() {
        // Checked numerically: ∇f_C^Rd = clip_C(∇f) for every GLM, with ‖x‖ above and below C.
        // Also checked against central differences of the closed-form value.
        let mut rng = seeded(6, Stream::Data);
        let d = 3;
        for glm in losses() {
            for _ in 0..200 {
                let x: Vec<f64> = (0..d).map(|_| 6.0 * (rng.random::<f64>() - 0.5)).collect();
                let w: Vec<f64> = (0..d).map(|_| 2.0 * (rng.random::<f64>() - 0.5)).collect();
                let y = if glm.is_margin() {
                    1.0
                } else {
                    rng.random::<f64>() - 0.5
                };
                let ext = Extension {
                    glm,
                    threshold: 0.2 + 2.0 * rng.random::<f64>(),
                };
                let mut grad = vec![0.0; d];
                ext.value_and_gradient(&w, &x, y, 1.0, &mut grad);
                let raw: Vec<f64> = x
                    .iter()
                    .map(|xi| glm.derivative(dot(&w, &x), y) * xi)
                    .collect();
                let norm = norm2(&raw);
                let clipped: Vec<f64> = raw
                    .iter()
                    .map(|g| g * (ext.threshold / norm).min(1.0))
                    .collect();
                assert!(
                    dist2(&grad, &clipped) < 1e-12,
                    "{glm:?}: {grad:?} vs {clipped:?}"
                );
                assert!(norm2(&grad) <= ext.threshold * (1.0 + 1e-12));
                // Central differences where the loss is differentiable (away from kinks).
                let h = 1e-6;
                let fd: Vec<f64> = (0..d)
                    .map(|i| {
                        let (mut a, mut b) = (w.clone(), w.clone());
                        a[i] += h;
                        b[i] -= h;
                        (ext.value(&a, &x, y) - ext.value(&b, &x, y)) / (2.0 * h)
                    })
                    .collect();
                if glm.is_smooth() {
                    assert!(dist2(&fd, &grad) < 1e-5, "{glm:?}: {fd:?} vs {grad:?}");
                }
            }
        }
    }

    #[test]
    fn on_a_ball_the_papers_extension_differs_from_the_clipped_gradient_where_it_should() {
        // Checked numerically: abs loss, W = B(0, 1), x = (3, 0.5), y = 5, C = 1, w = (0.2, 0.5):
        // ∇f_C^W = (−0.976, 0.218) while clip_C(∇f) = (−0.986, −0.164). Same norm C, other direction.
        let ext = Extension {
            glm: Glm::absolute(),
            threshold: 1.0,
        };
        let (w, x, y) = ([0.2, 0.5], [3.0, 0.5], 5.0);
        let (value, grad) = extension_on_ball(&ext, &w, &x, y, &[0.0, 0.0], 1.0);
        let mut clipped = vec![0.0; 2];
        ext.value_and_gradient(&w, &x, y, 1.0, &mut clipped);
        println!("∇f_C^W = {grad:?}, clip_C(∇f) = {clipped:?}, f_C^W = {value}");
        assert!(
            (grad[0] + 0.976).abs() < 2e-3 && (grad[1] - 0.218).abs() < 2e-3,
            "{grad:?}"
        );
        assert!((clipped[0] + 0.986).abs() < 2e-3 && (clipped[1] + 0.164).abs() < 2e-3);
        assert!(dist2(&grad, &clipped) > 0.3);
        // The ordering f_C^Rd ≤ f_C^W ≤ f on W.
        let rd = ext.value(&w, &x, y);
        assert!(rd <= value + 1e-9 && value <= ext.glm.value(dot(&w, &x), y) + 1e-9);
        assert!(value - rd > 0.1, "the constraint binds: {rd} < {value}");
    }

    #[test]
    fn inside_the_ball_the_papers_extension_agrees_with_the_rd_one() {
        // Where the R^d minimiser stays in W the two extensions coincide (an independent check: 36/36 interior
        // points for abs on the unit ball); here small features keep y* = w.
        let ext = Extension {
            glm: Glm::Logistic,
            threshold: 0.5,
        };
        let (w, x, y) = ([0.1, -0.2, 0.05], [0.3, 0.2, -0.1], 1.0);
        let (value, grad) = extension_on_ball(&ext, &w, &x, y, &[0.0; 3], 2.0);
        let mut rd = vec![0.0; 3];
        let v = ext.value_and_gradient(&w, &x, y, 1.0, &mut rd);
        assert!(
            (value - v).abs() < 1e-9 && dist2(&grad, &rd) < 1e-9,
            "{grad:?} {rd:?}"
        );
    }

    #[test]
    fn the_threshold_balances_noise_and_bias() {
        // Checked numerically: G_k = 2, m = 10⁴, d = 10, k = 3, ε = 1 gives C* = 2·(10³)^(1/3) = 20,
        // and the noise term Cd/(mε) equals the bias term G_k^k/C^(k−1): 0.0200 = 0.0200.
        let c = threshold(2.0, 10_000, 1.0, 10, 3.0);
        assert!((c - 20.0).abs() < 1e-12, "{c}");
        let noise = c * 10.0 / 10_000.0;
        let bias = 8.0 / (c * c);
        assert!((noise - 0.02).abs() < 1e-12 && (bias - 0.02).abs() < 1e-12);
    }

    #[test]
    fn the_appendix_g_probability_follows_the_papers_formula() {
        // d = 10, n = 10⁴, ε = 1, ζ = 0.1: ln((2¹⁰ − 1)/(4e·0.1))/10⁴ = ln(1023/1.0873)/10⁴.
        let p = outlier_probability(10_000, 10, 1.0, 0.1);
        let expected = libm::log(1023.0 / (0.4 * std::f64::consts::E)) / 1e4;
        assert!((p - expected).abs() < 1e-15 && p > 6e-4 && p < 7e-4, "{p}");
    }

    #[test]
    fn the_rare_outlier_generator_draws_its_outlier_with_probability_p() {
        // Lowy 2026 Appendix G: ξ = a·e₁ with probability p, else 0. 20 000 draws at p = 0.05:
        // the count has sd √(20000·0.05·0.95) ≈ 31, so ±5 sd is ±154 around 1000.
        use crate::data::{GeneratorSpec, Link, Task, generate};
        let tail = rare_outlier(0.05, 2.0, 3.0);
        let spec = GeneratorSpec {
            n: 20_000,
            d: 3,
            features: tail,
            feature_scale: 1.0,
            signal: 1.0,
            task: Task::Classification {
                link: Link::Logistic,
                flip: 0.0,
            },
        };
        let data = generate(&spec, seeded(9, Stream::Data)).unwrap();
        let a = 2.0 * libm::pow(0.05, -1.0 / 3.0);
        let mut outliers = 0;
        for (x, _) in data.samples() {
            if norm2(x) > 0.0 {
                outliers += 1;
                assert_eq!(x, [a, 0.0, 0.0]);
            }
        }
        assert!((outliers as f64 - 1000.0).abs() < 154.0, "{outliers}");
        assert!((tail.norm_moment(3, 3.0) - 8.0).abs() < 1e-12);
        assert_eq!(tail.norm_tail(a - 1e-9), Some(0.05));
        assert!(
            Tail::RareOutlier { p: 1.5, a: 1.0 }
                .validate("tail")
                .is_err()
        );
    }
}
