//! Privacy guarantees, calibration and the ledger of a run.
//!
//! Every guarantee here is computed from the configuration alone, before any data are touched
//! (DESIGN.md §5 rule 2).

pub mod zcdp;

use serde::{Deserialize, Serialize};

/// Which datasets count as neighbours. It changes sensitivities by a factor of two, so it is part
/// of every guarantee and shown beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// D and D′ differ in one record, replaced (n is the same and public).
    #[default]
    ReplaceOne,
    /// D′ is D with one record added or removed.
    AddRemove,
}

impl Relation {
    /// Words for the page.
    pub fn describe(self) -> &'static str {
        match self {
            Relation::ReplaceOne => "neighbours differ by replacing one record",
            Relation::AddRemove => "neighbours differ by adding or removing one record",
        }
    }
}

/// What an algorithm promises about its release, stated before it runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Guarantee {
    pub epsilon: f64,
    pub delta: f64,
    pub relation: Relation,
    /// The zCDP parameter the (ε, δ) statement was converted from, if the analysis went through zCDP.
    pub rho: Option<f64>,
    /// How the guarantee was obtained, in one sentence.
    pub accounting: String,
}

/// What a run spent and under which conditions; shown beside the released point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ledger {
    pub guarantee: Guarantee,
    pub mechanism: String,
    /// Every condition the guarantee depends on.
    pub caveats: Vec<String>,
}

/// The caveat every seeded run carries.
pub const SEEDED_CAVEAT: &str =
    "seeded run: reproducible, so it demonstrates the mechanism but is not a private release";
/// The caveat every floating-point sampler carries.
pub const FLOAT_CAVEAT: &str =
    "noise is sampled in floating point (idealised): not hardened against floating-point attacks";
