//! Goodness of fit of every sampler: Kolmogorov–Smirnov or χ² tests at
//! α = 1e-6 with fixed seeds and 10⁵ draws, each paired with the same test run against a law whose
//! scale is 10% off, which must be rejected, so every test is shown able to fail.
//!
//! Power of the paired tests: with n = 10⁵ the KS critical value at α = 1e-6 is
//! λ/√n ≈ 2.69/316 = 0.0085. A 10% scale error moves the CDF by at least 0.0175 somewhere for
//! every law below (Gaussian: Φ(1) − Φ(1/1.1) ≈ 0.022; Laplace and Gamma(1): ½(e^{−t/1.1} − e^{−t})
//! at t ≈ 1.05 is 0.0175; larger for Gamma(d > 1), which concentrates), twice the critical value,
//! while the sampling fluctuation of D is ≈ 0.87/√n = 0.0028 (the median of the Kolmogorov law).

use crate::common;

use dp_core::noise::{ExponentialMechanism, Gaussian, L2Laplace, Laplace};
use dp_core::rng::{Stream, seeded};
use dp_core::stats::{beta_inc, chi_square_sf, gamma_p, ks_pvalue, ks_statistic, normal_cdf};

const ALPHA: f64 = 1e-6;
const N: usize = 100_000;

fn ks(mut sample: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sample.len();
    ks_pvalue(ks_statistic(&mut sample, cdf), n)
}

#[test]
fn gaussian_fits_and_a_wrong_scale_is_rejected() {
    let sigma = 1.7;
    let mut draws = vec![0.0; N];
    Gaussian::new(sigma)
        .unwrap()
        .fill(&mut seeded(101, Stream::Noise), &mut draws);
    let p = ks(draws.clone(), |x| normal_cdf(x / sigma));
    assert!(p > ALPHA, "p = {p}");
    let wrong = ks(draws, |x| normal_cdf(x / (1.1 * sigma)));
    assert!(wrong < ALPHA, "wrong-scale p = {wrong}");
}

#[test]
fn laplace_fits_and_a_wrong_scale_is_rejected() {
    let lap = Laplace::new(0.3).unwrap();
    let mut draws = vec![0.0; N];
    lap.fill(&mut seeded(102, Stream::Noise), &mut draws);
    let p = ks(draws.clone(), |x| lap.cdf(x));
    assert!(p > ALPHA, "p = {p}");
    let wrong = Laplace::new(0.33).unwrap();
    let q = ks(draws, |x| wrong.cdf(x));
    assert!(q < ALPHA, "wrong-scale p = {q}");
}

/// N draws of the ℓ2-Laplace in dimension d: (radii, projections onto the unit vector v).
fn l2_laplace_draws(d: usize, b: f64, seed: u32, v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let lap = L2Laplace::new(b).unwrap();
    let mut rng = seeded(seed, Stream::Noise);
    let mut t = vec![0.0; d];
    let (mut radii, mut proj) = (Vec::with_capacity(N), Vec::with_capacity(N));
    for _ in 0..N {
        lap.fill(&mut rng, &mut t).unwrap();
        let r = t.iter().map(|x| x * x).sum::<f64>().sqrt();
        radii.push(r);
        proj.push(t.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() / r);
    }
    (radii, proj)
}

fn diagonal(d: usize) -> Vec<f64> {
    vec![1.0 / (d as f64).sqrt(); d]
}

#[test]
fn l2_laplace_radius_is_gamma_d_b_and_a_wrong_scale_is_rejected() {
    let b = 0.8;
    for (d, seed) in [(1, 103), (3, 104), (10, 105)] {
        let (radii, _) = l2_laplace_draws(d, b, seed, &diagonal(d));
        let df = d as f64;
        let p = ks(radii.clone(), |r| gamma_p(df, r / b));
        assert!(p > ALPHA, "d = {d}: p = {p}");
        let q = ks(radii, |r| gamma_p(df, r / (1.1 * b)));
        assert!(q < ALPHA, "d = {d}: wrong-scale p = {q}");
    }
}

#[test]
fn l2_laplace_direction_is_uniform_and_a_skewed_direction_is_rejected() {
    // For u uniform on S^{d−1} and any unit v, (⟨u, v⟩ + 1)/2 ~ Beta((d−1)/2, (d−1)/2)
    // (the marginal of a uniform point on the sphere). We test along a diagonal, which a
    // coordinate-aligned bias would show most.
    for (d, seed) in [(2, 107), (6, 108)] {
        let a = (d as f64 - 1.0) / 2.0;
        let (_, proj) = l2_laplace_draws(d, 1.0, seed, &diagonal(d));
        let p = ks(proj, |x| beta_inc(a, a, (x + 1.0) / 2.0));
        assert!(p > ALPHA, "d = {d}: p = {p}");
    }
    // A plausible bug: the direction of an i.i.d. Laplace vector instead of a Gaussian one. It
    // concentrates near the axes, so along the diagonal it is rejected.
    let d = 3;
    let lap = Laplace::new(1.0).unwrap();
    let mut rng = seeded(110, Stream::Noise);
    let v = diagonal(d);
    let mut t = vec![0.0; d];
    let proj: Vec<f64> = (0..N)
        .map(|_| {
            lap.fill(&mut rng, &mut t);
            let r = t.iter().map(|x| x * x).sum::<f64>().sqrt();
            t.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() / r
        })
        .collect();
    let q = ks(proj, |x| beta_inc(1.0, 1.0, (x + 1.0) / 2.0));
    assert!(q < ALPHA, "skewed direction p = {q}");
}

/// χ² goodness of fit of selection counts against probabilities, returning the p-value.
fn chi_square(counts: &[u64], probs: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let stat: f64 = counts
        .iter()
        .zip(probs)
        .map(|(&o, &p)| {
            let e = p * n as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum();
    chi_square_sf(stat, (counts.len() - 1) as f64)
}

fn em_counts(em: &ExponentialMechanism, utilities: &[f64], seed: u32) -> Vec<u64> {
    let mut rng = seeded(seed, Stream::Noise);
    let mut counts = vec![0u64; utilities.len()];
    for _ in 0..N {
        counts[em.select(&mut rng, utilities).unwrap()] += 1;
    }
    counts
}

#[test]
fn exponential_mechanism_fits_softmax_and_a_wrong_epsilon_is_rejected() {
    // Expected counts are all ≥ 10⁴ here, so the χ² approximation is excellent. A 10% error in
    // ε changes the selection probabilities by up to ~1.5 percentage points, i.e. > 10 sd of a
    // count of 10⁵ draws, far beyond the χ²₄ critical value at 1e-6 (≈ 37.1).
    let utilities = [0.1, 0.7, -0.2, 0.4, 0.0];
    let em = ExponentialMechanism::new(2.0, 0.5).unwrap();
    let counts = em_counts(&em, &utilities, 111);
    let p = chi_square(&counts, &em.probabilities(&utilities).unwrap());
    assert!(p > ALPHA, "p = {p}, counts {counts:?}");
    let wrong = ExponentialMechanism::new(2.2, 0.5).unwrap();
    let q = chi_square(&counts, &wrong.probabilities(&utilities).unwrap());
    assert!(q < ALPHA, "wrong-ε p = {q}");
}

#[test]
fn exponential_mechanism_is_stable_for_huge_scores() {
    // Utilities around 10⁹ (e.g. n·F for a large dataset): exp(ε u/2Δ) would overflow, Gumbel-max
    // only sees differences. Same χ² test against the probabilities of the unshifted scores.
    let base = [0.1, 0.7, -0.2, 0.4, 0.0];
    let shifted: Vec<f64> = base.iter().map(|u| u + 1e9).collect();
    let em = ExponentialMechanism::new(2.0, 0.5).unwrap();
    let counts = em_counts(&em, &shifted, 112);
    let p = chi_square(&counts, &em.probabilities(&base).unwrap());
    assert!(p > ALPHA, "p = {p}, counts {counts:?}");
}

#[test]
fn samplers_match_golden_bits() {
    common::check_golden();
}

/// Writes the golden file's content; run once natively when a sampler changes on purpose:
/// `cargo test -p dp-playground-core --test base privacy_samplers::print_golden -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_golden() {
    println!("{}", common::golden_json());
}
