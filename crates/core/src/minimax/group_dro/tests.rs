use super::*;
use crate::rng::{Stream, seeded};

fn spec(loss: DroLoss, mu_x: f64, mu_y: f64) -> DroSpec {
    DroSpec {
        loss,
        domain: DroDomain::L2Ball,
        d: 2,
        n: 300,
        seed: 7,
        radius: 2.0,
        bound: 1.0,
        mu_x,
        mu_y,
        law: DroLaw::Bounded,
        clip: true,
    }
}

/// The records, materialised (tests only: the problem itself streams them).
fn records(p: &GroupDro) -> Vec<Vec<f64>> {
    (0..p.spec().n)
        .map(|i| {
            let mut buf = vec![0.0; p.spec().d + 2];
            p.fill_record(i, &mut buf);
            buf
        })
        .collect()
}

/// Each group's risk R̂ⱼ(x), computed directly from stored records as the module doc states it.
fn brute_risks(p: &GroupDro, recs: &[Vec<f64>], x: &[f64]) -> [f64; GROUPS] {
    let s = p.spec();
    let mut risks = [0.0; GROUPS];
    for r in recs {
        let (a, rest) = r.split_at(s.d);
        let g = rest[1] as usize;
        let t: f64 = a.iter().zip(x).map(|(ai, xi)| ai * xi).sum();
        let l = match s.loss {
            DroLoss::Logistic => (1.0 + (-rest[0] * t).exp()).ln(),
            DroLoss::Squares => 0.5 * (t - rest[0]).powi(2),
        };
        risks[g] += l / (GROUP_SHARES[g] * s.n as f64);
    }
    risks
}

/// f̂(x, y) from the groups' risks at x.
fn value_at(p: &GroupDro, risks: &[f64; GROUPS], x: &[f64], y: &[f64]) -> f64 {
    let s = p.spec();
    let pull: f64 = y.iter().map(|v| (v - 1.0 / 3.0).powi(2)).sum();
    0.5 * s.mu_x * dot(x, x) + dot(y, risks) - 0.5 * s.mu_y * pull
}

fn brute_value(p: &GroupDro, recs: &[Vec<f64>], x: &[f64], y: &[f64]) -> f64 {
    value_at(p, &brute_risks(p, recs, x), x, y)
}

/// min over the ball of f̂(·, y) by 3000 projected gradient steps from 0 (finite-difference
/// gradients of the brute-force value: independent of the module's gradient code).
fn brute_min_x(p: &GroupDro, recs: &[Vec<f64>], y: &[f64]) -> f64 {
    let mut x = vec![0.0; p.spec().d];
    let h = 1e-6;
    for _ in 0..3000 {
        let mut g = vec![0.0; x.len()];
        for (i, gi) in g.iter_mut().enumerate() {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[i] += h;
            xm[i] -= h;
            *gi = (brute_value(p, recs, &xp, y) - brute_value(p, recs, &xm, y)) / (2.0 * h);
        }
        axpy(-0.2, &g, &mut x);
        p.spec().x_domain().project(&mut x);
    }
    brute_value(p, recs, &x, y)
}

/// max over a grid of step 1/600 on the three groups' simplex of f̂(x, ·).
fn brute_max_y(p: &GroupDro, recs: &[Vec<f64>], x: &[f64]) -> f64 {
    let risks = brute_risks(p, recs, x);
    let steps = 600;
    let mut best = f64::NEG_INFINITY;
    for i in 0..=steps {
        for j in 0..=steps - i {
            let y = [
                i as f64 / steps as f64,
                j as f64 / steps as f64,
                (steps - i - j) as f64 / steps as f64,
            ];
            best = best.max(value_at(p, &risks, x, &y));
        }
    }
    best
}

/// The certificate against brute force on a 2-feature instance, for both losses and with and
/// without the regularisers: the upper side equals the max over a fine grid of the simplex (to
/// the grid's resolution, never below it), and the lower side never exceeds the brute-force
/// min over the ball.
#[test]
fn the_gap_certificate_brackets_brute_force_values_on_a_small_instance() {
    let mut rng = seeded(3, Stream::Noise);
    for loss in [DroLoss::Logistic, DroLoss::Squares] {
        for (mu_x, mu_y) in [(0.0, 0.0), (0.5, 0.3)] {
            let p = GroupDro::new(spec(loss, mu_x, mu_y)).unwrap();
            let recs = records(&p);
            for _ in 0..3 {
                let mut x: Vec<f64> = (0..2).map(|_| 3.0 * rng.random::<f64>() - 1.5).collect();
                p.spec().x_domain().project(&mut x);
                let mut y: Vec<f64> = (0..3).map(|_| rng.random::<f64>()).collect();
                DomainKind::Simplex.project(&mut y);
                let (mut gx, mut gy) = ([0.0; 2], [0.0; 3]);
                let gap = p.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
                let value = brute_value(&p, &recs, &x, &y);
                assert!((p.value(&x, &y).unwrap() - value).abs() < 1e-12);
                let max_y = brute_max_y(&p, &recs, &x);
                assert!(
                    max_y <= gap.upper + 1e-12,
                    "{loss:?}: {max_y} > {}",
                    gap.upper
                );
                assert!(
                    gap.upper - max_y < 2e-3,
                    "{loss:?}: {} vs {max_y}",
                    gap.upper
                );
                let min_x = brute_min_x(&p, &recs, &y);
                assert!(
                    gap.lower <= min_x + 1e-9,
                    "{loss:?}: {} > {min_x}",
                    gap.lower
                );
                assert!(gap.lower <= value && value <= gap.upper);
            }
        }
    }
}

/// At μᵧ = 0 the upper side is exactly the worst group's risk (plus the ridge): a closed form.
#[test]
fn without_the_pull_the_upper_side_is_the_worst_groups_risk() {
    let p = GroupDro::new(spec(DroLoss::Logistic, 0.2, 0.0)).unwrap();
    let recs = records(&p);
    let x = [0.4, -0.7];
    let (mut gx, mut gy) = ([0.0; 2], [0.0; 3]);
    let gap = p
        .duality_gap(&x, &[1.0, 0.0, 0.0], &mut gx, &mut gy)
        .unwrap();
    let worst = (0..3)
        .map(|j| {
            let mut e = [0.0; 3];
            e[j] = 1.0;
            brute_value(&p, &recs, &x, &e)
        })
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(
        (gap.upper - worst).abs() < 1e-12,
        "{} vs {worst}",
        gap.upper
    );
}

/// Near the saddle point the certified bracket closes: from a long extragradient run on the
/// empirical game (SC-SC), the reported gap is below 1e-9.
#[test]
fn the_bracket_closes_at_the_saddle_point() {
    let p = GroupDro::new(spec(DroLoss::Squares, 0.5, 0.5)).unwrap();
    let (mut x, mut y) = (vec![0.0; 2], vec![1.0 / 3.0; 3]);
    let (mut gx, mut gy) = (vec![0.0; 2], vec![0.0; 3]);
    let eta = 0.5 / p.constants().smoothness;
    for _ in 0..3000 {
        p.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
        let (mut xh, mut yh) = (x.clone(), y.clone());
        axpy(-eta, &gx, &mut xh);
        axpy(eta, &gy, &mut yh);
        p.x_domain().project(&mut xh);
        p.y_domain().project(&mut yh);
        p.value_and_gradients(&xh, &yh, &mut gx, &mut gy).unwrap();
        axpy(-eta, &gx, &mut x);
        axpy(eta, &gy, &mut y);
        p.x_domain().project(&mut x);
        p.y_domain().project(&mut y);
    }
    let gap = p.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
    assert!(gap.gap() >= -1e-12 && gap.gap() < 1e-9, "{gap:?}");
}

#[test]
fn records_are_streamed_from_seed_and_index_alone() {
    let s = DroSpec {
        law: DroLaw::Heavy {
            tail: Tail::StudentT { nu: 2.5 },
            scale: 1.0,
        },
        ..spec(DroLoss::Squares, 0.0, 0.0)
    };
    let (p, q) = (GroupDro::new(s).unwrap(), GroupDro::new(s).unwrap());
    let (mut a, mut b) = (vec![0.0; 4], vec![0.0; 4]);
    // The same record whatever was asked before it, and in whichever instance.
    p.fill_record(17, &mut a);
    for i in [3, 250, 17, 0] {
        q.fill_record(i, &mut b);
    }
    q.fill_record(17, &mut b);
    assert_eq!(a, b);
    assert_eq!(records(&p), records(&q));
    // Another seed, other records; the groups follow the declared shares.
    let other = GroupDro::new(DroSpec { seed: 8, ..s }).unwrap();
    assert_ne!(records(&p), records(&other));
    let big = GroupDro::new(DroSpec { n: 20_000, ..s }).unwrap();
    let mut counts = [0usize; GROUPS];
    for r in records(&big) {
        counts[r[3] as usize] += 1;
    }
    for (count, share) in counts.iter().zip(GROUP_SHARES) {
        let expected = share * 20_000.0;
        // Binomial sd ≤ 71: five of them.
        assert!((*count as f64 - expected).abs() < 360.0, "{counts:?}");
    }
}

/// Clipped records stay within the declared bound; unclipped heavy records leave it, and the
/// spec then says so (the NOT PRIVATE demonstration).
#[test]
fn records_keep_the_declared_bound_unless_the_demonstration_unclips_them() {
    let heavy = DroLaw::Heavy {
        tail: Tail::StudentT { nu: 1.5 },
        scale: 3.0,
    };
    for loss in [DroLoss::Logistic, DroLoss::Squares] {
        for (law, clip) in [(DroLaw::Bounded, true), (heavy, true), (heavy, false)] {
            let s = DroSpec {
                law,
                clip,
                n: 2000,
                ..spec(loss, 0.0, 0.0)
            };
            let p = GroupDro::new(s).unwrap();
            let worst = records(&p)
                .iter()
                .map(|r| norm2(&r[..2]).max(r[2].abs()))
                .fold(0.0, f64::max);
            if clip {
                assert!(worst <= 1.0 + 1e-12, "{loss:?} {law:?}: {worst}");
                assert!(s.leak().is_none());
            } else {
                assert!(worst > 10.0, "{loss:?}: {worst}");
                assert!(s.leak().unwrap().contains("NOT clipped"));
            }
        }
    }
}

/// The declared constants bound what the records do: at random feasible points, no record's
/// gradient exceeds L (nor its ∞-norm L₀), for both losses.
#[test]
fn no_record_exceeds_the_declared_lipschitz_bound() {
    let mut rng = seeded(5, Stream::Noise);
    for loss in [DroLoss::Logistic, DroLoss::Squares] {
        let s = DroSpec {
            law: DroLaw::Heavy {
                tail: Tail::StudentT { nu: 1.5 },
                scale: 5.0,
            },
            ..spec(loss, 0.3, 0.4)
        };
        let p = GroupDro::new(s).unwrap();
        let c = p.constants();
        let mut scratch = p.scratch();
        let mut worst: f64 = 0.0;
        for i in 0..s.n {
            let mut x: Vec<f64> = (0..2).map(|_| 6.0 * rng.random::<f64>() - 3.0).collect();
            p.x_domain().project(&mut x);
            let mut y: Vec<f64> = (0..3).map(|_| rng.random::<f64>()).collect();
            DomainKind::Simplex.project(&mut y);
            let (mut gx, mut gy) = ([0.0; 2], [0.0; 3]);
            p.add_record_gradients(i, &x, &y, 1.0, &mut gx, &mut gy, &mut scratch)
                .unwrap();
            worst = worst.max(norm2(&gx).hypot(norm2(&gy)));
            let inf = gx.iter().chain(&gy).fold(0.0f64, |m, v| m.max(v.abs()));
            assert!(inf <= c.linf_lipschitz);
        }
        assert!(worst <= c.lipschitz, "{loss:?}: {worst} > {}", c.lipschitz);
        // The bound is not vacuous: the records come within a factor 10 of it.
        assert!(
            worst > c.lipschitz / 10.0,
            "{loss:?}: {worst} vs {}",
            c.lipschitz
        );
    }
}

#[test]
fn the_mean_of_the_record_gradients_is_the_games_gradient() {
    let p = GroupDro::new(spec(DroLoss::Logistic, 0.3, 0.2)).unwrap();
    let (x, y) = ([0.3, -0.5], [0.2, 0.5, 0.3]);
    let (mut gx, mut gy) = ([0.0; 2], [0.0; 3]);
    p.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
    let (mut bx, mut by) = ([0.0; 2], [0.0; 3]);
    let mut scratch = p.scratch();
    p.batch_gradients(0..p.spec().n, &x, &y, &mut bx, &mut by, &mut scratch)
        .unwrap();
    for (a, b) in gx.iter().chain(&gy).zip(bx.iter().chain(&by)) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
    // And the gradient is the value's: central differences.
    let h = 1e-6;
    for i in 0..2 {
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let fd = (p.value(&xp, &y).unwrap() - p.value(&xm, &y).unwrap()) / (2.0 * h);
        assert!((fd - gx[i]).abs() < 1e-7, "x[{i}]: {fd} vs {}", gx[i]);
    }
    for j in 0..3 {
        let (mut yp, mut ym) = (y, y);
        yp[j] += h;
        ym[j] -= h;
        let fd = (p.value(&x, &yp).unwrap() - p.value(&x, &ym).unwrap()) / (2.0 * h);
        assert!((fd - gy[j]).abs() < 1e-7, "y[{j}]: {fd} vs {}", gy[j]);
    }
}

#[test]
fn bad_settings_are_errors_naming_the_field() {
    let ok = spec(DroLoss::Logistic, 0.0, 0.0);
    let field = |s: DroSpec| GroupDro::new(s).unwrap_err().field().map(String::from);
    assert_eq!(field(DroSpec { d: 0, ..ok }).as_deref(), Some("d"));
    assert_eq!(field(DroSpec { n: 0, ..ok }).as_deref(), Some("n"));
    assert_eq!(
        field(DroSpec {
            radius: f64::NAN,
            ..ok
        })
        .as_deref(),
        Some("radius")
    );
    assert_eq!(
        field(DroSpec { bound: -1.0, ..ok }).as_deref(),
        Some("entry_bound")
    );
    assert_eq!(field(DroSpec { mu_y: -0.1, ..ok }).as_deref(), Some("mu_y"));
    let p = GroupDro::new(ok).unwrap();
    let (mut gx, mut gy) = ([0.0; 2], [0.0; 3]);
    assert!(
        p.duality_gap(&[0.0], &[1.0, 0.0, 0.0], &mut gx[..1], &mut gy)
            .is_err()
    );
    assert!(p.value(&[f64::NAN, 0.0], &[1.0, 0.0, 0.0]).is_err());
    let mut scratch = p.scratch();
    assert!(
        p.add_record_gradients(
            ok.n,
            &[0.0; 2],
            &[1.0, 0.0, 0.0],
            1.0,
            &mut gx,
            &mut gy,
            &mut scratch
        )
        .is_err()
    );
}

/// Algorithm 4's batch value over every record is the game's value, and over one record it is
/// that record's f: the mean the selection scores candidates by.
#[test]
fn the_batch_value_is_the_mean_of_the_records_f() {
    for domain in [DroDomain::L2Ball, DroDomain::Simplex] {
        let p = GroupDro::new(DroSpec {
            domain,
            ..spec(DroLoss::Squares, 0.3, 0.2)
        })
        .unwrap();
        let (x, y) = ([0.3, 0.7], [0.2, 0.5, 0.3]);
        let mut scratch = p.scratch();
        let all = p.batch_value(0..p.spec().n, &x, &y, &mut scratch).unwrap();
        assert!((all - p.value(&x, &y).unwrap()).abs() < 1e-12, "{all}");
        let recs = records(&p);
        let (a, rest) = recs[5].split_at(2);
        let g = rest[1] as usize;
        let l = 0.5 * (a[0] * x[0] + a[1] * x[1] - rest[0]).powi(2);
        let pull: f64 = y.iter().map(|v| (v - 1.0 / 3.0).powi(2)).sum();
        let one = 0.5 * 0.3 * dot(&x, &x) + y[g] * l / GROUP_SHARES[g] - 0.5 * 0.2 * pull;
        let got = p.batch_value(5..6, &x, &y, &mut scratch).unwrap();
        assert!((got - one).abs() < 1e-12, "{got} vs {one}");
        assert!(p.batch_value(5..5, &x, &y, &mut scratch).is_err());
        assert!(
            p.batch_value(0..p.spec().n + 1, &x, &y, &mut scratch)
                .is_err()
        );
    }
}

/// The audit's planted record: features ±c·e₁, label +1 or +c, the smallest group for +1 and
/// the largest for −1; a thousand times c when heavy records are left unclipped; every other
/// record as it was.
#[test]
fn the_planted_record_sits_at_the_declared_extremes() {
    let s = spec(DroLoss::Squares, 0.0, 0.0);
    let plain = records(&GroupDro::new(s).unwrap());
    let mut buf = vec![0.0; 4];
    for (sign, group) in [(1.0, 2.0), (-1.0, 0.0)] {
        let p = GroupDro::with_planted_record(s, sign).unwrap();
        p.fill_record(0, &mut buf);
        assert_eq!(buf, [sign, 0.0, 1.0, group]);
        assert_eq!(records(&p)[1..], plain[1..]);
    }
    let bare = DroSpec {
        law: DroLaw::Heavy {
            tail: Tail::StudentT { nu: 3.0 },
            scale: 1.0,
        },
        clip: false,
        ..s
    };
    GroupDro::with_planted_record(bare, -1.0)
        .unwrap()
        .fill_record(0, &mut buf);
    assert_eq!(buf, [-1000.0, 0.0, 1000.0, 0.0]);
    assert!(GroupDro::with_planted_record(s, 0.5).is_err());
}

/// On the simplex the declared constants use its reach 1 (|aᵀx| ≤ ‖a‖_∞‖x‖₁ ≤ c), not the
/// ball's radius, and L₂ is declared from c and π alone, for either set.
#[test]
fn the_simplexs_constants_use_its_reach_and_declare_the_second_order_bound() {
    let ball = spec(DroLoss::Logistic, 0.0, 0.0);
    let simplex = DroSpec {
        domain: DroDomain::Simplex,
        ..ball
    };
    assert_eq!(simplex.x_domain(), DomainKind::Simplex);
    assert_eq!(simplex.reach(), 1.0);
    // Logistic at c = 1, π_min = 0.2: L₀ = max(1/0.2, (1 + ln 2)/0.2) on the simplex.
    let expected = (1.0 + std::f64::consts::LN_2) / 0.2;
    assert!((simplex.constants().linf_lipschitz - expected).abs() < 1e-12);
    assert!(ball.constants().linf_lipschitz > simplex.constants().linf_lipschitz);
    // L₂ = max(c³/(6√3), c²/4)/π_min = 0.25/0.2 for the logistic loss at c = 1.
    assert!((simplex.constants().second_order - 1.25).abs() < 1e-12);
    assert_eq!(
        simplex.constants().second_order,
        ball.constants().second_order
    );
}
