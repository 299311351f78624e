use super::*;
use crate::rng::{Stream, seeded};

fn spec(law: AucLaw, clip: bool) -> AucSpec {
    AucSpec {
        d: 2,
        n: 200,
        seed: 11,
        radius: 1.5,
        bound: 1.0,
        law,
        clip,
    }
}

const HEAVY: AucLaw = AucLaw::Heavy {
    tail: Tail::StudentT { nu: 2.5 },
    scale: 1.0,
};

fn records(g: &AucGame) -> Vec<Vec<f64>> {
    (0..g.spec().n)
        .map(|i| {
            let mut buf = vec![0.0; g.spec().d + 1];
            g.fill_record(i, &mut buf);
            buf
        })
        .collect()
}

/// f̂ computed directly from the stored records, as the module doc's per-record f states it.
fn brute_value(g: &AucGame, recs: &[Vec<f64>], x: &[f64], alpha: f64) -> f64 {
    let d = g.spec().d;
    let (p, q) = (CLASS_PRIOR, 1.0 - CLASS_PRIOR);
    let (s, t) = (x[d], x[d + 1]);
    let mut total = 0.0;
    for r in recs {
        let score = dot(&r[..d], &x[..d]);
        total += if r[d] > 0.0 {
            q * (score - s).powi(2) - 2.0 * (1.0 + alpha) * q * score
        } else {
            p * (score - t).powi(2) + 2.0 * (1.0 + alpha) * p * score
        } - p * q * alpha * alpha;
    }
    total / recs.len() as f64
}

fn random_point(rng: &mut DpRng, g: &AucGame) -> (Vec<f64>, Vec<f64>) {
    let (dx, _) = g.spec().dims();
    let mut x: Vec<f64> = (0..dx).map(|_| 6.0 * rng.random::<f64>() - 3.0).collect();
    let mut y = vec![8.0 * rng.random::<f64>() - 4.0];
    g.x_domain().project(&mut x);
    g.y_domain().project(&mut y);
    (x, y)
}

#[test]
fn records_are_deterministic_per_seed_and_index_and_within_the_declared_bound() {
    for (law, clip) in [(AucLaw::Bounded, true), (HEAVY, true)] {
        let g = AucGame::new(spec(law, clip)).unwrap();
        let again = AucGame::new(spec(law, clip)).unwrap();
        assert_eq!(records(&g), records(&again));
        // Record i alone, out of order, is the same record.
        let mut buf = vec![0.0; 3];
        again.fill_record(57, &mut buf);
        assert_eq!(buf, records(&g)[57]);
        let other = AucGame::new(AucSpec {
            seed: 12,
            ..spec(law, clip)
        })
        .unwrap();
        assert_ne!(records(&g), records(&other));
        for r in records(&g) {
            assert!(norm2(&r[..2]) <= 1.0 + 1e-12, "{r:?}");
            assert!(r[2] == 1.0 || r[2] == -1.0);
        }
        // The declared prior, not a count: about 30% positives.
        let positives = records(&g).iter().filter(|r| r[2] > 0.0).count();
        assert!((30..=90).contains(&positives), "{positives}");
    }
    // Unclipped heavy records break the bound (the demonstration), and say so.
    let bare = AucGame::new(spec(HEAVY, false)).unwrap();
    assert!(records(&bare).iter().any(|r| norm2(&r[..2]) > 1.0));
    assert!(bare.spec().leak().is_some());
    assert!(spec(HEAVY, true).leak().is_none());
}

#[test]
fn moments_gradients_match_records_and_finite_differences() {
    let g = AucGame::new(spec(HEAVY, true)).unwrap();
    let recs = records(&g);
    let mut rng = seeded(3, Stream::Noise);
    let mut scratch = g.scratch();
    for _ in 0..20 {
        let (x, y) = random_point(&mut rng, &g);
        let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0]);
        let v = g.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
        assert!((v - brute_value(&g, &recs, &x, y[0])).abs() < 1e-12);
        let (mut bx, mut by) = (vec![0.0; 4], vec![0.0]);
        g.batch_gradients(0..g.spec().n, &x, &y, &mut bx, &mut by, &mut scratch)
            .unwrap();
        for (a, b) in gx.iter().chain(&gy).zip(bx.iter().chain(&by)) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        let h = 1e-6;
        for i in 0..4 {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[i] += h;
            xm[i] -= h;
            let fd =
                (brute_value(&g, &recs, &xp, y[0]) - brute_value(&g, &recs, &xm, y[0])) / (2.0 * h);
            assert!((fd - gx[i]).abs() < 1e-7, "x[{i}]: {fd} vs {}", gx[i]);
        }
        let fd = (brute_value(&g, &recs, &x, y[0] + h) - brute_value(&g, &recs, &x, y[0] - h))
            / (2.0 * h);
        assert!((fd - gy[0]).abs() < 1e-7);
    }
}

/// L bounds every record's gradient at every point of X × Y, ℓ every record's gradient change,
/// and μᵧ = 2pq is every record's curvature in α: checked at random points and at the corners
/// that attain the bounds. A declared L that is too small (say, without the 4Rc of |wᵀa − s|
/// + |1 + α|) fails here.
#[test]
fn declared_constants_bound_every_record() {
    for (law, bound, radius) in [(AucLaw::Bounded, 1.0, 1.5), (HEAVY, 2.0, 0.7)] {
        let s = AucSpec {
            bound,
            radius,
            ..spec(law, true)
        };
        let g = AucGame::new(s).unwrap();
        let c = s.constants();
        let (d, cap) = (s.d, radius * bound);
        let mut rng = seeded(5, Stream::Noise);
        let mut scratch = g.scratch();
        let mut largest: f64 = 0.0;
        let grad = |i: usize, x: &[f64], y: &[f64], scratch: &mut RecordScratch| {
            let (mut gx, mut gy) = (vec![0.0; d + 2], vec![0.0]);
            g.add_record_gradients(i, x, y, 1.0, &mut gx, &mut gy, scratch)
                .unwrap();
            gx.extend(gy);
            gx
        };
        for i in 0..s.n {
            let mut buf = vec![0.0; d + 1];
            g.fill_record(i, &mut buf);
            let a = &buf[..d];
            // The corner of the bound: w against a at the radius, the offset and α at the far end.
            let sign = buf[d];
            let mut x: Vec<f64> = a.iter().map(|v| -sign * radius * v / norm2(a)).collect();
            x.extend([sign * cap, sign * cap]);
            let y = [2.0 * cap * sign];
            for (x, y) in [(x, y.to_vec()), random_point(&mut rng, &g)] {
                let gr = grad(i, &x, &y, &mut scratch);
                largest = largest.max(norm2(&gr));
                assert!(norm2(&gr) <= c.lipschitz * (1.0 + 1e-12), "record {i}");
                let (x2, y2) = random_point(&mut rng, &g);
                let gr2 = grad(i, &x2, &y2, &mut scratch);
                let diff: Vec<f64> = gr.iter().zip(&gr2).map(|(a, b)| a - b).collect();
                let dz: Vec<f64> = x
                    .iter()
                    .chain(&y)
                    .zip(x2.iter().chain(&y2))
                    .map(|(a, b)| a - b)
                    .collect();
                assert!(norm2(&diff) <= c.smoothness * norm2(&dz) * (1.0 + 1e-12));
                // −∂_α f is 2pq-strongly monotone in α: exactly linear with slope −2pq.
                let moved = [y[0] * 0.5];
                let gm = grad(i, &x, &moved, &mut scratch);
                let slope = (gr[d + 2] - gm[d + 2]) / (y[0] - moved[0]);
                assert!((slope + c.mu_y).abs() < 1e-9 || y[0] == 0.0, "{slope}");
            }
        }
        // The bound is nearly attained: a record at ‖a‖ ≈ c reaches it.
        assert!(largest >= 0.4 * c.lipschitz, "{largest} vs {}", c.lipschitz);
        assert_eq!((c.mu_x, c.mu_y), (0.0, 2.0 * 0.3 * 0.7));
    }
}

/// The gap bracket against brute force on a tiny instance: the exact upper side is the max
/// over a fine α grid, the lower side at most a brute-force min over x (projected gradient on
/// finite differences of the stored records' value), and the Frank–Wolfe term closes the
/// bracket (the inner solve is exact up to rounding).
#[test]
fn gap_bracket_contains_the_brute_force_gap() {
    let g = AucGame::new(AucSpec {
        n: 60,
        ..spec(AucLaw::Bounded, true)
    })
    .unwrap();
    let recs = records(&g);
    let cap = 2.0 * 1.5 * 1.0;
    let mut rng = seeded(9, Stream::Noise);
    for _ in 0..6 {
        let (x, y) = random_point(&mut rng, &g);
        let b = g.bracket(&x, &y).unwrap();
        let grid_max = (0..=6000)
            .map(|k| brute_value(&g, &recs, &x, -cap + 2.0 * cap * k as f64 / 6000.0))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(
            b.upper >= grid_max - 1e-12 && b.upper - grid_max < 1e-5,
            "{b:?} {grid_max}"
        );
        // min over x: 4000 projected gradient steps from 0 on finite differences.
        let mut z = vec![0.0; 4];
        let h = 1e-6;
        for _ in 0..4000 {
            let mut gr = vec![0.0; 4];
            for (i, gi) in gr.iter_mut().enumerate() {
                let (mut zp, mut zm) = (z.clone(), z.clone());
                zp[i] += h;
                zm[i] -= h;
                *gi = (brute_value(&g, &recs, &zp, y[0]) - brute_value(&g, &recs, &zm, y[0]))
                    / (2.0 * h);
            }
            axpy(-0.3, &gr, &mut z);
            g.x_domain().project(&mut z);
        }
        let brute_min = brute_value(&g, &recs, &z, y[0]);
        assert!(b.inner - b.fw <= brute_min + 1e-10, "{b:?} vs {brute_min}");
        assert!(b.inner <= brute_min + 1e-9, "{b:?} vs {brute_min}");
        assert!(b.fw < 1e-9, "{b:?}");
        let (lo, hi) = b.range();
        assert!(lo <= grid_max - brute_min + 1e-5 && grid_max - brute_min <= hi + 1e-9);
        let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0]);
        let gap = g.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
        assert!((gap.gap() - hi).abs() <= 1e-12 * hi, "{gap:?} vs {hi}");
        assert!(
            gap.gap() > 1e-3,
            "a random point is far from the saddle: {gap:?}"
        );
    }
}

#[test]
fn auc_readout_counts_ordered_pairs() {
    let g = AucGame::new(AucSpec {
        n: 80,
        ..spec(HEAVY, true)
    })
    .unwrap();
    let recs = records(&g);
    for w in [[1.0, 0.0], [0.3, -2.0], [0.0, 0.0]] {
        let (mut good, mut pairs) = (0.0, 0.0);
        for p in recs.iter().filter(|r| r[2] > 0.0) {
            for n in recs.iter().filter(|r| r[2] < 0.0) {
                let (sp, sn) = (dot(&p[..2], &w), dot(&n[..2], &w));
                good += if sp > sn {
                    1.0
                } else if sp == sn {
                    0.5
                } else {
                    0.0
                };
                pairs += 1.0;
            }
        }
        assert!((g.auc(&w).unwrap() - good / pairs).abs() < 1e-12);
    }
    // The classes are shifted along v: scoring by v ranks most pairs correctly.
    let v = g.direction.clone();
    assert!(g.auc(&v).unwrap() > 0.6);
    assert!(g.auc(&[1.0]).is_err());
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    let ok = spec(AucLaw::Bounded, true);
    for (bad, field) in [
        (AucSpec { d: 0, ..ok }, "d"),
        (AucSpec { n: 0, ..ok }, "n"),
        (
            AucSpec {
                radius: f64::NAN,
                ..ok
            },
            "radius",
        ),
        (AucSpec { bound: 0.0, ..ok }, "entry_bound"),
        (
            AucSpec {
                law: AucLaw::Heavy {
                    tail: Tail::StudentT { nu: 2.0 },
                    scale: -1.0,
                },
                ..ok
            },
            "feature_scale",
        ),
    ] {
        assert_eq!(AucGame::new(bad).unwrap_err().field(), Some(field));
    }
    let g = AucGame::new(ok).unwrap();
    let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0]);
    assert!(g.duality_gap(&[0.0; 3], &[0.0], &mut gx, &mut gy).is_err());
    assert!(g.value(&[f64::NAN, 0.0, 0.0, 0.0], &[0.0]).is_err());
    let mut scratch = g.scratch();
    assert!(
        g.add_record_gradients(200, &[0.0; 4], &[0.0], 1.0, &mut gx, &mut gy, &mut scratch)
            .is_err()
    );
}
