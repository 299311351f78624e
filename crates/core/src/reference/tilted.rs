//! The certified reference optimum of tilted ERM over the non-smooth hinge and absolute losses:
//! F(w) = (1/τ) ln((1/n) Σ exp(τ fᵢ(w))) + g(w), fᵢ(w) = φ(⟨xᵢ, w⟩, yᵢ), g = λ₁‖·‖₁ +
//! (λ₂/2)‖·‖² + I_W (Lowy & Razaviyayn 2021, Section 5.1; `tilted_pass` in [`crate::objective`] evaluates F).
//!
//! # Assumptions
//! τ > 0 ([`crate::loss::Loss::validate`] refuses τ ≤ 0, so the code never sees a negative tilt;
//! for τ < 0 F would be a soft *minimum* of convex functions, non-convex in general, and no duality
//! certificate would apply). φ ∈ {hinge, absolute}; on R^d, λ₂ > 0 ([`super::solve`] checks it).
//!
//! # Certificate (why `gap_bound` ≥ F(w) − F*)
//! Two variational forms, both exact:
//! - Gibbs: (1/τ) ln((1/n) Σ e^{τfᵢ}) = max over the simplex Δ of Σ qᵢfᵢ − (1/τ)KL(q‖uniform),
//!   KL(q) = Σ qᵢ ln(n qᵢ) (0·ln 0 = 0), attained at q = softmax(τf);
//! - the loss's dual box (the same as ERM's, module docs item 2): fᵢ(u) = max over
//!   αᵢ ∈ Bᵢ of αᵢ(yᵢ − ⟨xᵢ, u⟩) (hinge: yᵢαᵢ ∈ [0, 1]; absolute: αᵢ ∈ [−1, 1]).
//!
//! So for **every** q ∈ Δ, α ∈ B and u: F(u) ≥ Σ qᵢαᵢyᵢ − KL(q)/τ − ⟨Σ qᵢαᵢxᵢ, u⟩ + g(u),
//! and minimising over u gives F* ≥ D(q, α) = Σ qᵢαᵢyᵢ − KL(q)/τ − g*(Σ qᵢαᵢxᵢ), with the exact
//! conjugate [`crate::domain::Domain::conjugate`]. For q uniform this is ERM's dual; the bound
//! does not depend on how (q, α) were found, only that q ∈ Δ and α ∈ B (α is clamped to B by
//! construction).
//!
//! ## Rounding, amplified by 1/τ
//! Three quantities enter divided by τ, so their rounding does too, and a sequential sum of n
//! terms may err by up to (n − 1)ε relative: 2·10⁻¹⁰ at n = 10⁶, enough to spoil the page's
//! 1e-11 target at τ = 1 (a worst-case allowance of nε/τ refused τ < 9 at n = 10⁵). So they are
//! summed with Neumaier's compensated summation (error ≤ 2ε·Σ|terms| + O(nε²)) and charged that:
//! - **F(w).** The solver reports F(w) from [`Objective::value`] (a sequential online
//!   log-sum-exp). The certificate recomputes it as max f + ln(S/n)/τ + g(w),
//!   S = Σ e^{τ(fᵢ − max f)} summed compensated (each exponential within ε, so S within 3ε relative), and adds the
//!   measured difference between the two plus 4ε·(|max f| + (|ln(S/n)| + 3)/τ + |g(w)|).
//! - **Σ q̂ ≠ 1.** The computed q̂ sums to 1 only up to rounding. The certificate bounds D at the
//!   true simplex point p = s·q̂, s = 1/Σq̂, for every s that the compensated sum Ŝ allows
//!   (|Σq̂ − Ŝ| ≤ (4ε + 4nε²)·Ŝ). With lin = Σ q̂αy, K = Σ q̂ ln(nq̂), v = Σ q̂αx:
//!   Σ pαy = s·lin, KL(p) = s·K + ln s, Σ pαx = s·v, so
//!   D(p, α) = [s·lin − s·K/τ − g*(s·v)] − (ln s)/τ. The bracket is concave in s (g* convex) and
//!   is bounded below by its smaller value at the two ends of the interval; −(ln s)/τ by its
//!   value at the upper end.
//! - **lin and K** are summed compensated and charged 8ε·s·(Σ|q̂αy| + Σ|q̂ ln(nq̂)|/τ) on top of
//!   the usual 8ε·Σ|terms| ([`super::with_allowance`]).
//!
//! The features' dot products and v = Σ q̂αx are rounded as in every other certificate of the
//! module (not amplified by 1/τ). Where 16ε/τ alone would exceed a quarter of the tolerance
//! (τ < 64ε/tol: 1.4e-5 at tol 1e-9, 1.4e-3 at the page's 1e-11) the tolerance cannot be
//! certified and [`solve`] refuses with a named error instead of iterating in vain: such a tilt
//! is ERM to within the tolerance's order, and the ERM reference certifies that.
//!
//! # Solver (choices; the paper gives none: TERM's reference optimum is ours)
//! A majorise–minimise / proximal-point loop on w, alternating with a best-response tilt:
//! 1. q ← softmax(τ f(w)) at the current w (starting from q uniform, i.e. ERM). Linearising the
//!    outer h(f) = (1/τ) ln mean e^{τf} at f(w_k) gives the majorant F(u) ≤ F(w_k) +
//!    Σ qᵢ(fᵢ(u) − fᵢ(w_k)) + (ρ_MM/2)‖u − w_k‖² + g(u) − g(w_k) with ρ_MM = τ·maxᵢ‖xᵢ‖²: ∇h = p
//!    = softmax(τf), ∇²h = τ(diag p − ppᵀ) ⪯ τ·diag p, so the remainder is at most
//!    (τ/2) maxᵢ (fᵢ(u) − fᵢ(w_k))² ≤ (τ/2) maxᵢ ‖xᵢ‖²‖u − w_k‖² (φ is 1-Lipschitz).
//! 2. One sweep of the weighted coordinate-ascent dual of [`super::DualSweep`] (weights qᵢ, box
//!    unchanged, so α stays feasible and warm) on Σ qᵢfᵢ + g + (ρ/2)‖· − w_k‖², then
//!    w_{k+1} = w(α).
//!
//! With ρ ≥ ρ_MM and exact subproblems this is a majorisation, monotone in F. ρ_MM is a worst case
//! (all tilt on the longest row) and slow; the data's average curvature is far smaller. So ρ starts
//! at ρ_ERM + τ·‖X‖²/n, with ρ_ERM = 0.3‖X‖²/n the ERM solver's weight, and doubles (up to
//! ρ_ERM + ρ_MM) whenever F rises by more than 1e-12·max(1, |F|) from one iteration to the next.
//! Without that safeguard the best response oscillates with period two (observed: hinge on the
//! ℓ2 ball at τ = 1 stalled at a gap of 0.3). Measured on the benchmark's problems (n = 10⁴,
//! d = 20, no regulariser, ridge 0.01 on R^d, release, a throwaway driver during development;
//! the committed figures are in `benches/gradient.rs`): starting weights c·τ‖X‖²/n
//! with c = 0.1, 0.3, 1 gave a slowest pair of 46, 81, 42 ms at τ = 1; 132, 157, 94 ms at τ = 5;
//! 1.7, 1.5, 0.86 s at τ = 20 (absolute on R^d, near the max-loss limit); c = 1 is kept.
//! A fixed ρ = ρ_ERM + 0.3ρ_MM took 87 ms at τ = 1 but 1.6 s at τ = 20, and ρ_ERM + ρ_MM 355 ms at
//! τ = 1.
//!
//! Tried and not kept: letting ρ decay by ×0.95 after every iteration in which F did not rise
//! (floor ρ_ERM) helped hinge and τ ≥ 5 but slowed absolute at τ = 1 (simplex 61 → 101 ms) and
//! left τ = 20 at 1.4 s; ×0.8 stalled most pairs in a cycle of decay and doubling. Doubling ρ also
//! when the gap had not improved by 1 % in 50 iterations slowed absolute on R^d at τ = 20 from
//! 1.3–1.7 s to 2.4 s.
//!
//! Each iteration costs five passes over the data (sweep, v for the certificate, F(w), the
//! per-sample values for q, v under the new q), all counted in `grad_evals`.
//!
//! # Reference
//! Lowy & Razaviyayn 2021, Section 5.1, after [LBSS20] (Li, Beirami, Sanjabi,
//! Smith, "Tilted empirical risk minimization", 2020); Lowy & Razaviyayn 2021 (no correction concerns
//! F_τ itself; the smoothness correction β + 2L²τ of Lemma 5.3 does not enter here). The paper
//! defines F_τ for τ > 0 only and gives no solver or certificate: both are ours. The Gibbs
//! variational formula is the Donsker–Varadhan / Gibbs inequality; the coordinate-ascent dual is
//! module docs item 2 of [`super`]; majorise–minimise as in Lange, "MM Optimization Algorithms"
//! (2016).

use super::{
    DualSweep, Meter, Prox, Reference, Weights, gram_norm_estimate, no_convergence, with_allowance,
};
use crate::error::{Error, Result};
use crate::loss::Glm;
use crate::objective::Objective;
use crate::stats::compensated_sum;

/// πᵢ = qᵢ, the tilt distribution.
struct Tilt<'a>(&'a [f64]);

impl Weights for Tilt<'_> {
    fn step(&self, i: usize, kappa: f64, g: f64, sq: f64) -> f64 {
        let q = self.0[i];
        if q > 0.0 { kappa * g / (q * sq) } else { 0.0 }
    }
    fn scale(&self, i: usize, a: f64) -> f64 {
        a * self.0[i]
    }
}

/// TERM over hinge / absolute (module docs). `meter` caps the outer iterations (and passes, time)
/// (one sweep each).
pub(super) fn solve(
    obj: &Objective,
    glm: Glm,
    tau: f64,
    tol: f64,
    meter: &Meter,
) -> Result<Reference> {
    run(obj, glm, tau, tol, meter).map(|s| s.reference)
}

/// A certified solution with the dual point (q, α) that certifies it and v = Σ qᵢαᵢxᵢ (read by
/// the unit tests, which recompute the certificate from them).
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "the dual point is for the unit tests")
)]
struct Solved {
    reference: Reference,
    q: Vec<f64>,
    alpha: Vec<f64>,
    v: Vec<f64>,
}

fn run(obj: &Objective, glm: Glm, tau: f64, tol: f64, meter: &Meter) -> Result<Solved> {
    let data = obj.data();
    let (n, d) = (data.n(), data.d());
    let nf = n as f64;
    let reg = obj.regulariser();
    let dom = obj.domain();
    if 16.0 * f64::EPSILON / tau > 0.25 * tol {
        return Err(too_small(
            tau,
            format!("below {:.1e}", 64.0 * f64::EPSILON / tol),
        ));
    }
    let sweep = DualSweep::new(obj, glm);
    let sigma_max = gram_norm_estimate(data.matrix_slice(), d, n);
    let rho_erm = 0.3 * sigma_max / nf;
    let rho_cap = rho_erm + tau * sweep.max_row_norm_sq();
    let mut prox = Prox {
        rho: (rho_erm + tau * sigma_max / nf).min(rho_cap),
        kappa: 0.0,
    };
    prox.kappa = reg.l2 + prox.rho;
    let mut q = vec![1.0 / nf; n];
    let mut f = vec![0.0; n];
    let mut center = vec![0.0; d];
    dom.project(&mut center);
    let mut alpha = vec![0.0; n];
    let (mut v, mut w) = (vec![0.0; d], vec![0.0; d]);
    let mut evals = 0usize;
    let mut previous = f64::INFINITY;
    for _ in 0..meter.max_iters() {
        meter.check(evals)?;
        sweep.sweep(&Tilt(&q), prox, &center, &mut alpha, &mut v, &mut w);
        // The certificate's v from scratch (no drift), and w(v).
        sweep.weighted_sum(&Tilt(&q), &alpha, &mut v);
        sweep.primal_at(prox, &v, &center, &mut w);
        let value = obj.value(&w);
        obj.per_sample_values(&w, &mut f)?;
        evals += 4;
        let (gap, value_error) = certified_gap(obj, value, &w, &f, &q, &alpha, &v, tau);
        // F's own rounding does not shrink as the solver converges: stop at once if it alone
        // takes half the tolerance (module docs, Rounding).
        if value_error > 0.5 * tol * value.abs().max(1.0) {
            return Err(too_small(
                tau,
                format!("F(w) itself carries a rounding of {value_error:.1e}"),
            ));
        }
        if gap <= tol * value.abs().max(1.0) {
            let reference = Reference {
                w,
                value,
                gap_bound: gap.max(0.0),
                grad_evals: evals,
                certificate: "duality gap",
            };
            return Ok(Solved {
                reference,
                q,
                alpha,
                v,
            });
        }
        if !value.is_finite() {
            return Err(Error::NonFinite {
                what: "reference objective",
            });
        }
        // The majorisation safeguard (module docs, Solver).
        if value > previous + 1e-12 * value.abs().max(1.0) && prox.rho < rho_cap {
            prox.rho = (2.0 * prox.rho).min(rho_cap);
            prox.kappa = reg.l2 + prox.rho;
        }
        previous = value;
        best_response(&f, tau, &mut q);
        center.copy_from_slice(&w);
        sweep.weighted_sum(&Tilt(&q), &alpha, &mut v);
        evals += 1;
    }
    Err(no_convergence(meter.max_iters()))
}

/// q ← softmax(τf), shifted by max f so that no exponential overflows.
fn best_response(f: &[f64], tau: f64, q: &mut [f64]) {
    let m = f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for (qi, fi) in q.iter_mut().zip(f) {
        *qi = libm::exp(tau * (fi - m));
        sum += *qi;
    }
    q.iter_mut().for_each(|qi| *qi /= sum);
}

/// The error for a tilt too small for a certified TERM reference at the tolerance: rounding,
/// amplified by 1/τ, would exceed it (module docs, Rounding).
fn too_small(tau: f64, why: String) -> Error {
    Error::invalid(
        "loss.tau",
        format!(
            "a tilt large enough for a certified TERM reference ({why}, amplified by 1/τ, \
             exceeds the tolerance; use ERM, which such a tilt approaches)"
        ),
        tau,
    )
}

/// F(w) − D(p, α) at the simplex point p = q̂/Σq̂ (module docs, Certificate), with every
/// rounding allowance (module docs, Rounding), that of the reported F(w) = `value` included
/// (`f` holds fᵢ(w)), and that last allowance alone. `v` must be Σ q̂ᵢαᵢxᵢ, computed from
/// scratch.
#[allow(clippy::too_many_arguments)]
pub(super) fn certified_gap(
    obj: &Objective,
    value: f64,
    w: &[f64],
    f: &[f64],
    q: &[f64],
    alpha: &[f64],
    v: &[f64],
    tau: f64,
) -> (f64, f64) {
    let eps = f64::EPSILON;
    // F's log-mean-exp and the KL term are over the declared n (`Objective::n`): with m rows,
    // ln((1/n)Σ e^{τfᵢ}) and Σ qᵢ ln(n qᵢ) = KL(q‖uniform_m) + ln(n/m) shift together.
    let n = obj.n() as f64;
    let rows = q.len() as f64;
    let reg = obj.regulariser();
    let y = obj.data().labels();
    // F(w) again, accurately: max f + ln(S/n)/τ + g(w).
    let max_f = f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = libm::log(compensated_sum(f.iter().map(|fi| libm::exp(tau * (fi - max_f)))) / n);
    let g = reg.value(w);
    let accurate = max_f + lse / tau + g;
    let value_error =
        (value - accurate).abs() + 4.0 * eps * (max_f.abs() + (lse.abs() + 3.0) / tau + g.abs());
    // The dual's sums.
    let qay = || q.iter().zip(alpha).zip(y).map(|((q, a), y)| q * a * y);
    let qlnq = || {
        q.iter()
            .map(move |&q| if q > 0.0 { q * libm::log(n * q) } else { 0.0 })
    };
    let lin = compensated_sum(qay());
    let kl = compensated_sum(qlnq());
    let magnitude =
        compensated_sum(qay().map(f64::abs)) + compensated_sum(qlnq().map(f64::abs)) / tau;
    let total = compensated_sum(q.iter().copied());
    let slack = 4.0 * eps + 4.0 * rows * eps * eps;
    let ends = [1.0 / (total * (1.0 + slack)), 1.0 / (total * (1.0 - slack))];
    let mut buf = vec![0.0; v.len()];
    let mut scaled = v.to_vec();
    let mut gap = f64::NEG_INFINITY;
    for s in ends {
        scaled.iter_mut().zip(v).for_each(|(a, b)| *a = s * b);
        let conj = obj.domain().conjugate(&scaled, reg.l1, reg.l2, &mut buf);
        let terms = [
            value,
            -s * lin,
            s * kl / tau,
            conj,
            libm::log(ends[1]) / tau,
        ];
        gap = gap.max(with_allowance(&terms) + 8.0 * eps * s * magnitude);
    }
    (gap + value_error, value_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::domain::DomainKind;
    use crate::loss::{Loss, Regulariser, Wrap};
    use crate::reference::Cap;
    use std::sync::Arc;

    #[test]
    fn best_response_is_the_normalised_softmax_and_never_overflows() {
        let mut q = vec![0.0; 3];
        best_response(&[1000.0, 999.0, 0.0], 2.0, &mut q);
        assert!(q.iter().all(|v| v.is_finite()));
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!((q[1] / q[0] - (-2.0f64).exp()).abs() < 1e-15);
        assert_eq!(q[2], 0.0);
    }

    /// A one-dimensional TERM-hinge problem on [−2, 2] (n = 30, tilt τ): F is convex in w, so a
    /// ternary search of 200 steps (interval × (2/3)²⁰⁰) finds F* to rounding. Fixed data: the
    /// features and labels follow a deterministic pattern with a few margin violations.
    fn one_d(tau: f64) -> (Objective, f64) {
        let n = 30;
        let x: Vec<f64> = (0..n)
            .map(|i| ((i * 37 % 29) as f64 - 14.0) / 14.0)
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| {
                if (x[i] > 0.1) ^ (i % 7 == 0) {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let data = Dataset::from_samples(1, x, y).unwrap();
        let obj = Objective::with_loss(
            Arc::new(data),
            Loss {
                glm: Glm::Hinge,
                wrap: Wrap::Tilted { tau },
            },
            Regulariser::default(),
            DomainKind::L2Ball { radius: 2.0 }.boxed(),
            1.0,
        )
        .unwrap();
        let (mut a, mut b) = (-2.0, 2.0);
        for _ in 0..200 {
            let (m1, m2) = (a + (b - a) / 3.0, b - (b - a) / 3.0);
            if obj.value(&[m1]) <= obj.value(&[m2]) {
                b = m2;
            } else {
                a = m1;
            }
        }
        let best = obj.value(&[0.5 * (a + b)]);
        (obj, best)
    }

    /// The certificate is a true lower bound, and the brute-force F* would expose the two likely
    /// miscalibrations: the KL term dropped, and weights that do not sum to one treated as if they
    /// did (q̂ scaled by 0.95 or 1.05 without the renormalisation `certified_gap` applies).
    #[test]
    fn certificate_is_a_true_bound_and_wrong_duals_would_be_caught() {
        let (obj, best) = one_d(2.0);
        let s = run(
            &obj,
            Glm::Hinge,
            2.0,
            1e-10,
            &Cap::iterations(10_000).start(),
        )
        .unwrap();
        let r = &s.reference;
        // 1e-13: the rounding of two evaluations of F (values of order 1).
        assert!(r.value - r.gap_bound <= best + 1e-13, "{r:?} vs {best}");
        assert!(r.value <= best + 1e-10);
        let n = s.q.len() as f64;
        let tau = 2.0;
        let mut f = vec![0.0; s.q.len()];
        obj.per_sample_values(&r.w, &mut f).unwrap();
        let naive = |scale: f64, with_kl: bool| {
            let q: Vec<f64> = s.q.iter().map(|q| scale * q).collect();
            let y = obj.data().labels();
            let lin: f64 = q
                .iter()
                .zip(&s.alpha)
                .zip(y)
                .map(|((q, a), y)| q * a * y)
                .sum();
            let kl: f64 = q
                .iter()
                .filter(|&&q| q > 0.0)
                .map(|q| q * (n * q).ln())
                .sum();
            let v: Vec<f64> = s.v.iter().map(|v| scale * v).collect();
            let conj = obj.domain().conjugate(&v, 0.0, 0.0, &mut [0.0]);
            lin - if with_kl { kl / tau } else { 0.0 } - conj
        };
        // The honest dual reproduces the certificate.
        assert!((naive(1.0, true) - (r.value - r.gap_bound)).abs() < 1e-12);
        let kl = naive(1.0, false) - naive(1.0, true);
        assert!(kl > 1e-3, "the KL term is material here: {kl}");
        assert!(naive(1.0, false) > best + 1e-3, "KL dropped: caught");
        let off = naive(0.95, true).max(naive(1.05, true));
        assert!(
            off > best + 1e-3,
            "unnormalised weights: caught ({off} vs {best})"
        );
        // With the same scaled weights, `certified_gap` renormalises and stays a true bound.
        for scale in [0.95, 1.05] {
            let q: Vec<f64> = s.q.iter().map(|q| scale * q).collect();
            let v: Vec<f64> = s.v.iter().map(|v| scale * v).collect();
            let (gap, _) = certified_gap(&obj, r.value, &r.w, &f, &q, &s.alpha, &v, tau);
            assert!(r.value - gap <= best + 1e-13);
            assert!(gap <= 1e-9, "renormalising loses nothing: {gap}");
        }
    }

    #[test]
    fn a_tilt_too_small_to_certify_is_refused_by_name() {
        // The smallest tilt a loss accepts (`MIN_TILT`), at a tolerance too tight for it:
        // 64ε/tol = 1.4e-2 at tol 1e-12.
        let tau = crate::loss::MIN_TILT;
        let (obj, _) = one_d(tau);
        let err = solve(&obj, Glm::Hinge, tau, 1e-12, &Cap::iterations(10).start()).unwrap_err();
        assert_eq!(err.field(), Some("loss.tau"));
        assert!(
            solve(
                &obj,
                Glm::Hinge,
                tau,
                1e-9,
                &Cap::iterations(10_000).start()
            )
            .is_ok()
        );
    }
}
