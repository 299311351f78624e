//! Every family of the registry has an empirical privacy audit in the default suite,
//! and every audit listed names a family of the registry.
//!
//! [`audits_of`] is the list: for each algorithm kind, the audit tests that run it through the
//! page's own path (`FamilyTarget`, `GameTarget` and the targets built on them), as
//! (file, test function, what it audits). The `match` has no wildcard, so a new kind without an
//! entry does not compile; the tests below check the list against the registry and against the
//! test files themselves: each named test exists, is a `#[test]`, and is not `#[ignore]`d (an
//! ignored audit does not run in `cargo test`).

use dp_playground::algo::registry::FAMILIES;
use dp_playground::config::AlgorithmKind;

/// One audit: the test file (under tests/algorithms/), the test function, and what it audits.
type Audit = (&'static str, &'static str, &'static str);

/// The audit test files, by name, with their text (read at compile time).
const FILES: [(&str, &str); 7] = [
    ("privacy_audit.rs", include_str!("privacy_audit.rs")),
    (
        "output_perturbation.rs",
        include_str!("output_perturbation.rs"),
    ),
    ("saddle_audit.rs", include_str!("saddle_audit.rs")),
    ("group_dro_audit.rs", include_str!("group_dro_audit.rs")),
    ("heavy_audit.rs", include_str!("heavy_audit.rs")),
    (
        "adversarial_training_audit.rs",
        include_str!("adversarial_training_audit.rs"),
    ),
    ("family_audits.rs", include_str!("family_audits.rs")),
];

/// The audits of `kind`'s family (see the module docs).
fn audits_of(kind: AlgorithmKind) -> &'static [Audit] {
    use AlgorithmKind as K;
    match kind {
        K::NoisyGd => &[(
            "privacy_audit.rs",
            "skipped_clipping_is_caught_in_mechanisms_and_in_noisy_gd",
            "DP-GD passes; its unclipped demonstration is caught",
        )],
        K::DpSgd => &[(
            "privacy_audit.rs",
            "dp_sgd_passes_on_the_worst_case_pair_and_skipped_clipping_is_caught",
            "DP-SGD passes; its unclipped demonstration is caught",
        )],
        K::DpSvrg => &[(
            "privacy_audit.rs",
            "certified_dp_svrg_passes_and_skipped_clipping_is_caught",
            "DP-SVRG passes; clipping skipped is caught",
        )],
        K::DpSvrgPlusPlus => &[(
            "privacy_audit.rs",
            "svrg_bb_step_sizes_from_exact_gradients_are_caught",
            "DP-SVRG++ passes; BB steps from exact gradients are caught",
        )],
        K::DpAccmd => &[(
            "privacy_audit.rs",
            "dp_accmd_passes_in_both_geometries_and_the_exact_gradient_y_step_is_caught",
            "DP-AccMD passes (ℓ2, ℓ1); the exact-gradient y-step is caught",
        )],
        K::ObjectivePerturbation => &[(
            "privacy_audit.rs",
            "objective_perturbation_passes_on_its_pair",
            "objective perturbation passes",
        )],
        K::OutputPerturbation => &[
            (
                "privacy_audit.rs",
                "output_perturbation_as_the_page_plans_it_passes_on_the_tight_pair",
                "Algorithm 1 as planned passes",
            ),
            (
                "output_perturbation.rs",
                "audit_passes_output_perturbation_and_catches_a_skipped_certificate",
                "Algorithm 1 passes; a skipped certificate is caught",
            ),
            (
                "family_audits.rs",
                "output_perturbation_with_katyusha_passes_and_unclipped_records_are_caught",
                "Algorithm 1 with Katyusha as the base solver",
            ),
            (
                "family_audits.rs",
                "tilted_erm_passes_on_the_tight_pair",
                "Algorithm 1 on TERM",
            ),
            (
                "family_audits.rs",
                "tilted_erm_noise_calibrated_for_4_epsilon_is_caught",
                "Algorithm 1 on TERM at a tilt that makes the pair tight; noise for 4ε is caught",
            ),
        ],
        K::RegularisedOutputPerturbation => &[
            (
                "family_audits.rs",
                "regularised_output_perturbation_passes_and_unclipped_records_are_caught",
                "Lowy & Razaviyayn 2021, Algorithm 6",
            ),
            (
                "family_audits.rs",
                "regularised_output_perturbation_noise_calibrated_for_256_epsilon_is_caught",
                "Algorithm 6 with its noise for 256ε is caught",
            ),
        ],
        K::Byoa => &[(
            "family_audits.rs",
            "bring_your_own_algorithm_passes_and_unclipped_records_are_caught",
            "Zhang et al. 2022, Algorithm 1",
        )],
        K::ByoaPhased => &[(
            "family_audits.rs",
            "phased_output_perturbation_passes_and_unclipped_records_are_caught",
            "Zhang et al. 2022, Algorithm 2",
        )],
        K::ExponentialGrid => &[(
            "privacy_audit.rs",
            "grid_mechanism_with_the_largest_label_bound_passes",
            "the grid exponential mechanism passes at the largest accepted label bound",
        )],
        K::Localisation => &[(
            "family_audits.rs",
            "localisation_passes_and_noise_calibrated_for_a_larger_epsilon_is_caught",
            "Lowy & Razaviyayn 2021, Algorithm 10",
        )],
        K::LocalisedExponential => &[(
            "family_audits.rs",
            "exponential_sampling_with_localisation_passes_and_noise_for_a_larger_epsilon_is_caught",
            "Lowy & Razaviyayn 2021, Algorithm 11",
        )],
        K::PrivateSmd => &[
            (
                "saddle_audit.rs",
                "private_smd_passes_on_the_planted_pair",
                "González et al. 2024, Algorithm 1",
            ),
            (
                "saddle_audit.rs",
                "unclipped_heavy_records_are_caught",
                "Algorithm 1 on unclipped heavy records is caught",
            ),
            (
                "saddle_audit.rs",
                "gradients_at_the_dense_iterate_are_caught_on_the_kinked_pair",
                "Algorithm 1's dense-gradient pitfall is caught",
            ),
            (
                "group_dro_audit.rs",
                "private_smd_on_group_dro_passes_at_its_claim",
                "Algorithm 1 on group DRO",
            ),
        ],
        K::SmdBaseline => &[(
            "family_audits.rs",
            "the_non_private_baseline_is_caught",
            "the non-private mirror descent baseline, labelled NOT PRIVATE",
        )],
        K::BiasReducedSmd => &[(
            "saddle_audit.rs",
            "bias_reduced_smd_passes_on_the_planted_pair",
            "González et al. 2024, Algorithm 3",
        )],
        K::BoostedSmd => &[
            (
                "saddle_audit.rs",
                "boosted_smd_passes_on_the_planted_pair",
                "González et al. 2024, Algorithm 4, the whole run",
            ),
            (
                "saddle_audit.rs",
                "boosted_smd_selection_with_its_score_sensitivity_halved_is_caught",
                "Algorithm 4's selection with its sensitivity halved is caught",
            ),
        ],
        K::PrivateSco => &[(
            "family_audits.rs",
            "private_sco_passes_and_unclipped_records_are_caught",
            "González et al. 2024, Algorithm 5",
        )],
        K::LocalisedDoubleOutputPerturbation => &[
            (
                "heavy_audit.rs",
                "every_heavy_tail_family_passes_at_its_claimed_epsilon_on_the_outlier_pair",
                "Lowy 2026, Algorithms 1 and 4",
            ),
            (
                "heavy_audit.rs",
                "a_threshold_measured_from_the_sample_is_caught",
                "a measured threshold is caught",
            ),
            (
                "family_audits.rs",
                "algorithm_3_as_the_certified_solver_passes",
                "Lowy 2026, Algorithm 3 as the certified solver",
            ),
        ],
        K::LocalisedOutputPerturbation
        | K::PureClippedGd
        | K::OutputPerturbationLipschitzExtension
        | K::EmPgm
        | K::LocalisedApproxEm => &[
            (
                "heavy_audit.rs",
                "every_heavy_tail_family_passes_at_its_claimed_epsilon_on_the_outlier_pair",
                "the heavy-tail family passes",
            ),
            (
                "heavy_audit.rs",
                "a_threshold_measured_from_the_sample_is_caught",
                "a measured threshold is caught",
            ),
        ],
        K::DeterministicDoubleOutputPerturbation => &[(
            "heavy_audit.rs",
            "every_heavy_tail_family_passes_at_its_claimed_epsilon_on_the_outlier_pair",
            "Lowy 2026, Theorem D.4",
        )],
        K::ByoaMinimax => &[
            (
                "family_audits.rs",
                "sc_sc_minimax_output_perturbation_passes_on_the_planted_pair",
                "Zhang et al. 2022, Algorithm 3",
            ),
            (
                "family_audits.rs",
                "sc_sc_minimax_noise_calibrated_for_128_epsilon_is_caught",
                "Algorithm 3 passes on a pair that moves it; noise for 128ε is caught",
            ),
        ],
        K::ByoaMinimaxPhased => &[
            (
                "family_audits.rs",
                "phased_minimax_output_perturbation_passes_on_the_planted_pair",
                "Zhang et al. 2022, Algorithms 4 and 5",
            ),
            (
                "family_audits.rs",
                "phased_minimax_noise_calibrated_for_512_epsilon_is_caught",
                "Algorithms 4 and 5 pass on a pair that moves them; noise for 512ε is caught",
            ),
        ],
        K::ByoaMinimaxCsc => &[(
            "family_audits.rs",
            "c_sc_phased_output_perturbation_passes_on_the_planted_pair",
            "Zhang et al. 2022, Section 4.3 (C-SC)",
        )],
        K::AdversarialTraining => &[
            (
                "adversarial_training_audit.rs",
                "the_corrected_sensitivity_passes_against_the_worst_black_box",
                "Lowy & Razaviyayn 2021, Algorithm 8",
            ),
            (
                "adversarial_training_audit.rs",
                "the_misprinted_sensitivity_is_caught",
                "Algorithm 8's misprinted sensitivity is caught",
            ),
            (
                "family_audits.rs",
                "adversarial_training_noise_calibrated_for_512_epsilon_is_caught",
                "Algorithm 8 as the page runs it; noise for 512ε is caught",
            ),
        ],
    }
}

/// The attributes directly above `fn name(` in `text`, or `None` when there is no such function.
fn attributes_of<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("fn {name}(")))?;
    Some(
        lines[..at]
            .iter()
            .rev()
            .map(|l| l.trim())
            .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
            .filter(|l| l.starts_with("#["))
            .collect(),
    )
}

#[test]
fn every_family_in_the_registry_has_an_audit_that_runs_by_default() {
    for family in FAMILIES {
        let audits = audits_of(family.kind);
        assert!(!audits.is_empty(), "{:?} has no audit", family.kind);
        for (file, test, what) in audits {
            let (_, text) = FILES
                .iter()
                .find(|(name, _)| name == file)
                .unwrap_or_else(|| panic!("{what}: tests/algorithms/{file} is not an audit file"));
            let attributes = attributes_of(text, test)
                .unwrap_or_else(|| panic!("{what}: no fn {test} in tests/algorithms/{file}"));
            assert!(
                attributes.contains(&"#[test]"),
                "{what}: {file}::{test} is not a test"
            );
            assert!(
                !attributes.iter().any(|a| a.starts_with("#[ignore")),
                "{what}: {file}::{test} is ignored, so `cargo test` does not run it"
            );
        }
    }
}

#[test]
fn every_listed_audit_names_a_family_of_the_registry() {
    // The list is keyed by kind; each kind with audits must be a family the registry (and so the
    // menu) holds, once.
    for kind in AlgorithmKind::ALL {
        if !audits_of(kind).is_empty() {
            let held = FAMILIES.iter().filter(|f| f.kind == kind).count();
            assert_eq!(
                held, 1,
                "{kind:?} is audited but the registry holds it {held} times"
            );
        }
    }
    // And every audit test of the new file is listed (the older files also hold unit checks).
    let (_, text) = FILES[FILES.len() - 1];
    let listed: Vec<&str> = AlgorithmKind::ALL
        .iter()
        .flat_map(|k| audits_of(*k).iter().map(|(_, test, _)| *test))
        .collect();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for (i, line) in lines.iter().enumerate() {
        if *line == "#[test]" {
            let name = lines[i + 1..]
                .iter()
                .find_map(|l| l.strip_prefix("fn "))
                .and_then(|l| l.split('(').next())
                .unwrap_or_default();
            assert!(
                listed.contains(&name),
                "family_audits.rs::{name} audits no listed family"
            );
        }
    }
}

#[test]
fn a_missing_or_ignored_audit_is_noticed() {
    // The checks above can fail: an ignored test and a missing one are both seen.
    let text = "#[test]\n#[ignore]\nfn slow() {}\n\n#[test]\nfn quick() {}\n";
    assert_eq!(
        attributes_of(text, "slow").unwrap(),
        ["#[ignore]", "#[test]"]
    );
    assert_eq!(attributes_of(text, "quick").unwrap(), ["#[test]"]);
    assert!(attributes_of(text, "absent").is_none());
}
