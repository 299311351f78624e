//! The one declaration of every algorithm: [`algorithms!`] lists each family once, in menu
//! order, and generates from that list [`AlgorithmKind`] (its variants, snake_case names and
//! order, so links and exports keep their keys), [`AlgorithmKind::ALL`], the registry's
//! [`FAMILIES`] and the kind → family lookup [`family`], an exhaustive `match` (an unknown kind
//! cannot be written, and no kind falls back to another's family).
//!
//! Adding an algorithm: its file, declaring a [`Family`] whose `kind` is its new variant, and one
//! line in the table below. The menu, the cards, the counts shown to users and the audit
//! coverage test all read this table.

use serde::{Deserialize, Serialize};

use super::family::{Demonstration, Family, Purity};
// Every family's module, for the table's paths.
#[allow(clippy::wildcard_imports)]
use super::*;

/// Generates the kind enum, its list, the registry and the lookup from one table of
/// `Variant => family static` lines (see the module docs).
macro_rules! algorithms {
    ($($kind:ident => $family:path),+ $(,)?) => {
        /// The private algorithm to run, one variant per family of [`FAMILIES`] (its card, in
        /// the family's own file, names the paper). Its serde name is the variant's in
        /// snake_case: the key links, cards and exports use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum AlgorithmKind {
            $(
                #[doc = concat!("The family [`", stringify!($family), "`].")]
                $kind,
            )+
        }

        impl AlgorithmKind {
            /// Every algorithm, in menu order.
            pub const ALL: [AlgorithmKind; [$(stringify!($kind)),+].len()] =
                [$(AlgorithmKind::$kind),+];
        }

        /// Every family, in menu order (the order of [`AlgorithmKind::ALL`]).
        pub static FAMILIES: [&Family; [$(stringify!($kind)),+].len()] = [$(&$family),+];

        /// The family of `kind`.
        pub fn family(kind: AlgorithmKind) -> &'static Family {
            match kind {
                $(AlgorithmKind::$kind => &$family,)+
            }
        }
    };
}

algorithms! {
    NoisyGd => noisy_gd::FAMILY,
    DpSgd => dp_sgd::FAMILY,
    DpSvrg => dp_svrg::FAMILY,
    DpSvrgPlusPlus => dp_svrg::FAMILY_PLUS_PLUS,
    DpAccmd => dp_accmd::FAMILY,
    ObjectivePerturbation => objective_perturbation::FAMILY,
    OutputPerturbation => output_perturbation::FAMILY,
    RegularisedOutputPerturbation => output_perturbation::FAMILY_REGULARISED,
    Byoa => byoa::FAMILY,
    ByoaPhased => byoa::FAMILY_PHASED,
    ExponentialGrid => exponential_grid::FAMILY,
    PrivateSmd => smd::family::FAMILY,
    SmdBaseline => smd::family::FAMILY_BASELINE,
    BiasReducedSmd => smd::family::FAMILY_BIAS_REDUCED,
    BoostedSmd => smd::boosted::FAMILY,
    PrivateSco => smd::family::FAMILY_SCO,
    LocalizedDoubleOutputPerturbation => heavy_tails::FAMILY_LOCALIZED,
    LocalizedOutputPerturbation => heavy_tails::FAMILY_OUTPUT_PERT_LOCALIZE,
    PureClippedGd => heavy_tails::FAMILY_CLIPPED_GD,
    OutputPerturbationLipschitzExtension => heavy_tails::FAMILY_SINGLE_STAGE,
    EmPgm => heavy_tails::FAMILY_EM_PGM,
    LocalizedApproxEm => heavy_tails::FAMILY_APPROX_EM,
    DeterministicDoubleOutputPerturbation => heavy_tails::FAMILY_DETERMINISTIC,
    ByoaMinimax => byoa_minimax::FAMILY_SC_SC,
    ByoaMinimaxPhased => byoa_minimax::FAMILY_PHASED,
    ByoaMinimaxCsc => byoa_minimax::FAMILY_CSC,
    AdversarialTraining => adversarial_training::FAMILY,
}

/// The first of the menu (DP-GD): a link or a file that names no algorithm runs it.
impl Default for AlgorithmKind {
    fn default() -> Self {
        AlgorithmKind::ALL[0]
    }
}

impl AlgorithmKind {
    /// The algorithm's key, as a link, a card and the exports name it (`noisy_gd`, …).
    pub fn key(self) -> String {
        // A unit variant serialises to its snake_case name; nothing else can come out.
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// Its family ([`family`]).
    pub fn family(self) -> &'static Family {
        family(self)
    }

    /// Whether the algorithm offers pure ε-DP (δ = 0).
    pub fn allows_pure(self) -> bool {
        family(self).purity != Purity::Approximate
    }

    /// Whether the algorithm has a leaky demonstration variant (a pitfall shown on purpose).
    pub fn has_leak(self) -> bool {
        family(self).demonstration != Demonstration::None
    }

    /// Whether the algorithm *only* offers pure ε-DP (its δ is 0 whatever the config says).
    pub fn pure_only(self) -> bool {
        family(self).purity == Purity::Pure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_declares_the_kind_the_table_gives_it() {
        for kind in AlgorithmKind::ALL {
            assert_eq!(family(kind).kind, kind);
        }
        let kinds: Vec<AlgorithmKind> = FAMILIES.iter().map(|f| f.kind).collect();
        assert_eq!(kinds, AlgorithmKind::ALL);
    }

    #[test]
    fn the_keys_are_the_serde_names_links_carry() {
        assert_eq!(AlgorithmKind::default(), AlgorithmKind::NoisyGd);
        assert_eq!(AlgorithmKind::NoisyGd.key(), "noisy_gd");
        assert_eq!(AlgorithmKind::DpSvrgPlusPlus.key(), "dp_svrg_plus_plus");
        assert_eq!(
            AlgorithmKind::OutputPerturbationLipschitzExtension.key(),
            "output_perturbation_lipschitz_extension"
        );
    }
}
