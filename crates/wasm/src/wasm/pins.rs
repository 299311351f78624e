//! What the page's compare readout needs from Rust for pinned runs: the mean and spread of a
//! metric over repeats, by the same [`Spread`] a sweep's table uses (the readout does no
//! statistics of its own).

use wasm_bindgen::prelude::*;

use crate::session::sweep::Spread;

/// `{ scored, mean, sd, min, max }` of the finite entries of `values` (one metric per repeat;
/// a repeat without one, e.g. without a reference optimum, is NaN and left out).
#[wasm_bindgen(js_name = spreadOf)]
pub fn spread_of(values: &[f64]) -> Result<JsValue, JsValue> {
    super::to_js(&Spread::of(
        values.iter().copied().filter(|v| v.is_finite()),
    ))
}
