//! The heavy-tail rate experiment (Lowy 2026, "Optimal Rates for Pure ε-Differentially Private
//! Stochastic Convex Optimization with Heavy Tails"): on Pareto-radial features with tail index
//! α = 3 and k = 2, Localized Double Output Perturbation's excess risk against n, fitted on
//! log-log axes, beside the pure-ε clipped GD baseline and the single-stage output perturbation
//! on f_C at the same ε, all run through the session as the page runs them.
//!
//! The experiments are ignored by default. Run with
//!
//! ```text
//! cargo test --release --test algorithms heavy_slopes:: -- --ignored --nocapture
//! cargo test --release --test algorithms heavy_slopes::at_epsilon_100 -- --ignored --nocapture
//! HEAVY_STEPS=0 HEAVY_SEEDS=2 cargo test --release --test algorithms heavy_slopes::explore -- --ignored --nocapture
//! HEAVY_EPS=10 HEAVY_SEEDS=2 cargo test --release --test algorithms heavy_slopes::explore -- --ignored --nocapture
//! ```
//!
//! (`explore` reads HEAVY_EPS, HEAVY_NS, HEAVY_D, HEAVY_RADIUS, HEAVY_L2, HEAVY_SEEDS,
//! HEAVY_REPEATS and HEAVY_STEPS, where 0 gives the clipped GD baseline the T = √(nε/d) that minimises its own
//! bound.) One test is not ignored: the single-stage variant's excess falls in n with its ridge
//! with the constants.
//!
//! Theorem 3.1's bound at k = 2 is G_k·D·(d/(nε))^(1/2) + G₂·D/√n: slope −1/2 in n.
//!
//! Measured (debug build; mean released excess empirical risk, ε = 1, T = 50; "centre" is the
//! excess at the centre of W, where every family starts; the population estimate agrees with the
//! empirical one to 2 % at n = 4000 and stops at its work cap above):
//!
//! | n | localized | clipped GD, T = 50 | single stage | centre |
//! |---|---|---|---|---|
//! | 4000 | 0.206 | 0.0196 | 0.0995 | 0.226 |
//! | 16 000 | 0.162 | 0.0138 | 0.0727 | 0.222 |
//! | 64 000 | 0.117 | 0.0129 | 0.0522 | 0.224 |
//! | slope | −0.20 | −0.15 | −0.23 | |
//!
//! Why the acceptance's −1/2 ± 0.15 (and "clipped GD measurably worse") does not hold at ε = 1:
//! - **The localized release has not left the centre's neighbourhood.** Its excess is 0.91 of the
//!   centre's at n = 4000 and 0.52 at 64 000. λ₁ with the proofs' constants (`calibrated_lambda`)
//!   is 0.344, 0.172, 0.086 at these n, while the data term's curvature is at most
//!   sup φ″·E‖x‖²/d + l2 = 0.25·0.75/2 + 0.01 = 0.104 in every direction (φ″ = 1/4 only at margin
//!   0): the ridge around the centre is never small against it, later phases (λ_t = 32^(t−1)·λ₁)
//!   cannot move, and the excess falls with
//!   1/λ₁ ∝ √n only as a transient, not at the rate. λ₁ reaches a tenth of that curvature at
//!   n ≈ 64 000·(0.086/0.0104)² ≈ 4.4·10⁶ (λ₁ ∝ n^(−1/2)). A larger ε shrinks λ₁ until the
//!   sampling term 2G₂/√m dominates it: at ε = 10 (λ₁ = 0.133, 0.066, 0.033) the
//!   slope is steeper: 0.105, 0.067, 0.040 at n = 4000, 16 000, 64 000, slope −0.35 (2 seeds ×
//!   4 repeats), the edge of −1/2 ± 0.15; the baseline (T = 50) sits at its floor 0.013 there.
//!   At ε = 100 the slope is −0.52 (0.0684, 0.0354, 0.0162), within the acceptance's band, but the
//!   baseline (0.0127, 0.0125, 0.0129) is still better at every n
//!   (`localised_reaches_the_theorems_slope_where_n_epsilon_is_large`).
//! - **The baseline pays its √T nowhere on these data.** Pure composition gives each step ε/T,
//!   so C = G_k (n(ε/T)/d)^(1/2) shrinks as T^(−1/2) and the step noise β = 2CT/(nε) grows as √T;
//!   averaged over T steps the noise's variance d(d+1)β²/T is then independent of T. The √T is
//!   left in the clipping bias, bounded by G_k^k/C^(k−1) = G₂²/C = 0.137 at n = 4000, T = 50; but
//!   the data's real tail (α = 3, lighter than k = 2 declares) makes it E(A − C)₊ ≤ 0.125/(2C²) =
//!   0.0021, 66 times less, and a curved loss turns a gradient bias into an excess of its square.
//!   At its own theory T = √(nε/d) (45, 89, 179) the baseline falls faster still: 0.0218, 0.0097,
//!   0.0045, slope −0.57 (2 seeds × 4 repeats), while its bound, ∝ (d/(nε))^(1/4), is the one
//!   with the √T.
//!
//! # Is there a setting where both hold?
//! Not among those tried, and the reasons are structural, not a matter of sizes:
//! - **The theorem's exponent is a worst case; a fixed instance with curvature falls faster.**
//!   At k = 2 both terms of Theorem 3.1 are n^(−1/2) (checked above), and the bound is on the
//!   excess *population* risk over all convex losses. On one fixed distribution whose population
//!   risk grows quadratically around w* (here at least the ridge l2 = 0.01, and the logistic loss's
//!   own curvature), the excess is the curvature times a squared distance, and every distance the
//!   localized family leaves (its draws d·C/(λmε) with C ∝ √(mε/d), the sampling error, the ridge
//!   pull λ₁·D/curvature with λ₁ ∝ n^(−1/2)) is O(n^(−1/2)): the asymptotic slope is −1, the
//!   strongly convex rate (d/(nε))^(2(1−1/k)). The measured slope walks from 0 (ε = 1: λ₁ above
//!   the curvature, the release held near the centre) through −0.35 (ε = 10) to −0.52 and −0.61
//!   (ε = 100, two runs of 2 seeds) and −0.82 (seed 1 alone): the −1/2 ± 0.15 band is a window of
//!   that transition, not the theorem's exponent being observed. (ε > 100 is refused by the page's
//!   ε control, so the steeper end cannot be shown here.)
//! - **The linear loss on a ball (Lowy 2026) does not change that.** F(w) = ⟨μ, w⟩ has no
//!   curvature, but W's boundary has: a point on the sphere at angle θ from w* has excess
//!   R‖μ‖(1 − cos θ) ≈ R‖μ‖θ²/2, again a square. The exponent −1/2 belongs to the lower-bound
//!   instances (Appendix G), whose μ ∝ (d/(nε))^(1/2) changes with n; there the centre of W has
//!   excess (D/2)‖μ‖ ∝ n^(−1/2) too, so a slope test cannot tell a good algorithm from a trivial
//!   one. The crate has no linear loss (its R^d extension is −∞, Lowy 2026), so it is not run.
//! - **The baseline does not pay its √T on these data.** With C = G_k (n(ε/T)/d)^(1/2) its
//!   averaged noise is T-free and its √T sits in the clipping-bias bound only (above), which the
//!   α = 3 tail undercuts. At its own T = √(nε/d) it is better than the localized family at every
//!   ε tried: 9–26 times at ε = 1 (table above and 0.0218, 0.0097, 0.0045), 19–25 times at ε = 100
//!   (`at_epsilon_100_the_slope_holds_and_clipped_gd_at_its_own_steps_is_better`), 10–12 times at
//!   d = 10, ε = 100 (0.0051, 0.0032 against 0.052, 0.040 at n = 4000, 16 000; the localized
//!   release there is no better than the centre of W, 0.048). At the page's default T = 50 it sits
//!   at an optimisation floor (0.013 at d = 2, 0.0116 at d = 10) that the localized family reaches
//!   only at ε = 100 and n ≈ 64 000 (0.0162 over 2 seeds × 4 repeats): too few steps, not the √T
//!   lesson, and no setting to call "measurably worse".
//! - **What the localized family pays instead is constants**: each call sees m₁ = n/2 records in
//!   phase 1 and n/2^t later, each draw is calibrated to Δ = 6C/(λm) at ε/2 (scale 12C/(λmε),
//!   against the baseline's 2C/n per step), and λ₁ carries the proofs' constants. A larger W does
//!   not help: λ₁ ∝ 1/D, but the draws scale with 1/λ₁ (R = 40, ε = 1, T = √(nε/d): localized
//!   0.68 at every n, above the centre's 0.22; the baseline 0.0042, 0.0034, 0.0022).
//!
//! The population column agrees with the empirical one at n = 4000 (ε = 100: 0.0512 against
//! 0.0513 localized, 0.0027 against 0.0024 baseline); above it the page's estimate stops at its
//! work cap, and the reference F̂* itself at n = 256 000.

use crate::common;

use common::{Sums, Tally, run_lanes, slope};
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::data::Tail;

/// Pareto-radial features (α = 3: G_k finite for k < 3), logistic loss, k = 2, on the ball of
/// radius `radius`, at ε, with every heavy-tail family as a lane; the clipped GD baseline takes
/// `steps` = T, or (None) the T = √(nε/d) that minimises its own bound (see the module docs).
fn config(
    n: usize,
    epsilon: f64,
    radius: f64,
    l2: f64,
    seed: u32,
    repeats: usize,
    steps: Option<usize>,
) -> RunConfig {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    RunConfig {
        seed,
        n,
        d: env("HEAVY_D", 2),
        tail: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 0.5,
        feature_bound: 1e3,
        radius,
        l2,
        moment_k: 2.0,
        delta: 0.0,
        epsilon,
        steps: steps.unwrap_or_else(|| theory_steps(n, epsilon, env("HEAVY_D", 2))),
        repeats,
        algorithm: AlgorithmKind::LocalisedDoubleOutputPerturbation,
        compare: vec![
            AlgorithmKind::PureClippedGd,
            AlgorithmKind::OutputPerturbationLipschitzExtension,
        ],
        ..RunConfig::default()
    }
}

/// The baseline's own T = √(nε/d): it balances the optimisation term D·G/√T of its bound against
/// the clipping bias, whose threshold C = G_k (n(ε/T)/d)^(1/k) falls as T grows (module docs).
fn theory_steps(n: usize, epsilon: f64, d: usize) -> usize {
    ((n as f64 * epsilon / d as f64).sqrt().round() as usize).max(1)
}

/// Runs every lane of `config`, tallied per family (tests/common/heavy_rates.rs).
fn run(config: RunConfig, sums: &mut [Sums]) {
    run_lanes(config, sums, None);
}

/// The tallies per lane at each n (seeds × repeats each), printed: for each family the mean excess
/// empirical risk ± its standard error, the excess population risk and the centre's excess.
fn table(
    ns: &[usize],
    epsilon: f64,
    radius: f64,
    l2: f64,
    seeds: u32,
    repeats: usize,
    steps: Option<usize>,
) -> Vec<Vec<Sums>> {
    println!(
        "ε = {epsilon}, R = {radius}, l2 = {l2}; per family: empirical ± s.e., population, centre's excess"
    );
    println!("      n | localized | clipped GD | single stage");
    ns.iter()
        .map(|&n| {
            let mut sums = vec![Sums::default(); 3];
            for seed in 1..=seeds {
                run(
                    config(n, epsilon, radius, l2, seed, repeats, steps),
                    &mut sums,
                );
            }
            let cells: Vec<String> = sums
                .iter()
                .map(|s| {
                    format!(
                        "{:.3e} ± {:.1e} {:.3e} {:.3e}",
                        s.empirical.mean(),
                        s.empirical.std_error(),
                        s.population.mean(),
                        s.centre.mean()
                    )
                })
                .collect();
            println!("{n:>7} | {}", cells.join(" | "));
            sums
        })
        .collect()
}

/// One lane's mean of one metric at each n.
fn column(rows: &[Vec<Sums>], lane: usize, metric: fn(&Sums) -> Tally) -> Vec<f64> {
    rows.iter().map(|r| metric(&r[lane]).mean()).collect()
}

/// Prints each family's fitted slopes (empirical, and population where every n was scored).
fn slopes(ns: &[usize], rows: &[Vec<Sums>]) {
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    for (lane, name) in ["localized", "clipped GD", "single stage"]
        .iter()
        .enumerate()
    {
        let population = column(rows, lane, |s| s.population);
        let pop = if population.iter().all(|y| y.is_finite()) {
            format!("{:.3}", slope(&xs, &population))
        } else {
            "–".to_string()
        };
        let empirical = column(rows, lane, |s| s.empirical);
        println!(
            "{name}: slope {:.3} (population {pop})",
            slope(&xs, &empirical)
        );
    }
}

/// The experiment of the issue's acceptance: ε = 1, R = 4, n from 4000 to 64 000, 4 seeds × 4
/// repeats per cell. It prints the table and the fitted slopes; it asserts only that every cell
/// was scored (the reference solved) and that the localized release beats the trivial
/// excess D·G₁ = 8·0.75 = 6, because the acceptance's slope is not reached at these n (see the
/// module docs).
#[test]
#[ignore = "slope experiment, minutes in release: see the module docs for the command"]
fn localised_double_output_perturbation_against_clipped_gd_in_n() {
    let ns = [4000, 16_000, 64_000];
    let rows = table(&ns, 1.0, 4.0, 0.01, 4, 4, Some(50));
    for (lane, name) in ["localized", "clipped GD", "single stage"]
        .iter()
        .enumerate()
    {
        let ys = column(&rows, lane, |s| s.empirical);
        assert!(ys.iter().all(|y| y.is_finite()), "{name}: {ys:?}");
    }
    slopes(&ns, &rows);
    let localised = column(&rows, 0, |s| s.empirical);
    assert!(localised.iter().all(|&y| y < 6.0), "{localised:?}");
}

/// Where nε is large enough for λ₁ to fall below the loss's curvature, the localized family's
/// excess falls at Theorem 3.1's exponent: at ε = 100 (λ₁ = 0.076 at n = 4000, 0.019 at
/// 64 000, against a curvature of at most 0.104), 2 seeds × 4 repeats: 0.0684, 0.0354, 0.0162,
/// slope −0.52, within the acceptance's −1/2 ± 0.15. The clipped GD baseline (T = 50) sits at its
/// optimisation floor 0.013 there and is not worse. ε = 100 is no meaningful privacy: this shows
/// the rate, not a setting to use.
#[test]
#[ignore = "slope experiment, minutes in a debug build: see the module docs for the command"]
fn localised_reaches_the_theorems_slope_where_n_epsilon_is_large() {
    let ns = [4000, 16_000, 64_000];
    let rows = table(&ns, 100.0, 4.0, 0.01, 2, 4, Some(50));
    slopes(&ns, &rows);
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let localised = column(&rows, 0, |s| s.empirical);
    let fitted = slope(&xs, &localised);
    assert!(
        (fitted + 0.5).abs() <= 0.15,
        "{localised:?}: slope {fitted}"
    );
}

/// The closest this experiment comes to the acceptance ("slope −1/2 ± 0.15, and the clipped GD
/// baseline measurably worse at the same ε"), and why it is not both (module docs, "Is there a
/// setting where both hold?"): at ε = 100 with the baseline at its own T = √(nε/d) (447, 894,
/// 1789 steps) and C = G_k (n(ε/T)/d)^(1/2), 2 seeds × 2 repeats, fixed seeds. Measured (mean
/// released excess empirical risk ± s.e. over the 4 lanes):
///
/// | n | localized | clipped GD, T = √(nε/d) |
/// |---|---|---|
/// | 4000 | 0.0513 ± 0.0097 | 0.00242 ± 0.00040 |
/// | 16 000 | 0.0243 ± 0.0056 | 0.00099 ± 0.00019 |
/// | 64 000 | 0.0093 ± 0.0038 | 0.00050 ± 0.00007 |
/// | slope | −0.61 | −0.57 |
///
/// The localized slope is inside the acceptance's band; the baseline is 19 to 25 times *better*
/// at every n. The test asserts both, so that the table in docs/benchmarks.md ("Heavy tails: measured
/// slopes against Theorem 3.1") stays true: if a change made the localized family beat its
/// baseline here, the second assertion fails and that table must be rewritten. About four minutes in release on a loaded machine.
#[test]
#[ignore = "slope experiment, minutes in release: see the module docs for the command"]
fn at_epsilon_100_the_slope_holds_and_clipped_gd_at_its_own_steps_is_better() {
    let ns = [4000, 16_000, 64_000];
    let rows = table(&ns, 100.0, 4.0, 0.01, 2, 2, None);
    slopes(&ns, &rows);
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let localised = column(&rows, 0, |s| s.empirical);
    let fitted = slope(&xs, &localised);
    assert!(
        (fitted + 0.5).abs() <= 0.15,
        "{localised:?}: slope {fitted}"
    );
    // The acceptance's "measurably worse" reversed: at every n the baseline's mean is below a
    // fifth of the localized mean (measured: 19 to 25 times below), and by more than 3 standard
    // errors of the difference where 4 lanes resolve it (n ≤ 16 000: 5.0 and 4.2; 2.3 at 64 000,
    // where the localized lanes spread most).
    for (row, n) in rows.iter().zip(ns) {
        let (loc, gd) = (row[0].empirical, row[1].empirical);
        let se = loc.std_error().hypot(gd.std_error());
        let report = format!(
            "n = {n}: clipped GD {:.3e} ± {:.1e}, localized {:.3e} ± {:.1e}",
            gd.mean(),
            gd.std_error(),
            loc.mean(),
            loc.std_error()
        );
        assert!(5.0 * gd.mean() < loc.mean(), "{report}");
        if n <= 16_000 {
            assert!(gd.mean() + 3.0 * se < loc.mean(), "{report}");
        }
    }
}

/// A free exploration: HEAVY_EPS, HEAVY_RADIUS, HEAVY_NS (comma-separated) from the environment.
#[test]
#[ignore = "exploration: set HEAVY_EPS, HEAVY_RADIUS, HEAVY_NS"]
fn explore() {
    let get = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let epsilon: f64 = get("HEAVY_EPS", "1").parse().unwrap();
    let radius: f64 = get("HEAVY_RADIUS", "4").parse().unwrap();
    let ns: Vec<usize> = get("HEAVY_NS", "4000,16000,64000")
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let seeds: u32 = get("HEAVY_SEEDS", "4").parse().unwrap();
    let repeats: usize = get("HEAVY_REPEATS", "4").parse().unwrap();
    let l2: f64 = get("HEAVY_L2", "0.01").parse().unwrap();
    // HEAVY_STEPS = 0: the baseline's own T = √(nε/d); otherwise T as given (50 by default).
    let steps = match get("HEAVY_STEPS", "50").parse().unwrap() {
        0 => None,
        t => Some(t),
    };
    let rows = table(&ns, epsilon, radius, l2, seeds, repeats, steps);
    slopes(&ns, &rows);
}

/// The single-stage variant's mean released excess empirical risk at n over `seeds` × 4 repeats
/// (only that family runs), with the ridge λ declared or (None) its default.
fn single_stage_at(n: usize, lambda: Option<f64>, seeds: u32) -> f64 {
    let mut sums = vec![Sums::default(); 3];
    for seed in 1..=seeds {
        let config = RunConfig {
            algorithm: AlgorithmKind::OutputPerturbationLipschitzExtension,
            compare: Vec::new(),
            lambda1: lambda,
            ..config(n, 1.0, 4.0, 0.01, seed, 4, Some(50))
        };
        run(config, &mut sums);
    }
    sums[0].empirical.mean()
}

/// The single-stage variant's default ridge, now with the constants
/// (`single_stage::calibrated_ridge`), lets its excess fall in n. With the constant-free λ = (G_k
/// (d/(nε))^(1/2) + G₂/√n)/D (0.0058 at n = 2000, 0.0015 at n = 32 000, declared here as the
/// old default computed it) the draw's scale 3C/(λnε) is 7 at both against R = 4: every release
/// lands on the boundary of W and the excess stays flat (measured: 0.309 and 0.296, against 0.101
/// and 0.059 with the constants; the old default fails the first assertion). Fixed seeds; about
/// two minutes in a debug build on a loaded machine.
#[test]
fn the_single_stage_ridge_with_the_constants_lets_the_excess_fall_in_n() {
    let g = 0.5 * 3f64.sqrt();
    let constant_free = |n: f64| (g * (2.0 / n).sqrt() + g / n.sqrt()) / 8.0;
    let (small, large) = (2000, 32_000);
    let now = [
        single_stage_at(small, None, 2),
        single_stage_at(large, None, 2),
    ];
    let old = [
        single_stage_at(small, Some(constant_free(small as f64)), 1),
        single_stage_at(large, Some(constant_free(large as f64)), 1),
    ];
    println!("single stage, calibrated λ: {now:?}; constant-free λ: {old:?}");
    // Falls: a 16-fold n at least a third off (the bound's n^(−1/4) gives half).
    assert!(now[1] < 0.67 * now[0], "{now:?}");
    // And well below where the constant-free λ left it, at both n.
    assert!(
        now[0] < 0.5 * old[0] && now[1] < 0.5 * old[1],
        "{now:?} vs {old:?}"
    );
    // The constant-free λ is flat: its releases sit on the boundary whatever n.
    assert!(old[1] > 0.8 * old[0], "{old:?}");
}
