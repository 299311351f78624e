//! Progress of the long work before a run can start: generating the data and certifying the
//! reference optimum take seconds at n = 10⁶, inside one call the page's worker cannot interrupt.
//! So the work says how far it got, and whoever listens (the worker, through
//! `wasm::on_progress`) passes it on to the page, which shows it and offers a Cancel.
//!
//! A listener is per thread and optional: natively nobody listens and a report costs a
//! thread-local read. Reports never change a number the work computes (nothing here feeds back).

use std::cell::RefCell;

/// Milliseconds on the JavaScript clock (`Instant` panics on wasm32): the reference solve's time
/// cap reads it.
#[cfg(target_arch = "wasm32")]
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The step of preparing a problem that is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Generating (or clipping) the records.
    Data,
    /// Certifying the non-private reference optimum F* (under its caps).
    Reference,
    /// Estimating the population optimum on a fresh sample (non-private diagnostic).
    Population,
}

impl Stage {
    /// The words the page shows for this stage.
    pub fn label(self) -> &'static str {
        match self {
            Stage::Data => "generating the data",
            Stage::Reference => "certifying the reference optimum (non-private)",
            Stage::Population => "estimating the population optimum (non-private)",
        }
    }
}

type Listener = Box<dyn FnMut(Stage, f64)>;

thread_local! {
    static LISTENER: RefCell<Option<Listener>> = const { RefCell::new(None) };
    static STAGE: RefCell<Stage> = const { RefCell::new(Stage::Data) };
}

/// Sets (or with `None` removes) this thread's listener: it is called with the stage and the
/// fraction of it done, in [0, 1], as often as the work reports (throttling is its business).
pub fn listen(listener: Option<Listener>) {
    LISTENER.with(|l| *l.borrow_mut() = listener);
}

/// The work enters `stage` (reported as 0 done).
pub fn begin(stage: Stage) {
    STAGE.with(|s| *s.borrow_mut() = stage);
    done(0.0);
}

/// The current stage is `fraction` done (clamped to [0, 1]; NaN reads as 0).
pub fn done(fraction: f64) {
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    let stage = STAGE.with(|s| *s.borrow());
    LISTENER.with(|l| {
        // A listener that reports again from inside itself is not called twice (no re-entry).
        if let Some(listener) = l
            .try_borrow_mut()
            .ok()
            .as_deref_mut()
            .and_then(Option::as_mut)
        {
            listener(stage, fraction);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn a_listener_hears_each_stage_and_clamped_fractions_until_removed() {
        let heard = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&heard);
        listen(Some(Box::new(move |stage, f| {
            sink.borrow_mut().push((stage, f))
        })));
        begin(Stage::Reference);
        done(0.5);
        done(7.0);
        done(f64::NAN);
        listen(None);
        done(0.25);
        assert_eq!(
            *heard.borrow(),
            vec![
                (Stage::Reference, 0.0),
                (Stage::Reference, 0.5),
                (Stage::Reference, 1.0),
                (Stage::Reference, 0.0),
            ]
        );
    }
}
