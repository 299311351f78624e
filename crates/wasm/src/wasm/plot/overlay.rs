//! The axes a plot is drawn with, for the page's tests and readouts: with pinned runs they hold
//! the union of every run's ranges (`crate::plot_spec::pinned`), and a test proves that the
//! next run does not rescale them by asking here, from the same spec the drawing reads.

use wasm_bindgen::prelude::*;

use super::{Bounds, PlotError, excess, noise, parse, path, privacy};
use crate::plot_spec::Spec;

/// The axes plot `kind` draws for `spec`: `{ x: [lo, hi], y: [lo, hi] }` in data units, the same
/// numbers the drawing uses; `null` for plots without numeric axes of their own (players,
/// features, vertices, the localisation view's two panels). The noise plot gives x only (its y
/// follows the histograms' heights).
#[wasm_bindgen(js_name = plotAxes)]
pub fn plot_axes(kind: &str, spec: JsValue) -> Result<JsValue, JsValue> {
    let spec = parse(kind, spec)?;
    let axes: Vec<(&str, (f64, f64))> = match &spec {
        Spec::Excess(s) => both(excess::axes(s)),
        Spec::Path(s) => both(path::axes(s)),
        Spec::Privacy(s) => both(privacy::axes(s)),
        Spec::Noise(s) => vec![("x", noise::x_axis(s))],
        Spec::Roc(s) => both(Bounds {
            x: (s.floor, 1.0),
            y: (s.floor, 1.0),
        }),
        Spec::Features(_) | Spec::Players(_) | Spec::Vertices(_) | Spec::Localisation(_) => {
            return Ok(JsValue::NULL);
        }
    };
    let pair = |(lo, hi): (f64, f64)| js_sys::Array::of2(&lo.into(), &hi.into());
    let out = js_sys::Object::new();
    for (key, range) in axes {
        js_sys::Reflect::set(&out, &key.into(), &pair(range))
            .map_err(|_| PlotError::Draw("the axes could not be returned".into()))?;
    }
    Ok(out.into())
}

fn both(b: Bounds) -> Vec<(&'static str, (f64, f64))> {
    vec![("x", b.x), ("y", b.y)]
}
