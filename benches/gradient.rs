//! `cargo bench --bench gradient`: at n = 10⁵, d = 100 prints the time to read the data matrix
//! once, the fused full logistic gradient (monomorphised and through `dyn GlmLoss`), and their
//! ratios; then generation times at the browser sizes and reference-solve times at n = 10⁴, d = 20
//! for every loss × domain pair. Times are the minimum (and median) of repeated runs.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use dp_playground::data::{GeneratorSpec, Link, Tail, Task, clip_features, generate};
use dp_playground::domain::{Domain, DomainKind};
use dp_playground::loss::{Glm, Logistic, Loss, Regularizer, Wrap};
use dp_playground::objective::Objective;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};

fn time<F: FnMut()>(reps: usize, mut f: F) -> (f64, f64) {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[reps / 2])
}

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
    let (n, d) = (100_000, 100);
    let t0 = Instant::now();
    let data = Arc::new(generate(&spec(n, d, CLS), seeded(1, Stream::Data)).expect("generate"));
    println!(
        "generate n = {n}, d = {d}: {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let reps = 30;
    let x = data.matrix_slice();
    let (read_min, read_med) = time(reps, || {
        black_box(read_once(black_box(x)));
    });
    let w: Vec<f64> = (0..d).map(|j| 0.01 * (j as f64 - 50.0)).collect();
    let mut g = vec![0.0; d];
    let fused = Objective::with_loss(
        data.clone(),
        Loss::erm(Glm::Logistic),
        Regularizer::default(),
        DomainKind::Unconstrained.boxed(),
        10.0,
    )
    .expect("objective");
    let (mono_min, mono_med) = time(reps, || {
        black_box(fused.data_term(black_box(&w), Some(&mut g)));
    });
    let dynamic = Objective::new(
        data.clone(),
        Box::new(Logistic),
        0.0,
        DomainKind::Unconstrained.boxed(),
        10.0,
    );
    let mut g2 = vec![0.0; d];
    let (dyn_min, dyn_med) = time(reps, || {
        black_box(dynamic.value_and_gradient(black_box(&w), &mut g2));
    });
    assert_eq!(g, g2, "both paths give the same bits");
    println!(
        "n = {n}, d = {d} ({} MB), min (median) of {reps} runs:",
        n * d * 8 / 1_000_000
    );
    println!("  read the matrix once          {read_min:7.2} ms ({read_med:.2})");
    println!("  fused logistic value+gradient {mono_min:7.2} ms ({mono_med:.2})  [monomorphised]");
    println!("  same through dyn GlmLoss      {dyn_min:7.2} ms ({dyn_med:.2})");
    println!(
        "  ratio gradient / read          {:.2}  (goal ≤ 1.25)",
        mono_min / read_min
    );
    println!("  ratio dyn / monomorphised      {:.2}", dyn_min / mono_min);

    for (n, d) in [(1_000_000, 20), (100_000, 100)] {
        let t0 = Instant::now();
        black_box(generate(&spec(n, d, CLS), seeded(2, Stream::Data)).expect("generate"));
        println!(
            "generate n = {n}, d = {d}: {:.0} ms (native)",
            t0.elapsed().as_secs_f64() * 1e3
        );
    }

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
    let mut worst = 0.0f64;
    for loss in losses {
        let mut line = format!("  {:<40}", format!("{:?}/{:?}", loss.glm, loss.wrap));
        for dom in DomainKind::examples() {
            let reg = if dom == DomainKind::Unconstrained {
                Regularizer::ridge(0.01)
            } else {
                Regularizer::default()
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
