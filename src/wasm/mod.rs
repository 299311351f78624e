//! WebAssembly bindings: the only module that names JavaScript types.
//!
//! The worker owns a [`WasmSession`]; the page uses [`preview`] and the plotting functions
//! [`draw_plot`] and [`plot_svg`]. Errors cross as `{ field, message }` objects so the page can put them next to the
//! control at fault.

mod plot;

use js_sys::{Float64Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::config::RunConfig;
use crate::error::Error;
use crate::session::{self, Batch, Session};

pub use plot::{draw_plot, plot_svg};

/// Installs the panic hook once, so that a bug shows as a console message rather than a bare trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A Rust error as a plain JS object `{ field, message }` (field is `null` when none applies).
fn to_js_error(e: &Error) -> JsValue {
    let obj = Object::new();
    let field = e.field().map_or(JsValue::NULL, JsValue::from_str);
    set(&obj, "field", &field);
    set(&obj, "message", &JsValue::from_str(&e.to_string()));
    obj.into()
}

fn set(obj: &Object, key: &str, value: &JsValue) {
    // Reflect.set on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Parses and validates a config given as JSON text, returning the normalised config (all
/// defaults filled in) as JSON text.
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(json: &str) -> Result<String, JsValue> {
    RunConfig::from_json(json)
        .map(|c| c.to_json())
        .map_err(|e| to_js_error(&e))
}

/// The guarantee and noise scale a config would get, computed without touching any data.
#[wasm_bindgen]
pub fn preview(json: &str) -> Result<JsValue, JsValue> {
    let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
    let p = session::preview(&config).map_err(|e| to_js_error(&e))?;
    to_js(&p)
}

/// A run owned by a Web Worker.
#[wasm_bindgen(js_name = Session)]
pub struct WasmSession {
    inner: Session,
}

#[wasm_bindgen(js_class = Session)]
impl WasmSession {
    /// Validates `json`, states the guarantee, generates the data and solves the reference problem.
    #[wasm_bindgen(constructor)]
    pub fn new(json: &str) -> Result<WasmSession, JsValue> {
        let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
        Session::new(config)
            .map(|inner| WasmSession { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// The guarantee, stated before the first step.
    pub fn guarantee(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.guarantee())
    }

    /// Everything the page shows about the run before it starts: the normalised config, the
    /// reference optimum and the non-private clip count.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let obj = Object::new();
        set(
            &obj,
            "config",
            &JsValue::from_str(&self.inner.config().to_json()),
        );
        set(&obj, "guarantee", &to_js(self.inner.guarantee())?);
        set(&obj, "preview", &to_js(self.inner.preview())?);
        set(&obj, "reference", &to_js(self.inner.reference())?);
        set(
            &obj,
            "clipped",
            &JsValue::from_f64(self.inner.clipped() as f64),
        );
        set(
            &obj,
            "radius",
            &JsValue::from_f64(self.inner.domain().radius()),
        );
        let config = self.inner.config();
        set(&obj, "d", &JsValue::from_f64(config.d as f64));
        set(&obj, "steps", &JsValue::from_f64(config.steps as f64));
        Ok(obj.into())
    }

    /// F on a res × res grid over the domain's bounding square when d = 2, else `undefined`.
    #[wasm_bindgen(js_name = lossGrid)]
    pub fn loss_grid(&self, res: usize) -> Option<Float64Array> {
        self.inner
            .loss_grid(res)
            .map(|g| Float64Array::from(g.as_slice()))
    }

    /// Runs at most `max_steps` steps or until `budget_ms` have passed, and returns the batch with
    /// its columns as `Float64Array`s (transferable to the main thread).
    pub fn advance(&mut self, max_steps: usize, budget_ms: f64) -> Result<JsValue, JsValue> {
        let deadline = js_sys::Date::now() + budget_ms;
        let batch = self
            .inner
            .advance(max_steps, || js_sys::Date::now() < deadline);
        batch_to_js(&batch)
    }

    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }
}

fn batch_to_js(batch: &Batch) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    let columns: [(&str, &[f64]); 8] = [
        ("t", &batch.t),
        ("gradEvals", &batch.grad_evals),
        ("loss", &batch.loss),
        ("excess", &batch.excess),
        ("path", &batch.path),
        ("noiseNorm", &batch.noise_norm),
        ("gradNorm", &batch.grad_norm),
        ("epsSpent", &batch.epsilon_spent),
    ];
    for (name, column) in columns {
        set(&obj, name, &Float64Array::from(column).into());
    }
    let release = match &batch.release {
        Some(r) => to_js(r)?,
        None => JsValue::NULL,
    };
    set(&obj, "release", &release);
    set(&obj, "done", &JsValue::from_bool(batch.done));
    Ok(obj.into())
}
