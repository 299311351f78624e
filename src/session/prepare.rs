//! What a run promises before any data are read (docs/PRIVACY.md rule 2): each family's plan
//! ([`crate::config::menu::plan`]) computes it; this module gives the session and the page its
//! preview.

use crate::config::RunConfig;
use crate::config::menu;
use crate::error::Result;

pub use crate::algo::NoiseShape;
pub use crate::algo::family::{Preview, same_promise};

/// The guarantee and noise scale a config's main algorithm gets, without touching data.
///
/// The compared algorithms are planned too (as [`crate::session::Lab::new`] plans them, before
/// any data), so that a setting one of them refuses only in its plan (e.g. a certified base
/// solver on a non-smooth loss) is refused here, at `compare`, and not once the run is built.
pub fn preview(config: &RunConfig) -> Result<Preview> {
    let checked = config.check()?;
    let config = checked.config();
    let main = menu::plan(config)?.preview;
    for &kind in &config.compare {
        menu::plan(&config.lane(kind)).map_err(|e| e.in_compare(kind))?;
    }
    Ok(main)
}
