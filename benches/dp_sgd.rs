//! `cargo bench --bench dp_sgd`: one DP-SGD epoch natively, the case — logistic
//! regression at n = 10⁵, d = 100, expected batch b = 256 (q = b/n), per-sample clipping at C = 1,
//! (ε, δ) = (1, 1e-5) — on the data and settings of `src/bench.rs`, timed by the same driver as
//! `cargo bench --bench cases` and `/bench.html` ([`bench::native::measure`]), so the three print
//! the same figure. An epoch is ⌈n/b⌉ = 391 steps of Poisson sampling, the fused clipped sum,
//! d Gaussian draws and the update, with the per-step report (minibatch loss, noise and gradient
//! norms, ε spent).
//!
//! Then the same epoch at n = 10⁴ (8 MB, cache-resident), to show what the random access to the
//! 80 MB matrix costs. Set `DPSGD_REPEATS` to change the number of timed epochs (default 9).

use dp_playground::bench::{Case, Workload, native};

fn main() {
    let repeats: usize = std::env::var("DPSGD_REPEATS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    for (n, d) in [(100_000, 100), (10_000, 100)] {
        let mut workload = Workload::new(n, d).expect("workload");
        let m = native::measure(&mut workload, Case::DpSgdEpoch, repeats).expect("measure");
        let steps = n.div_ceil(256) as f64;
        println!(
            "DP-SGD epoch, n = {n}, d = {d}, b = 256, C = 1, ε = 1: best {:.2} ms/epoch \
             ({:.1} epochs/s), median {:.2} ms ({:.1} epochs/s), {:.1} µs/step",
            m.summary.min,
            1e3 / m.summary.min,
            m.summary.median,
            1e3 / m.summary.median,
            m.summary.min / steps * 1e3
        );
    }
}
