//! The hot kernels (copies of dp-playground's linalg::dot4 / axpy4 and a logistic pass).

#[inline(always)]
fn dot4(w: &[f64], x: [&[f64]; 4]) -> [f64; 4] {
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
        let a = acc[s];
        (a[0] + a[1]) + (a[2] + a[3]) + tail
    })
}

#[inline(always)]
fn axpy4(c: [f64; 4], x: [&[f64]; 4], y: &mut [f64]) {
    let [x0, x1, x2, x3] = x;
    for ((((yi, a), b), e), f) in y.iter_mut().zip(x0).zip(x1).zip(x2).zip(x3) {
        *yi = (((*yi + c[0] * a) + c[1] * b) + c[2] * e) + c[3] * f;
    }
}

/// Logistic loss value and gradient over n samples of length d (x is n·d, sample-major),
/// labels ±1; n a multiple of 4. Never inlined: codegened here, at this crate's opt-level.
#[inline(never)]
pub fn logistic_grad(x: &[f64], y: &[f64], w: &[f64], g: &mut [f64]) -> f64 {
    let d = w.len();
    g.fill(0.0);
    let mut value = 0.0;
    for (xb, yb) in x.chunks_exact(4 * d).zip(y.chunks_exact(4)) {
        let xs = [&xb[..d], &xb[d..2 * d], &xb[2 * d..3 * d], &xb[3 * d..]];
        let t = dot4(w, xs);
        let mut c = [0.0; 4];
        for k in 0..4 {
            let m = yb[k] * t[k];
            value += libm::log1p(libm::exp(-m));
            c[k] = -yb[k] / (1.0 + libm::exp(m));
        }
        axpy4(c, xs, g);
    }
    value
}
