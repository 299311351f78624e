//! Regression with heavy-tailed noise (Lowy 2026: "y = ⟨w*, x⟩ + ξ
//! with heavy-tailed noise ξ (t_ν or symmetric Pareto)"): the page's `noise_tail` reaches the
//! generator, the noise follows its declared law (KS at α = 1e-6, fixed seeds), the squared
//! loss's declared G_k accounts for the noise, and the data are deterministic in the seed.

use dp_playground::config::RunConfig;
use dp_playground::config::pose::generator_spec;
use dp_playground::data::{
    Generator, GeneratorSpec, Method, Tail, Task, generate, lipschitz_moment, squared_loss_moment,
};
use dp_playground::loss::{Glm, Loss};
use dp_playground::rng::{Stream, seeded};
use dp_playground::stats::{beta_inc, ks_pvalue, ks_statistic};

/// The config of a regression run with noise `tail` at scale 1 and no signal (y is the noise).
fn noise_only(tail: Tail, n: usize) -> GeneratorSpec {
    let config = RunConfig {
        n,
        d: 1,
        loss: Glm::absolute(),
        label_noise: 1.0,
        noise_tail: tail,
        signal: 0.0,
        ..RunConfig::default()
    };
    config.validate().unwrap();
    generator_spec(&config)
}

/// Student-t CDF with ν degrees of freedom: 1 − ½·I_{ν/(ν+t²)}(ν/2, ½) for t ≥ 0.
fn student_cdf(nu: f64, t: f64) -> f64 {
    let tail = 0.5 * beta_inc(0.5 * nu, 0.5, nu / (nu + t * t));
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// Symmetric Pareto (x_m = 1, index α): P(|ξ| > r) = r^(−α) for r ≥ 1, a fair sign.
fn symmetric_pareto_cdf(alpha: f64, x: f64) -> f64 {
    if x <= -1.0 {
        0.5 * libm::pow(-x, -alpha)
    } else if x < 1.0 {
        0.5
    } else {
        1.0 - 0.5 * libm::pow(x, -alpha)
    }
}

#[test]
fn the_regression_noise_follows_its_declared_law() {
    let n = 20_000;
    for (tail, seed) in [
        (Tail::StudentT { nu: 3.0 }, 11),
        (Tail::StudentT { nu: 1.5 }, 12),
        (Tail::ParetoRadial { alpha: 2.5 }, 13),
    ] {
        let spec = noise_only(tail, n);
        assert_eq!(
            spec.task,
            Task::Regression {
                noise: tail,
                noise_scale: 1.0
            },
            "the config's noise law reaches the generator"
        );
        let data = generate(&spec, seeded(seed, Stream::Data)).unwrap();
        let mut y = data.labels().to_vec();
        let d = match tail {
            Tail::StudentT { nu } => ks_statistic(&mut y, |t| student_cdf(nu, t)),
            Tail::ParetoRadial { alpha } => {
                ks_statistic(&mut y, |t| symmetric_pareto_cdf(alpha, t))
            }
            _ => unreachable!(),
        };
        let p = ks_pvalue(d, n);
        println!("{tail:?}: KS D = {d:.4}, p = {p:.3}");
        assert!(p > 1e-6, "{tail:?}: D = {d}, p = {p}");
        // Not vacuous: the same sample is far from the Gaussian the noise was before.
        let mut y = data.labels().to_vec();
        let gauss = ks_statistic(&mut y, dp_playground::stats::normal_cdf);
        assert!(ks_pvalue(gauss, n) < 1e-6, "{tail:?} passes as Gaussian");
    }
}

#[test]
fn other_tails_are_refused_for_the_noise_at_its_control() {
    let config = RunConfig {
        noise_tail: Tail::LogNormal { sigma: 1.0 },
        ..RunConfig::default()
    };
    let e = config.validate().unwrap_err();
    assert_eq!(e.field(), Some("noise_tail"), "{e}");
    let bad = RunConfig {
        noise_tail: Tail::StudentT { nu: -1.0 },
        ..RunConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().field(), Some("noise_tail.nu"));
}

/// Gaussian features (d = 2, scale 1), ‖w₀‖ = 1, squared loss on the ball of radius 1, noise at
/// scale 5: the noise term dominates A(z) = (|y| + R‖x‖)‖x‖.
fn noisy(noise: Tail) -> GeneratorSpec {
    GeneratorSpec {
        n: 10,
        d: 2,
        features: Tail::Gaussian,
        feature_scale: 1.0,
        signal: 1.0,
        task: Task::Regression {
            noise,
            noise_scale: 5.0,
        },
    }
}

#[test]
fn the_squared_losss_declared_moment_bounds_the_monte_carlo_one_and_needs_its_noise_term() {
    // k = 2 with 2k = 4 below the noise's tail index (ν = 9, α = 5), so the Monte Carlo on fresh
    // draws has a finite variance and a meaningful standard error.
    for (noise, seed) in [
        (Tail::StudentT { nu: 9.0 }, 21),
        (Tail::ParetoRadial { alpha: 5.0 }, 22),
        (Tail::Gaussian, 23),
    ] {
        let spec = noisy(noise);
        let declared = squared_loss_moment(&spec, 1.0, 2.0).unwrap();
        assert_eq!(declared.method, Method::UpperBound);
        let mc = lipschitz_moment(
            &spec,
            &Loss::erm(Glm::Squared { label_bound: 1e6 }),
            1.0,
            2.0,
            seeded(seed, Stream::Audit),
            200_000,
        )
        .unwrap();
        let Method::MonteCarlo { std_error, .. } = mc.method else {
            panic!("expected Monte Carlo")
        };
        // The bound without the noise term: (‖w₀‖ + R)·(E‖x‖⁴)^(1/2) = 2·√8 for χ₂ features.
        let without_noise = 2.0 * 8f64.sqrt();
        println!(
            "{noise:?}: declared {:.3} ≥ Monte Carlo {:.3} ± {std_error:.3} > {without_noise:.3} without the noise",
            declared.value, mc.value
        );
        assert!(
            declared.value >= mc.value + 6.0 * std_error,
            "{declared:?} vs {mc:?}"
        );
        assert!(
            without_noise < mc.value - 6.0 * std_error,
            "dropping the noise would pass"
        );
        // Zero noise scale: the noise term vanishes and the bound is the quadratic one.
        let quiet = GeneratorSpec {
            task: Task::Regression {
                noise,
                noise_scale: 0.0,
            },
            ..spec
        };
        let q = squared_loss_moment(&quiet, 1.0, 2.0).unwrap().value;
        assert!((q - without_noise).abs() < 1e-12, "{q}");
    }
    // A moment the noise lacks is infinite (k ≥ ν), never a finite number.
    let heavy = noisy(Tail::StudentT { nu: 2.0 });
    assert_eq!(
        squared_loss_moment(&heavy, 1.0, 2.0).unwrap().value,
        f64::INFINITY
    );
}

#[test]
fn heavy_tailed_regression_data_are_deterministic_in_the_seed_and_the_chunking() {
    let config = RunConfig {
        n: 5000,
        d: 3,
        loss: Glm::absolute(),
        label_noise: 0.7,
        noise_tail: Tail::ParetoRadial { alpha: 2.2 },
        ..RunConfig::default()
    };
    let spec = generator_spec(&config);
    let a = generate(&spec, seeded(5, Stream::Data)).unwrap();
    let b = generate(&spec, seeded(5, Stream::Data)).unwrap();
    assert_eq!(a, b);
    // In uneven chunks (as the worker yields), the same bits.
    let mut g = Generator::new(spec, seeded(5, Stream::Data)).unwrap();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut size = 1;
    while g.next_chunk(size, &mut x, &mut y) > 0 {
        size = size * 3 + 1;
    }
    assert_eq!(x, a.matrix_slice());
    assert_eq!(y, a.labels());
    // Another seed, other data; Gaussian noise of the same scale, other labels.
    let c = generate(&spec, seeded(6, Stream::Data)).unwrap();
    assert_ne!(a, c);
    let gaussian = generator_spec(&RunConfig {
        noise_tail: Tail::Gaussian,
        ..config
    });
    let g = generate(&gaussian, seeded(5, Stream::Data)).unwrap();
    // The first record's features come before any noise draw in the stream, so they agree.
    assert_eq!(g.features(0), a.features(0));
    assert_ne!(g.labels(), a.labels());
}
