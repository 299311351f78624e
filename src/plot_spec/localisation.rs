//! The localisation view's spec (issue 15): a localized heavy-tail run's
//! [`LocalisationView`] — W, the phases' centres and localisation balls, the noise rings, the
//! candidates of each aggregation step, the one picked, and the release — as the page received
//! it from the run.

use serde::Deserialize;

use super::{check_finite, check_positive};
use crate::algo::heavy_tails::localisation_view::{LocalisationView, Planar};
use crate::error::Error;

/// Most phases a view may hold: Algorithm 1 runs at most ⌈log₂ n⌉ ≤ 64.
pub const MAX_PHASES: usize = 64;
/// Most calls a phase may hold: the largest J the settings accept.
pub const MAX_CALLS: usize = 101;

/// The localisation view.
#[derive(Debug, Clone, Deserialize)]
pub struct LocalisationSpec {
    /// The run's view where it stands (`batch.localisation`, or the run's info before Play).
    pub view: LocalisationView,
}

/// A point, when present: both coordinates finite.
fn check_point(field: &str, p: Option<Planar>) -> Result<(), Error> {
    match p {
        Some([x, y]) if !(x.is_finite() && y.is_finite()) => Err(Error::invalid(
            field,
            "a point of two finite coordinates",
            format!("({x}, {y})"),
        )),
        _ => Ok(()),
    }
}

impl LocalisationSpec {
    /// Checks the view: W's radius and every phase's scales finite and > 0, its points finite,
    /// at most [`MAX_PHASES`] phases of at most [`MAX_CALLS`] calls, each picked index one of
    /// its phase's calls.
    pub fn check(&self) -> Result<(), Error> {
        let v = &self.view;
        check_positive("localisation.view.radius", v.radius)?;
        if v.d == 0 {
            return Err(Error::invalid("localisation.view.d", "d ≥ 1", v.d));
        }
        if v.phases.len() > MAX_PHASES {
            return Err(Error::invalid(
                "localisation.view.phases",
                format!("at most {MAX_PHASES} phases"),
                v.phases.len(),
            ));
        }
        check_point("localisation.view.release", v.release)?;
        for (i, p) in v.phases.iter().enumerate() {
            let at = |key: &str| format!("localisation.view.phases[{i}].{key}");
            check_positive(&at("noiseScale"), p.noise_scale)?;
            check_positive(&at("noiseRing"), p.noise_ring)?;
            check_positive(&at("ballRadius"), p.ball_radius)?;
            check_finite(&at("lambda"), p.lambda)?;
            check_positive(&at("clip"), p.clip)?;
            check_point(&at("centre"), p.centre)?;
            if p.calls.len() > MAX_CALLS {
                return Err(Error::invalid(
                    at("calls"),
                    format!("at most {MAX_CALLS} calls"),
                    p.calls.len(),
                ));
            }
            if let Some(k) = p.picked.filter(|&k| k >= p.calls.len()) {
                return Err(Error::invalid(
                    at("picked"),
                    format!("one of the phase's {} calls", p.calls.len()),
                    k,
                ));
            }
            for (j, c) in p.calls.iter().enumerate() {
                let at = |key: &str| format!("localisation.view.phases[{i}].calls[{j}].{key}");
                check_point(&at("ballCentre"), c.ball_centre)?;
                check_point(&at("certified"), c.certified)?;
                check_point(&at("candidate"), c.candidate)?;
            }
        }
        Ok(())
    }

    /// The public centres w̄₁, w̄₂, … reached so far, then the release: the path the view joins.
    pub fn centres(&self) -> Vec<Planar> {
        self.view
            .phases
            .iter()
            .filter_map(|p| p.centre)
            .chain(self.view.release)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use serde_json::json;

    fn field(spec: serde_json::Value) -> Option<String> {
        Spec::parse("localisation", spec)
            .err()
            .and_then(|e| e.field().map(str::to_string))
    }

    fn phase() -> serde_json::Value {
        json!({"t": 1, "m": 100, "lambda": 0.5, "clip": 2.0, "noiseScale": 0.1, "noiseRing": 0.2,
            "ballRadius": 3.0, "centre": [0, 0],
            "calls": [{"ballCentre": [0.1, 0.2], "certified": [0.1, 0.1], "candidate": [0.2, 0.1]}],
            "picked": 0})
    }

    #[test]
    fn a_run_s_view_parses_and_its_centres_end_at_the_release() {
        let spec = json!({"view": {"radius": 4, "d": 2, "algorithm": 4,
            "phases": [phase(), {"t": 2, "m": 50, "lambda": 16, "clip": 1.5, "noiseScale": 0.01,
                "noiseRing": 0.02, "ballRadius": 0.3, "centre": [0.2, 0.1]}],
            "release": [0.25, 0.1]}});
        match Spec::parse("localisation", spec) {
            Ok(Spec::Localisation(s)) => {
                assert_eq!(s.centres(), vec![[0.0, 0.0], [0.2, 0.1], [0.25, 0.1]]);
                assert!(s.view.phases[1].calls.is_empty() && s.view.phases[1].picked.is_none());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_views_are_refused_at_their_key() {
        let with = |key: &str, value: serde_json::Value| {
            let mut p = phase();
            p[key] = value;
            json!({"view": {"radius": 4, "d": 2, "algorithm": 4, "phases": [p]}})
        };
        assert_eq!(
            field(with("picked", json!(1))).as_deref(),
            Some("localisation.view.phases[0].picked")
        );
        assert_eq!(
            field(with("ballRadius", json!(0))).as_deref(),
            Some("localisation.view.phases[0].ballRadius")
        );
        let calls = json!(vec![json!({}); super::MAX_CALLS + 1]);
        assert_eq!(
            field(with("calls", calls)).as_deref(),
            Some("localisation.view.phases[0].calls")
        );
        let zero = json!({"view": {"radius": 0, "d": 2, "algorithm": 4, "phases": []}});
        assert_eq!(field(zero).as_deref(), Some("localisation.view.radius"));
        // A non-finite point (JSON has none; a JS caller can send NaN) is refused at its key.
        let mut spec = match Spec::parse("localisation", with("picked", json!(0))) {
            Ok(Spec::Localisation(s)) => s,
            other => panic!("{other:?}"),
        };
        spec.view.phases[0].calls[0].candidate = Some([f64::NAN, 0.0]);
        assert_eq!(
            spec.check().unwrap_err().field(),
            Some("localisation.view.phases[0].calls[0].candidate")
        );
    }
}
