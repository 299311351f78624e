//! The fused pass's inner step over [`PHASE`] samples, in three phases: every sample's dot
//! product, then every sample's loss value and derivative, then the axpys, four samples at a
//! time ([`Kernels::dot4`], [`Kernels::derivative4`], [`Kernels::axpy4`]).
//!
//! Why phases: done four samples at a time, each block is a chain — dot products, the loss's
//! math (the logistic loss's exp and ln(1 + ·), ≈ 120 cycles deep), then the axpy that needs its
//! coefficients — and one block's chain is longer than the CPU's reorder window, so the next
//! block's loads and dot products could not start while the math ran: the math's latency added
//! to the pass. Over [`PHASE`] samples the four blocks' math are independent and overlap (their
//! throughput, not their latency, counts), and the samples read by the dot products are still
//! in L1 cache when the axpys read them again (16 samples of d = 100 are 12.8 KB).
//!
//! The bits are those of one sample at a time: each dot product, derivative and coefficient is
//! computed as before, the values are added in sample order and the axpys run in sample order,
//! four at a time as [`Kernels::axpy4`] always did (`objective`'s and `solver::logistic_pass`'s
//! tests check the bits).

use crate::linalg::Kernels;
use crate::loss::GlmLoss;

/// Samples per phase: four blocks of four, a multiple of 4 dividing
/// `solver::logistic_pass::BLOCK`.
pub const PHASE: usize = 16;

/// One phase over the N samples `xs` (each of length `w.len()`; N a multiple of 4) with labels
/// `ys`: adds their loss values to `value` in sample order, adds φ′ᵢ·xᵢ to `acc` in sample
/// order, and returns the margins ⟨w, xᵢ⟩. The pass calls it with N = [`PHASE`], and with N = 4
/// on what is left.
#[inline(always)]
pub fn phase<const N: usize, L: GlmLoss + ?Sized, K: Kernels>(
    kernels: K,
    loss: &L,
    w: &[f64],
    xs: &[&[f64]; N],
    ys: &[f64; N],
    value: &mut f64,
    acc: &mut [f64],
) -> [f64; N] {
    const { assert!(N % 4 == 0, "a phase is whole blocks of four samples") };
    let mut t = [0.0; N];
    for (tb, xb) in t.chunks_exact_mut(4).zip(xs.chunks_exact(4)) {
        tb.copy_from_slice(&kernels.dot4(w, four(xb)));
    }
    let mut c = [0.0; N];
    for ((cb, tb), yb) in c
        .chunks_exact_mut(4)
        .zip(t.chunks_exact(4))
        .zip(ys.chunks_exact(4))
    {
        let (v, g) = kernels.derivative4(
            loss,
            [tb[0], tb[1], tb[2], tb[3]],
            [yb[0], yb[1], yb[2], yb[3]],
        );
        for vk in v {
            *value += vk;
        }
        cb.copy_from_slice(&g);
    }
    for (cb, xb) in c.chunks_exact(4).zip(xs.chunks_exact(4)) {
        kernels.axpy4([cb[0], cb[1], cb[2], cb[3]], four(xb), acc);
    }
    t
}

/// The first four of `s` as an array.
#[inline(always)]
fn four<'a>(s: &[&'a [f64]]) -> [&'a [f64]; 4] {
    [s[0], s[1], s[2], s[3]]
}
