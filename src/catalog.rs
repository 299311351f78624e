//! The algorithm cards the page shows: assumptions, guarantee, bound, what the plots should show,
//! and the paper each comes from. Each family declares its card in its own file, beside the code
//! (so cards and code cannot drift); this module serves them to the page from the registry.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
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
    fn the_objective_perturbation_card_states_b_density_with_the_feature_bound() {
        let c = card(AlgorithmKind::ObjectivePerturbation);
        for text in [c.text.privacy, c.text.summary] {
            assert!(text.contains("exp(−ε′‖b‖/(2R))"), "{text}");
        }
    }

    #[test]
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
}
