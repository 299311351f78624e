//! The page's plot specs: what `drawPlot` and `plotSvg` accept, parsed and checked here, drawn
//! by `wasm::plot`.
//!
//! Each plot kind has one spec struct (camelCase keys). Parsing and checking are
//! target-independent, so the checks the page relies on are tested and fuzzed natively
//! (`tests/fuzz`); only the drawing needs a browser. A spec is parsed and checked completely
//! before anything is drawn: a malformed spec is an [`Error`] naming the key at fault (e.g.
//! `excess.series[1].mean`) and leaves the canvas as it was.
//!
//! Conventions (chosen here, the issue leaves them open):
//! - Data arrays may contain NaN (or, on log axes, non-positive) entries: they are skipped, and
//!   break a line, because a run legitimately produces them (an iterate at the certified optimum
//!   has excess 0). Arrays that must line up (`x`/`mean`, `lo`/`hi`, `theoryX`/`theoryY`, an
//!   interleaved `xy`) must have matching lengths, and an empty data array is an empty plot (the
//!   page draws before the first batch arrives). No array holds more than [`MAX_VALUES`].
//! - Scalars that set the view or a law (`extent`, `sigma`, `threshold`, `target`, …) and fixed
//!   points (`center`, `wStar`) must be finite, and scales > 0.
//! - Unknown keys are ignored: `serde_wasm_bindgen` reads a struct's known keys only, so serde's
//!   `deny_unknown_fields` has no effect on a JS object (a misspelt optional key takes its default).

pub mod excess;
pub mod features;
pub mod localisation;
pub mod noise;
pub mod path;
pub mod pinned;
pub mod players;
pub mod privacy;
pub mod roc;
pub mod ternary;
pub mod thin;
pub mod vertices;

use serde::Deserializer;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

use excess::ExcessSpec;
use features::FeaturesSpec;
use localisation::LocalisationSpec;
use noise::NoiseSpec;
use path::PathSpec;
use players::PlayersSpec;
use privacy::PrivacySpec;
use roc::RocSpec;
use vertices::VerticesSpec;

/// The colours a series' `color` can index (the drawing's palette has this many).
pub const PALETTE_SIZE: usize = 4;

/// Most values one array of a spec may hold. The page decimates its series to a few thousand
/// points and sends at most one noise norm per step (a run has at most
/// [`crate::config::MAX_RUN_STEPS`]); twice that leaves room, and stops a hostile caller from
/// making the tab copy and scan hundreds of megabytes per frame.
pub const MAX_VALUES: usize = 2 * crate::config::MAX_RUN_STEPS;

/// Largest side of an SVG figure, in pixels (browsers cap a canvas near 32767; a slide needs a
/// few thousand). A negative size from JS arrives as a huge unsigned one, and is refused here.
pub const MAX_SIDE: u32 = 16384;

/// Checks an SVG figure's size: each side 1 to [`MAX_SIDE`] pixels, at field `size`.
pub fn check_size(width: u32, height: u32) -> Result<()> {
    if (1..=MAX_SIDE).contains(&width) && (1..=MAX_SIDE).contains(&height) {
        Ok(())
    } else {
        Err(Error::invalid(
            "size",
            format!(
                "a width and height of 1 to {MAX_SIDE} pixels (a negative size reads as a huge one)"
            ),
            format!("{width} × {height}"),
        ))
    }
}

/// The plot kinds, as `drawPlot` and `plotSvg` name them.
pub const KINDS: [&str; 9] = [
    "excess",
    "path",
    "noise",
    "privacy",
    "features",
    "players",
    "vertices",
    "localisation",
    "roc",
];

/// A parsed and checked spec of one of the plot kinds.
#[derive(Debug, Clone)]
pub enum Spec {
    Excess(ExcessSpec),
    Path(PathSpec),
    Noise(NoiseSpec),
    Privacy(PrivacySpec),
    Features(FeaturesSpec),
    Players(PlayersSpec),
    Vertices(VerticesSpec),
    Localisation(LocalisationSpec),
    Roc(RocSpec),
}

impl Spec {
    /// Reads the spec of plot `kind` (one of [`KINDS`]) from any serde deserializer (a JS value
    /// in the browser, JSON natively) and checks it. Errors name the key at fault.
    pub fn parse<'de, D: Deserializer<'de>>(kind: &str, spec: D) -> Result<Spec> {
        let spec = match kind {
            "excess" => Spec::Excess(read(kind, spec)?),
            "path" => Spec::Path(read(kind, spec)?),
            "noise" => Spec::Noise(read(kind, spec)?),
            "privacy" => Spec::Privacy(read(kind, spec)?),
            "features" => Spec::Features(read(kind, spec)?),
            "players" => Spec::Players(read(kind, spec)?),
            "vertices" => Spec::Vertices(read(kind, spec)?),
            "localisation" => Spec::Localisation(read(kind, spec)?),
            "roc" => Spec::Roc(read(kind, spec)?),
            other => {
                return Err(Error::invalid(
                    "kind",
                    "one of excess, path, noise, privacy, features, players, vertices, localisation, roc",
                    format!("{other:?}"),
                ));
            }
        };
        match &spec {
            Spec::Excess(s) => s.check()?,
            Spec::Path(s) => s.check()?,
            Spec::Noise(s) => s.check()?,
            Spec::Privacy(s) => s.check()?,
            Spec::Features(s) => s.check()?,
            Spec::Players(s) => s.check()?,
            Spec::Vertices(s) => s.check()?,
            Spec::Localisation(s) => s.check()?,
            Spec::Roc(s) => s.check()?,
        }
        Ok(spec)
    }
}

/// Deserialises a spec, naming the path of the offending key (e.g. `series[1].mean`) on error.
fn read<'de, T: DeserializeOwned, D: Deserializer<'de>>(kind: &str, de: D) -> Result<T> {
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." {
            kind.to_string()
        } else {
            format!("{kind}.{path}")
        };
        Error::invalid(field, format!("a valid {kind} plot spec"), e.into_inner())
    })
}

/// A list of numbers. In the browser it arrives either as a plain Array or as a Float64Array
/// (read in one copy); natively, as any serde sequence of numbers. Either way
/// it holds at most [`MAX_VALUES`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Floats(pub Vec<f64>);

impl std::ops::Deref for Floats {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}

impl Floats {
    /// Refuses more than [`MAX_VALUES`] values, before they are copied where the caller can
    /// tell the length first.
    pub fn check_len<E: serde::de::Error>(len: usize) -> std::result::Result<(), E> {
        if len <= MAX_VALUES {
            Ok(())
        } else {
            Err(E::custom(format!(
                "at most {MAX_VALUES} values (decimate the series before drawing), got {len}"
            )))
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl<'de> serde::Deserialize<'de> for Floats {
    fn deserialize<D: Deserializer<'de>>(de: D) -> std::result::Result<Self, D::Error> {
        let values = <Vec<f64> as serde::Deserialize>::deserialize(de)?;
        Floats::check_len::<D::Error>(values.len())?;
        Ok(Floats(values))
    }
}

/// A list of numbers arrives from JS either as a plain Array or as a Float64Array. A
/// Float64Array is copied in one go, after its length is checked; anything else goes through
/// serde's ordinary sequence path (so a string in an Array is an error, not a silent NaN).
// Here, not in crates/wasm: a crate may implement serde's trait only for its own types.
#[cfg(target_arch = "wasm32")]
impl<'de> serde::Deserialize<'de> for Floats {
    fn deserialize<D: Deserializer<'de>>(de: D) -> std::result::Result<Self, D::Error> {
        let value: wasm_bindgen::JsValue = serde_wasm_bindgen::preserve::deserialize(de)?;
        if let Some(typed) = wasm_bindgen::JsCast::dyn_ref::<js_sys::Float64Array>(&value) {
            Floats::check_len::<D::Error>(typed.length() as usize)?;
            return Ok(Floats(typed.to_vec()));
        }
        let values = serde_wasm_bindgen::from_value::<Vec<f64>>(value)
            .map_err(|e| <D::Error as serde::de::Error>::custom(e.to_string()))?;
        Floats::check_len::<D::Error>(values.len())?;
        Ok(Floats(values))
    }
}

// ---- checks shared by the specs ----

/// A palette index.
fn check_color(field: &str, color: usize) -> Result<()> {
    if color < PALETTE_SIZE {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            format!("a palette index 0..{}", PALETTE_SIZE - 1),
            color,
        ))
    }
}

/// A finite scalar.
fn check_finite(field: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(field, "a finite number", v))
    }
}

/// A finite scalar > 0 (a scale or a size).
fn check_positive(field: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(field, "a finite number > 0", v))
    }
}

/// Two arrays that pair up element by element.
fn check_same_len(field: &str, a: &[f64], other: &str, b: &[f64]) -> Result<()> {
    if a.len() == b.len() {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            format!("as many entries as {other} ({})", b.len()),
            a.len(),
        ))
    }
}

/// An interleaved x0, y0, x1, y1, … array.
fn check_pairs(field: &str, xy: &[f64]) -> Result<()> {
    if xy.len() % 2 == 0 {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            "an even number of entries (x0, y0, x1, y1, …)",
            xy.len(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(kind: &str, spec: serde_json::Value) -> Option<String> {
        Spec::parse(kind, spec)
            .err()
            .and_then(|e| e.field().map(str::to_string))
    }

    #[test]
    fn specs_parse_natively_and_errors_name_the_key() {
        let spec = json!({"norms": [1, 2], "threshold": 2, "clippedFraction": 0.5});
        assert!(Spec::parse("features", spec).is_ok());
        let bad = json!({"series": [{"label": "a", "x": [1, 2], "mean": [1]}]});
        assert_eq!(
            field("excess", bad).as_deref(),
            Some("excess.series[0].mean")
        );
        assert_eq!(field("scatter", json!({})).as_deref(), Some("kind"));
    }

    #[test]
    fn an_array_over_max_values_is_refused_at_its_key() {
        let norms = vec![1.0; MAX_VALUES + 1];
        let spec = json!({"norms": norms, "threshold": 2, "clippedFraction": 0});
        assert_eq!(field("features", spec).as_deref(), Some("features.norms"));
        let norms = vec![1.0; MAX_VALUES];
        let spec = json!({"norms": norms, "threshold": 2, "clippedFraction": 0});
        assert!(Spec::parse("features", spec).is_ok());
    }

    #[test]
    fn svg_sizes_are_one_to_max_side_pixels() {
        assert!(check_size(1, MAX_SIDE).is_ok());
        for (w, h) in [(0, 1), (1, 0), (MAX_SIDE + 1, 1), ((-5i32) as u32, 300)] {
            assert_eq!(check_size(w, h).unwrap_err().field(), Some("size"));
        }
    }
}
