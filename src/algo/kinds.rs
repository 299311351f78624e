//! The one declaration of every algorithm: the `algorithms!` table lists each family once, in menu
//! order, and generates from that list [`AlgorithmKind`] (its variants, snake_case names and
//! order, so links and exports keep their keys), [`AlgorithmKind::ALL`], the registry's
//! [`FAMILIES`] and the kind → family lookup [`family()`], an exhaustive `match` (an unknown kind
//! cannot be written, and no kind falls back to another's family).
//!
//! A few keys keep the spelling of the links made before the identifiers settled on one
//! (`localized_…`): a `#[serde(rename)]` on the line keeps every old link and lesson working.
//!
//! Adding an algorithm: its file, declaring a [`Family`] whose `kind` is its new variant, and one
//! line in the table below (with a one-line doc comment, optional). The menu, the cards, the
//! counts shown to users and the audit coverage test all read this table.

use serde::{Deserialize, Serialize};

use super::family::{Demonstration, Family, Purity};
// Every family's module, for the table's paths.
#[allow(clippy::wildcard_imports)]
use super::*;

/// Generates the kind enum, its list, the registry and the lookup from one table of
/// `Variant => family static` lines, each with an optional doc comment (see the module docs).
macro_rules! algorithms {
    ($($(#[$meta:meta])* $kind:ident => $family:path),+ $(,)?) => {
        /// The private algorithm to run, one variant per family of [`FAMILIES`] (its card, in
        /// the family's own file, names the paper). Its serde name is the variant's in
        /// snake_case: the key links, cards and exports use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum AlgorithmKind {
            $(
                $(#[$meta])*
                #[doc = ""]
                #[doc = concat!("Its family: [`", stringify!($family), "`].")]
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
    /// DP-GD, Wang, Ye & Xu 2017, Algorithm 4 (see [`crate::algo::noisy_gd`]).
    NoisyGd => noisy_gd::FAMILY,
    /// DP-SGD with per-sample clipping and Poisson subsampling (see [`crate::algo::dp_sgd`]).
    DpSgd => dp_sgd::FAMILY,
    /// DP-SVRG, Wang, Ye & Xu 2017, Algorithm 1 (see [`crate::algo::dp_svrg`]); needs a ridge `l2` > 0.
    DpSvrg => dp_svrg::FAMILY,
    /// DP-SVRG++, Wang, Ye & Xu 2017, Algorithm 2.
    DpSvrgPlusPlus => dp_svrg::FAMILY_PLUS_PLUS,
    /// DP-AccMD, Wang, Ye & Xu 2017, Algorithm 3 with the corrected coupling, over the ℓ2 or ℓ1 ball.
    DpAccmd => dp_accmd::FAMILY,
    /// Objective perturbation (Chaudhuri–Monteleoni–Sarwate 2011), the diffprivlib baseline.
    ObjectivePerturbation => objective_perturbation::FAMILY,
    /// Output perturbation, Lowy & Razaviyayn 2021, Algorithm 1 with a certified base solver (see
    /// [`crate::algo::output_perturbation`]); needs a ridge `l2` > 0.
    OutputPerturbation => output_perturbation::FAMILY,
    /// Regularised output perturbation for merely convex objectives, Lowy & Razaviyayn 2021, Algorithm 6.
    RegularisedOutputPerturbation => output_perturbation::FAMILY_REGULARISED,
    /// Zhang et al. 2022, Algorithm 1: output perturbation with a swappable certified solver.
    Byoa => byoa::FAMILY,
    /// Zhang et al. 2022, Algorithm 2: phased output perturbation on disjoint chunks.
    ByoaPhased => byoa::FAMILY_PHASED,
    /// The exponential mechanism on a grid (Lowy & Razaviyayn 2021, Algorithm 9), d ≤ 2.
    ExponentialGrid => exponential_grid::FAMILY,
    /// Private stochastic mirror descent with vertex sampling, González, Guzmán & Paquette 2024, Algorithm 1 (see
    /// [`crate::algo::smd`]); a saddle problem on simplices.
    PrivateSmd => smd::family::FAMILY,
    /// Non-private stochastic mirror descent: González, Guzmán & Paquette 2024's baseline.
    SmdBaseline => smd::family::FAMILY_BASELINE,
    /// González, Guzmán & Paquette 2024, Algorithm 3: private SMD with the bias-reduced gradient, stopped by a privacy
    /// filter.
    BiasReducedSmd => smd::family::FAMILY_BIAS_REDUCED,
    /// González, Guzmán & Paquette 2024, Algorithm 4: Algorithm 3 boosted to high probability, a candidate chosen by the
    /// exponential mechanism (see [`crate::algo::smd::boosted`]).
    BoostedSmd => smd::boosted::FAMILY,
    /// González, Guzmán & Paquette 2024, Algorithm 5: DP-SCO on the simplex by private SMD with anytime online-to-batch.
    PrivateSco => smd::family::FAMILY_SCO,
    /// Localized Double Output Perturbation, Lowy 2026 Algorithms 1 and 4 (pure ε, heavy tails;
    /// see [`crate::algo::heavy_tails`]).
    #[serde(rename = "localized_double_output_perturbation")]
    LocalisedDoubleOutputPerturbation => heavy_tails::FAMILY_LOCALISED,
    /// Localized output perturbation, Lowy 2026 Algorithms 1 and 2 (OutputPert-Localize in every
    /// call; see [`crate::algo::heavy_tails::output_pert_localise`]).
    #[serde(rename = "localized_output_perturbation")]
    LocalisedOutputPerturbation => heavy_tails::FAMILY_OUTPUT_PERT_LOCALISE,
    /// The pure-ε noisy clipped GD baseline of Lowy 2026's lesson (ε/T per step).
    PureClippedGd => heavy_tails::FAMILY_CLIPPED_GD,
    /// Single-stage output perturbation on the Lipschitz extension (Lowy 2026).
    OutputPerturbationLipschitzExtension => heavy_tails::FAMILY_SINGLE_STAGE,
    /// EM-PGM, Lowy 2026 Algorithm 5, on a grid for d ≤ 2 (see [`crate::algo::heavy_tails::em_pgm`]).
    EmPgm => heavy_tails::FAMILY_EM_PGM,
    /// The localised approximate exponential mechanism, Lowy 2026 Algorithms 6–7, on a grid for
    /// d ≤ 2 (see [`crate::algo::heavy_tails::approx_em`]).
    #[serde(rename = "localized_approx_em")]
    LocalisedApproxEm => heavy_tails::FAMILY_APPROX_EM,
    /// Lowy 2026 Theorem D.4: Algorithms 1 and 4 for polyhedral losses with Lemma D.5's
    /// deterministic solver (see [`crate::algo::heavy_tails::deterministic`]).
    DeterministicDoubleOutputPerturbation => heavy_tails::FAMILY_DETERMINISTIC,
    /// Zhang et al. 2022, Algorithm 3: SC-SC minimax output perturbation (see
    /// [`crate::algo::byoa_minimax`]); needs μₓ, μᵧ > 0.
    ByoaMinimax => byoa_minimax::FAMILY_SC_SC,
    /// Zhang et al. 2022, Algorithms 4 + 5: phased convex–concave minimax output perturbation.
    ByoaMinimaxPhased => byoa_minimax::FAMILY_PHASED,
    /// Zhang et al. 2022, Section 4.3: the convex–strongly-concave variant of Algorithm 4; needs μᵧ > 0.
    ByoaMinimaxCsc => byoa_minimax::FAMILY_CSC,
    /// Lowy & Razaviyayn 2021, Algorithm 8: black-box adversarial training through a certified saddle solver
    /// (see [`crate::algo::adversarial_training`]); needs μₓ, μᵧ > 0.
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

    /// Its family ([`family()`]).
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
