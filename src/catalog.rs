//! The algorithm cards the page shows: assumptions, guarantee, bound, what the plots should show,
//! and the paper each comes from. Each family declares its card in its own file, beside the code
//! (so cards and code cannot drift); this module serves them to the page from the registry.
//!
//! The wasm module carries each card's name, settings and needs ([`cards`]); the prose (paper,
//! assumptions, privacy, utility, what to watch, the module's paragraph, each setting's help)
//! is compiled out of it and reaches the page as `pkg/cards.json`, which the native binary
//! writes at build time from [`prose_json`] (`dp-playground cards`, run by `build_pkg` in
//! scripts/setup.sh). The page merges the two by kind (a setting's help by its key).

use serde::Serialize;

use crate::algo::family::{CardText, Demonstration, Family, Need, ProblemKind, Purity, SettingUse};
use crate::algo::registry;
use crate::config::AlgorithmKind;

/// One algorithm's card: its family's declared text, keyed by its kind, with what the page
/// needs to build the algorithm's settings panel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Card {
    pub kind: AlgorithmKind,
    #[serde(flatten)]
    pub text: CardText,
    /// The settings it reads, with their labels and help (the page shows only these).
    pub settings: &'static [SettingUse],
    /// What it needs of the problem (picking it from the menu meets each need).
    pub needs: &'static [Need],
    /// The problem kinds it solves (the menu lists a family under the page's `problem` choice).
    pub solves: &'static [ProblemKind],
    pub purity: Purity,
    /// Whether it has a "demonstrate the pitfall" variant.
    pub demonstration: bool,
    /// Whether that demonstration leaves the features unclipped (the page then says the features
    /// are NOT clipped to the declared bound).
    pub unclipped_features: bool,
}

/// The card of `kind`.
pub fn card(kind: AlgorithmKind) -> Card {
    of(registry::family(kind))
}

fn of(family: &Family) -> Card {
    Card {
        kind: family.kind,
        text: family.card,
        settings: family.settings,
        needs: family.needs,
        solves: family.solves,
        purity: family.purity,
        demonstration: family.demonstration != Demonstration::None,
        unclipped_features: family.demonstration == Demonstration::Unclipped,
    }
}

/// Every card, in menu order.
pub fn cards() -> Vec<Card> {
    registry::FAMILIES.iter().copied().map(of).collect()
}

/// One card's prose, as `pkg/cards.json` holds it: the text the wasm module leaves out
/// ([`CardText`]), keyed by the card's kind.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prose {
    pub kind: AlgorithmKind,
    pub source: &'static str,
    pub assumptions: &'static str,
    pub privacy: &'static str,
    pub utility: &'static str,
    pub watch: &'static str,
    pub summary: &'static str,
    /// Each setting's help, by its key (the label is in the module: the panel is built from it).
    pub settings: Vec<SettingHelp>,
}

/// A setting's help line, by the key of the control it is shown beside.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SettingHelp {
    pub key: crate::config::Control,
    pub help: &'static str,
}

/// Every card's prose, in menu order.
#[cfg(not(target_arch = "wasm32"))]
pub fn prose() -> Vec<Prose> {
    cards()
        .into_iter()
        .map(|card| Prose {
            kind: card.kind,
            source: card.text.source,
            assumptions: card.text.assumptions,
            privacy: card.text.privacy,
            utility: card.text.utility,
            watch: card.text.watch,
            summary: card.text.summary,
            settings: card
                .settings
                .iter()
                .map(|s| SettingHelp {
                    key: s.key,
                    help: s.help,
                })
                .collect(),
        })
        .collect()
}

/// The page's `pkg/cards.json`: `{ "cards": [Prose, …] }` in menu order.
#[cfg(not(target_arch = "wasm32"))]
pub fn prose_json() -> String {
    serde_json::json!({ "cards": prose() }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn every_algorithm_has_a_complete_card_naming_its_module() {
        for card in cards() {
            for text in [
                card.text.name,
                card.text.source,
                card.text.assumptions,
                card.text.privacy,
                card.text.utility,
                card.text.watch,
            ] {
                assert!(text.len() > 3, "{:?}", card.kind);
            }
            assert!(card.text.module.starts_with("algo::"));
            assert!(card.text.summary.len() > 100, "{:?}", card.kind);
        }
        assert_eq!(cards().len(), AlgorithmKind::ALL.len());
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn badge_and_card_texts_have_single_spaces() {
        // A string literal continued on the next line without `\` keeps the indentation: two
        // "not DP" badges read "heavy-tailed                  data".
        use crate::algo::{dp_accmd, dp_sgd, dp_svrg, noisy_gd};
        let badges = [
            noisy_gd::DpGdLeak::NoClipping.describe(),
            dp_sgd::DpSgdLeak::NoClipping.describe(),
            dp_accmd::AccMdLeak::ExactGradientYStep.describe(),
            dp_svrg::SvrgLeak::BbStepFromExactGradients.describe(),
        ];
        let cards = cards();
        let card_texts = cards.iter().flat_map(|c| {
            [
                c.text.name,
                c.text.source,
                c.text.assumptions,
                c.text.privacy,
                c.text.utility,
                c.text.watch,
                c.text.summary,
            ]
        });
        for text in badges.into_iter().flatten().chain(card_texts) {
            assert!(!text.contains("  "), "{text}");
        }
    }

    #[test]
    fn the_cards_say_which_demonstrations_leave_the_features_unclipped() {
        // The page's problem line reads this flag (it says "features NOT clipped"): the two
        // no-clipping pitfalls, whose point is the unclipped gradient.
        for card in cards() {
            let family = registry::family(card.kind);
            assert_eq!(
                card.unclipped_features,
                family.demonstration == Demonstration::Unclipped,
                "{:?}",
                card.kind
            );
            assert!(!card.unclipped_features || card.demonstration);
        }
        assert!(card(AlgorithmKind::NoisyGd).unclipped_features);
        assert!(card(AlgorithmKind::DpSgd).unclipped_features);
        assert!(!card(AlgorithmKind::DpSvrg).unclipped_features);
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_objective_perturbation_card_states_b_density_with_the_feature_bound() {
        let c = card(AlgorithmKind::ObjectivePerturbation);
        for text in [c.text.privacy, c.text.summary] {
            assert!(text.contains("exp(−ε′‖b‖/(2R))"), "{text}");
        }
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_dp_svrg_plus_plus_card_charges_every_inner_step() {
        // The code draws noise and charges the accountant at every inner step (N releases).
        let c = card(AlgorithmKind::DpSvrgPlusPlus);
        assert!(!c.text.watch.contains("each epoch"), "{}", c.text.watch);
        assert!(
            c.text.watch.contains("every inner step"),
            "{}",
            c.text.watch
        );
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_pages_card_json_holds_every_cards_prose_and_every_settings_help() {
        // The page shows this file's text in place of what the wasm module leaves out: every
        // card must be there, with every prose field and the help of every setting it reads.
        let json: serde_json::Value = serde_json::from_str(&prose_json()).unwrap();
        let list = json["cards"].as_array().unwrap();
        let all = cards();
        assert_eq!(list.len(), all.len());
        for (entry, card) in list.iter().zip(&all) {
            let kind = serde_json::to_value(card.kind).unwrap();
            assert_eq!(entry["kind"], kind);
            let text = card.text;
            for (field, want) in [
                ("source", text.source),
                ("assumptions", text.assumptions),
                ("privacy", text.privacy),
                ("utility", text.utility),
                ("watch", text.watch),
                ("summary", text.summary),
            ] {
                assert_eq!(entry[field].as_str(), Some(want), "{kind}: {field}");
            }
            let settings = entry["settings"].as_array().unwrap();
            assert_eq!(settings.len(), card.settings.len(), "{kind}");
            for (s, want) in settings.iter().zip(card.settings) {
                assert_eq!(s["key"], serde_json::to_value(want.key).unwrap(), "{kind}");
                assert_eq!(
                    s["help"].as_str(),
                    Some(want.help),
                    "{kind}: {:?}",
                    want.key
                );
                assert!(!want.help.is_empty(), "{kind}: {:?} has no help", want.key);
            }
        }
    }
}
