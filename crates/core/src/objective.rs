//! The empirical risk F(w) = A_{i}(f(w; zᵢ)) + r(w) over a domain W, where A is the mean (ERM) or
//! the tilted mean (TERM), f a GLM loss (possibly in its adversarially robust form) and
//! r(w) = λ₁‖w‖₁ + (λ₂/2)‖w‖².
//!
//! ## The fused kernel (docs/ARCHITECTURE.md, Performance)
//! A full gradient is one pass over the d × n column-major matrix (one sample after another, the
//! order memory is read in): per sample one dot product (four accumulators,
//! [`crate::linalg::dot`]), one scalar derivative, one axpy. The pass is generic over the
//! concrete loss type, and [`crate::loss::Glm`] dispatches once per pass (not once per sample) to
//! a monomorphised copy, so the scalar derivative is inlined. The legacy constructor
//! [`Objective::new`] takes a `Box<dyn GlmLoss>` and runs the same generic pass through dynamic
//! dispatch (one indirect call per four samples); `benches/gradient.rs` measures both.
//!
//! The pass takes four samples per step: four independent dot products, the four scalar
//! derivatives together (the logistic loss's exp and ln(1 + ·) then run in SIMD lanes), then one
//! sweep over the gradient that adds all four ([`crate::linalg::axpy4`]), with the same bits as
//! one sample at a time. On x86-64 CPUs with AVX2 the pass (full data and minibatches alike) is
//! compiled a second time for AVX2 and chosen at run time ([`crate::linalg::Kernels`]); the
//! loss's four-lane math is then called out of line (inlined into the loop it spilled). The bits
//! are those of the portable pass, which is what wasm runs
//! (`every_pass_gives_the_bits_of_one_sample_at_a_time`).
//!
//! Measured (`cargo bench --bench gradient -- gradient`, n = 10⁵, d = 100, 80 MB,
//! old and new alternated on a quiet machine): squared loss 1.16–1.19× the time to
//! read the matrix once, logistic 1.40–1.63× (before: 1.31–1.45× and 1.73–1.93×). What is left above the read is the latency of the logistic
//! math (an exp and a ln(1 + ·), ≈ 120 cycles deep per block of four) between the dot products
//! and the axpy; software pipelining (the next block's dots before this block's math), blocks of
//! eight, and prefetching were each measured and were slower. Since then the pass runs in
//! phases of sixteen samples ([`crate::fused`]: four blocks' dots, their math, their axpys), so
//! that the four blocks' math overlap; the same bits.
//!
//! ## Gradients and the regulariser
//! "Gradient" means the gradient of the smooth part F − λ₁‖·‖₁ (the data term plus λ₂w); the ℓ1
//! part is left to a prox ([`crate::loss::Regulariser::prox`], [`crate::domain::Domain::prox_l1`]).
//! Minibatch and per-sample gradients are of the **data term only**: the regulariser is the same
//! for every record, never counts towards sensitivity (Wang, Ye & Xu 2017) and is applied once by
//! the algorithm.
//!
//! ## Saddle problems
//! A two-block problem min_x max_y lives beside this one-block oracle, in `minimax`:
//! `minimax::SaddleProblem` has two [`Domain`]s and writes both partial gradients into
//! caller buffers, and reuses [`Dataset`], the GLM scalar losses and the kernels below.
//! [`FirstOrder`] is the one-block oracle trait that solvers are written against.

use std::sync::Arc;

use crate::data::Dataset;
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::fused::{PHASE, phase};
use crate::linalg::{Kernels, Portable, axpy, dot, norm2};
use crate::loss::{Bounds, Glm, GlmLoss, Loss, LossConstants, Regulariser, Wrap, with_glm};

/// A one-block first-order oracle over a domain: what the reference solver (and the non-private
/// base solvers) need.
pub trait FirstOrder {
    fn dim(&self) -> usize;
    fn domain(&self) -> &dyn Domain;
    /// F(w).
    fn value(&self, w: &[f64]) -> f64;
    /// F(w), writing the gradient of its smooth part into `grad`.
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64;
}

/// F(w) and its rise F(w) − F(0) above the origin, from one pass ([`Objective::rise`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rise {
    /// F(w), with the bits of [`Objective::value`]. A diagnostic: never compare points by it.
    pub value: f64,
    /// F(w) − F(0) as an aggregate of per-record differences: what points are compared by.
    pub rise: f64,
}

enum LossImpl {
    Spec(Loss),
    Dyn(Box<dyn GlmLoss>),
}

/// Data + loss + regulariser + domain, with the constants declared for them.
///
/// The dataset is shared, never copied: the objective is cheap to build beside a running algorithm.
pub struct Objective {
    data: Arc<Dataset>,
    loss: LossImpl,
    reg: Regulariser,
    domain: Box<dyn Domain>,
    /// Declared bound on ‖x‖ (the data were clipped to it).
    feature_bound: f64,
    /// The n the data term's mean divides by: the row count unless declared otherwise
    /// ([`Objective::with_declared_n`]).
    n: usize,
}

impl Objective {
    /// ERM with a dynamically dispatched GLM loss and a ridge term (λ/2)‖w‖² (the original API).
    pub fn new(
        data: Arc<Dataset>,
        loss: Box<dyn GlmLoss>,
        l2: f64,
        domain: Box<dyn Domain>,
        feature_bound: f64,
    ) -> Self {
        let n = data.n();
        Self {
            data,
            loss: LossImpl::Dyn(loss),
            reg: Regulariser::ridge(l2),
            domain,
            feature_bound,
            n,
        }
    }

    /// Any [`Loss`] and [`Regulariser`]; checks parameters and that every label is in the loss's
    /// range (±1 for margin losses), naming the first offending sample.
    pub fn with_loss(
        data: Arc<Dataset>,
        loss: Loss,
        reg: Regulariser,
        domain: Box<dyn Domain>,
        feature_bound: f64,
    ) -> Result<Self> {
        loss.validate()?;
        reg.validate()?;
        if !(feature_bound.is_finite() && feature_bound > 0.0) {
            return Err(Error::invalid(
                "feature_bound",
                "a finite number > 0",
                feature_bound,
            ));
        }
        if let Some(i) = (0..data.n()).find(|&i| !loss.glm.accepts_label(data.label(i))) {
            // The loss is what a person changes (a file's labels are what they are).
            return Err(Error::invalid(
                crate::controls::Control::Loss.id(),
                format!(
                    "pick a regression loss, or load labels −1 and +1 for the {} loss",
                    loss.glm.name()
                ),
                format!("label {} at sample {}", data.label(i), i + 1),
            ));
        }
        let n = data.n();
        Ok(Self {
            data,
            loss: LossImpl::Spec(loss),
            reg,
            domain,
            feature_bound,
            n,
        })
    }

    /// This objective with its data term a sum over every record divided by the **declared**
    /// `n` rather than by the row count: (1/n)Σᵢ f(w; zᵢ) (TERM: (1/τ) ln((1/n)Σᵢ e^{τfᵢ})).
    /// Under add/remove neighbours n is declared and a file may hold n ± 1 rows; each record
    /// then moves the mean by at most G/n, whatever the count, and nothing computed from the
    /// mean depends on the count beyond the records themselves. When n is
    /// the row count the bits are those of the plain mean.
    pub fn with_declared_n(mut self, n: usize) -> Self {
        self.n = n.max(1);
        self
    }

    /// The n the data term's mean divides by (the declared n; the row count by default).
    pub fn n(&self) -> usize {
        self.n
    }

    pub fn data(&self) -> &Dataset {
        &self.data
    }

    pub fn domain(&self) -> &dyn Domain {
        self.domain.as_ref()
    }

    pub fn dim(&self) -> usize {
        self.data.d()
    }

    /// The loss, if built with [`Objective::with_loss`].
    pub fn loss(&self) -> Option<Loss> {
        match &self.loss {
            LossImpl::Spec(l) => Some(*l),
            LossImpl::Dyn(_) => None,
        }
    }

    pub fn regulariser(&self) -> Regulariser {
        self.reg
    }

    pub fn feature_bound(&self) -> f64 {
        self.feature_bound
    }

    /// Declared constants of the **data term** for the declared feature bound and domain radius.
    pub fn constants(&self) -> LossConstants {
        let radius = self.domain.radius_in(self.dim());
        match &self.loss {
            LossImpl::Spec(l) => l.constants(Bounds {
                feature: self.feature_bound,
                radius,
            }),
            LossImpl::Dyn(l) => LossConstants {
                lipschitz: l.lipschitz(self.feature_bound, radius),
                smoothness: l.smoothness(self.feature_bound),
                strong_convexity: l.strong_convexity(),
            },
        }
    }

    /// G: bound on the per-sample gradient norm of the **data** term over the domain. The
    /// regulariser's gradient is the same for every record, so it never counts towards sensitivity
    /// (Wang, Ye & Xu 2017).
    pub fn lipschitz(&self) -> f64 {
        self.constants().lipschitz
    }

    /// β: smoothness of the smooth part of F (data term plus λ₂); ∞ for non-smooth losses.
    pub fn smoothness(&self) -> f64 {
        self.constants().smoothness + self.reg.l2
    }

    /// μ: strong convexity of F (λ₂).
    pub fn strong_convexity(&self) -> f64 {
        self.reg.l2 + self.constants().strong_convexity
    }

    /// Whether the data term has a Lipschitz gradient.
    pub fn is_smooth(&self) -> bool {
        self.constants().smoothness.is_finite()
    }

    /// F(w).
    pub fn value(&self, w: &[f64]) -> f64 {
        self.data_term(w, None) + self.reg.value(w)
    }

    /// Writes ∇(F − λ₁‖·‖₁)(w) into `grad` and returns F(w), in one pass over the data: per sample
    /// one dot product, one scalar derivative and one axpy (docs/ARCHITECTURE.md, Performance).
    pub fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let v = self.data_term(w, Some(grad));
        axpy(self.reg.l2, w, grad);
        v + self.reg.value(w)
    }

    /// The data term A_i f(w; zᵢ) alone, and optionally its gradient (overwriting `grad`).
    pub fn data_term(&self, w: &[f64], grad: Option<&mut [f64]>) -> f64 {
        let d = self.dim();
        let x = self.data.matrix_slice();
        let samples = x
            .chunks_exact(d.max(1))
            .zip(self.data.labels().iter().copied());
        self.pass(w, samples, grad, Sum::Value, Some(self.n)).0
    }

    /// F(w) − F(0), F's rise above the origin, as an aggregate of the per-record differences
    /// f(w; zᵢ) − f(0; zᵢ) ([`Glm::rise`]) plus r(w) − r(0) = r(w); with `grad`, also writes the
    /// gradient of the smooth part at w, with the bits of [`Objective::value_and_gradient`]. One
    /// pass over the data, like a value.
    ///
    /// **Compare points by this, never by differences of F values**. F(w) is a sum of n
    /// terms; in floating point a term far larger than the others (one target of 1e18) absorbs
    /// them, F is then constant in w to the last bit, and a choice among points by F (the grid
    /// mechanism's scores, the subgradient method's best iterate) follows that one record alone,
    /// which breaks the sensitivity argument. Each per-record difference is bounded by G‖w‖
    /// whatever the record, so their sum cannot absorb one. The origin is a fixed,
    /// data-independent reference, the one Prop G.1 of Lowy & Razaviyayn 2021 shifts by (f(w, x) − f(0, x)).
    /// Labels are also clipped to the declared bound ([`Glm::label_bound`]); this holds without.
    ///
    /// - ERM and adversarial: the mean of the per-record rises.
    /// - TERM: F_τ(w) − F_τ(0) = (1/τ) ln Σᵢ πᵢ exp(τ·riseᵢ) with πᵢ ∝ exp(τ f(0; zᵢ)) the tilt
    ///   weights at the origin (a labels-only pre-pass), a weighted log-mean-exp of the rises, so
    ///   it lies between their minimum and maximum, as it must.
    pub fn rise(&self, w: &[f64], grad: Option<&mut [f64]>) -> Rise {
        let d = self.dim();
        let samples = self
            .data
            .matrix_slice()
            .chunks_exact(d.max(1))
            .zip(self.data.labels().iter().copied());
        let (value, rise) = match grad {
            Some(grad) => {
                let sums = self.pass(w, samples, Some(&mut *grad), Sum::Rise, Some(self.n));
                axpy(self.reg.l2, w, grad);
                sums
            }
            None => self.pass(w, samples, None, Sum::Rise, Some(self.n)),
        };
        let r = self.reg.value(w);
        Rise {
            value: value + r,
            rise: rise + r,
        }
    }

    /// The data term's rise above the origin over the samples `batch` (see [`Objective::rise`]),
    /// and its gradient (data term only, as [`Objective::minibatch_gradient`]).
    pub fn minibatch_rise(&self, w: &[f64], batch: &[usize], grad: &mut [f64]) -> Result<Rise> {
        self.check_indices(batch)?;
        let samples = batch
            .iter()
            .map(|&i| (self.data.features(i), self.data.label(i)));
        let (value, rise) = self.pass(w, samples, Some(grad), Sum::Rise, None);
        Ok(Rise { value, rise })
    }

    /// The data term and its gradient over the samples `batch` (indices, repeats allowed): the
    /// minibatch estimate A_{i∈B} f(w; zᵢ). Returns the batch value.
    pub fn minibatch_gradient(&self, w: &[f64], batch: &[usize], grad: &mut [f64]) -> Result<f64> {
        self.check_indices(batch)?;
        let samples = batch
            .iter()
            .map(|&i| (self.data.features(i), self.data.label(i)));
        Ok(self.pass(w, samples, Some(grad), Sum::Value, None).0)
    }

    /// Per-sample gradients ∇f(w; zᵢ) of the samples in `batch`, written row after row into `out`
    /// (length |batch|·d), and their values into `values` (length |batch|). For TERM these are the
    /// base loss's gradients (the tilt weights are not per-sample quantities).
    pub fn per_sample_gradients(
        &self,
        w: &[f64],
        batch: &[usize],
        out: &mut [f64],
        values: &mut [f64],
    ) -> Result<()> {
        self.check_indices(batch)?;
        let d = self.dim();
        if out.len() != batch.len() * d || values.len() != batch.len() {
            return Err(Error::DimensionMismatch {
                what: "per-sample gradient buffer",
                expected: batch.len() * d,
                got: out.len(),
            });
        }
        let s = self.adversarial_shift(w);
        for ((&i, row), v) in batch.iter().zip(out.chunks_exact_mut(d.max(1))).zip(values) {
            let (x, y) = (self.data.features(i), self.data.label(i));
            let (val, dt, ds) = self.scalar(dot(w, x), y, s);
            *v = val;
            for (r, xj) in row.iter_mut().zip(x) {
                *r = dt * xj;
            }
            if ds != 0.0 {
                self.add_shift_gradient(w, ds, row);
            }
        }
        Ok(())
    }

    /// Per-sample data-term values f(w; zᵢ) of all samples into `out` (length n).
    pub fn per_sample_values(&self, w: &[f64], out: &mut [f64]) -> Result<()> {
        if out.len() != self.data.n() {
            return Err(Error::DimensionMismatch {
                what: "per-sample value buffer",
                expected: self.data.n(),
                got: out.len(),
            });
        }
        let s = self.adversarial_shift(w);
        for ((x, y), o) in self.data.samples().zip(out.iter_mut()) {
            *o = self.scalar(dot(w, x), y, s).0;
        }
        Ok(())
    }

    /// Mean of the per-sample data-term gradients clipped to norm ≤ `threshold` (declared, never
    /// measured: docs/PRIVACY.md rule 1) over `batch`, into `grad`, using `scratch` (length d).
    /// For a GLM this is the gradient of the Lipschitz extension (Lowy 2026).
    /// Returns how many were clipped (a **non-private** diagnostic).
    pub fn clipped_gradient(
        &self,
        w: &[f64],
        batch: &[usize],
        threshold: f64,
        grad: &mut [f64],
        scratch: &mut [f64],
    ) -> Result<usize> {
        if !(threshold.is_finite() && threshold > 0.0) {
            return Err(Error::invalid(
                "clip_threshold",
                "a finite number > 0",
                threshold,
            ));
        }
        self.check_indices(batch)?;
        grad.fill(0.0);
        let s = self.adversarial_shift(w);
        let mut clipped = 0;
        for &i in batch {
            let (x, y) = (self.data.features(i), self.data.label(i));
            let (_, dt, ds) = self.scalar(dot(w, x), y, s);
            scratch.fill(0.0);
            axpy(dt, x, scratch);
            if ds != 0.0 {
                self.add_shift_gradient(w, ds, scratch);
            }
            let norm = norm2(scratch);
            let c = if norm > threshold {
                clipped += 1;
                threshold / norm
            } else {
                1.0
            };
            axpy(c, scratch, grad);
        }
        let m = batch.len().max(1) as f64;
        grad.iter_mut().for_each(|g| *g /= m);
        Ok(clipped)
    }

    /// For the adversarial loss at w = 0, where r‖w‖ is not differentiable: writes
    /// a = (1/n) Σ ∂ₜfᵢ·xᵢ into `a` and returns c = r·(1/n) Σ ∂ₛfᵢ, so that the subdifferential of
    /// the data term at 0 is the ball a + c·B (B the unit ball). `None` for other losses.
    pub fn adversarial_subdifferential_at_zero(&self, a: &mut [f64]) -> Option<f64> {
        let (glm, radius) = match &self.loss {
            LossImpl::Spec(Loss {
                glm,
                wrap: Wrap::Adversarial { radius },
            }) => (*glm, *radius),
            _ => return None,
        };
        a.fill(0.0);
        let mut ds_sum = 0.0;
        for (x, y) in self.data.samples() {
            let (_, dt, ds) = glm.adversarial(0.0, y, 0.0);
            axpy(dt, x, a);
            ds_sum += ds;
        }
        let n = self.n as f64;
        a.iter_mut().for_each(|v| *v /= n);
        Some(radius * ds_sum / n)
    }

    fn check_indices(&self, batch: &[usize]) -> Result<()> {
        match batch.iter().find(|&&i| i >= self.data.n()) {
            Some(&i) => Err(Error::invalid(
                "batch",
                format!("indices < n = {}", self.data.n()),
                i,
            )),
            None => Ok(()),
        }
    }

    /// s = r‖w‖ for the adversarial loss (0 otherwise).
    fn adversarial_shift(&self, w: &[f64]) -> f64 {
        match &self.loss {
            LossImpl::Spec(Loss {
                wrap: Wrap::Adversarial { radius },
                ..
            }) => radius * norm2(w),
            _ => 0.0,
        }
    }

    /// grad += ds·r·w/‖w‖ (the gradient of s = r‖w‖; at w = 0 the subgradient 0 is used).
    fn add_shift_gradient(&self, w: &[f64], ds: f64, grad: &mut [f64]) {
        if let LossImpl::Spec(Loss {
            wrap: Wrap::Adversarial { radius },
            ..
        }) = &self.loss
        {
            let norm = norm2(w);
            if norm > 0.0 {
                axpy(ds * radius / norm, w, grad);
            }
        }
    }

    /// (value, ∂/∂t, ∂/∂s) of one sample's loss (not on the hot path of full passes).
    fn scalar(&self, t: f64, y: f64, s: f64) -> (f64, f64, f64) {
        match &self.loss {
            LossImpl::Dyn(l) => {
                let (v, g) = l.value_and_derivative(t, y);
                (v, g, 0.0)
            }
            LossImpl::Spec(l) => match l.wrap {
                Wrap::Adversarial { .. } => l.glm.adversarial(t, y, s),
                _ => {
                    let (v, g) = l.glm.value_and_derivative(t, y);
                    (v, g, 0.0)
                }
            },
        }
    }

    /// One pass over `samples`: dispatch once to a monomorphised kernel. Returns the data term's
    /// value and, for [`Sum::Rise`], its rise above the origin (NaN for [`Sum::Value`]). The means
    /// divide by `over` (the declared n of a full pass) or, when `None`, by the number of samples
    /// (a minibatch).
    fn pass<'a, I>(
        &self,
        w: &[f64],
        samples: I,
        grad: Option<&mut [f64]>,
        sum: Sum,
        over: Option<usize>,
    ) -> (f64, f64)
    where
        I: Iterator<Item = (&'a [f64], f64)> + Clone,
    {
        match &self.loss {
            LossImpl::Dyn(l) => match sum {
                Sum::Value => (erm_pass(l.as_ref(), w, samples, grad, over), f64::NAN),
                // A loss without a cancellation-free rise: the plain per-record difference.
                Sum::Rise => rise_pass(
                    l.as_ref(),
                    |t, y| l.value(t, y) - l.value(0.0, y),
                    w,
                    samples,
                    grad,
                    over,
                ),
            },
            LossImpl::Spec(spec) => match (spec.wrap, sum) {
                (Wrap::None, Sum::Value) => (
                    with_glm!(spec.glm, l => erm_pass(l, w, samples, grad, over)),
                    f64::NAN,
                ),
                (Wrap::None, Sum::Rise) => {
                    let glm = spec.glm;
                    with_glm!(glm, l => rise_pass(l, |t, y| glm.rise(t, y, 0.0), w, samples, grad, over))
                }
                (Wrap::Tilted { tau }, _) => {
                    let rise = (sum == Sum::Rise).then(|| TiltRise {
                        glm: spec.glm,
                        origin: origin_tilt(spec.glm, tau, samples.clone()),
                    });
                    with_glm!(spec.glm, l => tilted_pass(l, tau, w, samples, grad, rise, over))
                }
                (Wrap::Adversarial { radius }, _) => {
                    let norm = norm2(w);
                    let s = radius * norm;
                    let glm = spec.glm;
                    let term = |t: f64, y: f64| match sum {
                        Sum::Value => 0.0,
                        Sum::Rise => glm.rise(t, y, s),
                    };
                    let mut ds_sum = 0.0;
                    let mut value = 0.0;
                    let mut rise = 0.0;
                    let mut count = 0usize;
                    match grad {
                        Some(grad) => {
                            grad.fill(0.0);
                            for (x, y) in samples {
                                let t = dot(w, x);
                                let (v, dt, ds) = glm.adversarial(t, y, s);
                                value += v;
                                rise += term(t, y);
                                ds_sum += ds;
                                axpy(dt, x, grad);
                                count += 1;
                            }
                            let n = over.unwrap_or(count).max(1) as f64;
                            grad.iter_mut().for_each(|g| *g /= n);
                            if norm > 0.0 {
                                axpy(ds_sum / n * radius / norm, w, grad);
                            }
                        }
                        None => {
                            for (x, y) in samples {
                                let t = dot(w, x);
                                value += glm.adversarial(t, y, s).0;
                                rise += term(t, y);
                                count += 1;
                            }
                        }
                    }
                    let n = over.unwrap_or(count).max(1) as f64;
                    match sum {
                        Sum::Value => (value / n, f64::NAN),
                        Sum::Rise => (value / n, rise / n),
                    }
                }
            },
        }
    }
}

impl FirstOrder for Objective {
    fn dim(&self) -> usize {
        Objective::dim(self)
    }
    fn domain(&self) -> &dyn Domain {
        Objective::domain(self)
    }
    fn value(&self, w: &[f64]) -> f64 {
        Objective::value(self, w)
    }
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        Objective::value_and_gradient(self, w, grad)
    }
}

/// What a pass aggregates per record: the loss value f(w; z), or also its rise f(w; z) − f(0; z)
/// above the origin ([`Objective::rise`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sum {
    Value,
    Rise,
}

/// The ERM rise pass: the mean value, the mean of `rise(t, y)` over the samples and (optionally)
/// the mean gradient, one sample at a time (dot product, scalar derivative, axpy in sample order:
/// the bits of [`erm_pass`], see `every_pass_gives_the_bits_of_one_sample_at_a_time`).
fn rise_pass<'a, L, I>(
    loss: &L,
    rise: impl Fn(f64, f64) -> f64,
    w: &[f64],
    samples: I,
    grad: Option<&mut [f64]>,
    over: Option<usize>,
) -> (f64, f64)
where
    L: GlmLoss + ?Sized,
    I: Iterator<Item = (&'a [f64], f64)>,
{
    let (mut value, mut total) = (0.0, 0.0);
    let mut count = 0usize;
    match grad {
        Some(grad) => {
            grad.fill(0.0);
            for (x, y) in samples {
                let t = dot(w, x);
                let (v, g) = loss.value_and_derivative(t, y);
                value += v;
                total += rise(t, y);
                axpy(g, x, grad);
                count += 1;
            }
            let n = over.unwrap_or(count).max(1) as f64;
            grad.iter_mut().for_each(|g| *g /= n);
        }
        None => {
            for (x, y) in samples {
                let t = dot(w, x);
                value += loss.value(t, y);
                total += rise(t, y);
                count += 1;
            }
        }
    }
    let n = over.unwrap_or(count).max(1) as f64;
    (value / n, total / n)
}

/// A running log-sum-exp ln Σ exp(zᵢ): keeps m = max zᵢ so far and S = Σ exp(zᵢ − m).
#[derive(Debug, Clone, Copy)]
struct OnlineLse {
    m: f64,
    s: f64,
}

impl OnlineLse {
    const EMPTY: Self = Self {
        m: f64::NEG_INFINITY,
        s: 0.0,
    };

    /// Adds z; returns (the factor the sums weighted so far were rescaled by, z's weight
    /// exp(z − m)).
    fn push(&mut self, z: f64) -> (f64, f64) {
        let mut rescale = 1.0;
        if z > self.m {
            rescale = libm::exp(self.m - z);
            self.s *= rescale;
            self.m = z;
        }
        let e = libm::exp(z - self.m);
        self.s += e;
        (rescale, e)
    }

    fn value(&self) -> f64 {
        self.m + libm::log(self.s)
    }
}

/// The tilt weights at the origin that TERM's rise needs: ln Σᵢ exp(τ f(0; zᵢ)), from the labels
/// alone (f(0; x, y) = φ(0, y) does not read x).
fn origin_tilt<'a, I>(glm: Glm, tau: f64, samples: I) -> f64
where
    I: Iterator<Item = (&'a [f64], f64)>,
{
    let mut lse = OnlineLse::EMPTY;
    for (_, y) in samples {
        lse.push(tau * glm.value(0.0, y));
    }
    lse.value()
}

/// What [`tilted_pass`] needs to return F_τ's rise above the origin instead of its value.
struct TiltRise {
    glm: Glm,
    /// ln Σᵢ exp(τ f(0; zᵢ)) ([`origin_tilt`]).
    origin: f64,
}

/// The ERM pass over any sequence of samples (all of them, or a minibatch): mean value and
/// (optionally) mean gradient, in the widest instruction set this CPU has. The bits are the same
/// in every one (see [`crate::linalg::Kernels`]).
fn erm_pass<'a, L, I>(
    loss: &L,
    w: &[f64],
    samples: I,
    grad: Option<&mut [f64]>,
    over: Option<usize>,
) -> f64
where
    L: GlmLoss + ?Sized,
    I: Iterator<Item = (&'a [f64], f64)>,
{
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = crate::linalg::Avx2::detect() {
        // SAFETY: `detect` found AVX2 on this CPU.
        return unsafe { erm_pass_avx2(loss, w, samples, grad, over, avx2) };
    }
    erm_pass_with(loss, w, samples, grad, over, Portable)
}

/// [`erm_pass_with`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn erm_pass_avx2<'a, L, I>(
    loss: &L,
    w: &[f64],
    samples: I,
    grad: Option<&mut [f64]>,
    over: Option<usize>,
    kernels: crate::linalg::Avx2,
) -> f64
where
    L: GlmLoss + ?Sized,
    I: Iterator<Item = (&'a [f64], f64)>,
{
    erm_pass_with(loss, w, samples, grad, over, kernels)
}

/// [`erm_pass`] with the given kernels. Four samples per step: four independent dot-product
/// chains, the four scalar derivatives together, then one sweep over the gradient; values summed
/// in sample order, so the bits are those of one sample at a time (see
/// [`crate::linalg::axpy4`]).
#[inline(always)]
fn erm_pass_with<'a, L, I, K>(
    loss: &L,
    w: &[f64],
    samples: I,
    grad: Option<&mut [f64]>,
    over: Option<usize>,
    kernels: K,
) -> f64
where
    L: GlmLoss + ?Sized,
    I: Iterator<Item = (&'a [f64], f64)>,
    K: Kernels,
{
    let mut value = 0.0;
    let mut count = 0usize;
    match grad {
        Some(grad) => {
            grad.fill(0.0);
            let mut xs: [&[f64]; PHASE] = [&[]; PHASE];
            let mut ys = [0.0; PHASE];
            let mut filled = 0;
            for (x, y) in samples {
                xs[filled] = x;
                ys[filled] = y;
                filled += 1;
                if filled == PHASE {
                    phase(kernels, loss, w, &xs, &ys, &mut value, grad);
                    count += PHASE;
                    filled = 0;
                }
            }
            let fours = filled / 4 * 4;
            for (xb, yb) in xs[..fours].chunks_exact(4).zip(ys[..fours].chunks_exact(4)) {
                let (xb, yb) = ([xb[0], xb[1], xb[2], xb[3]], [yb[0], yb[1], yb[2], yb[3]]);
                phase(kernels, loss, w, &xb, &yb, &mut value, grad);
            }
            count += fours;
            for (&x, &y) in xs[fours..filled].iter().zip(&ys[fours..filled]) {
                let (v, g) = loss.value_and_derivative(kernels.dot(w, x), y);
                value += v;
                axpy(g, x, grad);
                count += 1;
            }
            let n = over.unwrap_or(count).max(1) as f64;
            grad.iter_mut().for_each(|g| *g /= n);
        }
        None => {
            for (x, y) in samples {
                value += loss.value(kernels.dot(w, x), y);
                count += 1;
            }
        }
    }
    value / over.unwrap_or(count).max(1) as f64
}

/// The TERM pass (Lowy & Razaviyayn 2021, Section 5.1) in one sweep with an online log-sum-exp: keep m = max τfᵢ so far,
/// S = Σ exp(τfᵢ − m) and g = Σ exp(τfᵢ − m)∇fᵢ, rescaling S and g when m grows. Then
/// F_τ = (m + ln(S/n))/τ and ∇F_τ = g/S (softmax weights).
///
/// Returns (F_τ(w), and with `rise` F_τ(w) − F_τ(0) =
/// (1/τ) ln Σᵢ exp((τ f(0; zᵢ) − ln Σⱼ exp(τ f(0; zⱼ))) + τ·riseᵢ), NaN without; see
/// [`Objective::rise`]).
fn tilted_pass<'a, L, I>(
    loss: &L,
    tau: f64,
    w: &[f64],
    samples: I,
    grad: Option<&mut [f64]>,
    rise: Option<TiltRise>,
    over: Option<usize>,
) -> (f64, f64)
where
    L: GlmLoss + ?Sized,
    I: Iterator<Item = (&'a [f64], f64)>,
{
    let mut tilt = OnlineLse::EMPTY;
    let mut rises = OnlineLse::EMPTY;
    let mut count = 0usize;
    let mut grad = grad;
    if let Some(g) = grad.as_deref_mut() {
        g.fill(0.0);
    }
    for (x, y) in samples {
        let t = dot(w, x);
        let (v, dv) = loss.value_and_derivative(t, y);
        let (rescale, e) = tilt.push(tau * v);
        if let Some(g) = grad.as_deref_mut() {
            if rescale != 1.0 {
                g.iter_mut().for_each(|gj| *gj *= rescale);
            }
            axpy(e * dv, x, g);
        }
        if let Some(r) = &rise {
            rises.push((tau * r.glm.value(0.0, y) - r.origin) + tau * r.glm.rise(t, y, 0.0));
        }
        count += 1;
    }
    if count == 0 {
        return (0.0, if rise.is_some() { 0.0 } else { f64::NAN });
    }
    if let Some(g) = grad {
        g.iter_mut().for_each(|gj| *gj /= tilt.s);
    }
    // The rise needs no n: it cancels between F_τ(w) and F_τ(0).
    let value = (tilt.m + libm::log(tilt.s / over.unwrap_or(count) as f64)) / tau;
    match rise {
        Some(_) => (value, rises.value() / tau),
        None => (value, f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Objective::rise`] is F(w) − F(0) (to rounding on moderate data), its value and gradient
    /// carry the bits of [`Objective::value_and_gradient`], for every loss and aggregation; and
    /// with one target of 1e18 the rise still sees every record while F(w) − F(0) is 0.
    #[test]
    fn rise_is_f_above_the_origin_with_the_gradient_bits_of_a_value_pass() {
        use crate::domain::L2Ball;
        let (n, d) = (23, 3);
        let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.618).sin()).collect();
        let margin: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let residual: Vec<f64> = (0..n).map(|i| 2.0 * (i as f64 * 1.3).cos()).collect();
        let w = [0.4, -0.7, 0.2];
        for glm in Glm::all() {
            for wrap in [
                Wrap::None,
                Wrap::Tilted { tau: 0.7 },
                Wrap::Adversarial { radius: 0.2 },
            ] {
                let labels = if glm.is_margin() { &margin } else { &residual };
                let objective = |labels: Vec<f64>| {
                    Objective::with_loss(
                        Arc::new(Dataset::from_samples(d, x.clone(), labels).unwrap()),
                        Loss { glm, wrap },
                        Regulariser::elastic(0.1, 0.3),
                        Box::new(L2Ball { radius: 5.0 }),
                        1.0,
                    )
                    .unwrap()
                };
                let obj = objective(labels.clone());
                let (mut g, mut g_rise) = (vec![0.0; d], vec![0.0; d]);
                let value = obj.value_and_gradient(&w, &mut g);
                let r = obj.rise(&w, Some(&mut g_rise));
                let label = format!("{glm:?}, {wrap:?}");
                assert_eq!(r.value.to_bits(), value.to_bits(), "{label}");
                assert_eq!(g_rise, g, "{label}");
                let exact = value - obj.value(&[0.0; 3]);
                assert!(
                    (r.rise - exact).abs() <= 1e-13 * (1.0 + value.abs()),
                    "{label}"
                );
                assert_eq!(
                    obj.rise(&w, None).rise.to_bits(),
                    r.rise.to_bits(),
                    "{label}"
                );
                // The squared loss's G holds only for |y| ≤ B (targets are clipped to it).
                if glm.is_margin() || matches!(glm, Glm::Squared { .. }) {
                    continue;
                }
                // One target of 1e18: F(w) − F(0) loses every other record (it is 0); the rise
                // is not 0 and differs from the clean dataset's by the one record's change
                // only, at most 2G‖w‖ (ERM: divided by n).
                let mut huge = labels.clone();
                huge[0] = 1e18;
                let big = objective(huge);
                assert_eq!(big.value(&w) - big.value(&[0.0; 3]), 0.0, "{label}");
                let moved = (big.rise(&w, None).rise - r.rise).abs();
                let bound = 2.0 * big.lipschitz() * crate::linalg::norm2(&w);
                let bound = if matches!(wrap, Wrap::Tilted { .. }) {
                    bound
                } else {
                    bound / n as f64
                };
                assert!(moved <= bound, "{label}: {moved} vs {bound}");
                assert!(big.rise(&w, None).rise != 0.0, "{label}");
            }
        }
    }

    /// The ERM pass, in every instruction set this CPU has, gives the bits of one sample at a
    /// time (value, derivative, axpy in sample order), for every loss, with value and gradient
    /// or value alone, at sizes that leave partial blocks of samples and partial SIMD chunks.
    #[test]
    fn every_pass_gives_the_bits_of_one_sample_at_a_time() {
        let bits = |v: f64, g: &[f64]| (v.to_bits(), g.iter().map(|x| x.to_bits()).collect());
        // 37: two phases, a block of four and one sample; 30: one phase, three blocks, two samples.
        for (n, d) in [(1, 1), (7, 3), (13, 5), (64, 20), (30, 101), (37, 4)] {
            let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.618).sin() * 3.0).collect();
            let margin: Vec<f64> = (0..n)
                .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
                .collect();
            let residual: Vec<f64> = (0..n).map(|i| (i as f64 * 1.3).cos()).collect();
            let w: Vec<f64> = (0..d).map(|j| (j as f64 * 0.77).cos() * 0.5).collect();
            for glm in Glm::all() {
                let y = if glm.is_margin() { &margin } else { &residual };
                let samples = || x.chunks_exact(d).zip(y.iter().copied());
                let (mut value, mut g) = (0.0, vec![0.0; d]);
                let mut value_only = 0.0;
                for (xi, yi) in samples() {
                    let t = dot(&w, xi);
                    let (v, c) = with_glm!(glm, l => l.value_and_derivative(t, yi));
                    value += v;
                    value_only += with_glm!(glm, l => l.value(t, yi));
                    axpy(c, xi, &mut g);
                }
                g.iter_mut().for_each(|gj| *gj /= n as f64);
                let expected: (u64, Vec<u64>) = bits(value / n as f64, &g);
                let value_only = (value_only / n as f64).to_bits();
                let label = format!("{glm:?}, n = {n}, d = {d}");
                let v = with_glm!(glm, l => erm_pass_with(l, &w, samples(), Some(&mut g), None, Portable));
                assert_eq!(bits(v, &g), expected, "{label}");
                let v = with_glm!(glm, l => erm_pass_with(l, &w, samples(), None, None, Portable));
                assert_eq!(v.to_bits(), value_only, "{label}");
                #[cfg(target_arch = "x86_64")]
                if let Some(avx2) = crate::linalg::Avx2::detect() {
                    // SAFETY: `detect` found AVX2.
                    let v = with_glm!(glm, l => unsafe {
                        erm_pass_avx2(l, &w, samples(), Some(&mut g), None, avx2)
                    });
                    assert_eq!(bits(v, &g), expected, "AVX2: {label}");
                    let v = with_glm!(glm, l => unsafe { erm_pass_avx2(l, &w, samples(), None, None, avx2) });
                    assert_eq!(v.to_bits(), value_only, "AVX2: {label}");
                }
            }
        }
    }
}
