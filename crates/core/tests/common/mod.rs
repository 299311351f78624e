//! Pieces shared by the core's native tests (`crates/core/tests/base/`), the playground's tests
//! and the browser tests (`tests/common/mod.rs` includes these files), so every target is held to
//! the same reference values and the same golden bits. They name the core as `dp_core`, which the
//! playground's tests can name too (it is the playground's dependency).
#![allow(dead_code, unused_imports)]

mod privacy;
mod reference;

pub use privacy::*;
pub use reference::{check_reference, reference_data};
