//! The solver-independent check of a reference optimum (crates/core/tests/base/problem_reference*.rs).

use std::sync::Arc;

use dp_core::data::{Dataset, GeneratorSpec, Link, Tail, Task, clip_features, generate};
use dp_core::objective::Objective;
use dp_core::reference::Reference;
use dp_core::rng::{Stream, seeded};

/// Checks a reference independently of the solver: feasible, the certificate meets the 1e-9
/// relative target, and no feasible probe point (random directions at several scales around w)
/// has a value below the certified lower bound F(w) − gap_bound.
pub fn check_reference(obj: &Objective, r: &Reference, label: &str) {
    let tol = 1e-9 * r.value.abs().max(1.0);
    assert!(r.gap_bound <= tol, "{label}: gap {} > {tol}", r.gap_bound);
    assert!(obj.domain().contains(&r.w, 1e-12), "{label}: infeasible");
    assert!((obj.value(&r.w) - r.value).abs() <= 1e-12 * r.value.abs().max(1.0));
    let mut rng = seeded(99, Stream::Noise);
    use rand::RngExt;
    for k in 0..300 {
        let scale = [1e-6, 1e-3, 1e-1][k % 3];
        let mut p: Vec<f64> =
            r.w.iter()
                .map(|w| w + scale * (2.0 * rng.random::<f64>() - 1.0))
                .collect();
        obj.domain().project(&mut p);
        // 1e-13 absorbs the rounding of two evaluations of F (values of order 1).
        assert!(
            obj.value(&p) >= r.value - r.gap_bound - 1e-13,
            "{label}: probe beats the certified bound"
        );
    }
}

/// The reference tests' data (and the benchmark's): Student-t(5) features of scale 1/√d clipped
/// to norm 1, labels from a logistic link with 5 % flips, or targets with Gaussian noise of 0.3.
pub fn reference_data(classification: bool, n: usize, d: usize, seed: u32) -> Arc<Dataset> {
    let spec = GeneratorSpec {
        n,
        d,
        features: Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0 / (d as f64).sqrt(),
        signal: 2.0,
        task: if classification {
            Task::Classification {
                link: Link::Logistic,
                flip: 0.05,
            }
        } else {
            Task::Regression {
                noise: Tail::Gaussian,
                noise_scale: 0.3,
            }
        },
    };
    let mut ds = generate(&spec, seeded(seed, Stream::Data)).unwrap();
    clip_features(&mut ds, 1.0);
    Arc::new(ds)
}
