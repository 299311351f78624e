//! The reference solver's certificate, checked for every loss × domain pair (issue 3, item 7).

use std::sync::Arc;

use dp_playground::data::{Dataset, GeneratorSpec, Link, Tail, Task, clip_features, generate};
use dp_playground::domain::DomainKind;
use dp_playground::loss::{Glm, Loss, Regularizer, Wrap};
use dp_playground::objective::Objective;
use dp_playground::reference::{self, Reference};
use dp_playground::rng::{Stream, seeded};
use std::time::Instant;

fn data(classification: bool, n: usize, d: usize, seed: u32) -> Arc<Dataset> {
    let spec = GeneratorSpec {
        n,
        d,
        features: Tail::StudentT { nu: 5.0 },
        feature_scale: 1.0 / (d as f64).sqrt(),
        signal: 2.0,
        task: if classification {
            Task::Classification {
                link: Link::Logistic,
                flip: 0.05,
            }
        } else {
            Task::Regression {
                noise: Tail::Gaussian,
                noise_scale: 0.3,
            }
        },
    };
    let mut ds = generate(&spec, seeded(seed, Stream::Data)).unwrap();
    clip_features(&mut ds, 1.0);
    Arc::new(ds)
}

pub fn losses() -> Vec<Loss> {
    let mut v: Vec<Loss> = Glm::all().into_iter().map(Loss::erm).collect();
    v.push(Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Tilted { tau: 1.0 },
    });
    v.push(Loss {
        glm: Glm::Squared { label_bound: 3.0 },
        wrap: Wrap::Tilted { tau: 0.5 },
    });
    v.push(Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Adversarial { radius: 0.1 },
    });
    v.push(Loss {
        glm: Glm::SmoothedHinge { gamma: 0.5 },
        wrap: Wrap::Adversarial { radius: 0.1 },
    });
    v
}

/// Checks a reference independently of the solver: feasible, the certificate meets the 1e-9
/// relative target, and no feasible probe point (random directions at several scales around w)
/// has a value below the certified lower bound F(w) − gap_bound.
fn check(obj: &Objective, r: &Reference, label: &str) {
    let tol = 1e-9 * r.value.abs().max(1.0);
    assert!(r.gap_bound <= tol, "{label}: gap {} > {tol}", r.gap_bound);
    assert!(obj.domain().contains(&r.w, 1e-12), "{label}: infeasible");
    assert!((obj.value(&r.w) - r.value).abs() <= 1e-12 * r.value.abs().max(1.0));
    let mut rng = seeded(99, Stream::Noise);
    use rand::RngExt;
    for k in 0..300 {
        let scale = [1e-6, 1e-3, 1e-1][k % 3];
        let mut p: Vec<f64> =
            r.w.iter()
                .map(|w| w + scale * (2.0 * rng.random::<f64>() - 1.0))
                .collect();
        obj.domain().project(&mut p);
        // 1e-13 absorbs the rounding of two evaluations of F (values of order 1).
        assert!(
            obj.value(&p) >= r.value - r.gap_bound - 1e-13,
            "{label}: probe beats the certified bound"
        );
    }
}

#[test]
fn certificate_for_every_loss_domain_pair() {
    let cls = data(true, 200, 5, 1);
    let reg = data(false, 200, 5, 2);
    let mut failures = Vec::new();
    for loss in losses() {
        for dom in DomainKind::examples() {
            let regs: &[Regularizer] = if dom == DomainKind::Unconstrained {
                &[Regularizer::ridge(0.1), Regularizer::elastic(0.02, 0.1)]
            } else {
                &[
                    Regularizer::default(),
                    Regularizer::ridge(0.1),
                    Regularizer::elastic(0.02, 0.1),
                    Regularizer::lasso(0.02),
                ]
            };
            for &r in regs {
                let ds = if loss.glm.is_margin() {
                    cls.clone()
                } else {
                    reg.clone()
                };
                let obj = Objective::with_loss(ds, loss, r, dom.boxed(), 1.0).unwrap();
                let label = format!("{loss:?} on {dom:?} with {r:?}");
                let t0 = Instant::now();
                let res = reference::solve(&obj, 1e-9, 60_000);
                if std::env::var("REF_TRACE").is_ok() {
                    eprintln!(
                        "{label}: {:?} {:?}",
                        t0.elapsed(),
                        res.as_ref().map(|r| (r.grad_evals, r.gap_bound))
                    );
                }
                match res {
                    Ok(sol) => check(&obj, &sol, &label),
                    Err(e) => failures.push(format!("{label}: {e}")),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn adversarial_residual_losses_are_refused_not_miscertified() {
    let obj = Objective::with_loss(
        data(false, 50, 3, 4),
        Loss {
            glm: Glm::Huber { delta: 0.5 },
            wrap: Wrap::Adversarial { radius: 0.1 },
        },
        Regularizer::default(),
        DomainKind::L2Ball { radius: 1.0 }.boxed(),
        1.0,
    )
    .unwrap();
    assert_eq!(
        reference::solve(&obj, 1e-9, 1000).unwrap_err().field(),
        Some("loss")
    );
}

#[test]
fn unconstrained_without_strong_convexity_is_refused() {
    let obj = Objective::with_loss(
        data(true, 50, 3, 3),
        Loss::erm(Glm::Logistic),
        Regularizer::default(),
        DomainKind::Unconstrained.boxed(),
        1.0,
    )
    .unwrap();
    let err = reference::solve(&obj, 1e-9, 1000).unwrap_err();
    assert_eq!(err.field(), Some("regularizer.l2"));
}
