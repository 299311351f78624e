//! Bindings of the page's sweep ([`crate::session::sweep_lanes`]): the panel plans it and
//! summarises it on the main thread; each worker of the pool builds a point and runs its lanes.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::algo::registry;
use crate::config::RunConfig;
use crate::error::Error;
use crate::session::sweep_lanes::{PageSweep, PointLanes, SweepRequest, field};

use super::{to_js, to_js_error};

/// A planned sweep: the current settings and the panel's request, validated.
#[wasm_bindgen(js_name = SweepPlan)]
pub struct WasmSweepPlan {
    inner: PageSweep,
}

/// One point as the panel shows it.
#[derive(Serialize)]
struct PointInfo {
    algorithm: String,
    name: &'static str,
    epsilon: f64,
    n: usize,
    notes: Vec<String>,
}

#[wasm_bindgen(js_class = SweepPlan)]
impl WasmSweepPlan {
    /// Plans the sweep `request_json` (`{ axis: "epsilon" | "n", values, algorithms, repeats }`)
    /// around the settings `config_json`; an error `{ field, message }` names the panel's
    /// control ("sweep values", "sweep repeats", "sweep algorithms", "sweep settings").
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, request_json: &str) -> Result<WasmSweepPlan, JsValue> {
        let base = RunConfig::from_json(config_json).map_err(|e| {
            to_js_error(&Error::invalid(
                field::SETTINGS,
                format!(
                    "correct the run's settings first ({})",
                    e.to_string().trim_end_matches('.')
                ),
                "",
            ))
        })?;
        let request: SweepRequest = serde_json::from_str(request_json).map_err(|e| {
            to_js_error(&Error::invalid(
                field::VALUES,
                "enter numbers separated by commas",
                e,
            ))
        })?;
        PageSweep::new(base, &request)
            .map(|inner| WasmSweepPlan { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// The points, in order: `[{ algorithm, name, epsilon, n, notes }]`.
    pub fn points(&self) -> Result<JsValue, JsValue> {
        let list: Vec<PointInfo> = self
            .inner
            .points()
            .iter()
            .map(|p| PointInfo {
                algorithm: p.algorithm.key(),
                name: registry::family(p.algorithm).card.name,
                epsilon: p.epsilon,
                n: p.n,
                notes: p.notes.clone(),
            })
            .collect();
        to_js(&list)
    }

    /// Lanes in all (points × repeats).
    pub fn lanes(&self) -> usize {
        self.inner.lanes()
    }

    /// Repeats per point.
    pub fn repeats(&self) -> usize {
        self.inner.repeats()
    }

    /// What the whole sweep publishes together, as `composeRun` states a run's.
    pub fn composition(&self) -> Result<JsValue, JsValue> {
        let c = self.inner.composition().map_err(|e| to_js_error(&e))?;
        to_js(&c)
    }

    /// The tasks for a pool of `workers`: `[{ point, start, end }]`.
    pub fn tasks(&self, workers: usize) -> Result<JsValue, JsValue> {
        to_js(&self.inner.tasks(workers))
    }

    /// Builds point `index` (its data and reference) in this worker.
    pub fn point(&self, index: usize) -> Result<WasmSweepPoint, JsValue> {
        self.inner
            .point(index)
            .map(|inner| WasmSweepPoint { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// The summary: `lanes` is every lane's metric (point-major, `null` where unscored),
    /// `bounds` each point's theory bound (or `null`): `{ rows, bounds, slopes, theorySlopes,
    /// csv, lanesCsv, references }` (references: `[{ label, x, y }]`, dotted).
    pub fn summary(&self, lanes: JsValue, bounds: JsValue) -> Result<JsValue, JsValue> {
        let read = |v: JsValue, what: &str| {
            serde_wasm_bindgen::from_value::<Vec<Option<f64>>>(v)
                .map_err(|e| to_js_error(&Error::invalid(what, "an array of numbers or nulls", e)))
        };
        let s = self
            .inner
            .summary(read(lanes, "lanes")?, read(bounds, "bounds")?)
            .map_err(|e| to_js_error(&e))?;
        to_js(&s)
    }
}

/// One point of a sweep, built in a worker, its lanes run one at a time.
#[wasm_bindgen(js_name = SweepPoint)]
pub struct WasmSweepPoint {
    inner: PointLanes,
}

#[wasm_bindgen(js_class = SweepPoint)]
impl WasmSweepPoint {
    /// Runs repeat `repeat` to its release: the metric, or `undefined` when unscored.
    pub fn lane(&mut self, repeat: usize) -> Option<f64> {
        self.inner.lane(repeat)
    }

    /// The theorem's bound at this point, or `undefined` where the family states none.
    pub fn bound(&self) -> Option<f64> {
        self.inner.bound()
    }
}
