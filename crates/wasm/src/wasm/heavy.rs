//! The heavy-tail panel's numbers (`www/panels/heavy.js`): conversions only; the logic is
//! [`crate::session::heavy_explorer`]. Each entry takes the page's settings as JSON, so the
//! panel can ask about a candidate (a slider being dragged) without starting a run.

use js_sys::{Float64Array, Object};
use wasm_bindgen::prelude::*;

use super::{set, to_js, to_js_error};
use crate::config::RunConfig;
use crate::session::heavy_explorer as explorer;

fn config_of(json: &str) -> Result<RunConfig, JsValue> {
    RunConfig::from_json(json).map_err(|e| to_js_error(&e))
}

/// Everything the panel shows for the settings `json` at threshold `c` (NaN: the run's C), with
/// the raw data's feature norms `norms` (non-private; empty before the data exist):
/// `{ heavy, tail, threshold, knobs, ledger }`, or `{ heavy: false }` for another algorithm.
/// A part that cannot be computed for these settings carries `{ error: { field, message } }`.
#[wasm_bindgen(js_name = heavyPanel)]
pub fn heavy_panel(json: &str, c: f64, norms: &Float64Array) -> Result<JsValue, JsValue> {
    let config = config_of(json)?;
    let out = Object::new();
    let heavy = explorer::is_heavy(config.algorithm);
    set(&out, "heavy", &JsValue::from_bool(heavy));
    if !heavy {
        return Ok(out.into());
    }
    let norms = norms.to_vec();
    let norms = (!norms.is_empty()).then_some(norms.as_slice());
    let c = (c.is_finite()).then_some(c);
    let part = |value: Result<JsValue, JsValue>| match value {
        Ok(v) => v,
        Err(e) => {
            let o = Object::new();
            set(&o, "error", &e);
            o.into()
        }
    };
    let err = |e: crate::error::Error| to_js_error(&e);
    set(
        &out,
        "tail",
        &part(
            explorer::tail_readout(&config)
                .map_err(err)
                .and_then(|r| to_js(&r)),
        ),
    );
    set(
        &out,
        "threshold",
        &part(
            explorer::threshold_view(&config, c, norms)
                .map_err(err)
                .and_then(|r| to_js(&r)),
        ),
    );
    set(
        &out,
        "knobs",
        &to_js(&explorer::knob_groups(config.algorithm))?,
    );
    set(
        &out,
        "ledger",
        &part(
            explorer::stage_ledger(&config)
                .map_err(err)
                .and_then(|r| to_js(&r)),
        ),
    );
    Ok(out.into())
}

/// Record `index`'s loss f and extension f_C at threshold `c` for the settings `json`
/// (**measured on the raw data (not private)**): `{ loss, extension, words }`.
#[wasm_bindgen(js_name = heavyRecord)]
pub fn heavy_record(json: &str, index: f64, c: f64) -> Result<JsValue, JsValue> {
    let config = config_of(json)?;
    if !(index.is_finite() && index >= 0.0 && index.fract() == 0.0) {
        return Err(to_js_error(&crate::error::Error::invalid(
            "heavy-record",
            "a whole record index from 0 to n − 1",
            index,
        )));
    }
    let view = explorer::record_view(&config, index as usize, c).map_err(|e| to_js_error(&e))?;
    to_js(&view)
}

/// The index of the largest of the raw feature norms `norms` (non-private), or −1 when none.
#[wasm_bindgen(js_name = heavyLargestRecord)]
pub fn heavy_largest_record(norms: &Float64Array) -> f64 {
    explorer::largest_record(&norms.to_vec()).map_or(-1.0, |i| i as f64)
}
