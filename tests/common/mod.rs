//! Pieces shared by the native tests and the browser tests (`crates/wasm/tests/web/`), so both targets are
//! held to the same reference values and the same golden bits. Each test binary uses a part.
#![allow(dead_code, unused_imports)]

mod heavy;
mod heavy_rates;
mod paper_names;
// The core's (crates/core/tests/common/): reference values and golden sampler bits of the privacy
// layer, and the reference optimum's check.
#[path = "../../crates/core/tests/common/privacy.rs"]
mod privacy;
#[path = "../../crates/core/tests/common/reference.rs"]
mod reference;
mod run;
mod slope;
mod wording;

pub use heavy::{
    HEAVY_FAMILIES, HEAVY_GOLDEN_RUNS, HEAVY_KINDS, heavy_config, heavy_fingerprint,
    heavy_fingerprints, heavy_section,
};
pub use heavy_rates::{Sums, Tally, run as run_lanes};
pub use paper_names::names_an_internal_number;
pub use privacy::*;
pub use reference::{check_reference, reference_data};
pub use run::{
    DP_SGD_GOLDEN_RUN, GOLDEN_RUN, dp_sgd_golden_config, fingerprint, golden_config, lab_release,
};
pub use slope::slope;
pub use wording::{page, sentences, wording_faults};
