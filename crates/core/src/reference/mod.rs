//! The non-private reference optimum w*, F* = F(w*), with a certificate of its accuracy.
//!
//! Everything here reads the raw data: it exists to measure excess risk for the plots and is
//! **not private**.
//!
//! ## Certificates (why `gap_bound` is an upper bound on F(w) − F*)
//! Write F = f + g with f the data term (convex) and g = λ₁‖·‖₁ + (λ₂/2)‖·‖² + I_W.
//!
//! 1. **Conjugate gap (smooth data terms).** For any subgradient s ∈ ∂f(w) and any u ∈ W,
//!    F(u) ≥ f(w) + ⟨s, u − w⟩ + g(u) ≥ f(w) − ⟨s, w⟩ − g*(−s), so
//!    F(w) − F* ≤ ⟨s, w⟩ + g(w) + g*(−s). The conjugate g* is evaluated exactly by the domain
//!    ([`crate::domain::Domain::conjugate`]). It tends to 0 as w → w* when f is differentiable at w*, because then
//!    −∇f(w*) ∈ ∂g(w*) makes Fenchel–Young tight. Solver: FISTA with backtracking and
//!    function-value restart on f_s = f + (λ₂/2)‖·‖², prox of λ₁‖·‖₁ + I_W.
//! 2. **Fenchel duality gap (hinge, absolute).** For φ ∈ {hinge, absolute} and every feasible dual
//!    α (αᵢyᵢ ∈ [0, 1] for hinge, αᵢ ∈ [−1, 1] for absolute), φ(t, y) ≥ yα − αt, hence
//!    F(u) ≥ D(α) = (1/n)Σ yᵢαᵢ − g*((1/n)Σ αᵢxᵢ) for every u, and F(w) − F* ≤ F(w) − D(α).
//!    Solver: proximal-point outer loop (ρ > 0 adds strong convexity, the centre moves to w(α)
//!    after every sweep) whose subproblems are solved in the dual by cyclic coordinate ascent on
//!    the box (one clamped step per sample, SDCA-like); the primal point w(α) = ∇h*(v) is
//!    feasible by construction, and the certificate re-evaluates v = (1/n)Σ αᵢxᵢ from scratch,
//!    so drift in the running v cannot enter it.
//! 3. **Fenchel duality gap (adversarial hinge, absolute, squared, Huber).** The same duality and
//!    solver with r‖w‖ = max_{‖U‖≤r} ⟨U, w⟩ as one more dual block U (squared and Huber also dualise
//!    h(z) ≥ az − h*(a) per sample): crates/core/src/reference/adversarial.rs. Adversarial logistic and
//!    smoothed hinge are smooth away from w = 0 and go through item 1.
//!
//! 4. **Tilted duality gap (TERM over hinge, absolute).** For every q in the simplex and α as in
//!    item 2, F* ≥ Σ qᵢαᵢyᵢ − KL(q‖uniform)/τ − g*(Σ qᵢαᵢxᵢ) (Gibbs' variational form of the
//!    log-sum-exp); solver: the same coordinate-ascent dual with weights qᵢ, alternating with
//!    q ← softmax(τf(w)). Details, rounding allowances and the choice of ρ in
//!    `reference/tilted.rs`.
//!
//! On an **unbounded domain** g* is finite only through strong convexity: the unconstrained
//! reference therefore requires λ₂ > 0 (we certify through strong convexity, not a sublevel-set
//! argument), and [`solve`] says so instead of running.
//!
//! Every certificate adds a floating-point allowance of 8·ε_mach·Σ|terms| to the computed gap
//! (item 4 adds those of the log-sum-exp and of the weights' normalisation, see `tilted.rs`).
//!
//! ## Cost (release, n = 10⁴, d = 20, tol 1e-9; `cargo bench --bench gradient -- reference`)
//! Smooth terms (squared, logistic, smoothed hinge, Huber, TERM over these, adversarial
//! logistic): 3–110 ms on every domain. Hinge and absolute: 5–50 ms on the ℓ2 ball, simplex, box
//! and R^d (with λ₂), 100–210 ms on the ℓ1 ball. Adversarial (radius 0.02)
//! hinge, absolute, squared and Huber (item 3): 4–50 ms on every domain. TERM over hinge and
//! absolute (item 4): 10–42 ms at τ = 1 and 8–114 ms at τ = 5 on every domain, 39–604 counted
//! passes. Both were refused before (one run each on a loaded machine, in
//! which ERM absolute took 13–183 ms).
//! The dual used to be solved by accelerated projected *full-gradient* ascent, whose step is set
//! by the whole Gram matrix (‖X‖²/n²κ): that took 0.14–1.3 s on the ℓ2 ball, box and R^d,
//! 0.8–6.4 s on the simplex and 17–23 s on the ℓ1 ball on the same loaded machine, whatever ρ
//! and re-centring schedule was tried. Coordinate steps are set by one ‖xᵢ‖² each.
//!
//! Tried and not kept: plain restarted PDHG on the saddle form
//! min_w max_{α∈B} g(w) + (1/n)Σ αᵢ(yᵢ − ⟨xᵢ, w⟩) — two passes per iteration, PDLP's restart
//! rules on the (finite) duality gap, primal weight ω. Without diagonal preconditioning it is
//! very sensitive to ω: at ω = 30 hinge took 17 ms on the simplex and 0.57 s on the ℓ1 ball but
//! absolute 1.5–12 s everywhere; at ω = 100 absolute still took 1.3–5.8 s; with PDLP's adaptive ω
//! (from ω₀ = 1 or 100) some pairs failed to converge in 2·10⁵ iterations. Superseded by the
//! coordinate-ascent dual above, whose one knob ρ changes the worst pair by < 2× over a
//! factor 3 either side of its value.

mod adversarial;
mod tilted;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::linalg::{axpy, dot};
use crate::loss::{Glm, Wrap};
use crate::objective::Objective;

/// A solution and the evidence of how good it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    pub w: Vec<f64>,
    /// F(w), an upper bound on F*.
    pub value: f64,
    /// Certified bound on F(w) − F* (see the module docs); F* ≥ value − gap_bound.
    pub gap_bound: f64,
    /// Gradient evaluations (full passes over the data) used.
    pub grad_evals: usize,
    /// Which certificate: "conjugate gap" or "duality gap".
    pub certificate: &'static str,
}

/// Solves to a certified gap ≤ `tol · max(1, |F|)` within `max_iters` iterations.
pub fn solve(obj: &Objective, tol: f64, max_iters: usize) -> Result<Reference> {
    solve_capped(obj, tol, &Cap::iterations(max_iters))
}

/// What a reference solve may spend before it gives up with an error that says which cap it
/// met: iterations, counted passes over the data (deterministic, the same on every machine)
/// and wall-clock time (so that a slow machine or browser also stops in about the time the pass
/// cap was sized for). The session's reference is a non-private diagnostic that must never hold
/// up or decide a release (docs/PRIVACY.md rule 6), so it runs under all three.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cap {
    pub max_iters: usize,
    /// Passes over the data (the solvers' `grad_evals` count).
    pub max_passes: usize,
    /// Seconds of wall-clock time; ∞ for none.
    pub max_seconds: f64,
}

impl Cap {
    /// Only an iteration cap (the unit tests' and benchmarks' solves).
    pub fn iterations(max_iters: usize) -> Self {
        Self {
            max_iters,
            max_passes: usize::MAX,
            max_seconds: f64::INFINITY,
        }
    }

    /// Starts the clock: the caps as checked inside a solver's loop.
    fn start(&self) -> Meter {
        Meter {
            cap: *self,
            started: now_seconds(),
        }
    }
}

/// A [`Cap`] with its clock running.
pub(super) struct Meter {
    cap: Cap,
    started: f64,
}

impl Meter {
    pub(super) fn max_iters(&self) -> usize {
        self.cap.max_iters
    }

    /// An error once `passes` exceed the pass cap or the time is up (checked once per outer
    /// iteration, each of which costs at least one pass, so the clock is read rarely).
    pub(super) fn check(&self, passes: usize) -> Result<()> {
        let passes_done = passes as f64 / self.cap.max_passes as f64;
        if passes > self.cap.max_passes {
            return Err(Error::invalid(
                "reference",
                format!(
                    "a certified optimum within the work cap of {} passes over the data",
                    self.cap.max_passes
                ),
                format!("none after {passes} passes"),
            ));
        }
        if self.cap.max_seconds.is_finite() {
            let elapsed = now_seconds() - self.started;
            // Whichever cap is nearer says how far the solve may still go.
            crate::progress::done(passes_done.max(elapsed / self.cap.max_seconds));
            if elapsed > self.cap.max_seconds {
                return Err(Error::invalid(
                    "reference",
                    format!(
                        "a certified optimum within the time cap of {} s",
                        self.cap.max_seconds
                    ),
                    format!("none after {elapsed:.1} s ({passes} passes over the data)"),
                ));
            }
        } else {
            crate::progress::done(passes_done);
        }
        Ok(())
    }
}

/// Seconds on a monotone-enough clock: `Instant` natively; in the browser, where `Instant`
/// panics, the JavaScript clock (`progress::now_ms`).
fn now_seconds() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        crate::progress::now_ms() / 1000.0
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
}

/// [`solve`] under every cap of `cap`.
pub fn solve_capped(obj: &Objective, tol: f64, cap: &Cap) -> Result<Reference> {
    let meter = cap.start();
    let d = obj.dim();
    let reg = obj.regulariser();
    if d == 0 || obj.data().n() == 0 {
        return Err(Error::invalid(
            "data",
            "at least one sample and one feature",
            d,
        ));
    }
    if obj.domain().diameter_in(d).is_infinite() && reg.l2 <= 0.0 {
        return Err(Error::invalid(
            "regularizer.l2",
            "> 0 on an unbounded domain (the reference optimum is certified through strong convexity)",
            reg.l2,
        ));
    }
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Error::invalid("reference.tol", "a finite number > 0", tol));
    }
    match obj.loss() {
        Some(loss) if !loss.glm.is_smooth() || adversarial_residual(loss) => match loss.wrap {
            Wrap::None => dual_solve(obj, loss.glm, tol, &meter),
            Wrap::Adversarial { radius } => adversarial::solve(obj, loss.glm, radius, tol, &meter),
            Wrap::Tilted { tau } => tilted::solve(obj, loss.glm, tau, tol, &meter),
        },
        _ => primal_solve(obj, tol, &meter),
    }
}

/// The adversarial form of a residual loss, h(|t − y| + r‖w‖), has a kink wherever a residual
/// vanishes (like the absolute loss), and minimisers sit on such kinks: the conjugate-gap
/// certificate does not close there, so these go to the dual solver of [`adversarial`].
fn adversarial_residual(loss: crate::loss::Loss) -> bool {
    matches!(loss.wrap, Wrap::Adversarial { radius } if radius > 0.0) && !loss.glm.is_margin()
}

/// F(w) − F* ≤ ⟨s, w⟩ + g(w) + g*(−s) for s ∈ ∂f(w) (module docs, item 1). Returns the bound
/// including the rounding allowance.
pub fn conjugate_gap(obj: &Objective, w: &[f64], data_grad: &[f64], buf: &mut [f64]) -> f64 {
    let reg = obj.regulariser();
    for (b, g) in buf.iter_mut().zip(data_grad) {
        *b = -g;
    }
    let neg = buf.to_vec();
    let conj = obj.domain().conjugate(&neg, reg.l1, reg.l2, buf);
    let terms = [dot(data_grad, w), reg.value(w), conj];
    with_allowance(&terms)
}

pub(super) fn with_allowance(terms: &[f64]) -> f64 {
    let sum: f64 = terms.iter().sum();
    let mag: f64 = terms.iter().map(|t| t.abs()).sum();
    sum + 8.0 * f64::EPSILON * mag
}

/// FISTA with backtracking on f_s = data term + (λ₂/2)‖·‖², prox of λ₁‖·‖₁ + I_W, restart when
/// F increases (O'Donoghue & Candès 2015), stopped by the conjugate-gap certificate.
fn primal_solve(obj: &Objective, tol: f64, meter: &Meter) -> Result<Reference> {
    let d = obj.dim();
    let reg = obj.regulariser();
    let dom = obj.domain();
    let smooth = |w: &[f64], g: &mut [f64]| {
        let v = obj.value_and_gradient(w, g);
        v - reg.l1 * w.iter().map(|x| x.abs()).sum::<f64>()
    };
    let declared = obj.smoothness();
    let mut lip = if declared.is_finite() && declared > 0.0 {
        declared
    } else {
        1.0
    };
    let mut w = vec![0.0; d];
    dom.project(&mut w);
    let mut evals = 0usize;
    if let Some(start) = adversarial_start(obj, &mut evals) {
        w = start;
    }
    let mut y = w.clone();
    let mut w_next = vec![0.0; d];
    let (mut gy, mut gw, mut buf) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let mut theta = 1.0f64;
    let mut f_prev = f64::INFINITY;
    for iter in 0..meter.max_iters() {
        meter.check(evals)?;
        let fy = smooth(&y, &mut gy);
        evals += 1;
        // Backtracking: accept L once f_s(w⁺) ≤ f_s(y) + ⟨∇f_s(y), w⁺ − y⟩ + (L/2)‖w⁺ − y‖².
        let fw = loop {
            let eta = 1.0 / lip;
            for j in 0..d {
                w_next[j] = y[j] - eta * gy[j];
            }
            dom.prox_l1(&mut w_next, eta * reg.l1);
            let fw = smooth(&w_next, &mut gw);
            evals += 1;
            let mut lin = 0.0;
            let mut sq = 0.0;
            for j in 0..d {
                let s = w_next[j] - y[j];
                lin += gy[j] * s;
                sq += s * s;
            }
            let slack = 1e-12 * fy.abs().max(1.0);
            if fw <= fy + lin + 0.5 * lip * sq + slack || !fw.is_finite() || lip > 1e300 {
                break fw;
            }
            lip *= 2.0;
        };
        if !fw.is_finite() {
            return Err(Error::NonFinite {
                what: "reference objective",
            });
        }
        let value = fw + reg.l1 * w_next.iter().map(|x| x.abs()).sum::<f64>();
        // gw = ∇f_s(w⁺); the certificate wants the data-term gradient ∇f = ∇f_s − λ₂w.
        axpy(-reg.l2, &w_next, &mut gw);
        let gap = conjugate_gap(obj, &w_next, &gw, &mut buf);

        if gap <= tol * value.abs().max(1.0) {
            return Ok(Reference {
                w: w_next,
                value,
                gap_bound: gap.max(0.0),
                grad_evals: evals,
                certificate: "conjugate gap",
            });
        }
        // The adversarial loss is not differentiable at w = 0, which is often its minimiser
        // (when ‖mean ∂ₜf·x‖ ≤ r·mean ∂ₛf): certify 0 with its minimal-norm subgradient.
        if iter % 10 == 9
            && let Some(zero) = certify_zero(obj, tol, &mut buf)
        {
            return Ok(Reference {
                grad_evals: evals + 1,
                ..zero
            });
        }
        if value > f_prev {
            theta = 1.0;
        }
        f_prev = value.min(f_prev);
        let theta_next = 0.5 * (1.0 + (1.0 + 4.0 * theta * theta).sqrt());
        let momentum = (theta - 1.0) / theta_next;
        for j in 0..d {
            y[j] = w_next[j] + momentum * (w_next[j] - w[j]);
        }
        dom.project(&mut y);
        std::mem::swap(&mut w, &mut w_next);
        theta = theta_next;
        // Let L shrink below the declared β too: β is stated for the declared feature bound,
        // which can be far above the data's actual curvature; backtracking keeps each step safe.
        lip *= 0.9;
    }
    Err(no_convergence(meter.max_iters()))
}

/// For the adversarial loss with 0 ∈ W: (0, a, c, ‖a‖), where a + c·B is its subdifferential at
/// w = 0 ([`Objective::adversarial_subdifferential_at_zero`]).
fn subdifferential_at_zero(obj: &Objective) -> Option<(Vec<f64>, Vec<f64>, f64, f64)> {
    let zero = vec![0.0; obj.dim()];
    if !obj.domain().contains(&zero, 0.0) {
        return None;
    }
    let mut a = vec![0.0; obj.dim()];
    let c = obj.adversarial_subdifferential_at_zero(&mut a)?;
    let norm = crate::linalg::norm2(&a);
    Some((zero, a, c, norm))
}

/// A start away from the kink of the adversarial loss at w = 0 (where no quadratic upper bound
/// holds, so backtracking would shrink the step forever): along the steepest-descent direction
/// −s/‖s‖, s the least-norm subgradient at 0, at the best of the lengths 2⁻²⁰…2⁴ (projected onto W).
fn adversarial_start(obj: &Objective, evals: &mut usize) -> Option<Vec<f64>> {
    let (zero, a, c, norm) = subdifferential_at_zero(obj)?;
    if norm <= c {
        return None;
    }
    let mut best = (obj.value(&zero), zero);
    for k in -20..=4 {
        let t = libm::ldexp(1.0, k) / norm;
        let mut w: Vec<f64> = a.iter().map(|v| -t * v).collect();
        obj.domain().project(&mut w);
        let f = obj.value(&w);
        *evals += 1;
        if f < best.0 {
            best = (f, w);
        }
    }
    Some(best.1)
}

/// w = 0 for the adversarial loss, certified with the subgradient of least norm a·(1 − c/‖a‖)₊ of
/// the ball a + c·B (see [`Objective::adversarial_subdifferential_at_zero`]), if 0 ∈ W and the
/// conjugate gap there meets the tolerance.
fn certify_zero(obj: &Objective, tol: f64, buf: &mut [f64]) -> Option<Reference> {
    let (zero, mut a, c, norm) = subdifferential_at_zero(obj)?;
    let shrink = if norm > 0.0 {
        (1.0 - c / norm).max(0.0)
    } else {
        0.0
    };
    a.iter_mut().for_each(|v| *v *= shrink);
    let gap = conjugate_gap(obj, &zero, &a, buf);
    let value = obj.value(&zero);
    (gap <= tol * value.abs().max(1.0)).then(|| Reference {
        w: zero,
        value,
        gap_bound: gap.max(0.0),
        grad_evals: 0,
        certificate: "conjugate gap",
    })
}

/// Hinge / absolute loss, module docs item 2. `max_iters` bounds the number of sweeps.
fn dual_solve(obj: &Objective, glm: Glm, tol: f64, meter: &Meter) -> Result<Reference> {
    let data = obj.data();
    let (n, d) = (data.n(), data.d());
    // Weights 1/n over the declared n (`Objective::n`), as the data term divides by it.
    let nf = obj.n() as f64;
    let reg = obj.regulariser();
    let dom = obj.domain();
    let y = data.labels();
    let sweep = DualSweep::new(obj, glm);
    let sigma_max = gram_norm_estimate(data.matrix_slice(), d, n);
    // ρ: the proximal weight. Swept on the benchmark problems (`cargo bench --bench gradient --
    // reference`): ρ·n/‖X‖² ∈ {0.1, 0.3, 1, 3} with re-centring after every 1 or 3 sweeps gave a
    // slowest hinge/absolute pair of 229, 183, 279, 779 ms (every sweep) and 184, 256, 887,
    // 2295 ms (every third); 0.3 and every sweep is the best worst case, and the neighbours are
    // not far off. ρ stays on when λ₂ > 0: a small ridge alone gives small coordinate steps
    // (absolute on R^d with λ₂ = 0.01: 680 passes with ρ = 0, 270 with it).
    let rho = 0.3 * sigma_max / nf;
    let prox = Prox {
        rho,
        kappa: reg.l2 + rho,
    };
    let weights = Uniform(nf);
    let mut center = vec![0.0; d];
    dom.project(&mut center);
    let mut alpha = vec![0.0; n];
    let (mut v, mut w, mut buf) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    let mut evals = 0usize;
    for _ in 0..meter.max_iters() {
        meter.check(evals)?;
        sweep.sweep(&weights, prox, &center, &mut alpha, &mut v, &mut w);
        evals += 1;
        // Certificate for the original problem at α (v recomputed exactly, no drift).
        sweep.weighted_sum(&weights, &alpha, &mut v);
        sweep.primal_at(prox, &v, &center, &mut w);
        evals += 1;
        let value = obj.value(&w);
        let ya: f64 = y.iter().zip(&alpha).map(|(yi, ai)| yi * ai).sum::<f64>() / nf;
        let conj = dom.conjugate(&v, reg.l1, reg.l2, &mut buf);
        if let Some(done) = duality_certified(&w, &[value, -ya, conj], tol, evals) {
            return Ok(done);
        }
        // Proximal-point outer step (Rockafellar 1976): re-centre on w(α) after every sweep;
        // α is kept, so the next subproblem starts warm.
        center.copy_from_slice(&w);
    }
    Err(no_convergence(meter.max_iters()))
}

/// The duality-gap certificate at w: `terms` = [F(w), then the negated terms of the dual value D]
/// sum to F(w) − D, to which the rounding allowance is added; the reference if that meets
/// `tol · max(1, |F(w)|)`.
fn duality_certified(w: &[f64], terms: &[f64], tol: f64, evals: usize) -> Option<Reference> {
    let value = terms[0];
    let gap = with_allowance(terms);
    (gap <= tol * value.abs().max(1.0)).then(|| Reference {
        w: w.to_vec(),
        value,
        gap_bound: gap.max(0.0),
        grad_evals: evals,
        certificate: "duality gap",
    })
}

fn no_convergence(max_iters: usize) -> Error {
    Error::invalid(
        "reference",
        format!("a certified optimum within {max_iters} iterations"),
        "no convergence",
    )
}

/// The proximal weight ρ of the outer loop and κ = λ₂ + ρ, the strong convexity of the
/// subproblem's regulariser h_c = g + (ρ/2)‖· − c‖².
#[derive(Clone, Copy)]
pub(super) struct Prox {
    pub rho: f64,
    pub kappa: f64,
}

/// Sample weights πᵢ of a weighted hinge/absolute data term Σ πᵢφ(⟨xᵢ, w⟩, yᵢ): 1/n for ERM,
/// TERM's tilt distribution q ([`tilted`]). A trait rather than a slice of 1/n so that the ERM
/// sweep keeps its exact arithmetic (divisions by n), whose bits the golden files pin.
pub(super) trait Weights {
    /// The unclamped coordinate-ascent step κ·g/(πᵢ‖xᵢ‖²) for the partial derivative πᵢg
    /// (0 where πᵢ = 0: that coordinate does not enter the dual).
    fn step(&self, i: usize, kappa: f64, g: f64, sq: f64) -> f64;
    /// πᵢ·a.
    fn scale(&self, i: usize, a: f64) -> f64;
}

/// πᵢ = 1/n, stored as n.
pub(super) struct Uniform(pub f64);

impl Weights for Uniform {
    fn step(&self, _: usize, kappa: f64, g: f64, sq: f64) -> f64 {
        self.0 * kappa * g / sq
    }
    fn scale(&self, _: usize, a: f64) -> f64 {
        a / self.0
    }
}

/// The dual box and row norms that the coordinate-ascent dual of module docs item 2 needs,
/// shared by ERM ([`dual_solve`]) and TERM ([`tilted`]); the adversarial dual ([`adversarial`])
/// uses its row norms, w(v) and mean.
pub(super) struct DualSweep<'a> {
    obj: &'a Objective,
    lo: Vec<f64>,
    hi: Vec<f64>,
    sq: Vec<f64>,
}

impl<'a> DualSweep<'a> {
    pub(super) fn new(obj: &'a Objective, glm: Glm) -> Self {
        let data = obj.data();
        let (lo, hi) = dual_box(glm, data.labels());
        let sq = data
            .matrix_slice()
            .chunks_exact(data.d())
            .map(|xi| dot(xi, xi))
            .collect();
        Self { obj, lo, hi, sq }
    }

    /// ‖xᵢ‖².
    pub(super) fn row_norm_sq(&self, i: usize) -> f64 {
        self.sq[i]
    }

    /// maxᵢ ‖xᵢ‖².
    pub(super) fn max_row_norm_sq(&self) -> f64 {
        self.sq.iter().copied().fold(0.0, f64::max)
    }

    /// w(v) = ∇h_c*(v) = argmax ⟨v + ρc, w⟩ − λ₁‖w‖₁ − (κ/2)‖w‖² over W.
    pub(super) fn primal_at(&self, prox: Prox, v: &[f64], center: &[f64], w: &mut [f64]) {
        for j in 0..w.len() {
            w[j] = (v[j] + prox.rho * center[j]) / prox.kappa;
        }
        let l1 = self.obj.regulariser().l1;
        self.obj.domain().prox_l1(w, l1 / prox.kappa);
    }

    /// v = Σ πᵢαᵢxᵢ, from scratch.
    pub(super) fn weighted_sum(&self, weights: &impl Weights, alpha: &[f64], v: &mut [f64]) {
        let data = self.obj.data();
        v.fill(0.0);
        let rows = data.matrix_slice().chunks_exact(data.d());
        for (i, (xi, ai)) in rows.zip(alpha).enumerate() {
            if *ai != 0.0 {
                axpy(weights.scale(i, *ai), xi, v);
            }
        }
    }

    /// One cyclic sweep of coordinate ascent on the subproblem dual
    /// D_c(α) = Σ πᵢyᵢαᵢ − h_c*(v), v = Σ πᵢαᵢxᵢ: ∂D_c/∂αᵢ = πᵢ(yᵢ − ⟨xᵢ, w(v)⟩) and
    /// ∇h_c* = w(·) is (1/κ)-Lipschitz, so αᵢ's curvature is at most πᵢ²‖xᵢ‖²/κ and the
    /// clamped step below never decreases D_c. Each coordinate sees the step of a single
    /// sample, not of the whole Gram matrix: that is what makes this far faster than the
    /// accelerated full-gradient ascent it replaced (14–20 s → < 0.3 s on the ℓ1 ball).
    /// `v` is updated incrementally (the certificate recomputes it) and `w` is left at w(v).
    pub(super) fn sweep(
        &self,
        weights: &impl Weights,
        prox: Prox,
        center: &[f64],
        alpha: &mut [f64],
        v: &mut [f64],
        w: &mut [f64],
    ) {
        let data = self.obj.data();
        let y = data.labels();
        self.primal_at(prox, v, center, w);
        for (i, xi) in data.matrix_slice().chunks_exact(data.d()).enumerate() {
            if self.sq[i] == 0.0 {
                // xᵢ = 0: D is linear in αᵢ (slope πᵢyᵢ) and v does not move, so the best αᵢ
                // is the end of the box in the direction of yᵢ (αᵢyᵢ = φ(0, yᵢ)). Without this a
                // zero row kept αᵢ = 0 and a gap of πᵢ|yᵢ| that no sweep could close.
                if y[i] > 0.0 {
                    alpha[i] = self.hi[i];
                } else if y[i] < 0.0 {
                    alpha[i] = self.lo[i];
                }
                continue;
            }
            let g = y[i] - dot(xi, w);
            let next = (alpha[i] + weights.step(i, prox.kappa, g, self.sq[i]))
                .clamp(self.lo[i], self.hi[i]);
            let delta = next - alpha[i];
            if delta != 0.0 {
                alpha[i] = next;
                axpy(weights.scale(i, delta), xi, v);
                self.primal_at(prox, v, center, w);
            }
        }
    }
}

/// The box of the dual variables αᵢ (module docs, item 2): yᵢαᵢ ∈ [0, 1] for hinge, αᵢ ∈ [−1, 1]
/// for absolute, so that φ(t, yᵢ) = max over the box of αᵢ(yᵢ − t).
fn dual_box(glm: Glm, y: &[f64]) -> (Vec<f64>, Vec<f64>) {
    match glm {
        Glm::Hinge => y.iter().map(|&yi| (yi.min(0.0), yi.max(0.0))).unzip(),
        _ => (vec![-1.0; y.len()], vec![1.0; y.len()]),
    }
}

/// An upper estimate of ‖X‖²_op (largest eigenvalue of XXᵀ): 30 power iterations on the d × d Gram
/// matrix, times 1.1. Only the speed of the dual solver depends on it, never the certificate.
pub(super) fn gram_norm_estimate(x: &[f64], d: usize, n: usize) -> f64 {
    let mut gram = vec![0.0; d * d];
    for xi in x.chunks_exact(d).take(n) {
        for a in 0..d {
            axpy(xi[a], xi, &mut gram[a * d..(a + 1) * d]);
        }
    }
    let mut u = vec![1.0; d];
    let mut lambda = 0.0;
    for _ in 0..30 {
        let mut next = vec![0.0; d];
        for a in 0..d {
            next[a] = dot(&gram[a * d..(a + 1) * d], &u);
        }
        let norm = crate::linalg::norm2(&next);
        if norm == 0.0 {
            return 1.0;
        }
        lambda = norm / crate::linalg::norm2(&u);
        u = next.iter().map(|v| v / norm).collect();
    }
    1.1 * lambda.max(f64::MIN_POSITIVE)
}

/// A synthetic problem's **population** objective F(w) = E f(w; z) + r(w) over a domain, z drawn
/// from the generator (features clipped to `feature_bound` when `clip` is set, as the empirical
/// problem was).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct PopulationProblem {
    pub spec: crate::data::GeneratorSpec,
    pub loss: crate::loss::Loss,
    #[serde(rename = "regularizer")]
    pub regulariser: crate::loss::Regulariser,
    pub domain: crate::domain::DomainKind,
    pub feature_bound: f64,
    pub clip: bool,
}

/// The population optimum and how it was obtained.
pub struct PopulationReference {
    /// w* of the population objective (closed form) or of a large fresh sample (Monte Carlo).
    pub w: Vec<f64>,
    /// F(w*): exact, or the fresh-sample value.
    pub value: f64,
    /// `None` for the closed form; the fresh-sample size otherwise.
    pub samples: Option<usize>,
    /// For Monte Carlo: the certified gap of the fresh-sample solve (its own optimisation error).
    pub gap_bound: f64,
    fresh: Option<Objective>,
    closed: Option<(f64, Vec<f64>, f64, f64)>,
}

/// An estimate with its standard error (0 for closed forms), always finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub value: f64,
    pub std_error: f64,
}

impl PopulationProblem {
    /// Closed form when it exists — squared loss, Gaussian features without clipping, regression
    /// with finite-variance noise, ridge only, on R^d or an ℓ2 ball: F(w) = ½s²‖w − w₀‖² +
    /// ½σ²E ξ² + (λ/2)‖w‖², minimised by the projection of s²w₀/(s² + λ) onto the ball (the
    /// Hessian is isotropic). Otherwise the reference optimum of `samples` fresh draws from `rng`.
    pub fn solve(
        &self,
        rng: crate::rng::DpRng,
        samples: usize,
        tol: f64,
    ) -> Result<PopulationReference> {
        self.solve_capped(rng, samples, tol, &Cap::iterations(200_000))
    }

    /// [`PopulationProblem::solve`] with the fresh-sample solve under `cap`.
    pub fn solve_capped(
        &self,
        rng: crate::rng::DpRng,
        samples: usize,
        tol: f64,
        cap: &Cap,
    ) -> Result<PopulationReference> {
        use crate::data::{Tail, Task};
        use crate::domain::{Domain, DomainKind};
        use crate::loss::Glm;
        let s = &self.spec;
        if let (
            Glm::Squared { .. },
            Wrap::None,
            Tail::Gaussian,
            Task::Regression { noise, noise_scale },
            false,
        ) = (self.loss.glm, self.loss.wrap, s.features, s.task, self.clip)
        {
            let noise_var = noise_scale * noise_scale * noise.norm_moment(1, 2.0);
            let ball = matches!(
                self.domain,
                DomainKind::L2Ball { .. } | DomainKind::Unconstrained
            );
            if self.regulariser.l1 == 0.0 && noise_var.is_finite() && ball {
                let s2 = s.feature_scale * s.feature_scale;
                let lambda = self.regulariser.l2;
                let w0 = s.planted();
                let mut w: Vec<f64> = w0.iter().map(|v| s2 * v / (s2 + lambda)).collect();
                self.domain.project(&mut w);
                let closed = (s2, w0, noise_var, lambda);
                let value = closed_value(&closed, &w);
                return Ok(PopulationReference {
                    w,
                    value,
                    samples: None,
                    gap_bound: 0.0,
                    fresh: None,
                    closed: Some(closed),
                });
            }
        }
        let mut fresh_spec = *s;
        fresh_spec.n = samples;
        let mut data = crate::data::generate(&fresh_spec, rng)?;
        if self.clip {
            crate::data::clip_features(&mut data, self.feature_bound);
            // The empirical problem's targets are clipped to the declared bound: so are these.
            if let Some(bound) = self.loss.glm.label_bound() {
                crate::data::clip_labels(&mut data, bound);
            }
        }
        let obj = Objective::with_loss(
            std::sync::Arc::new(data),
            self.loss,
            self.regulariser,
            self.domain.boxed(),
            self.feature_bound,
        )?;
        let r = solve_capped(&obj, tol, cap)?;
        Ok(PopulationReference {
            w: r.w,
            value: r.value,
            samples: Some(samples),
            gap_bound: r.gap_bound,
            fresh: Some(obj),
            closed: None,
        })
    }
}

fn closed_value(c: &(f64, Vec<f64>, f64, f64), w: &[f64]) -> f64 {
    let (s2, w0, noise_var, lambda) = c;
    let d2: f64 = w.iter().zip(w0).map(|(a, b)| (a - b) * (a - b)).sum();
    0.5 * s2 * d2 + 0.5 * noise_var + 0.5 * lambda * dot(w, w)
}

impl PopulationReference {
    /// Population excess risk F(w) − F(w*): exact for the closed form; otherwise the paired mean
    /// of f(w; zᵢ) − f(w*; zᵢ) over the fresh sample plus r(w) − r(w*), with the standard error
    /// sd(differences)/√N (for TERM, whose objective is not a mean, the delta method's: see
    /// `tilted_std_error`). The fresh-sample optimum
    /// is itself an estimate: its own error is of the same order as the standard error.
    pub fn excess_risk(&self, w: &[f64]) -> Result<Estimate> {
        if w.len() != self.w.len() {
            return Err(Error::DimensionMismatch {
                what: "w",
                expected: self.w.len(),
                got: w.len(),
            });
        }
        if let Some(c) = &self.closed {
            return Ok(Estimate {
                value: closed_value(c, w) - self.value,
                std_error: 0.0,
            });
        }
        let Some(obj) = &self.fresh else {
            return Err(Error::invalid(
                "population",
                "a solved population problem",
                "none",
            ));
        };
        let n = obj.data().n();
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        obj.per_sample_values(w, &mut a)?;
        obj.per_sample_values(&self.w, &mut b)?;
        if let Some(Wrap::Tilted { tau }) = obj.loss().map(|l| l.wrap) {
            return Ok(Estimate {
                value: obj.value(w) - self.value,
                std_error: tilted_std_error(tau, &a, &b),
            });
        }
        let (mut mean, mut m2) = (0.0, 0.0);
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            let v = x - y;
            let delta = v - mean;
            mean += delta / (i + 1) as f64;
            m2 += delta * (v - mean);
        }
        let reg = obj.regulariser();
        Ok(Estimate {
            value: mean + reg.value(w) - reg.value(&self.w),
            std_error: (m2 / (n as f64 - 1.0) / n as f64).sqrt(),
        })
    }
}

/// The standard error of the TERM difference (1/τ)(ln ū − ln v̄), uᵢ = exp(τ f(w; zᵢ)) and
/// vᵢ = exp(τ f(w*; zᵢ)) over the fresh sample, by the delta method: the difference's influence
/// of record i is (uᵢ/ū − vᵢ/v̄)/τ, and the error is its sample standard deviation over √N.
/// Each of u and v is scaled by its own largest term first (the ratios do not change), so every
/// mean is at least 1/N and every number finite, whatever the losses (the estimate
/// published `std_error: NaN`).
fn tilted_std_error(tau: f64, a: &[f64], b: &[f64]) -> f64 {
    let n = a.len();
    if n < 2 {
        return 0.0;
    }
    let scaled = |f: &[f64]| -> Vec<f64> {
        let top = f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = f.iter().map(|v| libm::exp(tau * (v - top))).collect();
        let mean = e.iter().sum::<f64>() / n as f64;
        e.into_iter().map(|v| v / mean).collect()
    };
    let (u, v) = (scaled(a), scaled(b));
    let (mut mean, mut m2) = (0.0, 0.0);
    for (i, (x, y)) in u.iter().zip(&v).enumerate() {
        let h = (x - y) / tau;
        let delta = h - mean;
        mean += delta / (i + 1) as f64;
        m2 += delta * (h - mean);
    }
    (m2 / (n as f64 - 1.0) / n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::Logistic;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn objective(radius: f64) -> Objective {
        let spec = ClassificationSpec {
            n: 2000,
            d: 4,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let data = generate_classification(&spec, &mut seeded(11, Stream::Data)).unwrap();
        Objective::new(
            Arc::new(data),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius }),
            1.0,
        )
    }

    #[test]
    fn certificate_holds_and_no_feasible_point_does_better() {
        for radius in [0.5, 20.0] {
            let obj = objective(radius);
            let r = solve(&obj, 1e-10, 200_000).unwrap();
            assert!(obj.domain().contains(&r.w, 1e-12));
            assert!(r.gap_bound <= 1e-10);
            // Probe many feasible points: none may beat F(w) − gap_bound.
            let mut probe = r.w.clone();
            for k in 0..200 {
                for (j, p) in probe.iter_mut().enumerate() {
                    *p = r.w[j] + 1e-3 * (((k * 7 + j * 13) % 17) as f64 - 8.0);
                }
                obj.domain().project(&mut probe);
                assert!(obj.value(&probe) >= r.value - r.gap_bound);
            }
        }
    }

    #[test]
    fn small_ball_is_active_and_large_ball_is_not() {
        let small = solve(&objective(0.5), 1e-10, 200_000).unwrap();
        assert!((crate::linalg::norm2(&small.w) - 0.5).abs() < 1e-9);
        let large = solve(&objective(20.0), 1e-10, 200_000).unwrap();
        assert!(crate::linalg::norm2(&large.w) < 19.0);
    }

    /// The paired standard error sd(aᵢ − bᵢ)/√N (ERM's).
    fn paired_std_error(a: &[f64], b: &[f64]) -> f64 {
        let n = a.len() as f64;
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        let mean = d.iter().sum::<f64>() / n;
        let var = d.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
        (var / n).sqrt()
    }

    /// a TERM run's population estimate published `std_error: NaN`. The delta method's
    /// error tends to ERM's paired one as τ → 0 (uᵢ/ū ≈ 1 + τ(fᵢ − f̄)), which pins its scale.
    #[test]
    fn the_tilted_population_estimate_has_a_finite_standard_error_that_tends_to_ermss() {
        let a: Vec<f64> = (0..500).map(|i| ((i * 37 % 101) as f64) / 50.0).collect();
        let b: Vec<f64> = (0..500).map(|i| ((i * 53 % 89) as f64) / 60.0).collect();
        let erm = paired_std_error(&a, &b);
        let small = tilted_std_error(1e-7, &a, &b);
        assert!((small / erm - 1.0).abs() < 1e-5, "{small} against {erm}");
        // A steep tilt on losses that overflow exp(τf) unscaled: still finite, and positive.
        let huge: Vec<f64> = a.iter().map(|v| v * 1e3).collect();
        let se = tilted_std_error(1e6, &huge, &b);
        assert!(se.is_finite() && se > 0.0, "{se}");
    }
}
