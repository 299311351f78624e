//! Vector helpers and the fused per-sample kernel (docs/ARCHITECTURE.md, Performance).
//!
//! Reductions use four independent accumulators in a fixed order. That lets the compiler keep four
//! lanes busy (and use `simd128` on wasm) while giving bit-identical results on every target,
//! because the order of floating-point additions is written down here, not chosen by the optimiser.
//!
//! ## Kernels: one order, several instruction sets
//! The full-gradient pass is written once, generic over [`Kernels`] (the dot product and the
//! four-sample axpy). [`Portable`] is the code above: baseline SSE2 on x86-64, `simd128` on wasm.
//! On x86-64 CPUs with AVX2, [`Avx2`] does the same operations in the same order in 256-bit
//! registers — the four accumulators of [`dot`] are exactly the four lanes of one register, and
//! [`axpy4`] is element-wise — so both give the same bits (`kernels_give_the_same_bits`), and
//! native runs still match the browser's. No fused multiply-add is used: it would round once
//! where the portable code rounds twice. Why bother: at n = 10⁵, d = 100 the pass is bound by
//! the latency of the four dot-product chains and by the axpy's loads and stores, not by memory;
//! halving the instructions brings it near the time to read the data
//! (`cargo bench --bench gradient -- gradient`).

/// Inner product ⟨a, b⟩ with a fixed, target-independent summation order.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; 4];
    let chunks_a = a.chunks_exact(4);
    let chunks_b = b.chunks_exact(4);
    let (rest_a, rest_b) = (chunks_a.remainder(), chunks_b.remainder());
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for k in 0..4 {
            acc[k] += ca[k] * cb[k];
        }
    }
    let mut tail = 0.0;
    for (x, y) in rest_a.iter().zip(rest_b) {
        tail += x * y;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// y ← (((y + c₀x₀) + c₁x₁) + c₂x₂) + c₃x₃ in one sweep: the same roundings, in the same order,
/// as four [`axpy`] calls, with one load and store of y instead of four. The fused gradient
/// adds samples four at a time with it (`benches/gradient.rs` measures the gain).
#[inline]
pub fn axpy4(c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]) {
    debug_assert!(x.iter().all(|xk| xk.len() == y.len()));
    let [x0, x1, x2, x3] = x;
    for ((((yi, a), b), e), f) in y.iter_mut().zip(x0).zip(x1).zip(x2).zip(x3) {
        *yi = (((*yi + c[0] * a) + c[1] * b) + c[2] * e) + c[3] * f;
    }
}

/// ⟨w, xₛ⟩ for four vectors at once, with the bits of four [`dot`] calls: accumulator k of sample s
/// sums the products of the elements 4j + k in the order of j, as [`dot`] does. One loop instead
/// of four: w is loaded once per four samples and the four samples' chains are independent, so
/// they overlap instead of waiting on one another (the fused pass's dot products).
#[inline]
pub fn dot4(w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
    debug_assert!(x.iter().all(|xs| xs.len() == w.len()));
    let mut acc = [[0.0f64; 4]; 4];
    let chunks = w.len() / 4;
    for j in 0..chunks {
        let o = 4 * j;
        let cw = &w[o..o + 4];
        for (a, xs) in acc.iter_mut().zip(&x) {
            let cx = &xs[o..o + 4];
            for k in 0..4 {
                a[k] += cw[k] * cx[k];
            }
        }
    }
    core::array::from_fn(|s| {
        let mut tail = 0.0;
        for (p, q) in w[4 * chunks..].iter().zip(&x[s][4 * chunks..]) {
            tail += p * q;
        }
        total(acc[s], tail)
    })
}

/// The four accumulators of [`dot`] and its scalar tail, summed in [`dot`]'s order.
#[inline(always)]
fn total(a: [f64; 4], tail: f64) -> f64 {
    (a[0] + a[1]) + (a[2] + a[3]) + tail
}

/// [`dot4`] and the squared norms ‖xₛ‖² in the same sweep, with the bits of `dot(w, xₛ)` and
/// `dot(xₛ, xₛ)` ([`dot`]): DP-SGD's clipping needs both per sample, and one sweep reads each
/// sample once and w once per four samples.
#[inline]
pub fn dot_square4(w: &[f64], x: [&[f64]; 4]) -> ([f64; 4], [f64; 4]) {
    debug_assert!(x.iter().all(|xs| xs.len() == w.len()));
    let (mut acc, mut sq) = ([[0.0f64; 4]; 4], [[0.0f64; 4]; 4]);
    let chunks = w.len() / 4;
    for j in 0..chunks {
        let o = 4 * j;
        let cw = &w[o..o + 4];
        for ((a, s), xs) in acc.iter_mut().zip(sq.iter_mut()).zip(&x) {
            let cx = &xs[o..o + 4];
            for k in 0..4 {
                a[k] += cw[k] * cx[k];
                s[k] += cx[k] * cx[k];
            }
        }
    }
    let tails: [(f64, f64); 4] = core::array::from_fn(|s| {
        let (mut ta, mut ts) = (0.0, 0.0);
        for (p, q) in w[4 * chunks..].iter().zip(&x[s][4 * chunks..]) {
            ta += p * q;
            ts += q * q;
        }
        (ta, ts)
    });
    (
        core::array::from_fn(|s| total(acc[s], tails[s].0)),
        core::array::from_fn(|s| total(sq[s], tails[s].1)),
    )
}

/// The squared norms ‖xₛ‖² of four vectors, with the bits of `dot(xₛ, xₛ)` ([`dot`]): the
/// second half of [`dot_square4`] as a sweep of its own. wasm32's [`Portable`] kernel sweeps
/// twice, [`dot4`] then this: one sweep holds 32 running sums (16 `f64x2` registers), as many as
/// x86-64 has vector registers for the browsers' compilers, while two sweeps of 16 sums each
/// read the four samples twice, the second time from L1 cache. Measured (DP-SGD's clipped sums,
/// n = 10⁵, d = 100, interleaved in one page, min of 15): Chromium 38.5 → 33.7 ms, Firefox
/// 42 → 40 ms; the epoch 46.5 → 42.6 and 49 → 47 ms.
#[inline]
pub fn square4(x: [&[f64]; 4]) -> [f64; 4] {
    let mut sq = [[0.0f64; 4]; 4];
    let chunks = x[0].len() / 4;
    for j in 0..chunks {
        let o = 4 * j;
        for (s, xs) in sq.iter_mut().zip(&x) {
            let cx = &xs[o..o + 4];
            for k in 0..4 {
                s[k] += cx[k] * cx[k];
            }
        }
    }
    core::array::from_fn(|s| {
        let mut tail = 0.0;
        for q in &x[s][4 * chunks..] {
            tail += q * q;
        }
        let a = sq[s];
        (a[0] + a[1]) + (a[2] + a[3]) + tail
    })
}

/// Euclidean norm ‖a‖₂, finite whenever the true norm is.
///
/// The fast path is the plain √(Σaᵢ²) of [`dot`], kept bit for bit so that every run whose sums
/// stay in range gives the bits it always gave (the golden runs). Only when that sum overflows
/// (entries near 1e154 and above: a CSV row of 1e200s would otherwise have norm ∞, be clipped to
/// 0, and a projection would send the iterate to 0) or underflows below the normal range with a
/// nonzero entry (precision lost) does it fall back to [`scaled_norm2`].
#[inline]
pub fn norm2(a: &[f64]) -> f64 {
    let sum = dot(a, a);
    if sum.is_finite() && (sum >= f64::MIN_POSITIVE || sum == 0.0 && a.iter().all(|&x| x == 0.0)) {
        sum.sqrt()
    } else {
        scaled_norm2(a)
    }
}

/// ‖a‖₂ computed as m·√(Σ(aᵢ/m)²) with m = maxᵢ|aᵢ| (the scaling of LAPACK's `dnrm2`): every
/// term is in [0, 1], so the sum neither overflows nor underflows, and the result is ∞ only when
/// the norm exceeds `f64::MAX`. An infinite entry gives ∞, a NaN entry NaN. Two passes, so
/// [`norm2`] calls it only when its one-pass sum is out of range.
pub fn scaled_norm2(a: &[f64]) -> f64 {
    let mut m = 0.0f64;
    for &x in a {
        if x.is_nan() {
            return f64::NAN;
        }
        m = m.max(x.abs());
    }
    if m == 0.0 || m.is_infinite() {
        return m;
    }
    let sum: f64 = a.iter().map(|&x| (x / m) * (x / m)).sum();
    m * sum.sqrt()
}

/// y ← y + α·x.
#[inline]
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// x ← α·x.
#[inline]
pub fn scale(alpha: f64, x: &mut [f64]) {
    x.iter_mut().for_each(|v| *v *= alpha);
}

/// ‖a − b‖₂, with the fallback of [`norm2`] when the plain sum is out of range.
pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
    let sum: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    if sum.is_finite() && sum >= f64::MIN_POSITIVE {
        sum.sqrt()
    } else {
        let diff: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        scaled_norm2(&diff)
    }
}

/// A loss's values and derivatives at four samples, as [`Kernels::derivative4`] evaluates them:
/// every GLM loss has it (the `loss` module implements it for each `loss::GlmLoss`, as its
/// `value_and_derivative4`), so that the kernels here, below the losses, name none.
pub trait Derivative4 {
    /// The values φ(tᵢ, yᵢ) and derivatives ∂φ/∂t(tᵢ, yᵢ) of four samples.
    fn derivative4(&self, t: [f64; 4], y: [f64; 4]) -> ([f64; 4], [f64; 4]);
}

/// The dot product and four-sample axpy of the fused pass, in one instruction set. Every
/// implementation gives the bits of [`dot`] and [`axpy4`].
pub trait Kernels: Copy {
    /// The loss's values and derivatives at four samples.
    fn derivative4<L: Derivative4 + ?Sized>(
        self,
        loss: &L,
        t: [f64; 4],
        y: [f64; 4],
    ) -> ([f64; 4], [f64; 4]) {
        loss.derivative4(t, y)
    }
    fn dot(self, a: &[f64], b: &[f64]) -> f64;
    /// [`dot4`]: four dot products with w, with the bits of four [`Kernels::dot`] calls.
    fn dot4(self, w: &[f64], x: [&[f64]; 4]) -> [f64; 4];
    /// [`dot_square4`]: [`Kernels::dot4`] and the four squared norms, with the bits of [`dot`].
    fn dot_square4(self, w: &[f64], x: [&[f64]; 4]) -> ([f64; 4], [f64; 4]);
    fn axpy4(self, c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]);
}

/// [`dot`] and [`axpy4`] as written: any target. On wasm32 with `simd128`, [`Kernels::dot4`] (alone
/// and as the first sweep of [`Kernels::dot_square4`]) is the same sums in explicit f64x2 registers
/// (the `simd128` module: compiled from the code above, LLVM left half of them scalar).
#[derive(Debug, Clone, Copy)]
pub struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn dot(self, a: &[f64], b: &[f64]) -> f64 {
        dot(a, b)
    }
    #[inline(always)]
    fn dot4(self, w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return simd128::dot4(w, x);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        dot4(w, x)
    }
    #[inline(always)]
    fn dot_square4(self, w: &[f64], x: [&[f64]; 4]) -> ([f64; 4], [f64; 4]) {
        // Two sweeps in wasm (see `square4`): `dot4` in explicit f64x2 registers (the `simd128`
        // module), then the squares; one sweep natively, where this kernel serves CPUs without
        // AVX2 and the tests. One sweep in f64x2 registers would hold 16 accumulator registers
        // plus w and x, more than the browsers' compilers have on x86-64.
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            (simd128::dot4(w, x), square4(x))
        }
        #[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
        {
            (dot4(w, x), square4(x))
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            dot_square4(w, x)
        }
    }
    #[inline(always)]
    fn axpy4(self, c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]) {
        axpy4(c, x, y)
    }
}

/// [`dot4`] in explicit wasm `simd128` registers, same bits.
///
/// Why: compiled from the portable code, LLVM vectorises only two of [`dot4`]'s four
/// samples (the other two run as scalar code on lanes extracted from w) and keeps the slice
/// checks in the loop, and the call is not inlined; the browsers' fused passes were then 2.1–2.2×
/// (squared) the time of the read where native code takes 1.4×. Here every sample's four
/// accumulators are two f64x2 registers (accumulators 0, 1 and 2, 3), so each addition is the
/// portable one in its order, and the slices are checked once before the loop.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::{
        f64x2_add, f64x2_extract_lane, f64x2_mul, f64x2_splat, v128, v128_load,
    };

    use super::total;

    /// The four accumulators of [`super::dot`] held in two registers, as an array.
    #[inline(always)]
    fn lanes(lo: v128, hi: v128) -> [f64; 4] {
        [
            f64x2_extract_lane::<0>(lo),
            f64x2_extract_lane::<1>(lo),
            f64x2_extract_lane::<0>(hi),
            f64x2_extract_lane::<1>(hi),
        ]
    }

    /// Elements o..o + 4 of `a` as two registers.
    ///
    /// # Safety
    /// o + 3 < a.len().
    #[inline(always)]
    unsafe fn load4(a: &[f64], o: usize) -> (v128, v128) {
        // SAFETY: the caller's bound; v128_load needs no alignment.
        unsafe {
            let p = a.as_ptr().add(o);
            (v128_load(p.cast()), v128_load(p.add(2).cast()))
        }
    }

    /// [`super::dot4`].
    #[inline]
    pub fn dot4(w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
        let n = w.len();
        assert!(x.iter().all(|xs| xs.len() == n));
        let chunks = n / 4;
        let mut acc = [(f64x2_splat(0.0), f64x2_splat(0.0)); 4];
        for j in 0..chunks {
            let o = 4 * j;
            // SAFETY: o + 3 < n for w and every x[s] (asserted above).
            let (w0, w1) = unsafe { load4(w, o) };
            for (a, xs) in acc.iter_mut().zip(&x) {
                // SAFETY: as above.
                let (x0, x1) = unsafe { load4(xs, o) };
                a.0 = f64x2_add(a.0, f64x2_mul(w0, x0));
                a.1 = f64x2_add(a.1, f64x2_mul(w1, x1));
            }
        }
        core::array::from_fn(|s| {
            let mut tail = 0.0;
            for (p, q) in w[4 * chunks..].iter().zip(&x[s][4 * chunks..]) {
                tail += p * q;
            }
            total(lanes(acc[s].0, acc[s].1), tail)
        })
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_setzero_pd,
        _mm256_storeu_pd,
    };

    use super::{Derivative4, Kernels};

    /// [`super::dot`] and [`super::axpy4`] in AVX2 registers. A value exists only on a CPU
    /// that has AVX2 ([`Avx2::detect`]): that is what makes the calls below sound.
    #[derive(Debug, Clone, Copy)]
    pub struct Avx2 {
        _detected: (),
    }

    impl Avx2 {
        /// `Some` when this CPU has AVX2 (checked once; std caches the answer).
        pub fn detect() -> Option<Self> {
            std::arch::is_x86_feature_detected!("avx2").then_some(Avx2 { _detected: () })
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn derivative4<L: Derivative4 + ?Sized>(
        loss: &L,
        t: [f64; 4],
        y: [f64; 4],
    ) -> ([f64; 4], [f64; 4]) {
        loss.derivative4(t, y)
    }

    impl Kernels for Avx2 {
        #[inline(always)]
        fn derivative4<L: Derivative4 + ?Sized>(
            self,
            loss: &L,
            t: [f64; 4],
            y: [f64; 4],
        ) -> ([f64; 4], [f64; 4]) {
            // SAFETY: as below.
            unsafe { derivative4(loss, t, y) }
        }
        #[inline(always)]
        fn dot(self, a: &[f64], b: &[f64]) -> f64 {
            // SAFETY: `self` exists, so the CPU has AVX2.
            unsafe { dot(a, b) }
        }
        #[inline(always)]
        fn dot4(self, w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
            // SAFETY: as above.
            unsafe { dot4(w, x) }
        }
        #[inline(always)]
        fn dot_square4(self, w: &[f64], x: [&[f64]; 4]) -> ([f64; 4], [f64; 4]) {
            // SAFETY: as above.
            unsafe { dot_square4(w, x) }
        }
        #[inline(always)]
        fn axpy4(self, c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]) {
            // SAFETY: as above.
            unsafe { axpy4(c, x, y) }
        }
    }

    /// Lane k of the register is accumulator k of [`super::dot`]; the tail and the final sum
    /// are the same scalar code.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len());
        let chunks = a.len() / 4;
        let mut acc: __m256d = _mm256_setzero_pd();
        for j in 0..chunks {
            // SAFETY: 4j + 3 < a.len() = b.len(); unaligned loads.
            let (va, vb) = unsafe {
                (
                    _mm256_loadu_pd(a.as_ptr().add(4 * j)),
                    _mm256_loadu_pd(b.as_ptr().add(4 * j)),
                )
            };
            acc = _mm256_add_pd(acc, _mm256_mul_pd(va, vb));
        }
        let mut tail = 0.0;
        for (x, y) in a[4 * chunks..].iter().zip(&b[4 * chunks..]) {
            tail += x * y;
        }
        total(acc, tail)
    }

    /// The four accumulators of a register and the scalar tail, summed in [`super::dot`]'s order.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn total(v: __m256d, tail: f64) -> f64 {
        let mut lanes = [0.0f64; 4];
        // SAFETY: `lanes` holds four f64.
        unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), v) };
        (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
    }

    /// Four registers, register s holding the four accumulators of sample s as [`dot`] does; w is
    /// loaded once per step for all four.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot4(w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
        let n = w.len();
        assert!(x.iter().all(|xs| xs.len() == n));
        let chunks = n / 4;
        let mut acc: [__m256d; 4] = [_mm256_setzero_pd(); 4];
        for j in 0..chunks {
            let o = 4 * j;
            // SAFETY: o + 3 < n for w and every x[s]; unaligned loads.
            unsafe {
                let vw = _mm256_loadu_pd(w.as_ptr().add(o));
                for s in 0..4 {
                    let vx = _mm256_loadu_pd(x[s].as_ptr().add(o));
                    acc[s] = _mm256_add_pd(acc[s], _mm256_mul_pd(vw, vx));
                }
            }
        }
        core::array::from_fn(|s| {
            let mut tail = 0.0;
            for (p, q) in w[4 * chunks..].iter().zip(&x[s][4 * chunks..]) {
                tail += p * q;
            }
            total(acc[s], tail)
        })
    }

    /// [`dot4`]'s registers and four more holding the squares' accumulators, in the order of
    /// [`super::dot`].
    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot_square4(w: &[f64], x: [&[f64]; 4]) -> ([f64; 4], [f64; 4]) {
        let n = w.len();
        assert!(x.iter().all(|xs| xs.len() == n));
        let chunks = n / 4;
        let mut acc: [__m256d; 4] = [_mm256_setzero_pd(); 4];
        let mut sq: [__m256d; 4] = [_mm256_setzero_pd(); 4];
        for j in 0..chunks {
            let o = 4 * j;
            // SAFETY: o + 3 < n for w and every x[s]; unaligned loads.
            unsafe {
                let vw = _mm256_loadu_pd(w.as_ptr().add(o));
                for s in 0..4 {
                    let vx = _mm256_loadu_pd(x[s].as_ptr().add(o));
                    acc[s] = _mm256_add_pd(acc[s], _mm256_mul_pd(vw, vx));
                    sq[s] = _mm256_add_pd(sq[s], _mm256_mul_pd(vx, vx));
                }
            }
        }
        let mut dots = [0.0; 4];
        let mut squares = [0.0; 4];
        for s in 0..4 {
            let (mut ta, mut ts) = (0.0, 0.0);
            for (p, q) in w[4 * chunks..].iter().zip(&x[s][4 * chunks..]) {
                ta += p * q;
                ts += q * q;
            }
            dots[s] = total(acc[s], ta);
            squares[s] = total(sq[s], ts);
        }
        (dots, squares)
    }

    /// Element-wise, so four elements per register change nothing.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn axpy4(c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]) {
        let n = y.len();
        assert!(x.iter().all(|xk| xk.len() == n));
        let chunks = n / 4;
        let cv = c.map(|ck| _mm256_set1_pd(ck));
        for j in 0..chunks {
            let o = 4 * j;
            // SAFETY: o + 3 < n for y and every x[k]; unaligned loads and store.
            unsafe {
                let mut v = _mm256_loadu_pd(y.as_ptr().add(o));
                for k in 0..4 {
                    v = _mm256_add_pd(
                        v,
                        _mm256_mul_pd(cv[k], _mm256_loadu_pd(x[k].as_ptr().add(o))),
                    );
                }
                _mm256_storeu_pd(y.as_mut_ptr().add(o), v);
            }
        }
        for i in 4 * chunks..n {
            y[i] = (((y[i] + c[0] * x[0][i]) + c[1] * x[1][i]) + c[2] * x[2][i]) + c[3] * x[3][i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn kernels_give_the_same_bits() {
        let Some(fast) = Avx2::detect() else {
            eprintln!("no AVX2 on this CPU: only the portable kernels run here");
            return;
        };
        for d in [1, 3, 4, 5, 8, 11, 20, 100, 101] {
            let col = |k: f64| -> Vec<f64> {
                (0..d)
                    .map(|i| (f64::from(i as u32) * k).sin() * 1e3_f64.powf(k.cos()))
                    .collect()
            };
            let (a, b) = (col(0.7), col(1.3));
            assert_eq!(
                fast.dot(&a, &b).to_bits(),
                Portable.dot(&a, &b).to_bits(),
                "d = {d}"
            );
            let xs = [col(0.11), col(2.9), col(0.5), col(-1.7)];
            let four = xs.each_ref().map(|v| v.as_slice());
            let one_by_one = four.map(|x| Portable.dot(&a, x).to_bits());
            assert_eq!(fast.dot4(&a, four).map(f64::to_bits), one_by_one, "d = {d}");
            assert_eq!(
                Portable.dot4(&a, four).map(f64::to_bits),
                one_by_one,
                "d = {d}"
            );
            let squares = four.map(|x| Portable.dot(x, x).to_bits());
            for (t, sq) in [fast.dot_square4(&a, four), Portable.dot_square4(&a, four)] {
                assert_eq!(t.map(f64::to_bits), one_by_one, "d = {d}");
                assert_eq!(sq.map(f64::to_bits), squares, "d = {d}");
            }
            let c = [0.3, -1.7, 1e-3, 12.5];
            let (mut y1, mut y2) = (col(0.37), col(0.37));
            Portable.axpy4(c, xs.each_ref().map(|v| v.as_slice()), &mut y1);
            fast.axpy4(c, xs.each_ref().map(|v| v.as_slice()), &mut y2);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&y1), bits(&y2), "d = {d}");
        }
    }

    #[test]
    fn dot4_gives_the_bits_of_four_dots() {
        // Any target (wasm included): the fused loop keeps each sample's summation order.
        for d in [0, 1, 3, 4, 7, 20, 101] {
            let col = |k: f64| -> Vec<f64> {
                (0..d)
                    .map(|i| (f64::from(i as u32) * k).sin() * 1e3_f64.powf(k.cos()))
                    .collect()
            };
            let w = col(0.7);
            let xs = [col(0.11), col(2.9), col(0.5), col(-1.7)];
            let four = xs.each_ref().map(|v| v.as_slice());
            assert_eq!(
                dot4(&w, four).map(f64::to_bits),
                four.map(|x| dot(&w, x).to_bits()),
                "d = {d}"
            );
            let squares = four.map(|x| dot(x, x).to_bits());
            let (t, sq) = dot_square4(&w, four);
            assert_eq!(t.map(f64::to_bits), four.map(|x| dot(&w, x).to_bits()));
            assert_eq!(sq.map(f64::to_bits), squares);
            assert_eq!(square4(four).map(f64::to_bits), squares, "d = {d}");
            // The portable kernel: one sweep natively, two in wasm; the same bits.
            let (t, sq) = Portable.dot_square4(&w, four);
            assert_eq!(t.map(f64::to_bits), four.map(|x| dot(&w, x).to_bits()));
            assert_eq!(sq.map(f64::to_bits), squares, "d = {d}");
        }
    }

    #[test]
    fn dot_matches_naive_sum_on_integers() {
        // Integers are exact in f64, so any summation order must give the same value.
        let a: Vec<f64> = (0..11).map(f64::from).collect();
        let b: Vec<f64> = (0..11).map(|i| f64::from(2 * i + 1)).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), naive);
    }

    #[test]
    fn axpy4_gives_the_bits_of_four_axpys() {
        let col = |k: f64| -> Vec<f64> { (0..11).map(|i| (f64::from(i) * k).sin()).collect() };
        let (x0, x1, x2, x3) = (col(0.7), col(1.3), col(0.11), col(2.9));
        let c = [0.3, -1.7, 1e-3, 12.5];
        let mut y1 = col(0.37);
        for (ck, xk) in c.iter().zip([&x0, &x1, &x2, &x3]) {
            axpy(*ck, xk, &mut y1);
        }
        let mut y2 = col(0.37);
        axpy4(c, [&x0, &x1, &x2, &x3], &mut y2);
        assert_eq!(y1, y2);
    }

    #[test]
    fn norm2_does_not_overflow_or_underflow_at_extreme_entries() {
        // √(Σx²) was ∞ at 1e200 and 0 at 1e-200. The scaled sum rounds a few
        // more times than the plain one: within 4 ulps.
        let close = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * b;
        assert!(close(norm2(&[3e200, 4e200]), 5e200));
        assert!(close(norm2(&[3e-200, 4e-200]), 5e-200));
        assert!(close(norm2(&[1e-310, 0.0]), 1e-310));
        assert!(close(dist2(&[3e200, 0.0], &[0.0, -4e200]), 5e200));
        assert_eq!(norm2(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert_eq!(norm2(&[1.0, f64::NEG_INFINITY]), f64::INFINITY);
        assert!(norm2(&[f64::NAN, 1e300]).is_nan());
        assert_eq!(norm2(&[0.0, -0.0]), 0.0);
        assert_eq!(norm2(&[]), 0.0);
    }

    #[test]
    fn norm2_keeps_the_plain_bits_when_the_sum_is_in_range() {
        // The golden runs depend on these bits: the fallback must never run on ordinary input.
        for d in [1, 3, 4, 7, 100] {
            let a: Vec<f64> = (0..d).map(|i| (f64::from(i) * 0.7).sin() * 1e3).collect();
            assert_eq!(norm2(&a).to_bits(), dot(&a, &a).sqrt().to_bits(), "d = {d}");
        }
    }

    #[test]
    fn axpy_scale_and_norm() {
        let mut y = vec![1.0, 2.0, 2.0];
        assert_eq!(norm2(&y), 3.0);
        axpy(2.0, &[1.0, 0.0, -1.0], &mut y);
        assert_eq!(y, vec![3.0, 2.0, 0.0]);
        scale(0.5, &mut y);
        assert_eq!(y, vec![1.5, 1.0, 0.0]);
        assert_eq!(dist2(&[0.0, 0.0], &[3.0, 4.0]), 5.0);
    }
}
