//! Every algorithm honours the neighbouring
//! relation asked for (with a calibration that really uses it) or refuses it at a control on the
//! page; a demonstration that voids the guarantee says NOT PRIVATE in its preview, before it runs.

use std::collections::BTreeSet;

use dp_playground::algo::registry;
use dp_playground::config::menu;
use dp_playground::config::{AlgorithmKind, DomainChoice, RunConfig, SvrgNoiseChoice};
use dp_playground::data::Tail;
use dp_playground::privacy::Relation;
use dp_playground::session::{Session, preview};

/// The settings under which every algorithm applies (logistic loss, a ridge; objective
/// perturbation needs the unconstrained domain, the phased method ε ≤ 1).
fn every_algorithm_config(kind: AlgorithmKind) -> RunConfig {
    // A game's family gets the page's default game (rock–paper–scissors, d = 3).
    let problem = registry::family(kind).solves[0];
    let saddle = problem == dp_playground::config::ProblemKind::Saddle;
    let config = RunConfig {
        problem,
        d: if saddle { 3 } else { 2 },
        n: 400,
        steps: 12,
        l2: 0.1,
        algorithm: kind,
        // Lowy 2026's deterministic variant takes polyhedral losses only (Corollary D.7).
        loss: if kind == AlgorithmKind::DeterministicDoubleOutputPerturbation {
            dp_playground::loss::Glm::absolute()
        } else {
            RunConfig::default().loss
        },
        domain: match kind {
            AlgorithmKind::ObjectivePerturbation => DomainChoice::Unconstrained,
            AlgorithmKind::PrivateSco => DomainChoice::Simplex,
            _ => DomainChoice::L2Ball,
        },
        // González et al.'s Algorithm 4 splits n = 400 into candidate parts of 14 records,
        // where Algorithm 3 takes a step only for ε above about 11 (below, the plan refuses ε).
        epsilon: match kind {
            AlgorithmKind::ByoaPhased => 1.0,
            AlgorithmKind::BoostedSmd => 16.0,
            _ => 2.0,
        },
        ..RunConfig::default()
    };
    // A game's needs (Zhang et al.'s moduli μ > 0) are met as the menu meets them.
    if saddle {
        return menu::pick(&config, kind).0;
    }
    config
}

/// Every algorithm, and DP-SVRG(++) in both noise modes.
fn every_variant() -> Vec<RunConfig> {
    let mut all = Vec::new();
    for kind in AlgorithmKind::ALL {
        all.push(every_algorithm_config(kind));
        if matches!(kind, AlgorithmKind::DpSvrg | AlgorithmKind::DpSvrgPlusPlus) {
            all.push(RunConfig {
                svrg_noise: SvrgNoiseChoice::AsPrinted,
                ..every_algorithm_config(kind)
            });
        }
    }
    all
}

/// The fields the page can show an error beside, read from index.html: `showError` in
/// www/page/errors.js puts an error for field `f` into the element `f-error` (or `g-error` for
/// `g.rest`), and the field is a control when the page also has an element with id `f` (the
/// input, select or group).
fn controls_on_the_page() -> BTreeSet<String> {
    let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html"))
        .expect("index.html");
    let ids: BTreeSet<String> = html
        .split("id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(String::from)
        .collect();
    ids.iter()
        .filter_map(|id| id.strip_suffix("-error"))
        .filter(|field| ids.contains(*field))
        .map(String::from)
        .collect()
}

/// The control an error for `field` is shown beside, as www/page/errors.js `showError` resolves it.
fn control_of<'a>(field: &'a str, controls: &BTreeSet<String>) -> Option<&'a str> {
    let head = field.split('.').next().unwrap_or(field);
    [field, head].into_iter().find(|f| controls.contains(*f))
}

fn relation_name(r: Relation) -> &'static str {
    match r {
        Relation::ReplaceOne => "replace-one",
        Relation::AddRemove => "add/remove",
    }
}

#[test]
fn every_algorithm_keeps_or_refuses_the_relation_at_a_control_on_the_page() {
    let controls = controls_on_the_page();
    // The page's own controls, so that the check below cannot pass on an empty list.
    for field in [
        "relation",
        "delta",
        "epsilon",
        "algorithm",
        "steps",
        "l2",
        "loss",
    ] {
        assert!(controls.contains(field), "{field} not found in index.html");
    }
    let mut kept = 0;
    let mut refused_at_relation = Vec::new();
    for base in every_variant() {
        for relation in [Relation::ReplaceOne, Relation::AddRemove] {
            for delta in [0.0, 1e-6] {
                let config = RunConfig {
                    relation,
                    delta,
                    ..base.clone()
                };
                let what = format!(
                    "{:?} ({:?} noise), {}, δ = {delta}",
                    base.algorithm,
                    base.svrg_noise,
                    relation_name(relation)
                );
                match preview(&config) {
                    Ok(p) => {
                        kept += 1;
                        assert_eq!(p.guarantee.relation, relation, "{what}: relation restated");
                        if delta == 0.0 {
                            assert_eq!(p.guarantee.delta, 0.0, "{what}");
                        } else {
                            assert!(p.guarantee.delta <= delta, "{what}: {:?}", p.guarantee);
                        }
                        // The algorithm built on data states the same relation (Session checks
                        // the whole promise against the preview and refuses a mismatch).
                        let s = Session::new(config.clone())
                            .unwrap_or_else(|e| panic!("{what}: previewed but does not run: {e}"));
                        assert_eq!(s.guarantee().relation, relation, "{what}");
                        assert_eq!(s.ledger().guarantee.relation, relation, "{what}");
                    }
                    Err(e) => {
                        let field = e
                            .field()
                            .unwrap_or_else(|| panic!("{what}: an error naming no field: {e}"));
                        assert!(
                            control_of(field, &controls).is_some(),
                            "{what}: the error names `{field}`, which has no control on the page: {e}"
                        );
                        match field {
                            "relation" => {
                                let message = e.to_string();
                                assert!(
                                    message.contains("replace one record")
                                        || message.contains("add or remove one record"),
                                    "{what}: the refusal does not say which relation is supported: {message}"
                                );
                                refused_at_relation.push(what);
                            }
                            "delta" => assert!(
                                delta == 0.0 && !base.algorithm.allows_pure(),
                                "{what}: refused at δ: {e}"
                            ),
                            other => panic!("{what}: refused at `{other}`, not at relation: {e}"),
                        }
                    }
                }
            }
        }
    }
    println!("kept {kept}; refused at relation: {refused_at_relation:#?}");
    // The refusals are exactly the analyses that have no add/remove form here.
    let refused: BTreeSet<String> = refused_at_relation
        .iter()
        .map(|w| w.split(',').next().unwrap_or("").to_string())
        .collect();
    let expected: BTreeSet<String> = [
        "ObjectivePerturbation (Certified noise)",
        "OutputPerturbation (Certified noise)",
        "RegularisedOutputPerturbation (Certified noise)",
        // Lowy & Razaviyayn 2021, Algorithms 10–11: their first stage is output perturbation.
        "Localisation (Certified noise)",
        "LocalisedExponential (Certified noise)",
        "Byoa (Certified noise)",
        "ByoaPhased (Certified noise)",
        "DpSvrg (AsPrinted noise)",
        "DpSvrgPlusPlus (AsPrinted noise)",
        "PrivateSmd (Certified noise)",
        "BiasReducedSmd (Certified noise)",
        "BoostedSmd (Certified noise)",
        "PrivateSco (Certified noise)",
        // Lowy 2026's pure-ε heavy-tail families: n public, a fixed partition into blocks.
        "LocalisedDoubleOutputPerturbation (Certified noise)",
        "LocalisedOutputPerturbation (Certified noise)",
        "PureClippedGd (Certified noise)",
        "OutputPerturbationLipschitzExtension (Certified noise)",
        "EmPgm (Certified noise)",
        "LocalisedApproxEm (Certified noise)",
        "DeterministicDoubleOutputPerturbation (Certified noise)",
        // Zhang et al.'s minimax sensitivities hold for a fixed, public n.
        "ByoaMinimax (Certified noise)",
        "ByoaMinimaxPhased (Certified noise)",
        "ByoaMinimaxCsc (Certified noise)",
        // Algorithm 8's minimiser sensitivity (Zhang et al.'s Lemma 4.3) holds for a public n.
        "AdversarialTraining (Certified noise)",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(refused, expected);
    assert!(
        refused_at_relation.iter().all(|w| w.contains("add/remove")),
        "{refused_at_relation:?}"
    );
}

#[test]
fn an_honoured_relation_changes_the_calibrated_noise() {
    // Honouring is not relabelling: where both relations run, the noise scale (σ, or the
    // exponential mechanism's sensitivity) differs, and add/remove needs less.
    let mut both = 0;
    for base in every_variant() {
        let at = |relation| {
            preview(&RunConfig {
                relation,
                delta: 1e-6,
                ..base.clone()
            })
        };
        let (Ok(ro), Ok(ar)) = (at(Relation::ReplaceOne), at(Relation::AddRemove)) else {
            continue;
        };
        // A non-private baseline draws no noise under either relation.
        if !ro.is_private() {
            continue;
        }
        both += 1;
        println!(
            "{:?}: σ {:.4e} (replace-one) vs {:.4e} (add/remove), ratio {:.3}",
            base.algorithm,
            ro.sigma,
            ar.sigma,
            ro.sigma / ar.sigma
        );
        assert!(
            ar.sigma < 0.9 * ro.sigma,
            "{:?}: σ {} under add/remove against {} under replace-one",
            base.algorithm,
            ar.sigma,
            ro.sigma
        );
        assert!(ar.sensitivity <= ro.sensitivity, "{:?}", base.algorithm);
    }
    // DP-GD, DP-SGD, DP-SVRG, DP-SVRG++, DP-AccMD and the grid mechanism.
    assert_eq!(both, 6);
}

#[test]
fn the_grid_mechanism_under_add_remove_uses_half_the_replace_one_sensitivity() {
    // Scores averaged over the declared n: adding z moves them by (f(w,z) − f(0,z))/n ≤ LR/n.
    let base = every_algorithm_config(AlgorithmKind::ExponentialGrid);
    let at = |relation| {
        preview(&RunConfig {
            relation,
            ..base.clone()
        })
        .unwrap()
    };
    let (ro, ar) = (at(Relation::ReplaceOne), at(Relation::AddRemove));
    assert_eq!(ar.sensitivity, ro.sensitivity / 2.0);
    assert_eq!(ar.guarantee.relation, Relation::AddRemove);
}

#[test]
fn dp_sgd_under_replace_one_is_calibrated_by_group_privacy() {
    // Replace-one = remove + add: the add/remove accountant at (ε/2, δ/(1 + e^{ε/2})) implies the
    // replace-one (ε, δ); the ε spent at the end is the stated ε.
    let config = RunConfig {
        relation: Relation::ReplaceOne,
        ..every_algorithm_config(AlgorithmKind::DpSgd)
    };
    let p = preview(&config).unwrap();
    assert_eq!(p.guarantee.relation, Relation::ReplaceOne);
    assert!(p.guarantee.epsilon <= config.epsilon && p.guarantee.epsilon > 0.99 * config.epsilon);
    assert!(p.guarantee.delta >= config.delta && p.guarantee.delta <= config.delta * (1.0 + 1e-12));
    let mut s = Session::new(config).unwrap();
    let b = s.advance(usize::MAX, || true);
    let spent = *b.epsilon_spent.last().unwrap();
    assert!(
        (spent - p.guarantee.epsilon).abs() < 1e-9 * spent,
        "{spent}"
    );
    let ledger = b.release.unwrap().ledger;
    assert!(ledger.caveats.iter().any(|c| c.contains("group privacy")));
    assert!(
        ledger
            .spends
            .iter()
            .all(|s| s.loss.relation() == Relation::ReplaceOne)
    );
}

// --- item 9: demonstrations say NOT PRIVATE before they run ---------------------------------------

#[test]
fn the_preview_says_not_private_for_every_leak_and_for_as_printed_noise() {
    let mut demonstrations: Vec<RunConfig> = AlgorithmKind::ALL
        .into_iter()
        .filter(|k| k.has_leak())
        .map(|kind| RunConfig {
            leak: true,
            steps: 3,
            ..every_algorithm_config(kind)
        })
        .collect();
    for kind in [AlgorithmKind::DpSvrg, AlgorithmKind::DpSvrgPlusPlus] {
        demonstrations.push(RunConfig {
            svrg_noise: SvrgNoiseChoice::AsPrinted,
            steps: 3,
            ..every_algorithm_config(kind)
        });
    }
    // Four leaky variants of the gradient-perturbation family, private SMD's dense gradients and Zhang et al.'s three
    // minimax iteration caps, Lowy & Razaviyayn's Algorithm 8 with the misprinted
    // sensitivity, DP-SVRG(++) as printed.
    assert_eq!(demonstrations.len(), 12);
    for config in demonstrations {
        let what = format!(
            "{:?} (leak {}, {:?})",
            config.algorithm, config.leak, config.svrg_noise
        );
        let p = preview(&config).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(!p.is_private(), "{what}: the preview claims a private run");
        assert!(
            p.leaks.iter().all(|l| l.starts_with("NOT ")),
            "{what}: {:?}",
            p.leaks
        );
        // One source: the ledger after the run carries the very same sentences.
        let mut s = Session::new(config).unwrap();
        let ledger = s.advance(usize::MAX, || true).release.unwrap().ledger;
        assert_eq!(p.leaks, ledger.leaks, "{what}");
    }
    // Every algorithm but the non-private mirror-descent baseline, which says NOT PRIVATE always.
    for kind in AlgorithmKind::ALL
        .into_iter()
        .filter(|k| *k != AlgorithmKind::SmdBaseline)
    {
        let p = preview(&every_algorithm_config(kind)).unwrap();
        assert!(
            p.is_private() && p.leaks.is_empty(),
            "{kind:?}: {:?}",
            p.leaks
        );
    }
}

#[test]
fn dp_sgd_without_clipping_releases_another_point_on_heavy_tailed_data() {
    // Pareto features with tail index 1.5 (infinite variance), scaled so that many exceed the
    // declared bound R_x = 1: clipped, every per-sample gradient is within G = C and skipping the
    // per-sample clip would change nothing; the demonstration lets the raw gradients through.
    let honest = RunConfig {
        algorithm: AlgorithmKind::DpSgd,
        tail: Tail::ParetoRadial { alpha: 1.5 },
        feature_scale: 2.0,
        n: 400,
        steps: 50,
        batch: 40,
        epsilon: 1.0,
        ..RunConfig::default()
    };
    let leaky = RunConfig {
        leak: true,
        ..honest.clone()
    };
    let run = |config: RunConfig| {
        let mut s = Session::new(config).unwrap();
        let clipped = s.clipped();
        let b = s.advance(usize::MAX, || true);
        let max_grad = b
            .grad_norm
            .iter()
            .copied()
            .filter(|g| g.is_finite())
            .fold(0.0, f64::max);
        (clipped, max_grad, b.release.unwrap().w().to_vec())
    };
    let (clipped, honest_grad, honest_w) = run(honest);
    let (leaky_clipped, leaky_grad, leaky_w) = run(leaky);
    println!(
        "clipped {clipped} features; largest reported minibatch gradient {honest_grad:.3} \
         (honest) vs {leaky_grad:.3} (no clipping); releases {honest_w:?} vs {leaky_w:?}"
    );
    assert!(
        clipped > 40,
        "the data are not heavy-tailed enough: {clipped} clipped"
    );
    assert_eq!(leaky_clipped, 0, "the demonstration clipped the features");
    // The clipped minibatch gradient (sum/b) is at most C·|B|/b; unclipped it is far larger.
    assert!(
        leaky_grad > 2.0 * honest_grad,
        "{leaky_grad} vs {honest_grad}"
    );
    let gap = honest_w
        .iter()
        .zip(&leaky_w)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        .sqrt();
    assert!(
        gap > 1e-3,
        "the toggle did not change the release: gap {gap}"
    );
}
