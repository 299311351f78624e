//! Our side of the peer comparison (`benches/peers/run`; docs/benchmarks.md).
//!
//! `cargo run --release --example peers -- write DIR` writes the data both sides read, once:
//! `DIR/{name}_x.f64` (n × d, one sample after another, little-endian f64, which is numpy's
//! C-order (n, d) array) and `DIR/{name}_y.f64` (labels ±1), for
//! - `sgd`: n = 10⁵, d = 100, exactly the data of `bench::Workload::new` (seed 1): the logistic
//!   gradient and the DP-SGD epoch;
//! - `lr` and `lr_test`: n = 10⁵, d = 20 (seeds 2 and 3): DP logistic regression at ε = 1 and
//!   its test log-loss on 10⁵ fresh records.
//!
//! `cargo run --release --example peers -- measure DIR` reads them back and prints one JSON line
//! of our native figures: the read and the logistic value+gradient (ms), one DP-SGD epoch (ms,
//! b = 256, clip 1, ε = 1, δ = 1e-5), and objective perturbation at ε = 1 with ridge Λ = 1/n
//! (scikit-learn's C = 1, as diffprivlib's default) and data norm R = 1, the settings run.py gives
//! diffprivlib: its time and test log-loss, beside the non-private optimum's test log-loss, and
//! what differs by design (the ε′ on b, and the residual noise that covers the certified point's
//! distance to the exact minimiser, which diffprivlib does not add).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use dp_playground::algo::PrivateAlgorithm;
use dp_playground::algo::objective_perturbation::{
    AmpPlan, ObjectivePerturbation, ObjectivePerturbationConfig,
};
use dp_playground::bench::native::measure;
use dp_playground::bench::{Case, Summary, Workload, dataset};
use dp_playground::data::Dataset;
use dp_playground::domain::DomainKind;
use dp_playground::loss::{Glm, Loss, Regulariser};
use dp_playground::objective::Objective;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};
use nalgebra::DMatrix;
use serde_json::json;

/// The sets written: name, n, d, seed.
const SETS: [(&str, usize, usize, u32); 3] = [
    ("sgd", 100_000, 100, 1),
    ("lr", 100_000, 20, 2),
    ("lr_test", 100_000, 20, 3),
];
/// Objective perturbation's runs (fresh noise each), for its time and its median test loss.
const OP_RUNS: u32 = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, dir) = match args.as_slice() {
        [cmd, dir] => (cmd.as_str(), PathBuf::from(dir)),
        _ => usage(),
    };
    let result = match cmd {
        "write" => write(&dir),
        "measure" => measure_ours(&dir),
        _ => usage(),
    };
    if let Err(e) = result {
        eprintln!("peers {cmd}: {e}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("usage: cargo run --release --example peers -- write|measure DIR");
    std::process::exit(2);
}

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn write(dir: &Path) -> Res<()> {
    fs::create_dir_all(dir)?;
    for (name, n, d, seed) in SETS {
        let data = dataset(n, d, seed)?;
        let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        fs::write(
            dir.join(format!("{name}_x.f64")),
            bytes(data.matrix_slice()),
        )?;
        fs::write(dir.join(format!("{name}_y.f64")), bytes(data.labels()))?;
    }
    let meta: serde_json::Value = SETS
        .iter()
        .map(|&(name, n, d, seed)| (name.to_string(), json!({ "n": n, "d": d, "seed": seed })))
        .collect::<serde_json::Map<_, _>>()
        .into();
    fs::write(dir.join("meta.json"), meta.to_string())?;
    Ok(())
}

fn read(dir: &Path, name: &str, d: usize) -> Res<Arc<Dataset>> {
    let floats = |file: String| -> Res<Vec<f64>> {
        let raw = fs::read(dir.join(&file))?;
        if raw.len() % 8 != 0 {
            return Err(format!("{file}: not a whole number of f64").into());
        }
        Ok(raw
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect())
    };
    let (x, y) = (
        floats(format!("{name}_x.f64"))?,
        floats(format!("{name}_y.f64"))?,
    );
    if x.len() != y.len() * d {
        return Err(format!(
            "{name}: {} features for {} labels at d = {d}",
            x.len(),
            y.len()
        )
        .into());
    }
    Ok(Arc::new(Dataset::new(DMatrix::from_vec(d, y.len(), x), y)?))
}

fn logistic(data: Arc<Dataset>, l2: f64) -> Res<Objective> {
    Ok(Objective::with_loss(
        data,
        Loss::erm(Glm::Logistic),
        Regulariser::ridge(l2),
        DomainKind::Unconstrained.boxed(),
        1.0,
    )?)
}

fn measure_ours(dir: &Path) -> Res<()> {
    let mut sgd = Workload::on(read(dir, "sgd", 100)?)?;
    let read_ms = measure(&mut sgd, Case::Read, 20)?.summary;
    let grad_ms = measure(&mut sgd, Case::Logistic, 20)?.summary;
    let epoch_ms = measure(&mut sgd, Case::DpSgdEpoch, 5)?.summary;

    let (train, test) = (read(dir, "lr", 20)?, read(dir, "lr_test", 20)?);
    let (rows, dim) = (train.n(), train.d());
    let n = rows as f64;
    let objective = logistic(train, 1.0 / n)?;
    let test_loss = |w: &[f64]| -> Res<f64> { Ok(logistic(test.clone(), 0.0)?.data_term(w, None)) };
    let config = ObjectivePerturbationConfig::default();
    let plan = AmpPlan::new(&config, rows, dim, 1.0 / n, 1.0)?;
    let mut times = Vec::new();
    let mut losses = Vec::new();
    for seed in 0..OP_RUNS {
        let t = Instant::now();
        let mut op =
            ObjectivePerturbation::new(config, &objective, seeded(seed, Stream::Noise), true)?;
        while op.step(&objective).is_some() {}
        times.push(t.elapsed().as_secs_f64() * 1e3);
        losses.push(test_loss(op.current())?);
    }
    let optimum = reference::solve(&objective, 1e-9, 200_000)?;
    let summary = |s: Summary| json!({ "min_ms": s.min, "median_ms": s.median });
    println!(
        "{}",
        json!({
            "read": summary(read_ms),
            "logistic_gradient": summary(grad_ms),
            "dp_sgd_epoch": summary(epoch_ms),
            "objective_perturbation": {
                "epsilon": config.epsilon,
                "l2": 1.0 / n,
                "data_norm": 1.0,
                "epsilon_noise": plan.split.epsilon_noise,
                "epsilon_residual": plan.epsilon_residual,
                "residual_mean_norm": dim as f64 * plan.residual_scale,
                "time": summary(Summary::of(&times)),
                "test_log_loss_median": Summary::of(&losses).median,
                "test_log_loss_runs": losses,
            },
            "non_private_test_log_loss": test_loss(&optimum.w)?,
        })
    );
    Ok(())
}
