//! Vector helpers and the fused per-sample kernel (DESIGN.md §7).
//!
//! Reductions use four independent accumulators in a fixed order. That lets the compiler keep four
//! lanes busy (and use `simd128` on wasm) while giving bit-identical results on every target,
//! because the order of floating-point additions is written down here, not chosen by the optimiser.

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

/// (⟨w, a⟩, ⟨w, b⟩) in one sweep over w, each with exactly the summation order of [`dot`] (so the
/// results are bit-identical to two calls), giving the CPU two independent chains to overlap.
#[inline]
pub fn dot2(w: &[f64], a: &[f64], b: &[f64]) -> (f64, f64) {
    debug_assert!(w.len() == a.len() && w.len() == b.len());
    let mut acc_a = [0.0f64; 4];
    let mut acc_b = [0.0f64; 4];
    let cw = w.chunks_exact(4);
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (rw, ra, rb) = (cw.remainder(), ca.remainder(), cb.remainder());
    for ((cw, ca), cb) in cw.zip(ca).zip(cb) {
        for k in 0..4 {
            acc_a[k] += cw[k] * ca[k];
            acc_b[k] += cw[k] * cb[k];
        }
    }
    let (mut tail_a, mut tail_b) = (0.0, 0.0);
    for ((x, y), z) in rw.iter().zip(ra).zip(rb) {
        tail_a += x * y;
        tail_b += x * z;
    }
    (
        (acc_a[0] + acc_a[1]) + (acc_a[2] + acc_a[3]) + tail_a,
        (acc_b[0] + acc_b[1]) + (acc_b[2] + acc_b[3]) + tail_b,
    )
}

/// y ← (y + α·a) + β·b in one sweep: the same roundings as two [`axpy`] calls in that order, with
/// one load and store of y instead of two.
#[inline]
pub fn axpy2(alpha: f64, a: &[f64], beta: f64, b: &[f64], y: &mut [f64]) {
    debug_assert!(y.len() == a.len() && y.len() == b.len());
    for ((yi, ai), bi) in y.iter_mut().zip(a).zip(b) {
        *yi = (*yi + alpha * ai) + beta * bi;
    }
}

/// Euclidean norm ‖a‖₂.
#[inline]
pub fn norm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
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

/// ‖a − b‖₂.
pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_sum_on_integers() {
        // Integers are exact in f64, so any summation order must give the same value.
        let a: Vec<f64> = (0..11).map(f64::from).collect();
        let b: Vec<f64> = (0..11).map(|i| f64::from(2 * i + 1)).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), naive);
    }

    #[test]
    fn paired_kernels_give_the_bits_of_single_ones() {
        let w: Vec<f64> = (0..11).map(|i| 0.1 * f64::from(i) - 0.37).collect();
        let a: Vec<f64> = (0..11).map(|i| 1.0 / (1.0 + f64::from(i))).collect();
        let b: Vec<f64> = (0..11).map(|i| (f64::from(i) * 0.7).sin()).collect();
        let (ta, tb) = dot2(&w, &a, &b);
        assert_eq!(
            (ta.to_bits(), tb.to_bits()),
            (dot(&w, &a).to_bits(), dot(&w, &b).to_bits())
        );
        let mut y1 = w.clone();
        axpy(0.3, &a, &mut y1);
        axpy(-1.7, &b, &mut y1);
        let mut y2 = w.clone();
        axpy2(0.3, &a, -1.7, &b, &mut y2);
        assert_eq!(y1, y2);
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
