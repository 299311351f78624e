//! The one declaration of every algorithm: the `algorithms!` table in [`crate::algo`]'s `mod.rs`
//! lists each family once, in menu order, and generates from that list its module declaration, [`AlgorithmKind`] (its variants, snake_case names and
//! order, so links and exports keep their keys), [`AlgorithmKind::ALL`], the registry's
//! [`FAMILIES`] and the kind → family lookup [`family()`], an exhaustive `match` (an unknown kind
//! cannot be written, and no kind falls back to another's family).
//!
//! A few keys keep the spelling of the links made before the identifiers settled on one
//! (`localized_…`): a `#[serde(rename)]` on the line keeps every old link and lesson working.
//!
//! Adding an algorithm: its file `crates/algorithms/src/algo/<name>.rs`, declaring a [`Family`] whose `kind` is its
//! new variant, and one line in the table, `[mod <name>] <Variant> => <name>::FAMILY,` (with a
//! one-line doc comment, optional): the `[mod …]` prefix declares the module, so nothing else
//! names it. The menu, the cards, the counts shown to users and the audit coverage test all read
//! this table. The table lives in `mod.rs` rather than here because a module a macro declares is
//! looked up beside the file that invokes the macro.

use super::family::{Demonstration, Family, Purity};
pub use super::{AlgorithmKind, FAMILIES, family};

/// Generates the family modules, the kind enum, its list, the registry and the lookup from one
/// table of `[mod module]? Variant => family static` lines, each with an optional doc comment and
/// attributes (see the module docs). A `[mod m]` prefix declares `pub mod m;` (on the first line
/// whose family lives in `m`).
macro_rules! algorithms {
    ($($(#[$meta:meta])* $([mod $module:ident])? $kind:ident => $family:path),+ $(,)?) => {
        $($(pub mod $module;)?)+


        /// The private algorithm to run, one variant per family of [`FAMILIES`] (its card, in
        /// the family's own file, names the paper). Its serde name is the variant's in
        /// snake_case: the key links, cards and exports use.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize,
        )]
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
        pub static FAMILIES: [&$crate::algo::family::Family; [$(stringify!($kind)),+].len()] = [$(&$family),+];

        /// The family of `kind`.
        pub fn family(kind: AlgorithmKind) -> &'static $crate::algo::family::Family {
            match kind {
                $(AlgorithmKind::$kind => &$family,)+
            }
        }
    };
}
pub(crate) use algorithms;

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
