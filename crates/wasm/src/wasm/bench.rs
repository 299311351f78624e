//! The benchmark page's bindings (`/bench.html`, run in `www/workers/bench-worker.js`): the cases of
//! [`crate::bench`], so the browser times exactly the code `cargo bench --bench cases` times.
//! The page reads the clock (`performance.now()`) around [`BenchWorkload::run`].

use wasm_bindgen::prelude::*;

use super::to_js_error;
use crate::bench::{self, Case, Workload};

/// The plan as JSON text: `[{ n, d, cases: [{ case, repeats }] }]`; `quick` is the page's
/// `?quick` (tiny sizes, for tests).
#[wasm_bindgen(js_name = benchPlan)]
pub fn bench_plan(quick: bool) -> String {
    serde_json::to_string(&bench::plan(quick)).unwrap_or_default()
}

/// How many runs to time together after an untimed run of `first_ms` (see
/// [`crate::bench::runs_per_timing`]).
#[wasm_bindgen(js_name = benchRunsPerTiming)]
pub fn bench_runs_per_timing(first_ms: f64) -> usize {
    bench::runs_per_timing(first_ms)
}

/// The data of one size and what the cases need (see [`crate::bench::Workload`]).
#[wasm_bindgen]
pub struct BenchWorkload(Workload);

#[wasm_bindgen]
impl BenchWorkload {
    /// Generates and prepares the n × d workload; an error names `n·d` when it cannot fit.
    #[wasm_bindgen(constructor)]
    pub fn new(n: usize, d: usize) -> Result<BenchWorkload, JsValue> {
        Workload::new(n, d)
            .map(BenchWorkload)
            .map_err(|e| to_js_error(&e))
    }

    /// The untimed set-up before a timed batch of `runs` runs of the case named `case`.
    pub fn prepare(&mut self, case: &str, runs: usize) -> Result<(), JsValue> {
        let case = Case::from_name(case).map_err(|e| to_js_error(&e))?;
        self.0.prepare(case, runs).map_err(|e| to_js_error(&e))
    }

    /// A timed batch of `runs` runs of the case named `case`; returns a finite number computed
    /// from their results.
    pub fn run(&mut self, case: &str, runs: usize) -> Result<f64, JsValue> {
        let case = Case::from_name(case).map_err(|e| to_js_error(&e))?;
        self.0.run(case, runs).map_err(|e| to_js_error(&e))
    }
}
