//! The Rust logic of the page's teaching tools: the privacy loss of the
//! neighbouring view against its closed forms, the view of DP-GD and output perturbation on their
//! toy pairs, and the audit tab's chunked audits and scenarios. Fixed seeds throughout.

use dp_playground::audit::neighbours::{
    Differing, LossLaw, NeighbourJob, fitted_losses, losses, neighbour_target, toy_n,
};
use dp_playground::audit::scenarios::{AuditJob, SCENARIOS, scenario_for};
use dp_playground::audit::{
    Auditable, Bug, GaussianMeanTarget, LaplaceMeanTarget, PairDraws, audit, audit_samples,
};
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::noise::Laplace;
use dp_playground::privacy::calibration::{GaussianMethod, analytic_gaussian_sigma};
use dp_playground::rng::{Stream, seeded};
use dp_playground::stats::{ks_pvalue, ks_statistic, normal_cdf};

/// The KS p-value of `losses` against N(μ, 2μ).
fn ks_against(losses: &[f64], mu: f64) -> f64 {
    let mut sample = losses.to_vec();
    let sd = (2.0 * mu).sqrt();
    let d = ks_statistic(&mut sample, |l| normal_cdf((l - mu) / sd));
    ks_pvalue(d, sample.len())
}

#[test]
fn gaussian_privacy_loss_is_n_mu_2mu() {
    // The Gaussian mechanism on a clipped mean (n = 100, C = 1, Δ = 0.02, centres ±0.01) at
    // (ε, δ) = (3, 1e-5), analytic σ: the privacy loss of a release on D is N(μ, 2μ) with
    // μ = Δ²/(2σ²). The losses of 20 000 draws must pass KS at α = 1e-6 against that law, and
    // fail against the law of a factor-2 slip in μ (so the test can fail).
    let sigma = analytic_gaussian_sigma(0.02, 3.0, 1e-5).unwrap();
    let mu = 0.02f64.powi(2) / (2.0 * sigma * sigma);
    let mut target =
        GaussianMeanTarget::new(100, 1.0, 3.0, 1e-5, GaussianMethod::Analytic, Bug::None).unwrap();
    let mut draws = PairDraws::default();
    draws
        .draw(&mut target, &mut seeded(7, Stream::Audit), 20_000)
        .unwrap();
    let law = LossLaw::Gaussian { mu };
    let exact = losses(law, &draws.on_d, [0.01, -0.01], sigma * sigma);
    let p = ks_against(&exact, mu);
    assert!(p > 1e-6, "μ = {mu}: KS p = {p}");
    let p_wrong = ks_against(&exact, 2.0 * mu);
    assert!(
        p_wrong < 1e-6,
        "a doubled μ should be rejected: p = {p_wrong}"
    );
    // The view's fitted losses (centres and σ measured from the draws) estimate μ closely.
    let fitted = fitted_losses(law, &draws.on_d, &draws.on_d_prime);
    let mu_hat = fitted.iter().sum::<f64>() / fitted.len() as f64;
    assert!((mu_hat / mu - 1.0).abs() < 0.1, "μ̂ = {mu_hat}, μ = {mu}");
    // The law's profile at the claimed ε is the claimed δ: the analytic σ is exact.
    let delta = law.delta(3.0);
    assert!((delta / 1e-5 - 1.0).abs() < 1e-6, "δ(3) = {delta}");
}

#[test]
fn laplace_privacy_loss_profile_matches_its_draws() {
    // One Laplace release with Δ/b = ε = 1: δ(0) is the total variation 1 − e^{−ε/2}, δ(ε) = 0,
    // and in between the closed form matches E[(1 − e^{ε′−L})₊] over 10⁵ exact losses.
    let law = LossLaw::Laplace { epsilon: 1.0 };
    assert!((law.delta(0.0) - (1.0 - (-0.5f64).exp())).abs() < 1e-15);
    assert_eq!(law.delta(1.0), 0.0);
    let atoms: f64 = law.atoms().iter().map(|a| a.1).sum();
    let continuous: f64 = (0..2000)
        .map(|i| law.density(-1.0 + (i as f64 + 0.5) / 1000.0) / 1000.0)
        .sum();
    assert!((atoms + continuous - 1.0).abs() < 1e-6, "total mass");
    let noise = Laplace::new(1.0).unwrap();
    let mut rng = seeded(8, Stream::Audit);
    let losses: Vec<f64> = (0..100_000)
        .map(|_| {
            let o = noise.sample(&mut rng);
            (o - 1.0).abs() - o.abs()
        })
        .collect();
    for e in [0.1, 0.4, 0.8] {
        let empirical = losses
            .iter()
            .map(|l| (1.0 - (e - l).exp()).max(0.0))
            .sum::<f64>()
            / 1e5;
        // Each term is in [0, 1]: the standard error is below 1/(2√n) ≈ 0.0016.
        assert!((empirical - law.delta(e)).abs() < 0.008, "ε′ = {e}");
    }
    // The fitted losses of the Laplace mechanism on its pair sit within [−ε, ε] (up to the fit).
    let mut target = LaplaceMeanTarget::new(100, 1.0, 1.0, 1, Bug::None).unwrap();
    let mut draws = PairDraws::default();
    draws.draw(&mut target, &mut rng, 5_000).unwrap();
    let fitted = fitted_losses(law, &draws.on_d, &draws.on_d_prime);
    assert!(
        fitted.iter().all(|l| l.abs() < 1.1),
        "{:?}",
        fitted.iter().fold(0.0f64, |a, l| a.max(l.abs()))
    );
}

fn page(algorithm: AlgorithmKind, delta: f64, steps: usize, leak: bool) -> RunConfig {
    RunConfig {
        algorithm,
        delta,
        steps,
        leak,
        ..RunConfig::default()
    }
}

fn view_of(
    config: &RunConfig,
    record: Differing,
    runs: usize,
) -> dp_playground::audit::neighbours::NeighbourView {
    let mut job = NeighbourJob::new(config, record, runs).unwrap();
    while !job.is_done() {
        job.advance(97).unwrap();
    }
    job.view().unwrap()
}

#[test]
fn neighbouring_view_of_dp_gd() {
    // DP-GD at (4, 1e-6), T = 10 on the Huber toy pair: the outlier at −50 B is clipped to −B,
    // its gradient is +1 where D's record's is −1, so D's releases sit above D′'s by almost T
    // steps of 2G/n (the ridge contracts them by 0.99 a step). The worst-case law is T composed
    // Gaussians, μ = T Δ²/(2σ²); the plan's (ε, δ) lies on or above its profile; the fitted
    // losses' mean is close to μ (≈ 0.9 μ from the contraction; the release is a post-processing
    // of the transcript the law bounds), and the audit of the draws passes.
    let config = RunConfig {
        epsilon: 4.0,
        ..page(AlgorithmKind::NoisyGd, 1e-6, 10, false)
    };
    let v = view_of(&config, Differing::Outlier, 2_000);
    assert_eq!(v.runs, 2_000);
    assert!(v.means[0] > v.means[1], "{:?}", v.means);
    let LossLaw::Gaussian { mu } = v.law else {
        panic!("DP-GD's noise is Gaussian: {:?}", v.law)
    };
    let drawn: u32 = v.releases.on_d.iter().chain(&v.releases.on_d_prime).sum();
    assert_eq!(drawn, 4_000, "every release falls in the shared bins");
    assert!(
        v.loss.mean > 0.6 * mu && v.loss.mean < 1.2 * mu,
        "μ̂ = {}, μ = {mu}",
        v.loss.mean
    );
    let i = v.profile.delta.iter().position(|&d| d >= 1e-6).unwrap();
    assert!(
        v.profile.worst_case[i] <= v.claim.epsilon * 1.001,
        "{:?}",
        v.profile
    );
    assert!(!v.audit.violation, "{:?}", v.audit);
    assert!(v.leaks.is_empty());
    assert_eq!(v.loss.theory.len(), 201);
}

#[test]
fn neighbouring_view_of_dp_gd_shows_its_leak() {
    // The demonstration (features unclipped): the outlier's gradient is 50 times the bound until
    // its residual reaches the Huber threshold (near w = −0.2), so the clouds separate beyond
    // the worst case of the plan's noise law: the fitted losses' mean exceeds μ threefold
    // (measured ≈ 5.6 μ) and the audit of the same draws flags it.
    let config = page(AlgorithmKind::NoisyGd, 1e-6, 10, true);
    let v = view_of(&config, Differing::Outlier, 1_000);
    let LossLaw::Gaussian { mu } = v.law else {
        panic!("{:?}", v.law)
    };
    assert!(v.loss.mean > 3.0 * mu, "μ̂ = {}, μ = {mu}", v.loss.mean);
    assert!(v.audit.violation, "{:?}", v.audit);
    assert!(!v.leaks.is_empty());
}

#[test]
fn neighbouring_view_of_output_perturbation() {
    // Pure ε = 1 (ℓ2-Laplace in one dimension): the law is Laplace with Δ_T/b = ε, its profile
    // reaches δ = 0 at ε. The label flip moves the minimiser by Δ_F = 2 < Δ_T (n = 10): D's
    // releases sit above D′'s by more than half of it, and the fitted losses have a mean
    // between 0 and ε.
    let config = page(AlgorithmKind::OutputPerturbation, 0.0, 1, false);
    let v = view_of(&config, Differing::LabelFlip, 2_000);
    let LossLaw::Laplace { epsilon } = v.law else {
        panic!("{:?}", v.law)
    };
    assert!((epsilon - 1.0).abs() < 1e-9, "{epsilon}");
    assert!(v.means[0] - v.means[1] > 1.0, "{:?}", v.means);
    assert!(v.loss.mean > 0.0 && v.loss.mean < 1.0, "{}", v.loss.mean);
    assert_eq!(v.loss.atoms.len(), 2);
    assert!(!v.audit.violation, "{:?}", v.audit);
    // With δ > 0 the same family releases with Gaussian noise.
    let gaussian = view_of(
        &page(AlgorithmKind::OutputPerturbation, 1e-5, 1, false),
        Differing::Random,
        200,
    );
    assert!(
        matches!(gaussian.law, LossLaw::Gaussian { .. }),
        "{:?}",
        gaussian.law
    );
}

#[test]
fn the_records_differ_as_named_and_other_families_are_refused() {
    let config = page(AlgorithmKind::NoisyGd, 1e-6, 10, false);
    for record in [Differing::Outlier, Differing::Random, Differing::LabelFlip] {
        let t = neighbour_target(&config, record).unwrap();
        use dp_playground::audit::Side;
        let (d, dp) = (&t.problem(Side::D).data, &t.problem(Side::DPrime).data);
        let n = toy_n(AlgorithmKind::NoisyGd);
        assert_eq!((d.n(), dp.n()), (n, n));
        // Only the first record differs.
        assert_ne!(
            (d.features(0)[0], d.label(0)),
            (dp.features(0)[0], dp.label(0)),
            "{record:?}"
        );
        for i in 1..n {
            assert_eq!(
                (d.features(i)[0], d.label(i)),
                (dp.features(i)[0], dp.label(i))
            );
        }
    }
    for kind in [
        AlgorithmKind::DpSgd,
        AlgorithmKind::ExponentialGrid,
        AlgorithmKind::PrivateSmd,
    ] {
        let err = NeighbourJob::new(&page(kind, 1e-6, 10, false), Differing::Outlier, 500)
            .err()
            .unwrap();
        assert_eq!(err.field(), Some("algorithm"), "{kind:?}");
        assert!(
            err.to_string()
                .contains("pick DP-GD or output perturbation"),
            "{err}"
        );
    }
    let err = NeighbourJob::new(&config, Differing::Outlier, 5)
        .err()
        .unwrap();
    assert_eq!(err.field(), Some("neighbour_runs"));
}

#[test]
fn the_audit_tab_in_chunks_equals_the_audit_at_once() {
    // The same seed gives the same draws, whether drawn at once (`audit`) or in chunks.
    let mut job = AuditJob::new("gaussian_mean", "noise_halved", 4).unwrap();
    while !job.is_done() {
        job.advance(7_919).unwrap();
    }
    let chunked = job.report().unwrap();
    let mut target = GaussianMeanTarget::new(
        100,
        1.0,
        3.0,
        1e-5,
        GaussianMethod::Analytic,
        Bug::NoiseHalved,
    )
    .unwrap();
    let at_once = audit(&mut target, job.runs(), 1e-3, &mut seeded(4, Stream::Audit)).unwrap();
    assert_eq!(chunked, at_once);
    // σ halved is caught; the correct mechanism passes (seed 1, the page's default).
    assert!(chunked.violation, "{chunked:?}");
    let mut ok = AuditJob::new("gaussian_mean", "none", 1).unwrap();
    ok.advance(usize::MAX).unwrap();
    assert!(!ok.report().unwrap().violation);
    let mut bad = AuditJob::new("gaussian_mean", "noise_halved", 1).unwrap();
    bad.advance(usize::MAX).unwrap();
    let r = bad.report().unwrap();
    assert!(r.violation && r.epsilon_lower > r.claimed.epsilon, "{r:?}");
}

#[test]
fn every_scenario_builds_with_each_of_its_bugs() {
    // Each scenario and each bug it offers runs (a few pairs); an unknown bug names its field.
    for s in &SCENARIOS {
        for bug in std::iter::once("none").chain(s.bugs.iter().map(|b| b.key)) {
            let mut job =
                AuditJob::new(s.key, bug, 1).unwrap_or_else(|e| panic!("{} {bug}: {e}", s.key));
            assert_eq!(job.advance(3).unwrap(), 3, "{} {bug}", s.key);
            assert!(job.report().is_err(), "no report before every run is drawn");
        }
        let err = AuditJob::new(s.key, "bogus", 1).err().unwrap();
        assert_eq!(err.field(), Some("audit_bug"));
        if let Some(kind) = s.algorithm {
            assert_eq!(scenario_for(kind).unwrap().key, s.key);
        }
    }
    assert_eq!(
        AuditJob::new("bogus", "none", 1).err().unwrap().field(),
        Some("audit_scenario")
    );
}

#[test]
fn a_leaky_whole_algorithm_is_caught_by_the_tab() {
    // DP-GD's demonstration in the tab's setting (n = 20, T = 3, 4 000 runs per side), and its
    // correct run passing, at the page's default seed.
    for (bug, caught) in [("none", false), ("leak", true)] {
        let mut job = AuditJob::new("noisy_gd", bug, 1).unwrap();
        job.advance(usize::MAX).unwrap();
        let r = job.report().unwrap();
        assert_eq!(r.violation, caught, "{bug}: {r:?}");
    }
    // The report is the engine's, on the same draws.
    let mut job = AuditJob::new("laplace_mean", "none", 2).unwrap();
    job.advance(usize::MAX).unwrap();
    let r = job.report().unwrap();
    let mut target = LaplaceMeanTarget::new(100, 1.0, 1.0, 1, Bug::None).unwrap();
    let mut draws = PairDraws::default();
    draws
        .draw(&mut target, &mut seeded(2, Stream::Audit), job.runs())
        .unwrap();
    assert_eq!(
        r,
        audit_samples(&draws.on_d, &draws.on_d_prime, target.claim(), 1e-3).unwrap()
    );
}

/// Every scenario and bug of the audit tab at its full size: the verdict each promises (a
/// correct mechanism passes, a bug marked `caught` is caught), with its time and ε̂ (native;
/// the tab runs the same code in wasm): `cargo test --release --test playground teaching_audits:: -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn audit_tab_sizes() {
    for s in &SCENARIOS {
        for bug in std::iter::once("none").chain(s.bugs.iter().map(|b| b.key)) {
            let start = std::time::Instant::now();
            let mut job = AuditJob::new(s.key, bug, 1).unwrap();
            job.advance(usize::MAX).unwrap();
            let r = job.report().unwrap();
            println!(
                "{:24} {:20} runs {:6}  ε̂ = {:5.2} (claim {:.2}) {:5} {:7.2} s",
                s.key,
                bug,
                s.runs,
                r.epsilon_lower,
                r.claimed.epsilon,
                if r.violation { "CAUGHT" } else { "pass" },
                start.elapsed().as_secs_f64()
            );
            let caught = s.bugs.iter().any(|b| b.key == bug && b.caught);
            assert_eq!(r.violation, caught, "{} {bug}: {r:?}", s.key);
        }
    }
}
