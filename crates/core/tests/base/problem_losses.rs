//! Losses, regularisers and the objective's gradients against finite differences; minibatch,
//! per-sample and clipped gradients against the full pass.

use std::sync::Arc;

use dp_core::data::{Dataset, GeneratorSpec, Link, Tail, Task, clip_features, clip_rows, generate};
use dp_core::domain::DomainKind;
use dp_core::loss::{Bounds, Glm, GlmLoss, Logistic, Loss, Regulariser, Wrap};
use dp_core::objective::Objective;
use dp_core::rng::{Stream, seeded};
use rand::RngExt;

fn data(classification: bool) -> Arc<Dataset> {
    let spec = GeneratorSpec {
        n: 64,
        d: 4,
        features: Tail::Gaussian,
        feature_scale: 0.5,
        signal: 2.0,
        task: if classification {
            Task::Classification {
                link: Link::Probit,
                flip: 0.1,
            }
        } else {
            Task::Regression {
                noise: Tail::StudentT { nu: 3.0 },
                noise_scale: 0.5,
            }
        },
    };
    let mut ds = generate(&spec, seeded(5, Stream::Data)).unwrap();
    clip_features(&mut ds, 1.0);
    Arc::new(ds)
}

fn all_losses() -> Vec<Loss> {
    let mut v = Vec::new();
    for glm in [
        Glm::Squared { label_bound: 2.0 },
        Glm::Logistic,
        Glm::Hinge,
        Glm::SmoothedHinge { gamma: 0.7 },
        Glm::huber(0.3),
        Glm::absolute(),
    ] {
        for wrap in [
            Wrap::None,
            Wrap::Tilted { tau: 2.0 },
            Wrap::Adversarial { radius: 0.2 },
        ] {
            v.push(Loss { glm, wrap });
        }
    }
    v
}

/// Scalar derivatives against central differences, away from kinks (a kink within h of t would
/// make the difference quotient average two slopes). h = 1e-6: truncation error ≤ h²·|φ'''|/6 and
/// rounding ≤ ε·|φ|/h ≈ 1e-10 for |φ| ≤ 10², so 1e-7 is a safe bound.
#[test]
fn scalar_derivatives_match_central_differences() {
    let mut rng = seeded(1, Stream::Noise);
    for glm in all_losses().iter().map(|l| l.glm) {
        for _ in 0..2000 {
            let t = 8.0 * rng.random::<f64>() - 4.0;
            let y = if glm.is_margin() {
                if rng.random::<bool>() { 1.0 } else { -1.0 }
            } else {
                4.0 * rng.random::<f64>() - 2.0
            };
            let kinks = [1.0 * y, (1.0 - 0.7) * y, y, y + 0.3, y - 0.3];
            if kinks.iter().any(|k| (t - k).abs() < 1e-4) {
                continue;
            }
            let h = 1e-6;
            let fd = (glm.value(t + h, y) - glm.value(t - h, y)) / (2.0 * h);
            let (v, g) = glm.value_and_derivative(t, y);
            assert!((g - fd).abs() < 1e-7, "{glm:?} t={t} y={y}: {g} vs {fd}");
            assert_eq!(v, glm.value(t, y));
            assert_eq!(g, glm.derivative(t, y));
            // Lipschitz constant of φ in t (G at unit feature bound) bounds |φ'|.
            if !matches!(glm, Glm::Squared { .. }) {
                assert!(g.abs() <= glm.lipschitz(1.0, 1.0) + 1e-15);
            }
        }
    }
}

/// The full objective (every loss × wrap, with an elastic-net term) against finite differences of
/// F − λ₁‖·‖₁ at random points where ‖w‖ > 0 and no sample sits within 1e-4 of a kink.
#[test]
fn objective_gradients_match_finite_differences() {
    let mut rng = seeded(2, Stream::Noise);
    let reg = Regulariser::elastic(0.05, 0.2);
    for loss in all_losses() {
        let ds = data(loss.glm.is_margin());
        let obj = Objective::with_loss(
            ds.clone(),
            loss,
            reg,
            DomainKind::Unconstrained.boxed(),
            1.0,
        )
        .unwrap();
        let d = obj.dim();
        let mut checked = 0;
        for _ in 0..40 {
            let w: Vec<f64> = (0..d).map(|_| 2.0 * rng.random::<f64>() - 1.0).collect();
            let s = match loss.wrap {
                Wrap::Adversarial { radius } => radius * dp_core::linalg::norm2(&w),
                _ => 0.0,
            };
            let near_kink = ds.samples().any(|(x, y)| {
                let t = dp_core::linalg::dot(&w, x);
                let arg = if loss.glm.is_margin() {
                    y * t - s
                } else {
                    t - y
                };
                let kinks: &[f64] = match loss.glm {
                    Glm::Hinge => &[1.0],
                    Glm::SmoothedHinge { .. } => &[1.0, 0.3],
                    Glm::Huber { .. } => &[0.3, -0.3],
                    Glm::Absolute { .. } => &[0.0],
                    _ => &[],
                };
                let adv_kink = !loss.glm.is_margin() && s > 0.0 && arg.abs() < 1e-3;
                adv_kink
                    || kinks.iter().any(|k| {
                        let a = if !loss.glm.is_margin() && s > 0.0 {
                            arg.abs() + s
                        } else {
                            arg
                        };
                        (a - k).abs() < 1e-3
                            || (!loss.glm.is_margin() && s == 0.0 && (arg + k).abs() < 1e-3)
                    })
            });
            if near_kink {
                continue;
            }
            checked += 1;
            let mut g = vec![0.0; d];
            let f = obj.value_and_gradient(&w, &mut g);
            assert!((f - obj.value(&w)).abs() <= 1e-13 * f.abs().max(1.0));
            let smooth = |w: &[f64]| obj.value(w) - reg.l1 * w.iter().map(|v| v.abs()).sum::<f64>();
            for j in 0..d {
                let h = 1e-6;
                let (mut wp, mut wm) = (w.clone(), w.clone());
                wp[j] += h;
                wm[j] -= h;
                // Skip coordinates where the ℓ1 term would cross 0.
                let fd = (smooth(&wp) - smooth(&wm)) / (2.0 * h);
                assert!(
                    (g[j] - fd).abs() < 1e-6,
                    "{loss:?} coord {j}: {} vs {fd}",
                    g[j]
                );
            }
        }
        assert!(checked >= 5, "{loss:?}: only {checked} points checked");
    }
}

/// Minibatch over all indices = full data term; per-sample rows average to it; the clipped
/// gradient with a huge threshold equals the plain one and with a small one has norm ≤ C.
#[test]
fn minibatch_per_sample_and_clipped_gradients_agree_with_the_full_pass() {
    for loss in all_losses() {
        let ds = data(loss.glm.is_margin());
        let obj = Objective::with_loss(
            ds.clone(),
            loss,
            Regulariser::ridge(0.1),
            DomainKind::Unconstrained.boxed(),
            1.0,
        )
        .unwrap();
        let (n, d) = (ds.n(), ds.d());
        let w = vec![0.3, -0.2, 0.1, 0.4];
        let mut full = vec![0.0; d];
        let fv = obj.data_term(&w, Some(&mut full));
        let all: Vec<usize> = (0..n).collect();
        let mut mb = vec![0.0; d];
        let mv = obj.minibatch_gradient(&w, &all, &mut mb).unwrap();
        assert!((fv - mv).abs() < 1e-14 && full == mb, "{loss:?}");
        if let Wrap::Tilted { .. } = loss.wrap {
            continue; // TERM's gradient is a softmax-weighted, not a plain, average.
        }
        let mut rows = vec![0.0; n * d];
        let mut vals = vec![0.0; n];
        obj.per_sample_gradients(&w, &all, &mut rows, &mut vals)
            .unwrap();
        for j in 0..d {
            let mean: f64 = rows.chunks_exact(d).map(|r| r[j]).sum::<f64>() / n as f64;
            assert!((mean - full[j]).abs() < 1e-14, "{loss:?}");
        }
        assert!((vals.iter().sum::<f64>() / n as f64 - fv).abs() < 1e-14);
        let (mut cg, mut scratch) = (vec![0.0; d], vec![0.0; d]);
        assert_eq!(
            obj.clipped_gradient(&w, &all, 1e9, &mut cg, &mut scratch)
                .unwrap(),
            0
        );
        for j in 0..d {
            assert!((cg[j] - full[j]).abs() < 1e-14);
        }
        let c = 0.05;
        obj.clipped_gradient(&w, &all, c, &mut cg, &mut scratch)
            .unwrap();
        assert!(dp_core::linalg::norm2(&cg) <= c * (1.0 + 1e-12));
        let clipped = clip_rows(&mut rows, d, c);
        assert!(
            clipped > 0
                && rows
                    .chunks_exact(d)
                    .all(|r| dp_core::linalg::norm2(r) <= c * (1.0 + 1e-12))
        );
        // Bad input is an error, not a panic.
        assert!(obj.minibatch_gradient(&w, &[n], &mut mb).is_err());
        assert!(
            obj.per_sample_gradients(&w, &[0], &mut rows, &mut vals)
                .is_err()
        );
    }
}

/// TERM's one-pass online log-sum-exp against the direct two-pass formula, and its limits:
/// τ → 0 recovers ERM (F − mean ≤ (τ/2)·Var f + O(τ²) ≤ τ·range²); a tilt below the smallest
/// accepted one is refused.
#[test]
fn tilted_pass_matches_the_direct_formula() {
    let ds = data(true);
    let w = vec![0.5, -1.0, 0.2, 0.8];
    let tiny = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Tilted { tau: 1e-8 },
    };
    assert_eq!(tiny.validate().unwrap_err().field(), Some("loss.tau"));
    for tau in [dp_core::loss::MIN_TILT, 0.5, 5.0, 50.0] {
        let loss = Loss {
            glm: Glm::Logistic,
            wrap: Wrap::Tilted { tau },
        };
        let obj = Objective::with_loss(
            ds.clone(),
            loss,
            Regulariser::default(),
            DomainKind::Unconstrained.boxed(),
            1.0,
        )
        .unwrap();
        let f: Vec<f64> = ds
            .samples()
            .map(|(x, y)| Logistic.value(dp_core::linalg::dot(&w, x), y))
            .collect();
        let m = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = f.iter().map(|v| (tau * (v - m)).exp()).sum();
        let direct = m + (s / f.len() as f64).ln() / tau;
        assert!(
            (obj.value(&w) - direct).abs() < 1e-12 * direct.abs(),
            "tau {tau}"
        );
        if tau == dp_core::loss::MIN_TILT {
            let mean = f.iter().sum::<f64>() / f.len() as f64;
            let range = m - f.iter().cloned().fold(f64::INFINITY, f64::min);
            let above = obj.value(&w) - mean;
            assert!((0.0..=tau * range * range).contains(&above), "{above}");
        }
    }
}

/// Declared constants: TERM's β_τ = β + 2G²τ, the adversarial G at feature bound X + r, and the
/// documented values of Wang, Ye & Xu 2017.
#[test]
fn declared_constants() {
    let b = Bounds {
        feature: 2.0,
        radius: 3.0,
    };
    let c = Loss::erm(Glm::Logistic).constants(b);
    assert_eq!(
        (c.lipschitz, c.smoothness, c.strong_convexity),
        (2.0, 1.0, 0.0)
    );
    let c = Loss::erm(Glm::Squared { label_bound: 1.0 }).constants(b);
    assert_eq!((c.lipschitz, c.smoothness), (2.0 * (6.0 + 1.0), 4.0));
    let c = Loss::erm(Glm::huber(0.5)).constants(b);
    assert_eq!((c.lipschitz, c.smoothness), (1.0, 4.0));
    assert!(Loss::erm(Glm::Hinge).constants(b).smoothness.is_infinite());
    let c = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Tilted { tau: 0.5 },
    }
    .constants(b);
    assert_eq!((c.lipschitz, c.smoothness), (2.0, 1.0 + 2.0 * 4.0 * 0.5));
    let c = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Adversarial { radius: 0.5 },
    }
    .constants(b);
    assert_eq!(c.lipschitz, 2.5);
    assert!(c.smoothness.is_infinite());
    // Regulariser prox: soft threshold then shrink.
    let mut w = vec![1.0, -0.05, -2.0];
    Regulariser::elastic(0.1, 1.0).prox(0.5, &mut w);
    let expect = [(1.0 - 0.05) / 1.5, 0.0, (-2.0 + 0.05) / 1.5];
    assert!(
        w.iter().zip(expect).all(|(a, b)| (a - b).abs() < 1e-15),
        "{w:?}"
    );
}

/// Labels outside the loss's range are an error naming the sample; bad parameters name the field.
#[test]
fn labels_and_parameters_are_validated() {
    let reg = data(false);
    let err = Objective::with_loss(
        reg,
        Loss::erm(Glm::Hinge),
        Regulariser::default(),
        DomainKind::Simplex.boxed(),
        1.0,
    )
    .err()
    .unwrap();
    assert_eq!(err.field(), Some("loss"), "{err}");
    let bad = Loss {
        glm: Glm::Logistic,
        wrap: Wrap::Tilted { tau: -1.0 },
    };
    assert_eq!(bad.validate().unwrap_err().field(), Some("loss.tau"));
    assert!(Glm::huber(f64::NAN).validate().is_err());
    assert!(Regulariser::lasso(-1.0).validate().is_err());
    assert!(DomainKind::Box { lo: 1.0, hi: 0.0 }.validate().is_err());
}
