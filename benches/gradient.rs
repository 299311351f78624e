//! `cargo bench --bench gradient`: at n = 10⁵, d = 100 prints the time to read the data matrix
//! once, the fused full logistic gradient (monomorphised and through `dyn GlmLoss`), and their
//! ratios; then generation times at the browser sizes and reference-solve times at n = 10⁴, d = 20
//! for every loss × domain pair.
//!
//! `cargo bench --bench gradient -- gradient` runs only the first block, `-- reference` only the
//! last (cargo passes `--bench` too, which is ignored).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use dp_playground::data::{GeneratorSpec, Link, Tail, Task, clip_features, generate};
use dp_playground::domain::{Domain, DomainKind};
use dp_playground::loss::{Glm, GlmLoss, Logistic, Loss, Regulariser, Wrap};
use dp_playground::objective::Objective;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};

/// One pass over the matrix: the sum of all entries with four accumulators (the memory floor).
fn read_once(x: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    for c in x.chunks_exact(4) {
        for k in 0..4 {
            acc[k] += c[k];
        }
    }
    acc.iter().sum()
}

/// The logistic loss as it was computed before `loss::math` (libm's exp and log1p, a branch on the
/// sign of the margin), so that one run compares the two under the same load.
struct LibmLogistic;

impl GlmLoss for LibmLogistic {
    fn name(&self) -> &'static str {
        "logistic (libm)"
    }
    fn value(&self, t: f64, y: f64) -> f64 {
        self.value_and_derivative(t, y).0
    }
    fn derivative(&self, t: f64, y: f64) -> f64 {
        self.value_and_derivative(t, y).1
    }
    fn value_and_derivative(&self, t: f64, y: f64) -> (f64, f64) {
        let m = -y * t;
        let e = libm::exp(-m.abs());
        let s = if m >= 0.0 {
            1.0 / (1.0 + e)
        } else {
            e / (1.0 + e)
        };
        (m.max(0.0) + libm::log1p(e), -y * s)
    }
    fn lipschitz(&self, feature_bound: f64, _radius: f64) -> f64 {
        feature_bound
    }
    fn smoothness(&self, feature_bound: f64) -> f64 {
        feature_bound * feature_bound / 4.0
    }
}

fn spec(n: usize, d: usize, task: Task) -> GeneratorSpec {
    GeneratorSpec {
        n,
        d,
        features: Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0 / (d as f64).sqrt(),
        signal: 2.0,
        task,
    }
}

const CLS: Task = Task::Classification {
    link: Link::Logistic,
    flip: 0.05,
};
const REG: Task = Task::Regression {
    noise: Tail::Gaussian,
    noise_scale: 0.3,
};

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wants = |block: &str| only.is_empty() || only.iter().any(|a| a == block);
    if wants("gradient") {
        gradient_block();
    }
    if wants("generate") {
        generate_block();
    }
    if wants("reference") {
        reference_block();
    }
}

fn gradient_block() {
    let (n, d) = (100_000, 100);
    let t0 = Instant::now();
    let data = Arc::new(generate(&spec(n, d, CLS), seeded(1, Stream::Data)).expect("generate"));
    println!(
        "generate n = {n}, d = {d}: {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let x = data.matrix_slice();
    let w: Vec<f64> = (0..d).map(|j| 0.01 * (j as f64 - 50.0)).collect();
    let objective = |loss: Glm| {
        Objective::with_loss(
            data.clone(),
            Loss::erm(loss),
            Regulariser::default(),
            DomainKind::Unconstrained.boxed(),
            10.0,
        )
        .expect("objective")
    };
    let (logistic, squared) = (
        objective(Glm::Logistic),
        objective(Glm::Squared { label_bound: 1.0 }),
    );
    let dynamic = Objective::new(
        data.clone(),
        Box::new(Logistic),
        0.0,
        DomainKind::Unconstrained.boxed(),
        10.0,
    );
    let libm_logistic = Objective::new(
        data.clone(),
        Box::new(LibmLogistic),
        0.0,
        DomainKind::Unconstrained.boxed(),
        10.0,
    );
    let (mut g, mut g2) = (vec![0.0; d], vec![0.0; d]);
    logistic.data_term(&w, Some(&mut g));
    dynamic.value_and_gradient(&w, &mut g2);
    assert_eq!(g, g2, "both paths give the same bits");

    // The five passes take turns within each repetition, so that every ratio compares passes
    // run under the same load (the machine is shared); the ratio reported is the median of the
    // per-repetition ratios, beside the ratio of the minima.
    let reps = 200;
    let mut times = [const { Vec::new() }; 5];
    let [mut g_sq, mut g_log, mut g_dyn, mut g_libm] = [g.clone(), g.clone(), g.clone(), g];
    for _ in 0..reps {
        let passes: [&mut dyn FnMut(); 5] = [
            &mut || {
                black_box(read_once(black_box(x)));
            },
            &mut || {
                black_box(squared.data_term(black_box(&w), Some(&mut g_sq)));
            },
            &mut || {
                black_box(logistic.data_term(black_box(&w), Some(&mut g_log)));
            },
            &mut || {
                black_box(dynamic.value_and_gradient(black_box(&w), &mut g_dyn));
            },
            &mut || {
                black_box(libm_logistic.value_and_gradient(black_box(&w), &mut g_libm));
            },
        ];
        for (t, pass) in times.iter_mut().zip(passes) {
            let s = Instant::now();
            pass();
            t.push(s.elapsed().as_secs_f64() * 1e3);
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let ratio = |k: usize| {
        let per_rep: Vec<f64> = times[k].iter().zip(&times[0]).map(|(a, b)| a / b).collect();
        (min(&times[k]) / min(&times[0]), median(&per_rep))
    };
    #[cfg(target_arch = "x86_64")]
    let kernels = if dp_playground::linalg::Avx2::detect().is_some() {
        "AVX2"
    } else {
        "portable (no AVX2 on this CPU)"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernels = "portable";
    println!("kernels: {kernels}");
    println!(
        "n = {n}, d = {d} ({} MB), {reps} turns; min (median) time, and ratio to the read",
        n * d * 8 / 1_000_000
    );
    println!("    as min/min (median of per-turn ratios):");
    let names = [
        "read the matrix once",
        "squared-loss value+gradient",
        "logistic value+gradient",
        "logistic through dyn GlmLoss",
        "logistic with libm (before)",
    ];
    for (k, name) in names.iter().enumerate() {
        let (rmin, rmed) = ratio(k);
        println!(
            "  {name:<30} {:7.2} ms ({:5.2})   ratio {rmin:.2} ({rmed:.2})",
            min(&times[k]),
            median(&times[k])
        );
    }
    let (rmin, rmed) = ratio(2);
    println!(
        "  logistic gradient / read: {rmin:.2} min/min, {rmed:.2} median per turn (goal ≤ 1.25)"
    );
}

fn generate_block() {
    for (n, d) in [(1_000_000, 20), (100_000, 100)] {
        let t0 = Instant::now();
        black_box(generate(&spec(n, d, CLS), seeded(2, Stream::Data)).expect("generate"));
        println!(
            "generate n = {n}, d = {d}: {:.0} ms (native)",
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
}

fn reference_block() {
    println!("reference solves, n = 10⁴, d = 20, tol 1e-9 relative (ridge 0.01 on R^d):");
    let cls = {
        let mut ds = generate(&spec(10_000, 20, CLS), seeded(3, Stream::Data)).expect("generate");
        clip_features(&mut ds, 1.0);
        Arc::new(ds)
    };
    let regr = {
        let mut ds = generate(&spec(10_000, 20, REG), seeded(4, Stream::Data)).expect("generate");
        clip_features(&mut ds, 1.0);
        Arc::new(ds)
    };
    let mut losses: Vec<Loss> = Glm::all().into_iter().map(Loss::erm).collect();
    losses.push(Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Tilted { tau: 1.0 },
    });
    losses.push(Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Adversarial { radius: 0.05 },
    });
    // The adversarial forms certified by the dual of crates/core/src/reference/adversarial.rs, at a radius
    // small enough that the hinge optimum is not w = 0 (it is at 0.05 on every domain but the
    // simplex, and certifying w = 0 takes 2–4 passes).
    for glm in [
        Glm::Hinge,
        Glm::absolute(),
        Glm::Squared { label_bound: 1.0 },
        Glm::huber(1.0),
    ] {
        losses.push(Loss {
            glm,
            wrap: Wrap::Adversarial { radius: 0.02 },
        });
    }
    // TERM over the non-smooth losses (the tilted duality gap, reference/tilted.rs), at the
    // page's default tilt and a strong one.
    for tau in [1.0, 5.0] {
        for glm in [Glm::Hinge, Glm::absolute()] {
            losses.push(Loss {
                glm,
                wrap: Wrap::Tilted { tau },
            });
        }
    }
    let mut worst = 0.0f64;
    for loss in losses {
        let mut line = format!("  {:<40}", format!("{:?}/{:?}", loss.glm, loss.wrap));
        for dom in DomainKind::examples() {
            let reg = if dom == DomainKind::Unconstrained {
                Regulariser::ridge(0.01)
            } else {
                Regulariser::default()
            };
            let ds = if loss.glm.is_margin() {
                cls.clone()
            } else {
                regr.clone()
            };
            let obj = Objective::with_loss(ds, loss, reg, dom.boxed(), 1.0).expect("objective");
            let t0 = Instant::now();
            let r = reference::solve(&obj, 1e-9, 200_000);
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            worst = worst.max(ms);
            match r {
                Ok(r) => line += &format!(" {:>6}:{ms:6.0}ms/{:>5}", dom.name(), r.grad_evals),
                Err(e) => line += &format!(" {:>6}: {e}", dom.name()),
            }
        }
        println!("{line}");
    }
    println!("  slowest: {worst:.0} ms");
}
