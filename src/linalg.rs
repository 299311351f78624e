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
