//! The worker's ear for [`crate::progress`]: generating and certifying a large problem is one
//! long call, and the page wants to see it move.

use std::cell::Cell;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::progress::{self, Stage};

/// Least time between two reports of the same stage: a few a second are enough for a progress
/// bar, and each one is a message to the page.
const REPORT_MS: f64 = 100.0;

/// Calls `callback(stage, fraction)` while a session is prepared (generating the data,
/// certifying the reference, estimating the population optimum): at each new stage, then at most
/// every 100 ms. `stage` is the words the page shows, `fraction` in [0, 1]. `null` stops it.
#[wasm_bindgen(js_name = onProgress)]
pub fn on_progress(callback: Option<Function>) {
    let Some(callback) = callback else {
        progress::listen(None);
        return;
    };
    let last = Cell::new((None::<Stage>, f64::NEG_INFINITY));
    progress::listen(Some(Box::new(move |stage, fraction| {
        let now = crate::progress::now_ms();
        let (last_stage, at) = last.get();
        if last_stage == Some(stage) && now - at < REPORT_MS {
            return;
        }
        last.set((Some(stage), now));
        // A throwing callback must not abort the work it reports on.
        let _ = callback.call2(
            &JsValue::NULL,
            &JsValue::from_str(stage.label()),
            &JsValue::from_f64(fraction),
        );
    })));
}
