//! `RunConfig`: everything a run depends on, as it travels in a URL hash or a JSON file, and its
//! validation. This is the one place user input is checked; every error names the field and what
//! was expected.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::privacy::Relation;

/// Largest n·d the page accepts (≈ 160 MB of f64 features): beyond it a browser tab runs out of memory.
pub const MAX_ENTRIES: usize = 20_000_000;

/// The private algorithm to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AlgorithmKind {
    /// DP-GD, seed 002 Algorithm 4 (see [`crate::algo::noisy_gd`]).
    #[default]
    NoisyGd,
    /// Output perturbation, seed 000 Algorithm 1 with a certified AGD base solver (see
    /// [`crate::algo::output_perturbation`]); needs a ridge `l2` > 0.
    OutputPerturbation,
}

/// One run: data, problem, privacy and algorithm settings. Missing fields take their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Seed of every random stream of the run (data and noise are separate streams).
    pub seed: u32,
    /// Draw the privacy noise from the operating system instead of the seed (DESIGN.md §5 rule 6):
    /// the run is then not reproducible, which is what a private release needs. The synthetic
    /// data still come from the seed.
    pub unseeded_noise: bool,
    /// Number of samples.
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// Per-coordinate standard deviation of the synthetic Gaussian features.
    pub feature_scale: f64,
    /// ‖w₀‖ of the planted classifier.
    pub signal: f64,
    /// Declared bound R_x on ‖x‖: features are clipped to it, and it sets the Lipschitz constant.
    pub feature_bound: f64,
    /// Radius of the ℓ2-ball domain.
    pub radius: f64,
    /// Ridge λ ≥ 0 of (λ/2)‖w‖²: the declared strong convexity μ (output perturbation needs μ > 0).
    pub l2: f64,
    pub epsilon: f64,
    pub delta: f64,
    pub relation: Relation,
    pub algorithm: AlgorithmKind,
    /// Number of noisy gradient steps T.
    pub steps: usize,
    /// Step size η; `None` takes the theory default 1/β.
    pub step_size: Option<f64>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            unseeded_noise: false,
            n: 2000,
            d: 2,
            feature_scale: 0.6,
            signal: 4.0,
            feature_bound: 1.0,
            radius: 4.0,
            l2: 0.0,
            epsilon: 1.0,
            delta: 1e-6,
            relation: Relation::ReplaceOne,
            algorithm: AlgorithmKind::NoisyGd,
            steps: 200,
            step_size: None,
        }
    }
}

impl RunConfig {
    /// Parses JSON and validates it. A wrong type names the field path (e.g. `epsilon: invalid
    /// type: string "x", expected f64`).
    pub fn from_json(text: &str) -> Result<Self> {
        let mut de = serde_json::Deserializer::from_str(text);
        let config: RunConfig = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let is_data_error = inner.classify() == serde_json::error::Category::Data;
            if !is_data_error || path == "." || path.is_empty() {
                Error::Parse {
                    line: inner.line(),
                    col: inner.column(),
                    message: inner.to_string(),
                }
            } else {
                Error::invalid(path, "a valid value", strip_position(&inner.to_string()))
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// The config as compact JSON (the URL-hash form).
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Checks every field against its allowed range.
    pub fn validate(&self) -> Result<()> {
        in_range_usize("n", self.n, 10, 1_000_000)?;
        in_range_usize("d", self.d, 1, 1000)?;
        if self.n * self.d > MAX_ENTRIES {
            return Err(Error::invalid(
                "n",
                format!("n·d ≤ {MAX_ENTRIES} (browser memory)"),
                self.n * self.d,
            ));
        }
        in_range("feature_scale", self.feature_scale, 1e-6, 1e3)?;
        in_range("signal", self.signal, 0.0, 1e3)?;
        in_range("feature_bound", self.feature_bound, 1e-6, 1e6)?;
        in_range("radius", self.radius, 1e-6, 1e6)?;
        in_range("l2", self.l2, 0.0, 1e3)?;
        if self.algorithm == AlgorithmKind::OutputPerturbation && self.l2 <= 0.0 {
            return Err(Error::invalid(
                "l2",
                "a ridge l2 > 0: output perturbation (seed 000 Algorithm 1) needs a strongly convex objective",
                self.l2,
            ));
        }
        in_range("epsilon", self.epsilon, 1e-4, 100.0)?;
        if !(self.delta > 0.0 && self.delta < 0.5) {
            return Err(Error::invalid("delta", "a number in (0, 0.5)", self.delta));
        }
        in_range_usize("steps", self.steps, 1, 100_000)?;
        if let Some(eta) = self.step_size {
            in_range("step_size", eta, 1e-9, 1e6)?;
        }
        Ok(())
    }
}

fn in_range(field: &'static str, v: f64, lo: f64, hi: f64) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            format!("a number in [{lo}, {hi}]"),
            v,
        ))
    }
}

fn in_range_usize(field: &'static str, v: usize, lo: usize, hi: usize) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            format!("an integer in [{lo}, {hi}]"),
            v,
        ))
    }
}

/// serde_json appends " at line L column C", which means nothing for a one-line hash.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(json: &str) -> String {
        match RunConfig::from_json(json) {
            Err(Error::InvalidParameter { field, .. }) => field,
            other => panic!("expected a field error for {json}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_round_trip_and_missing_fields_default() {
        let c = RunConfig::default();
        assert_eq!(RunConfig::from_json(&c.to_json()).unwrap(), c);
        let partial = RunConfig::from_json(r#"{"epsilon": 0.5}"#).unwrap();
        assert_eq!(partial.epsilon, 0.5);
        assert_eq!(partial.n, c.n);
    }

    #[test]
    fn every_bad_value_names_its_field() {
        assert_eq!(field_of(r#"{"epsilon": -1}"#), "epsilon");
        assert_eq!(field_of(r#"{"epsilon": "x"}"#), "epsilon");
        assert_eq!(field_of(r#"{"delta": 0}"#), "delta");
        assert_eq!(field_of(r#"{"n": 3}"#), "n");
        assert_eq!(field_of(r#"{"n": 1000000, "d": 1000}"#), "n");
        assert_eq!(field_of(r#"{"steps": 0}"#), "steps");
        assert_eq!(field_of(r#"{"seed": -4}"#), "seed");
        assert_eq!(field_of(r#"{"relation": "sideways"}"#), "relation");
        assert_eq!(field_of(r#"{"step_size": 0}"#), "step_size");
        assert_eq!(field_of(r#"{"unseeded_noise": 1}"#), "unseeded_noise");
        assert_eq!(field_of(r#"{"l2": -1}"#), "l2");
        assert_eq!(field_of(r#"{"algorithm": "output_perturbation"}"#), "l2");
        assert!(RunConfig::from_json(r#"{"algorithm": "output_perturbation", "l2": 0.1}"#).is_ok());
    }

    #[test]
    fn unknown_fields_and_broken_json_are_rejected() {
        assert!(matches!(
            RunConfig::from_json(r#"{"epsilom": 1}"#),
            Err(Error::InvalidParameter { .. }) | Err(Error::Parse { .. })
        ));
        assert!(matches!(
            RunConfig::from_json("{\"epsilon\": 1"),
            Err(Error::Parse { .. })
        ));
    }
}
