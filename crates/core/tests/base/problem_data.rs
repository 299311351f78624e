//! Generators, chunking, tail moments and clip fractions.

use dp_core::data::{
    Generator, GeneratorSpec, Link, MAX_VALUES, Method, Tail, Task, clip_fraction, clip_labels,
    fraction_above, generate, lipschitz_moment,
};
use dp_core::loss::{Glm, Loss, Wrap};
use dp_core::rng::{Stream, seeded};

fn tails() -> [Tail; 5] {
    [
        Tail::Gaussian,
        Tail::StudentT { nu: 5.0 },
        Tail::ParetoRadial { alpha: 5.0 },
        Tail::LogNormal { sigma: 0.5 },
        Tail::Contaminated {
            p: 0.05,
            scale: 10.0,
        },
    ]
}

fn spec(features: Tail, n: usize, d: usize, task: Task) -> GeneratorSpec {
    GeneratorSpec {
        n,
        d,
        features,
        feature_scale: 1.0,
        signal: 2.0,
        task,
    }
}

const CLS: Task = Task::Classification {
    link: Link::Logistic,
    flip: 0.1,
};
const REG: Task = Task::Regression {
    noise: Tail::StudentT { nu: 3.0 },
    noise_scale: 0.5,
};

#[test]
fn chunked_generation_gives_the_same_bits_as_one_shot() {
    for tail in tails() {
        for task in [CLS, REG] {
            let s = spec(tail, 1000, 7, task);
            let one = generate(&s, seeded(3, Stream::Data)).unwrap();
            let mut g = Generator::new(s, seeded(3, Stream::Data)).unwrap();
            let (mut x, mut y) = (Vec::new(), Vec::new());
            let mut sizes = [1usize, 13, 256, 999].iter().cycle();
            while !g.done() {
                g.next_chunk(*sizes.next().unwrap(), &mut x, &mut y);
            }
            assert_eq!(g.produced(), 1000);
            assert_eq!(x.len(), 7000);
            let same_x = x
                .iter()
                .zip(one.matrix_slice())
                .all(|(a, b)| a.to_bits() == b.to_bits());
            let same_y = y
                .iter()
                .zip(one.labels())
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same_x && same_y, "{tail:?} {task:?}");
            // A different seed gives different data.
            let other = generate(&s, seeded(4, Stream::Data)).unwrap();
            assert_ne!(other.matrix_slice(), one.matrix_slice());
        }
    }
}

/// E‖ξ‖² from 10⁵ fresh draws against the closed form, within 6 standard errors of the sample
/// mean (a false alarm has probability < 2·10⁻⁹ per check). Every tail here has a finite 4th
/// moment of ‖ξ‖ (ν = 5 > 4, α = 5 > 4), so the standard error is meaningful (Lowy 2026).
#[test]
fn second_moments_match_closed_forms() {
    let n = 100_000;
    for tail in tails() {
        for d in [1usize, 5] {
            let ds = generate(&spec(tail, n, d, CLS), seeded(11, Stream::Data)).unwrap();
            let v: Vec<f64> = ds
                .samples()
                .map(|(x, _)| x.iter().map(|a| a * a).sum::<f64>())
                .collect();
            let mean = v.iter().sum::<f64>() / n as f64;
            let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / (n - 1) as f64;
            let se = (var / n as f64).sqrt();
            let exact = tail.norm_moment(d, 2.0);
            assert!(
                (mean - exact).abs() < 6.0 * se,
                "{tail:?} d={d}: {mean} vs {exact} (se {se})"
            );
        }
    }
    // Known values: E‖g‖² = d; Student-t E‖x‖² = dν/(ν − 2); Pareto α/(α − 2); moments beyond
    // the tail index do not exist.
    assert!((Tail::Gaussian.norm_moment(7, 2.0) - 7.0).abs() < 1e-12);
    assert!((Tail::StudentT { nu: 5.0 }.norm_moment(3, 2.0) - 5.0).abs() < 1e-12);
    assert!((Tail::ParetoRadial { alpha: 3.0 }.norm_moment(4, 2.0) - 3.0).abs() < 1e-12);
    assert!(Tail::StudentT { nu: 2.0 }.norm_moment(3, 2.0).is_infinite());
    assert!(
        Tail::ParetoRadial { alpha: 1.5 }
            .norm_moment(3, 2.0)
            .is_infinite()
    );
}

/// Clip fractions: the closed form (Pareto, log-normal) against the empirical fraction of 2·10⁵
/// draws within 6 binomial standard errors; the Monte Carlo estimate (Gaussian) is labelled.
#[test]
fn clip_fractions() {
    let n = 200_000;
    for (tail, c) in [
        (Tail::ParetoRadial { alpha: 2.5 }, 1.6),
        (Tail::LogNormal { sigma: 0.5 }, 1.3),
    ] {
        let s = spec(tail, n, 4, CLS);
        let m = clip_fraction(&s, c, seeded(1, Stream::Data), 1000).unwrap();
        assert_eq!(m.method, Method::ClosedForm);
        let ds = generate(&s, seeded(12, Stream::Data)).unwrap();
        let emp = fraction_above(&ds, c);
        let se = (m.value * (1.0 - m.value) / n as f64).sqrt();
        assert!(
            (emp - m.value).abs() < 6.0 * se,
            "{tail:?}: {emp} vs {}",
            m.value
        );
    }
    let m = clip_fraction(
        &spec(Tail::Gaussian, 10, 1, CLS),
        1.0,
        seeded(1, Stream::Data),
        100_000,
    )
    .unwrap();
    match m.method {
        Method::MonteCarlo { samples, std_error } => {
            assert_eq!(samples, 100_000);
            // P(|g| > 1) = 0.3173105; the MC standard error is ≈ 0.0015.
            assert!((m.value - 0.317_310_5).abs() < 6.0 * std_error, "{m:?}");
        }
        _ => panic!("expected a Monte Carlo estimate"),
    }
}

/// G_k: closed form for bounded-derivative losses, Monte Carlo (labelled, with a standard error)
/// for the squared loss, and the two agree where both apply.
#[test]
fn lipschitz_moments() {
    let s = spec(Tail::StudentT { nu: 6.0 }, 10, 3, REG);
    let g = lipschitz_moment(
        &s,
        &Loss::erm(Glm::huber(0.5)),
        1.0,
        2.0,
        seeded(1, Stream::Data),
        10,
    )
    .unwrap();
    assert_eq!(g.method, Method::ClosedForm);
    // G_2 = δ·√(E‖x‖²) = 0.5·√(3·6/4).
    assert!((g.value - 0.5 * (4.5f64).sqrt()).abs() < 1e-12);
    // The adversarial form is Monte Carlo: A = ‖x‖ + r, and G_2 = √(E‖x‖² + 2r E‖x‖ + r²) ≥ closed.
    let adv = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Adversarial { radius: 0.0 },
    };
    let closed = lipschitz_moment(&s, &adv, 1.0, 2.0, seeded(1, Stream::Data), 10).unwrap();
    assert_eq!(closed.method, Method::ClosedForm);
    let adv = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Adversarial { radius: 1e-9 },
    };
    let mc = lipschitz_moment(&s, &adv, 1.0, 2.0, seeded(2, Stream::Data), 200_000).unwrap();
    let Method::MonteCarlo { std_error, .. } = mc.method else {
        panic!("expected Monte Carlo")
    };
    assert!(
        (mc.value - closed.value).abs() < 6.0 * std_error,
        "{mc:?} vs {closed:?}"
    );
    let sq = lipschitz_moment(
        &s,
        &Loss::erm(Glm::Squared { label_bound: 1.0 }),
        1.0,
        2.0,
        seeded(3, Stream::Data),
        1000,
    )
    .unwrap();
    assert!(matches!(sq.method, Method::MonteCarlo { .. }) && sq.value.is_finite());
}

#[test]
fn labels_follow_the_task() {
    let n = 50_000;
    // Classification: with probit link and flip p, P(y = sign⟨w₀,x⟩) = (1 − p)·E Φ(|t|) + p·(1 − EΦ(|t|)).
    let s = spec(
        Tail::Gaussian,
        n,
        2,
        Task::Classification {
            link: Link::Probit,
            flip: 0.5,
        },
    );
    let ds = generate(&s, seeded(5, Stream::Data)).unwrap();
    // flip = 1/2 makes labels independent fair coins: mean label within 6 sd (sd = 1/√n).
    let mean = ds.labels().iter().sum::<f64>() / n as f64;
    assert!(mean.abs() < 6.0 / (n as f64).sqrt());
    assert!(ds.labels().iter().all(|&y| y == 1.0 || y == -1.0));
    // Regression with zero noise: y = ⟨w₀, x⟩ exactly.
    let s = spec(
        Tail::LogNormal { sigma: 1.0 },
        100,
        3,
        Task::Regression {
            noise: Tail::Gaussian,
            noise_scale: 0.0,
        },
    );
    let mut ds = generate(&s, seeded(5, Stream::Data)).unwrap();
    let w0 = s.planted();
    assert!(ds.samples().all(|(x, y)| dp_core::linalg::dot(&w0, x) == y));
    let clipped = clip_labels(&mut ds, 0.5);
    assert!(clipped > 0 && ds.labels().iter().all(|y| y.abs() <= 0.5));
}

#[test]
fn sizes_and_parameters_are_validated() {
    // The browser sizes of the issue are accepted; twice the cap is not.
    assert!(spec(Tail::Gaussian, 1_000_000, 20, CLS).validate().is_ok());
    assert!(spec(Tail::Gaussian, 100_000, 100, CLS).validate().is_ok());
    assert_eq!(
        spec(Tail::Gaussian, MAX_VALUES, 2, CLS)
            .validate()
            .unwrap_err()
            .field(),
        Some("n·d")
    );
    assert!(
        spec(Tail::StudentT { nu: 0.0 }, 10, 2, CLS)
            .validate()
            .is_err()
    );
    assert!(
        spec(Tail::Contaminated { p: 1.5, scale: 2.0 }, 10, 2, CLS)
            .validate()
            .is_err()
    );
    assert!(spec(Tail::Gaussian, 1, 2, CLS).validate().is_err());
    assert!(
        spec(
            Tail::Gaussian,
            10,
            2,
            Task::Classification {
                link: Link::Logistic,
                flip: 0.7
            }
        )
        .validate()
        .is_err()
    );
}
