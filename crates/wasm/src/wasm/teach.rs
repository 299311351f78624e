//! The teaching tools' jobs, owned by the page's teaching worker (`www/workers/teach-worker.js`): the
//! audit tab's audits, the neighbouring-datasets view and the attacker's view, each drawn a chunk
//! at a time so the worker can report progress and stop between chunks. The logic is
//! `audit::scenarios`, `audit::neighbours` and `audit::attack`; this file only converts.

use wasm_bindgen::prelude::*;

use super::{to_js, to_js_error};
use crate::audit::attack::AttackJob;
use crate::audit::neighbours::{Differing, NeighbourJob};
use crate::audit::scenarios::{AuditJob, SCENARIOS};
use crate::config::RunConfig;
use crate::error::Error;

/// The audit tab's scenarios, in menu order (key, title, algorithm, setting, runs, bugs).
#[wasm_bindgen(js_name = auditScenarios)]
pub fn audit_scenarios() -> Result<JsValue, JsValue> {
    to_js(&SCENARIOS)
}

/// An audit of the tab, drawn in chunks.
#[wasm_bindgen(js_name = AuditJob)]
pub struct WasmAuditJob {
    inner: AuditJob,
}

#[wasm_bindgen(js_class = AuditJob)]
impl WasmAuditJob {
    /// The audit of scenario `key` with `bug` planted ("none" for the correct mechanism), drawn
    /// from the audit stream of `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(key: &str, bug: &str, seed: u32) -> Result<WasmAuditJob, JsValue> {
        AuditJob::new(key, bug, seed)
            .map(|inner| Self { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize, JsValue> {
        self.inner.advance(pairs).map_err(|e| to_js_error(&e))
    }

    /// Runs per side the audit draws.
    pub fn runs(&self) -> usize {
        self.inner.runs()
    }

    /// Whether every run is drawn.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// The audit report (once done).
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.report().map_err(|e| to_js_error(&e))?)
    }
}

/// The neighbouring-datasets view of a page config, drawn in chunks.
#[wasm_bindgen(js_name = NeighbourJob)]
pub struct WasmNeighbourJob {
    inner: NeighbourJob,
}

#[wasm_bindgen(js_class = NeighbourJob)]
impl WasmNeighbourJob {
    /// The view of the page's config (`json`) with the differing record `record` ("outlier",
    /// "random" or "label_flip") and `runs` per side.
    #[wasm_bindgen(constructor)]
    pub fn new(json: &str, record: &str, runs: usize) -> Result<WasmNeighbourJob, JsValue> {
        let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
        let differing: Differing = serde_json::from_value(serde_json::Value::from(record))
            .map_err(|_| {
                to_js_error(&Error::invalid(
                    "neighbour_record",
                    "outlier, random or label_flip",
                    record,
                ))
            })?;
        NeighbourJob::new(&config, differing, runs)
            .map(|inner| Self { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize, JsValue> {
        self.inner.advance(pairs).map_err(|e| to_js_error(&e))
    }

    /// Runs per side asked for.
    pub fn runs(&self) -> usize {
        self.inner.runs()
    }

    /// Whether every run is drawn.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// What the view draws, from the runs so far (at least 20 per side).
    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.view().map_err(|e| to_js_error(&e))?)
    }
}

/// The attacker's view of a page config, drawn in chunks.
#[wasm_bindgen(js_name = AttackJob)]
pub struct WasmAttackJob {
    inner: AttackJob,
}

#[wasm_bindgen(js_class = AttackJob)]
impl WasmAttackJob {
    /// The view of the page's config (`json`) with `runs` per side (0: the family's default).
    #[wasm_bindgen(constructor)]
    pub fn new(json: &str, runs: usize) -> Result<WasmAttackJob, JsValue> {
        let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
        AttackJob::new(&config, runs)
            .map(|inner| Self { inner })
            .map_err(|e| to_js_error(&e))
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize, JsValue> {
        self.inner.advance(pairs).map_err(|e| to_js_error(&e))
    }

    /// Runs per side.
    pub fn runs(&self) -> usize {
        self.inner.runs()
    }

    /// The pair and settings, in words.
    pub fn setting(&self) -> String {
        self.inner.setting().to_string()
    }

    /// Whether every run is drawn.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// What the view draws, from the runs so far (at least 20 per side).
    pub fn view(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.view().map_err(|e| to_js_error(&e))?)
    }
}
