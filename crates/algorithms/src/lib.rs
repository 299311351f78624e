//! # dp-playground-algorithms
//!
//! The private algorithms of dp-playground, in [`algo`]: one file per family, each citing its
//! paper and declaring its family (card, settings, needs, data-free plan), planned from typed
//! [`algo::settings::Settings`] and run as an [`algo::run::Run`]. It imports the core crate
//! (`dp_core`) and nothing above it: the page's configuration, the session and the bindings live
//! in the playground (`dp_playground`), which re-exports [`algo`] under its name.

pub mod algo;

// The lower layer, from the core crate (crates/core), each module under its own name, so
// `crate::privacy::…` inside `algo` names the items of `dp_core::privacy`, as it did when `algo`
// was part of the playground.
pub use dp_core::{
    controls, data, domain, error, fused, linalg, loss, minimax, noise, objective, privacy,
    progress, reference, rng, solver, stats, theory,
};

pub use error::{Error, Result};
