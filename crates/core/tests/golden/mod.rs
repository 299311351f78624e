//! Checksums of generators, losses, projections, tail moments and a reference solve, shared by the
//! native test `problem_golden.rs` and the browser test `web_problem.rs`: both compare against
//! tests/data/problem_golden.txt, so native and wasm32 must give the same bits.

use std::sync::Arc;

use dp_core::data::{GeneratorSpec, Link, Tail, Task, clip_features, generate};
use dp_core::domain::{Domain, DomainKind};
use dp_core::loss::{Glm, GlmLoss, Loss, Regulariser, Wrap, math};
use dp_core::objective::Objective;
use dp_core::reference;
use dp_core::rng::{DpRng, Stream, seeded};
use rand::RngExt;

/// FNV-1a over the bit patterns of the values.
fn fnv(values: impl IntoIterator<Item = f64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_bits().to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn tails() -> [Tail; 5] {
    [
        Tail::Gaussian,
        Tail::StudentT { nu: 3.0 },
        Tail::ParetoRadial { alpha: 2.5 },
        Tail::LogNormal { sigma: 0.8 },
        Tail::Contaminated {
            p: 0.1,
            scale: 20.0,
        },
    ]
}

fn spec(features: Tail, task: Task) -> GeneratorSpec {
    GeneratorSpec {
        n: 200,
        d: 6,
        features,
        feature_scale: 0.5,
        signal: 2.0,
        task,
    }
}

const CLS: Task = Task::Classification {
    link: Link::Logistic,
    flip: 0.05,
};
const PROBIT: Task = Task::Classification {
    link: Link::Probit,
    flip: 0.0,
};
const REG: Task = Task::Regression {
    noise: Tail::StudentT { nu: 2.5 },
    noise_scale: 0.5,
};

/// (name, checksum) lines.
pub fn checksums() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for (i, tail) in tails().into_iter().enumerate() {
        for (task, tname) in [(CLS, "logistic"), (PROBIT, "probit"), (REG, "regression")] {
            let ds = generate(&spec(tail, task), seeded(7, Stream::Data)).unwrap();
            let vals = ds.matrix_slice().iter().chain(ds.labels()).copied();
            out.push((format!("generate/{i}/{tname}"), fnv(vals)));
        }
        out.push((
            format!("moment/{i}"),
            fnv([1.0, 2.0, 2.2].map(|k| tail.norm_moment(6, k))),
        ));
    }
    let mut cls = generate(
        &spec(Tail::StudentT { nu: 4.0 }, CLS),
        seeded(8, Stream::Data),
    )
    .unwrap();
    clip_features(&mut cls, 1.0);
    let mut reg = generate(
        &spec(Tail::StudentT { nu: 4.0 }, REG),
        seeded(9, Stream::Data),
    )
    .unwrap();
    clip_features(&mut reg, 1.0);
    let (cls, reg) = (Arc::new(cls), Arc::new(reg));
    let w: Vec<f64> = (0..6).map(|j| 0.3 * (j as f64) - 0.7).collect();
    for glm in Glm::all() {
        for wrap in [
            Wrap::None,
            Wrap::Tilted { tau: 2.0 },
            Wrap::Adversarial { radius: 0.1 },
        ] {
            let loss = Loss { glm, wrap };
            let ds = if glm.is_margin() {
                cls.clone()
            } else {
                reg.clone()
            };
            let obj = Objective::with_loss(
                ds,
                loss,
                Regulariser::elastic(0.01, 0.1),
                DomainKind::Unconstrained.boxed(),
                1.0,
            )
            .unwrap();
            let mut g = vec![0.0; 6];
            let v = obj.value_and_gradient(&w, &mut g);
            out.push((
                format!("loss/{}/{wrap:?}", glm.name()),
                fnv(std::iter::once(v).chain(g)),
            ));
        }
    }
    let mut rng: DpRng = seeded(10, Stream::Noise);
    for dom in DomainKind::examples() {
        let mut vals = Vec::new();
        for _ in 0..50 {
            let mut p: Vec<f64> = (0..6)
                .map(|_| 3.0 * (2.0 * rng.random::<f64>() - 1.0))
                .collect();
            dom.project(&mut p);
            vals.extend(p);
        }
        out.push((format!("project/{}", dom.name()), fnv(vals)));
    }
    for (loss, dom) in [
        (Loss::erm(Glm::Logistic), DomainKind::L1Ball { radius: 1.0 }),
        (Loss::erm(Glm::Hinge), DomainKind::L2Ball { radius: 1.0 }),
    ] {
        let obj = Objective::with_loss(cls.clone(), loss, Regulariser::default(), dom.boxed(), 1.0)
            .unwrap();
        let r = reference::solve(&obj, 1e-9, 100_000).unwrap();
        out.push((
            format!("reference/{}/{}", loss.glm.name(), dom.name()),
            fnv(r.w.iter().copied().chain([r.value, r.gap_bound])),
        ));
    }
    // The logistic loss's own exp and ln(1 + e), over their whole ranges and at the edges
    // (subnormal results, overflow, NaN), one lane and four lanes.
    let xs: Vec<f64> = (0..4000)
        .map(|i| -746.0 + 1456.0 * f64::from(i) / 3999.0)
        .chain([
            -745.13,
            -744.5,
            -708.5,
            709.78,
            710.0,
            0.0,
            -0.0,
            1e-300,
            f64::NAN,
        ])
        .collect();
    let lanes = xs
        .chunks_exact(4)
        .flat_map(|c| math::exp_lanes([c[0], c[1], c[2], c[3]]));
    out.push((
        "math/exp".to_string(),
        fnv(xs.iter().map(|&x| math::exp(x)).chain(lanes)),
    ));
    let es = (0..4000)
        .map(|i| f64::from(i) / 3999.0)
        .chain((0..1075).map(|k| 0.5f64.powi(k)));
    out.push(("math/ln_1p".to_string(), fnv(es.map(math::ln_1p_unit))));
    out
}

pub fn render(sums: &[(String, u64)]) -> String {
    sums.iter()
        .map(|(k, v)| format!("{k} {v:016x}\n"))
        .collect()
}

/// Compares with the golden text; returns the mismatching names.
pub fn mismatches(golden: &str) -> Vec<String> {
    let now = render(&checksums());
    let want: Vec<&str> = golden.lines().collect();
    let got: Vec<&str> = now.lines().collect();
    let mut bad: Vec<String> = got
        .iter()
        .filter(|l| !want.contains(l))
        .map(|l| l.to_string())
        .collect();
    if want.len() != got.len() {
        bad.push(format!("{} lines, golden has {}", got.len(), want.len()));
    }
    bad
}
