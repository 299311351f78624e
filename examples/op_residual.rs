//! Experiment behind objective perturbation's residual share and tolerance
//! (`AmpPlan::residual_share`, `TOLERANCE_OVER_ALLOWANCE` in `crates/algorithms/src/algo/objective_perturbation.rs`):
//! on `cargo bench
//! --bench logreg`'s problem (ε = 1, n = 10⁵, d = 20, Λ = 1/n, R = 1, test log-loss on 10⁵ fresh
//! records), the test log-loss of the certified point w̃ before the residual z and of the release
//! w̃ + z, for each share ε_res/ε and tolerance γ (in rounding allowances), over many noise seeds.
//!
//! The row "all ε on b" is diffprivlib's split: the plan is given ε = 1/(1 − s) and share s, so
//! ε_op = 1 exactly and b has diffprivlib's ε′; its w̃ (before z) is the exact minimiser of J_b to
//! γ, what diffprivlib releases when its L-BFGS converges. Every row draws from the same seeds:
//! b and z are ℓ2-Laplace draws whose Gamma radius and direction consume the stream alike at any
//! scale, so a seed's b (and z) in one row is a multiple of its b (and z) in another, and the
//! paired differences against "all ε on b" are far less noisy than the rows themselves.
//!
//! Prints, per row, the mean ± s.e. over seeds of the excess test loss (against the non-private
//! minimiser of the same ridge) before and after z, the mean paired difference from "all ε on b",
//! the seeds certified and the mean passes over the data.
//!
//! What it showed (40 seeds, ×10⁻⁵ of test log-loss, paired against all of ε on b): b costs
//! what ε_res takes from ε′ (+0.11 ± 0.01 at 1 %), z costs the rest; 1 % of ε with γ at twenty
//! allowances (the plan before) +1.16 ± 0.48; at ten allowances +0.07 ± 0.23; the plan's share
//! 0.0246 at ten allowances +0.13 ± 0.11; every run certified in 8 passes. On the peers' files
//! (`-- 40 2 3`): +3.31 ± 0.65 before, +0.54 ± 0.13 now (b +0.24, z the rest; 3 % would give
//! +0.53 ± 0.11, 2 % +0.58 ± 0.16).
//!
//! `cargo run --release --example op_residual [-- SEEDS [TRAIN TEST]]` (default 40 seeds; the
//! data seeds of the training and test records, default 1 and 2 as in `cargo bench --bench
//! logreg`; 2 and 3 are `benches/peers/run`'s files, which diffprivlib is measured on).
use std::sync::Arc;

use dp_playground::algo::PrivateAlgorithm;
use dp_playground::algo::objective_perturbation::{
    AmpPlan, ObjectivePerturbation, ObjectivePerturbationConfig,
};
use dp_playground::bench;
use dp_playground::domain::DomainKind;
use dp_playground::loss::{Glm, Loss, Regulariser};
use dp_playground::objective::Objective;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};

const N: usize = 100_000;
const D: usize = 20;
const EPSILON: f64 = 1.0;
const RIDGE: f64 = 1.0 / N as f64;

fn objective(seed: u32, ridge: f64) -> Objective {
    Objective::with_loss(
        Arc::new(bench::dataset(N, D, seed).expect("data")),
        Loss::erm(Glm::Logistic),
        Regulariser::ridge(ridge),
        DomainKind::Unconstrained.boxed(),
        1.0,
    )
    .expect("objective")
}

/// Mean and standard error of the mean.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0);
    (m, (var / v.len() as f64).sqrt())
}

/// One row: the excess test loss before and after z per seed, seeds certified, mean passes.
struct Row {
    before: Vec<f64>,
    after: Vec<f64>,
    certified: usize,
    passes: f64,
}

fn run(
    config: ObjectivePerturbationConfig,
    train: &Objective,
    test: &Objective,
    base: f64,
    seeds: u32,
) -> Row {
    let mut row = Row {
        before: Vec::new(),
        after: Vec::new(),
        certified: 0,
        passes: 0.0,
    };
    for seed in 0..seeds {
        let mut alg =
            ObjectivePerturbation::new(config, train, seeded(seed, Stream::Noise), true).unwrap();
        while alg.step(train).is_some() {}
        let released = alg.current().to_vec();
        let before: Vec<f64> = released
            .iter()
            .zip(alg.residual_noise())
            .map(|(w, z)| w - z)
            .collect();
        row.before.push(test.value(&before) - base);
        row.after.push(test.value(&released) - base);
        row.certified += usize::from(alg.certified());
        row.passes += alg.grad_evals() / f64::from(seeds);
    }
    row
}

fn main() {
    let arg = |i: usize, default: u32| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let seeds = arg(1, 40);
    let train = objective(arg(2, 1), RIDGE);
    let test = objective(arg(3, 2), 0.0);
    let optimum = reference::solve(&train, 1e-9, 200_000).expect("reference");
    let base = test.value(&optimum.w);
    println!(
        "n = {N}, d = {D}, ε = {EPSILON}, Λ = {RIDGE:e}, R = 1; {seeds} seeds; non-private test log-loss {base:.6}"
    );
    println!(
        "excess test log-loss ×1e5, mean ± s.e.; Δ: paired difference from 'all ε on b' (before z)"
    );
    // diffprivlib's split: ε_op = 1 on b; share and γ only shape z, which is not counted here.
    let share = 0.01;
    let reference_row = run(
        ObjectivePerturbationConfig {
            epsilon: EPSILON / (1.0 - share),
            residual_share: Some(share),
            ..ObjectivePerturbationConfig::default()
        },
        &train,
        &test,
        base,
        seeds,
    );
    let (m, s) = mean_se(&reference_row.before);
    println!(
        "{:>28}  before z {:7.3} ± {:5.3}",
        "all ε on b (diffprivlib)",
        m * 1e5,
        s * 1e5
    );
    println!(
        "{:>7} {:>5} {:>10} {:>10}  {:>16} {:>16} {:>16} {:>16}  cert passes",
        "share", "γ/A", "ε′", "E‖z‖", "before z", "after z", "Δ before", "Δ after"
    );
    let default = ObjectivePerturbationConfig {
        epsilon: EPSILON,
        ..ObjectivePerturbationConfig::default()
    };
    let chosen = AmpPlan::new(&default, N, D, RIDGE, 1.0).unwrap();
    let mut rows = vec![(
        "plan".to_string(),
        chosen.epsilon_residual / EPSILON,
        default,
    )];
    for allowances in [10.0, 20.0] {
        for share in [0.005, 0.01, 0.02, 0.03, 0.05, 0.08] {
            let mut config = ObjectivePerturbationConfig {
                epsilon: EPSILON,
                residual_share: Some(share),
                ..ObjectivePerturbationConfig::default()
            };
            // The floor moves with the share (through ε′ and the bound on ‖w*‖).
            let floor = AmpPlan::new(&config, N, D, RIDGE, 1.0)
                .unwrap()
                .rounding_floor();
            config.tolerance = Some(allowances * floor);
            rows.push((format!("{allowances}"), share, config));
        }
    }
    for (allowances, share, config) in rows {
        let plan = AmpPlan::new(&config, N, D, RIDGE, 1.0).unwrap();
        let row = run(config, &train, &test, base, seeds);
        let paired = |v: &[f64]| {
            let d: Vec<f64> = v
                .iter()
                .zip(&reference_row.before)
                .map(|(a, b)| a - b)
                .collect();
            mean_se(&d)
        };
        let f = |(m, s): (f64, f64)| format!("{:7.3} ± {:6.3}", m * 1e5, s * 1e5);
        println!(
            "{share:>7.4} {allowances:>5} {:>10.4} {:>10.3e}  {:>16} {:>16} {:>16} {:>16}  {:>2}/{seeds} {:.1}",
            plan.split.epsilon_noise,
            D as f64 * plan.residual_scale,
            f(mean_se(&row.before)),
            f(mean_se(&row.after)),
            f(paired(&row.before)),
            f(paired(&row.after)),
            row.certified,
            row.passes
        );
    }
}
