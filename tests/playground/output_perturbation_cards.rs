//! The page's metadata for the output-perturbation family: for each algorithm a
//! plain-words card, the guarantee and noise scale from declared constants alone, and the theory
//! bound as a function of n and ε — checked against the plans they summarise and against measured
//! excess risk, so a card or curve that drifts from the code fails here.

use std::sync::Arc;

use dp_playground::algo::byoa::{
    self, ByoaGaussian, ByoaSettings, plan_algorithm_1, plan_algorithm_1_declared, schedule,
};
use dp_playground::algo::exponential_grid::{self, GridExponential, GridSettings};
use dp_playground::algo::output_perturbation::{
    self, ObjectiveDeclaration, OutputPerturbation, Settings, plan, theory_bound,
};
use dp_playground::data::{ClassificationSpec, clip_features, generate_classification};
use dp_playground::domain::L2Ball;
use dp_playground::loss::{Glm, Loss, Regulariser};
use dp_playground::objective::Objective;
use dp_playground::reference;
use dp_playground::rng::{Stream, seeded};
use dp_playground::solver::SolverKind;

fn problem(glm: Glm, n: usize, d: usize, l2: f64, radius: f64) -> Objective {
    let spec = ClassificationSpec {
        n,
        d,
        feature_scale: 1.0,
        signal: 2.0,
    };
    let mut data = generate_classification(&spec, &mut seeded(9, Stream::Data)).unwrap();
    clip_features(&mut data, 1.0);
    Objective::with_loss(
        Arc::new(data),
        Loss::erm(glm),
        Regulariser::ridge(l2),
        Box::new(L2Ball { radius }),
        1.0,
    )
    .unwrap()
}

#[test]
fn every_card_names_its_paper_algorithm_and_what_the_plot_shows() {
    let cards = [
        (
            output_perturbation::CARD,
            "Lowy & Razaviyayn 2021, Algorithm 1",
        ),
        (
            output_perturbation::CARD_REGULARISED,
            "Lowy & Razaviyayn 2021, Algorithm 6",
        ),
        (byoa::CARD_ALGORITHM_1, "Zhang et al. 2022, Algorithm 1"),
        (byoa::CARD_ALGORITHM_2, "Zhang et al. 2022, Algorithm 2"),
        (
            exponential_grid::CARD,
            "Lowy & Razaviyayn 2021, Algorithm 9",
        ),
    ];
    for (card, citation) in cards {
        assert!(card.contains(citation), "{citation}: {card}");
        // Assumptions, guarantee, rate and what the plot should show, in plain words.
        for word in ["DP", "plot should show"] {
            assert!(card.contains(word), "{citation} lacks {word:?}");
        }
        assert!(
            !card.contains("  "),
            "{citation}: a line continuation left a double space"
        );
    }
    for kind in [
        SolverKind::Gd,
        SolverKind::Agd,
        SolverKind::Sgd,
        SolverKind::Svrg,
        SolverKind::Katyusha,
        SolverKind::Subgradient,
        SolverKind::StochasticSubgradient,
    ] {
        let card = kind.card();
        assert!(card.ends_with('.') && card.len() > 60, "{kind:?}");
    }
}

#[test]
fn the_theory_curve_is_the_plans_bound_and_bounds_the_measured_risk() {
    // Logistic + ridge 0.5 on a ball of radius 5 (interior optimum), d = 2, δ = 0, ε = 2.
    // At the configuration's own (n, ε) the curve is (β/2)(ρ² + E‖z‖²) of its plan; over n it falls
    // exactly as n⁻² (α ∝ n⁻², every length ∝ n⁻¹); it decreases in ε; and the mean excess
    // empirical risk of 200 seeded releases is below it.
    let (n, eps) = (400, 2.0);
    let obj = problem(Glm::Logistic, n, 2, 0.5, 5.0);
    let declared = ObjectiveDeclaration::of(&obj).unwrap();
    let settings = Settings::new(eps, 0.0);
    let p = plan(declared, settings).unwrap();
    let own = theory_bound(declared, settings, n, eps).unwrap();
    let expected = 0.5 * declared.smoothness * (p.radius * p.radius + p.noise.mean_square_norm(2));
    assert!(
        (own - expected).abs() <= 1e-15 * expected,
        "{own} vs {expected}"
    );
    let twice = theory_bound(declared, settings, 2 * n, eps).unwrap();
    assert!((own / twice - 4.0).abs() < 1e-9, "{}", own / twice);
    let more_private = theory_bound(declared, settings, n, eps / 2.0).unwrap();
    assert!(more_private > own);

    let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
    let runs = 200;
    let mean = (0..runs)
        .map(|seed| {
            let mut alg =
                OutputPerturbation::new(settings, &obj, seeded(seed, Stream::Noise), true).unwrap();
            obj.value(alg.run(&obj)) - reference.value
        })
        .sum::<f64>()
        / runs as f64;
    println!("measured mean excess {mean:.3e} ≤ curve {own:.3e}");
    assert!(mean <= own, "{mean} > {own}");
}

#[test]
fn the_subgradient_curve_bounds_the_measured_risk_of_a_projected_hinge_release() {
    // Hinge + ridge 0.1, ball R = 1, projected release: L_F(ρ + E‖z‖), L_F = L + μR = 1.1.
    let (n, eps) = (200, 4.0);
    let obj = problem(Glm::Hinge, n, 2, 0.1, 1.0);
    let declared = ObjectiveDeclaration::of(&obj).unwrap();
    let mut settings = Settings::new(eps, 0.0);
    settings.solver = SolverKind::Subgradient;
    settings.project_release = true;
    // α = 1e-2 keeps Prop 3.2's count at 2420 passes (the class-F default would need 96 800).
    settings.alpha = Some(1e-2);
    let p = plan(declared, settings).unwrap();
    let own = theory_bound(declared, settings, n, eps).unwrap();
    let mean_square = p.noise.mean_square_norm(2);
    assert!(own > 1.1 * p.radius && own.is_finite() && mean_square > 0.0);
    let reference = reference::solve(&obj, 1e-12, 200_000).unwrap();
    let runs = 100;
    let mean = (0..runs)
        .map(|seed| {
            let mut alg =
                OutputPerturbation::new(settings, &obj, seeded(seed, Stream::Noise), true).unwrap();
            obj.value(alg.run(&obj)) - reference.value
        })
        .sum::<f64>()
        / runs as f64;
    println!("hinge: measured mean excess {mean:.3e} ≤ curve {own:.3e}");
    assert!(mean <= own, "{mean} > {own}");
}

#[test]
fn zhang_et_al_previews_come_from_declared_constants_alone() {
    // Algorithm 1's plan from the declared constants equals the one read from the objective, and
    // Algorithm 2's schedule needs only (n, d, L, D, ε, δ).
    let obj = problem(Glm::Logistic, 1000, 3, 0.1, 5.0);
    let settings = ByoaSettings::new(0.5, 1e-5);
    let from_objective = plan_algorithm_1(&obj, settings).unwrap();
    let declared = ObjectiveDeclaration::of(&obj).unwrap();
    assert_eq!(
        plan_algorithm_1_declared(declared, settings).unwrap(),
        from_objective
    );
    let mut hinge = declared;
    hinge.smoothness = f64::INFINITY;
    assert_eq!(
        plan_algorithm_1_declared(hinge, settings)
            .unwrap_err()
            .field(),
        Some("loss")
    );
    let s = schedule(4096, 10, 1.0, 1.0, 1.0, 1e-6, None, ByoaGaussian::Paper).unwrap();
    assert_eq!((s.phases, s.n_bar), (12, 341));
    // Zhang et al. 2022 refuses the subgradient solvers (no certificate of its kind).
    let mut sub = settings;
    sub.solver = SolverKind::StochasticSubgradient;
    assert_eq!(
        plan_algorithm_1(&obj, sub).unwrap_err().field(),
        Some("solver")
    );
}

#[test]
fn the_grid_curve_bounds_the_measured_risk_and_matches_the_mechanism() {
    // Hinge + ridge 0.01 in d = 2 on the ball R = 1, 41 points per axis, ε = 1, n = 200.
    let (n, eps, res) = (200, 1.0, 41);
    let obj = problem(Glm::Hinge, n, 2, 0.01, 1.0);
    let settings = GridSettings {
        epsilon: eps,
        resolution: res,
    };
    let l_f = 1.0 + 0.01;
    let bound = exponential_grid::theory_bound(1.0, l_f, 1.0, n, 2, eps, res, true);
    let reference = reference::solve(&obj, 1e-12, 200_000).unwrap();
    let runs = 100;
    let mut mean = 0.0;
    for seed in 0..runs {
        let mut alg =
            GridExponential::new(settings, &obj, seeded(seed, Stream::Noise), true).unwrap();
        assert_eq!(
            alg.sensitivity(),
            exponential_grid::sensitivity(1.0, 1.0, n, true)
        );
        mean += (obj.value(alg.run(&obj)) - reference.value) / runs as f64;
    }
    println!("grid: measured mean excess {mean:.3e} ≤ curve {bound:.3e}");
    assert!(mean <= bound, "{mean} > {bound}");
    // Halving ε doubles the selection term.
    let half = exponential_grid::theory_bound(1.0, l_f, 1.0, n, 2, eps / 2.0, res, true);
    let floor = l_f * (2.0 / 40.0) * 2f64.sqrt() / 2.0;
    assert!(((half - floor) / (bound - floor) - 2.0).abs() < 1e-12);
}
