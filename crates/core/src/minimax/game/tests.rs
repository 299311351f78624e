use super::*;
use crate::linalg::norm2;
use crate::rng::{Stream, seeded};
use rand::RngExt;

fn matrix_game(payoffs: Payoffs, d: usize, n: usize, law: RecordLaw) -> GameSpec {
    GameSpec {
        payoffs,
        dx: d,
        dy: d,
        offset: false,
        mu_x: 0.0,
        mu_y: 0.0,
        x_domain: DomainKind::Simplex,
        y_domain: DomainKind::Simplex,
        n,
        seed: 7,
        entry_bound: 1.0,
        law,
        clip: true,
    }
}

fn ball_game(n: usize, mu: f64) -> GameSpec {
    GameSpec {
        payoffs: Payoffs::Random,
        dx: 3,
        dy: 2,
        offset: true,
        mu_x: mu,
        mu_y: 0.5 * mu,
        x_domain: DomainKind::L2Ball { radius: 1.0 },
        y_domain: DomainKind::L2Ball { radius: 2.0 },
        n,
        seed: 11,
        entry_bound: 1.0,
        law: RecordLaw::Heavy {
            tail: Tail::StudentT { nu: 3.0 },
            scale: 0.5,
        },
        clip: true,
    }
}

/// The base game exactly: heavy records with scale 0 are M₀ itself.
fn exact(payoffs: Payoffs, d: usize) -> StochasticGame {
    let law = RecordLaw::Heavy {
        tail: Tail::Gaussian,
        scale: 0.0,
    };
    StochasticGame::new(matrix_game(payoffs, d, 4, law)).unwrap()
}

fn point(rng: &mut DpRng, domain: &DomainKind, d: usize) -> Vec<f64> {
    // A cube 1.3 times the set's radius, projected: the boundary and the interior both get points.
    let r = 1.3 * domain.radius_in(d);
    let mut v: Vec<f64> = (0..d)
        .map(|_| r * (2.0 * rng.random::<f64>() - 1.0))
        .collect();
    if *domain == DomainKind::Simplex {
        v.iter_mut().for_each(|x| *x = x.abs());
        let s: f64 = v.iter().sum();
        v.iter_mut().for_each(|x| *x /= s);
    } else {
        domain.project(&mut v);
    }
    v
}

#[test]
fn rock_paper_scissors_embedded_has_its_equilibrium_at_uniform_play_of_the_first_three() {
    let game = exact(Payoffs::RockPaperScissors, 10);
    let mut eq = vec![0.0; 10];
    eq[..3].fill(1.0 / 3.0);
    let (mut gx, mut gy) = (vec![0.0; 10], vec![0.0; 10]);
    let gap = game.duality_gap(&eq, &eq, &mut gx, &mut gy).unwrap();
    assert!(gap.gap().abs() < 1e-15, "{gap:?}");
    // Uniform play over all ten is beaten: the dominated strategies cost both players ½·7/10.
    let uniform = vec![0.1; 10];
    let gap = game
        .duality_gap(&uniform, &uniform, &mut gx, &mut gy)
        .unwrap();
    assert!((gap.gap() - 0.7).abs() < 1e-12, "{gap:?}");
    // A pure strategy is exploited by its counter: rock loses ½ to paper.
    let mut rock = vec![0.0; 10];
    rock[0] = 1.0;
    let gap = game.duality_gap(&rock, &eq, &mut gx, &mut gy).unwrap();
    assert!(
        (gap.upper - 0.5).abs() < 1e-15 && gap.lower.abs() < 1e-15,
        "{gap:?}"
    );
}

#[test]
fn the_mean_of_the_record_gradients_is_the_empirical_gradient() {
    for spec in [
        matrix_game(Payoffs::Random, 4, 300, RecordLaw::Rademacher),
        ball_game(300, 0.3),
    ] {
        let game = StochasticGame::new(spec).unwrap();
        let mut rng = seeded(3, Stream::Noise);
        let x = point(&mut rng, &spec.x_domain, spec.dx);
        let y = point(&mut rng, &spec.y_domain, spec.dy);
        let (mut gx, mut gy) = (vec![0.0; spec.dx], vec![0.0; spec.dy]);
        game.value_and_gradients(&x, &y, &mut gx, &mut gy).unwrap();
        let (mut bx, mut by) = (vec![0.0; spec.dx], vec![0.0; spec.dy]);
        let mut scratch = game.scratch();
        game.batch_gradients(0..spec.n, &x, &y, &mut bx, &mut by, &mut scratch)
            .unwrap();
        for (a, b) in gx.iter().chain(&gy).zip(bx.iter().chain(&by)) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}

#[test]
fn records_are_streamed_from_seed_and_index_and_never_stored() {
    let spec = ball_game(50, 0.1);
    let game = StochasticGame::new(spec).unwrap();
    let (x, y) = ([0.2, -0.1, 0.3], [0.5, 0.4]);
    let record = |i: usize, game: &StochasticGame| {
        let (mut gx, mut gy) = (vec![0.0; 3], vec![0.0; 2]);
        let mut scratch = game.scratch();
        game.add_record_gradients(i, &x, &y, 1.0, &mut gx, &mut gy, &mut scratch)
            .unwrap();
        [gx, gy].concat()
    };
    // The same record whatever was asked before it, and a different one at another index or seed.
    let late = record(37, &game);
    let _ = record(3, &game);
    assert_eq!(record(37, &game), late);
    assert_ne!(record(36, &game), late);
    let other = StochasticGame::new(GameSpec { seed: 12, ..spec }).unwrap();
    assert_ne!(record(37, &other), late);
    // Memory: the game holds only dₓdᵧ-sized tables, whatever n is.
    let big = StochasticGame::new(GameSpec { n: 20_000, ..spec }).unwrap();
    assert_eq!(big.mean_payoffs().0.len(), 6);
    assert!(
        big.add_record_gradients(
            20_000,
            &x,
            &y,
            1.0,
            &mut [0.0; 3],
            &mut [0.0; 2],
            &mut big.scratch()
        )
        .is_err()
    );
}

#[test]
fn bounded_records_average_to_the_base_game() {
    // ±1 entries: the mean of n = 20 000 has standard deviation ≤ 1/√n ≈ 0.0071 per entry;
    // 0.04 is 5.7 of them (a false alarm has probability below 1e-6 over the 100 entries).
    let game = StochasticGame::new(matrix_game(
        Payoffs::Random,
        10,
        20_000,
        RecordLaw::Rademacher,
    ))
    .unwrap();
    let worst = game
        .mean_payoffs()
        .0
        .iter()
        .zip(game.base_payoffs().0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 0.04 && worst > 0.0, "{worst}");
}

#[test]
fn clipping_holds_the_declared_bound_and_turning_it_off_breaks_it() {
    let heavy = RecordLaw::Heavy {
        tail: Tail::StudentT { nu: 1.5 },
        scale: 1.0,
    };
    let largest = |clip: bool| {
        let spec = GameSpec {
            clip,
            ..matrix_game(Payoffs::Random, 3, 500, heavy)
        };
        let game = StochasticGame::new(spec).unwrap();
        let mut scratch = game.scratch();
        (0..spec.n)
            .map(|i| {
                game.fill_record(i, &mut scratch.buf);
                scratch.buf.iter().fold(0.0f64, |m, v| m.max(v.abs()))
            })
            .fold(0.0, f64::max)
    };
    assert!(largest(true) <= 1.0);
    assert!(largest(false) > 3.0, "{}", largest(false));
}

#[test]
fn record_gradients_respect_the_declared_constants_in_both_geometries() {
    for spec in [
        matrix_game(Payoffs::Random, 5, 200, RecordLaw::Rademacher),
        ball_game(200, 0.4),
    ] {
        let game = StochasticGame::new(spec).unwrap();
        let k = game.constants();
        let mut rng = seeded(5, Stream::Noise);
        let mut scratch = game.scratch();
        for i in 0..spec.n {
            let x = point(&mut rng, &spec.x_domain, spec.dx);
            let y = point(&mut rng, &spec.y_domain, spec.dy);
            let (mut gx, mut gy) = (vec![0.0; spec.dx], vec![0.0; spec.dy]);
            game.add_record_gradients(i, &x, &y, 1.0, &mut gx, &mut gy, &mut scratch)
                .unwrap();
            let inf = gx.iter().chain(&gy).fold(0.0f64, |m, v| m.max(v.abs()));
            assert!(
                inf <= k.linf_lipschitz * (1.0 + 1e-12),
                "{inf} > {}",
                k.linf_lipschitz
            );
            let l2 = norm2(&gx).hypot(norm2(&gy));
            assert!(l2 <= k.lipschitz * (1.0 + 1e-12), "{l2} > {}", k.lipschitz);
        }
    }
    // The matrix game of González, Guzmán & Paquette 2024: L₀ = c, L₁ = c, L₂ = 0.
    let k = matrix_game(Payoffs::Random, 5, 1, RecordLaw::Rademacher).constants();
    assert_eq!(
        (k.linf_lipschitz, k.l1_smoothness, k.second_order),
        (1.0, 1.0, 0.0)
    );
}

#[test]
fn the_regularised_gap_is_attained_and_dominates_every_feasible_deviation() {
    for mu in [0.0, 0.3, 5.0] {
        let spec = ball_game(100, mu);
        let game = StochasticGame::new(spec).unwrap();
        let mut rng = seeded(9, Stream::Noise);
        let (mut gx, mut gy) = (vec![0.0; 3], vec![0.0; 2]);
        for _ in 0..30 {
            let x = point(&mut rng, &spec.x_domain, 3);
            let y = point(&mut rng, &spec.y_domain, 2);
            let gap = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
            let v = game.value(&x, &y).unwrap();
            assert!(
                gap.lower <= v + 1e-12 && v <= gap.upper + 1e-12,
                "{gap:?} {v}"
            );
            let mut best_up = f64::NEG_INFINITY;
            let mut best_low = f64::INFINITY;
            for _ in 0..3000 {
                let yp = point(&mut rng, &spec.y_domain, 2);
                let xp = point(&mut rng, &spec.x_domain, 3);
                best_up = best_up.max(game.value(&x, &yp).unwrap());
                best_low = best_low.min(game.value(&xp, &y).unwrap());
            }
            assert!(best_up <= gap.upper + 1e-12 && best_low >= gap.lower - 1e-12);
            // Random search (3000 points) comes within 0.1 of both: the bound is attained.
            assert!(
                gap.upper - best_up < 0.1 && best_low - gap.lower < 0.1,
                "{gap:?} {best_up} {best_low}"
            );
        }
    }
}

#[test]
fn bad_specs_name_their_field() {
    let ok = matrix_game(Payoffs::RockPaperScissors, 3, 10, RecordLaw::Rademacher);
    let field = |spec: GameSpec| {
        StochasticGame::new(spec)
            .err()
            .and_then(|e| e.field().map(String::from))
    };
    assert_eq!(field(GameSpec { dx: 2, ..ok }).as_deref(), Some("d"));
    assert_eq!(field(GameSpec { n: 0, ..ok }).as_deref(), Some("n"));
    assert_eq!(
        field(GameSpec { mu_x: -1.0, ..ok }).as_deref(),
        Some("mu_x")
    );
    assert_eq!(
        field(GameSpec {
            entry_bound: 0.3,
            ..ok
        })
        .as_deref(),
        Some("entry_bound")
    );
    assert_eq!(
        field(GameSpec {
            entry_bound: f64::NAN,
            ..ok
        })
        .as_deref(),
        Some("entry_bound")
    );
    assert!(StochasticGame::new(ok).is_ok());
}

#[test]
fn the_declared_equilibrium_of_rock_paper_scissors_holds_up_to_its_regulariser_bound() {
    let regularised = |mu: f64| {
        let law = RecordLaw::Heavy {
            tail: Tail::Gaussian,
            scale: 0.0,
        };
        let spec = GameSpec {
            mu_x: mu,
            mu_y: mu,
            ..matrix_game(Payoffs::RockPaperScissors, 5, 4, law)
        };
        StochasticGame::new(spec).unwrap()
    };
    let (mut gx, mut gy) = (vec![0.0; 5], vec![0.0; 5]);
    for mu in [0.0, 0.5, 1.5] {
        let game = regularised(mu);
        let (x, y) = game.base_equilibrium().expect("declared");
        let gap = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
        assert!(gap.gap().abs() < 1e-12, "μ = {mu}: {gap:?}");
    }
    // Past 3/2 the regulariser makes the dominated strategies worth playing: no declared
    // equilibrium, and uniform play of three is indeed beaten.
    let game = regularised(1.8);
    assert!(game.base_equilibrium().is_none());
    let mut three = vec![0.0; 5];
    three[..3].fill(1.0 / 3.0);
    let gap = game.duality_gap(&three, &three, &mut gx, &mut gy).unwrap();
    assert!(gap.gap() > 1e-3, "{gap:?}");
    // A random game has no closed form.
    assert!(exact(Payoffs::Random, 4).base_equilibrium().is_none());
}

#[test]
fn planted_neighbours_differ_in_record_zero_alone_by_twice_the_bound_everywhere() {
    use crate::minimax::records::RecordGame;
    let spec = GameSpec {
        offset: true,
        x_domain: DomainKind::L2Ball { radius: 1.0 },
        y_domain: DomainKind::L2Ball { radius: 1.0 },
        ..matrix_game(Payoffs::Random, 4, 50, RecordLaw::Rademacher)
    };
    let [d, d_prime] =
        [1.0, -1.0].map(|sign| StochasticGame::with_planted_record(spec, sign).unwrap());
    let c = spec.entry_bound;
    let (m, b) = d.mean_payoffs();
    let (m2, b2) = d_prime.mean_payoffs();
    // (M̄ − M̄′)·n = M₀ − M₀′ = 2c·pattern: every entry moves by exactly 2c, signs not constant.
    let diff: Vec<f64> = m
        .iter()
        .chain(b)
        .zip(m2.iter().chain(b2))
        .map(|(a, b)| (a - b) * 50.0)
        .collect();
    assert!(
        diff.iter().all(|v| (v.abs() - 2.0 * c).abs() < 1e-12),
        "{diff:?}"
    );
    assert!(diff.iter().any(|v| *v > 0.0) && diff.iter().any(|v| *v < 0.0));
    // Every other record is the generator's own, on both sides.
    let plain = StochasticGame::new(spec).unwrap();
    let mut scratch = plain.scratch();
    let (x, y) = (vec![0.3, -0.2, 0.1, 0.4], vec![0.5, 0.1, -0.3, 0.2]);
    for i in 1..50 {
        let grads = |game: &StochasticGame, scratch: &mut _| {
            let (mut gx, mut gy) = (vec![0.0; 4], vec![0.0; 4]);
            game.add_record_gradients(i, &x, &y, 1.0, &mut gx, &mut gy, scratch)
                .unwrap();
            (gx, gy)
        };
        let want = grads(&plain, &mut scratch);
        assert_eq!(grads(&d, &mut scratch), want, "record {i}");
        assert_eq!(grads(&d_prime, &mut scratch), want, "record {i}");
    }
    assert!(StochasticGame::with_planted_record(spec, 0.5).is_err());
}

#[test]
fn query_release_is_scored_by_the_largest_query_error_and_the_population_histogram_nearly_solves_it()
 {
    let (dx, dy) = crate::minimax::query_release::dims(3);
    let spec = GameSpec {
        payoffs: Payoffs::QueryRelease { attributes: 3 },
        dx,
        dy,
        offset: true,
        ..matrix_game(Payoffs::Random, 1, 20_000, RecordLaw::Rademacher)
    };
    let game = StochasticGame::new(spec).unwrap();
    let (x, y) = game.base_equilibrium().expect("declared at μ = 0");
    let (mut gx, mut gy) = (vec![0.0; dx], vec![0.0; dy]);
    let gap = game.duality_gap(&x, &y, &mut gx, &mut gy).unwrap();
    // y* = uniform makes f̂(·, y*) ≡ 0, so the gap is the largest query error of the population
    // histogram on the sample: each answer a mean of n ±1 values, off by O(√(log|Q| / n)) ≈ 0.015.
    assert!(gap.lower.abs() < 1e-12, "{gap:?}");
    assert!(gap.upper > 0.0 && gap.upper < 0.04, "{gap:?}");
    // The uniform histogram ignores the copied attribute pair: its largest error is ≥ 0.3.
    let uniform = vec![1.0 / dx as f64; dx];
    let gap = game.duality_gap(&uniform, &y, &mut gx, &mut gy).unwrap();
    assert!(gap.upper > 0.3, "{gap:?}");
    // Records are the queries' answers of one universe element: every entry ±1.
    let mut scratch = game.scratch();
    game.fill_record(7, &mut scratch.buf);
    assert!(scratch.buf.iter().all(|v| v.abs() == 1.0));
    // A mis-sized query release is refused at a field.
    let wrong = GameSpec { dx: 5, ..spec };
    assert_eq!(
        StochasticGame::new(wrong).unwrap_err().field(),
        Some("game")
    );
    let wide = GameSpec {
        payoffs: Payoffs::QueryRelease { attributes: 9 },
        ..spec
    };
    assert_eq!(StochasticGame::new(wide).unwrap_err().field(), Some("d"));
}

#[test]
fn unclipped_heavy_records_are_a_leak_and_the_planted_record_goes_past_the_bound() {
    let heavy = RecordLaw::Heavy {
        tail: Tail::StudentT { nu: 2.5 },
        scale: 1.0,
    };
    let clipped = matrix_game(Payoffs::Random, 3, 20, heavy);
    let unclipped = GameSpec {
        clip: false,
        ..clipped
    };
    assert!(clipped.leak().is_none());
    assert!(unclipped.leak().unwrap().contains("NOT clipped"));
    // Bounded records are within ±c whatever the switch says.
    let bounded = GameSpec {
        clip: false,
        ..matrix_game(Payoffs::Random, 3, 20, RecordLaw::Rademacher)
    };
    assert!(bounded.leak().is_none());
    let largest = |spec: GameSpec| {
        let planted = StochasticGame::with_planted_record(spec, 1.0).unwrap();
        let (m, _) = planted.mean_payoffs();
        let plain = StochasticGame::new(spec).unwrap();
        m.iter()
            .zip(plain.mean_payoffs().0)
            .map(|(a, b)| (a - b).abs() * 20.0)
            .fold(0.0, f64::max)
    };
    // The planted record replaces record 0: within 2c of it when clipped, far past it when not.
    assert!(largest(clipped) <= 2.0 + 1e-12);
    assert!(largest(unclipped) > 40.0);
}
