//! The seed-002 Appendix A experiment at browser size, natively: ℓ2-regularised logistic
//! regression (λ = 1e-2) on synthetic data, n = 2·10⁴, d = 20, features Gaussian and clipped to
//! ‖x‖ ≤ 1 (so G = 1, β = 1/4 + λ), ε ∈ {0.2, 0.5, 1}, δ = 1e-3, mean excess empirical risk
//! F(w_priv) − F(w*) over 10 noise seeds (± its standard error), w* from the certified
//! reference solver.
//!
//! `cargo run --release --example experiment_002`
//!
//! Methods: DP-GD (zCDP, T = 100, η = 1/β, both relations), DP-SGD (RDP, add/remove, b = 256,
//! 10 epochs, C = 1 = G so clipping never binds, η = 1), DP-SVRG (T = 15, m = 500 = the paper's
//! 5000 scaled by n/2·10⁵, η = 0.1/β) as printed (c = 8, replace-one, NOT a certificate) and
//! certified (add/remove) at b = 1 and at b = 64 (REVIEW-002 §5.3(c)), DP-SVRG++ (T = 10,
//! m = 10, η = 1/(13β), certified, b = 1; on the same ridge objective for one table) and
//! objective perturbation (pure ε, replace-one). Output perturbation is not on this branch.
//! Note the relations: add/remove halves the sensitivity of a mean relative to replace-one.

use std::sync::Arc;

use dp_playground::algo::PrivateAlgorithm;
use dp_playground::algo::dp_sgd::{DpSgd, DpSgdConfig};
use dp_playground::algo::dp_svrg::{DpSvrg, DpSvrgConfig, SvrgNoise, SvrgVariant};
use dp_playground::algo::noisy_gd::{Calibration, NoisyGd};
use dp_playground::algo::objective_perturbation::{
    ObjectivePerturbation, ObjectivePerturbationConfig,
};
use dp_playground::data::{ClassificationSpec, clip_features, generate_classification};
use dp_playground::domain::Unconstrained;
use dp_playground::loss::{Glm, Loss, Regularizer};
use dp_playground::objective::Objective;
use dp_playground::privacy::Relation;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};

const SEEDS: u32 = 10;

fn run(alg: &mut dyn PrivateAlgorithm, obj: &Objective) -> Vec<f64> {
    while alg.step(obj).is_some() {}
    alg.current().to_vec()
}

fn main() -> dp_playground::Result<()> {
    let (n, d, lambda, delta) = (20_000usize, 20usize, 1e-2, 1e-3);
    let spec = ClassificationSpec {
        n,
        d,
        feature_scale: 0.3,
        signal: 4.0,
    };
    let mut data = generate_classification(&spec, &mut seeded(1, Stream::Data))?;
    clip_features(&mut data, 1.0);
    let obj = Objective::with_loss(
        Arc::new(data),
        Loss::erm(Glm::Logistic),
        Regularizer::ridge(lambda),
        Box::new(Unconstrained),
        1.0,
    )?;
    let f_star = reference::solve(&obj, 1e-12, 100_000)?.value;
    let beta = obj.smoothness();
    println!("n = {n}, d = {d}, λ = {lambda}, δ = {delta}, F* = {f_star:.6}, β = {beta:.3}");
    println!(
        "{:<42} {:>22} {:>22} {:>22}",
        "method (relation)", "ε = 0.2", "ε = 0.5", "ε = 1"
    );
    let svrg =
        |variant, noise, batch, eps, seed| -> dp_playground::Result<Box<dyn PrivateAlgorithm>> {
            let (epochs, m, eta) = match variant {
                SvrgVariant::Svrg => (15, 500, 0.1 / beta),
                SvrgVariant::SvrgPlusPlus => (10, 10, 1.0 / (13.0 * beta)),
            };
            let c = DpSvrgConfig {
                variant,
                noise,
                epsilon: eps,
                delta,
                lipschitz: 1.0,
                n,
                epochs,
                epoch_length: m,
                step_size: eta,
                batch_size: batch,
            };
            Ok(Box::new(DpSvrg::new(
                c,
                &obj,
                seeded(seed, Stream::Noise),
                true,
            )?))
        };
    type Make<'a> = Box<dyn Fn(f64, u32) -> dp_playground::Result<Box<dyn PrivateAlgorithm>> + 'a>;
    let methods: Vec<(&str, Make)> = vec![
        (
            "DP-GD, T = 100, η = 1/β (replace-one)",
            Box::new(|eps, seed| {
                let c = Calibration {
                    epsilon: eps,
                    delta,
                    relation: Relation::ReplaceOne,
                    steps: 100,
                    lipschitz: 1.0,
                    n,
                };
                Ok(Box::new(NoisyGd::new(
                    c,
                    1.0 / beta,
                    &obj,
                    seeded(seed, Stream::Noise),
                    true,
                )?) as Box<dyn PrivateAlgorithm>)
            }),
        ),
        (
            "DP-GD, T = 100, η = 1/β (add/remove)",
            Box::new(|eps, seed| {
                let c = Calibration {
                    epsilon: eps,
                    delta,
                    relation: Relation::AddRemove,
                    steps: 100,
                    lipschitz: 1.0,
                    n,
                };
                Ok(Box::new(NoisyGd::new(
                    c,
                    1.0 / beta,
                    &obj,
                    seeded(seed, Stream::Noise),
                    true,
                )?) as Box<dyn PrivateAlgorithm>)
            }),
        ),
        (
            "DP-SGD, b = 256, 10 epochs, C = 1 (add/remove)",
            Box::new(|eps, seed| {
                let c = DpSgdConfig::for_dataset(n, 256, 10.0, eps, delta, 1.0, 1.0)?;
                Ok(
                    Box::new(DpSgd::new(c, &obj, seeded(seed, Stream::Noise), true)?)
                        as Box<dyn PrivateAlgorithm>,
                )
            }),
        ),
        (
            "DP-SVRG b = 1, as printed c = 8 (NOT DP)",
            Box::new(|eps, seed| {
                svrg(
                    SvrgVariant::Svrg,
                    SvrgNoise::AsPrinted { c: 8.0 },
                    1,
                    eps,
                    seed,
                )
            }),
        ),
        (
            "DP-SVRG b = 1, certified (add/remove)",
            Box::new(|eps, seed| svrg(SvrgVariant::Svrg, SvrgNoise::Certified, 1, eps, seed)),
        ),
        (
            "DP-SVRG b = 64, certified (add/remove)",
            Box::new(|eps, seed| svrg(SvrgVariant::Svrg, SvrgNoise::Certified, 64, eps, seed)),
        ),
        (
            "DP-SVRG++ b = 1, certified (add/remove)",
            Box::new(|eps, seed| {
                svrg(
                    SvrgVariant::SvrgPlusPlus,
                    SvrgNoise::Certified,
                    1,
                    eps,
                    seed,
                )
            }),
        ),
        (
            "objective perturbation (replace-one, δ = 0)",
            Box::new(|eps, seed| {
                let c = ObjectivePerturbationConfig {
                    epsilon: eps,
                    ..Default::default()
                };
                Ok(Box::new(ObjectivePerturbation::new(
                    c,
                    &obj,
                    seeded(seed, Stream::Noise),
                    true,
                )?) as Box<dyn PrivateAlgorithm>)
            }),
        ),
    ];
    for (name, make) in &methods {
        let mut cells = Vec::new();
        for eps in [0.2, 0.5, 1.0] {
            let mut excess = Vec::new();
            for seed in 0..SEEDS {
                let mut alg = make(eps, seed)?;
                let w = run(alg.as_mut(), &obj);
                excess.push(obj.value(&w) - f_star);
            }
            let k = excess.len() as f64;
            let mean = excess.iter().sum::<f64>() / k;
            let sd =
                (excess.iter().map(|e| (e - mean) * (e - mean)).sum::<f64>() / (k - 1.0)).sqrt();
            cells.push(format!("{mean:.2e} ± {:.1e}", sd / k.sqrt()));
        }
        println!(
            "{:<42} {:>22} {:>22} {:>22}",
            name, cells[0], cells[1], cells[2]
        );
    }
    Ok(())
}
