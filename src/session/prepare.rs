//! What a run promises before any data are read (DESIGN.md §5 rule 2): each family's plan
//! ([`crate::algo::registry::plan`]) computes it; this module gives the session and the page its
//! preview.

use crate::algo::registry;
use crate::config::RunConfig;
use crate::error::Result;

pub use crate::algo::NoiseShape;
pub use crate::algo::family::{Preview, same_promise};

/// The guarantee and noise scale a config's main algorithm gets, without touching data.
pub fn preview(config: &RunConfig) -> Result<Preview> {
    Ok(registry::plan(config.check()?.config())?.preview)
}
