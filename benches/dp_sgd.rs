//! `cargo bench --bench dp_sgd`: DP-SGD epochs per second natively for logistic regression at
//! n = 10⁵, d = 100, expected batch b = 256 (q = b/n), per-sample clipping at C = 1 included, on
//! data with heavy-tailed features (so clipping is active for a share of the samples). Each epoch
//! is ⌈n/b⌉ = 391 steps of Poisson sampling, the fused clipped sum, d Gaussian draws and the
//! projected update, with the per-step report (minibatch loss, noise and gradient norms, ε spent).
//!
//! Prints the best and median of several 5-epoch runs, and the mean time per step. Set
//! `DPSGD_EPOCHS` to change the epochs per run.

use std::sync::Arc;
use std::time::Instant;

use dp_playground::algo::PrivateAlgorithm;
use dp_playground::algo::dp_sgd::{DpSgd, DpSgdConfig};
use dp_playground::data::{GeneratorSpec, Link, Tail, Task, generate};
use dp_playground::domain::DomainKind;
use dp_playground::loss::{Glm, Loss, Regularizer};
use dp_playground::objective::Objective;
use dp_playground::rng::{Stream, seeded};

fn main() {
    let epochs: f64 = std::env::var("DPSGD_EPOCHS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    // The acceptance size, then n = 10⁴ (8 MB, cache-resident) to show what random access to the
    // 80 MB matrix costs.
    bench(100_000, 100, 256, epochs);
    bench(10_000, 100, 256, epochs);
}

fn bench(n: usize, d: usize, b: usize, epochs: f64) {
    let spec = GeneratorSpec {
        n,
        d,
        features: Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0 / (d as f64).sqrt(),
        signal: 2.0,
        task: Task::Classification {
            link: Link::Logistic,
            flip: 0.05,
        },
    };
    let data = Arc::new(generate(&spec, seeded(1, Stream::Data)).expect("generate"));
    let objective = Objective::with_loss(
        data,
        Loss::erm(Glm::Logistic),
        Regularizer::default(),
        DomainKind::Unconstrained.boxed(),
        10.0,
    )
    .expect("objective");
    let config =
        DpSgdConfig::for_dataset(n, b, epochs, 1.0, 1e-5, 1.0, 0.5).expect("configuration");
    let t0 = Instant::now();
    let probe = DpSgd::new(config, &objective, seeded(0, Stream::Noise), true).expect("calibrate");
    println!(
        "calibration (ε = 1, δ = 1e-5, q = {:.5}, T = {}): z = {:.4}, {:.0} ms",
        config.sampling_rate,
        config.steps,
        probe.noise_multiplier(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let mut times = Vec::new();
    let mut clipped = 0.0;
    for rep in 0..7 {
        let mut alg =
            DpSgd::new(config, &objective, seeded(rep, Stream::Noise), true).expect("calibrate");
        let t = Instant::now();
        let mut last = None;
        while let Some(r) = alg.step(&objective) {
            last = Some(r);
        }
        times.push(t.elapsed().as_secs_f64());
        clipped = alg.clipped_fraction();
        std::hint::black_box((last, alg.current()));
    }
    times.sort_by(f64::total_cmp);
    let per_epoch = |s: f64| s / epochs;
    println!(
        "DP-SGD n = {n}, d = {d}, b = {b}, C = 1 ({:.0}% of per-sample gradients clipped): \
         best {:.1} epochs/s ({:.2} ms/epoch), median {:.1} epochs/s, {:.2} µs/step",
        100.0 * clipped,
        1.0 / per_epoch(times[0]),
        per_epoch(times[0]) * 1e3,
        1.0 / per_epoch(times[times.len() / 2]),
        times[0] / config.steps as f64 * 1e6
    );
}
