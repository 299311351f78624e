//! The `edges` target: configs drawn at and between the corners of what the
//! page accepts, every family, run through the page's path with the checks of
//! tests/algorithms/privacy_edges.rs (finite releases that differ between noise draws and carry the
//! previewed guarantee).

use arbitrary::{Result, Unstructured};
use dp_playground::config::RunConfig;
use serde_json::{Value, json};

use super::edges::{self, PLANTED};

/// A numeric setting and its accepted range, drawn log-uniformly (0 too where the range starts
/// at 0). Sizes are kept small (n ≤ 400, steps ≤ 12) so one execution stays near a second.
const RANGES: [(&str, f64, f64); 12] = [
    ("epsilon", 1e-4, 100.0),
    ("feature_bound", 1e-6, 1e6),
    ("radius", 1e-6, 1e6),
    ("l2", 0.0, 1e3),
    ("clip", 1e-9, 1e6),
    ("lambda1", 1e-9, 1e6),
    ("entry_bound", 1e-3, 1e3),
    ("mu_x", 0.0, 1e3),
    ("mu_y", 0.0, 1e3),
    ("feature_scale", 1e-6, 1e3),
    ("n", 10.0, 400.0),
    ("steps", 1.0, 12.0),
];

fn draw(u: &mut Unstructured<'_>, lo: f64, hi: f64) -> Result<f64> {
    if lo == 0.0 && u.ratio(1, 4)? {
        return Ok(0.0);
    }
    let (a, b) = (lo.max(1e-12).ln(), hi.ln());
    let t = f64::from(u.int_in_range(0..=1_000_000u32)?) / 1e6;
    Ok((a + t * (b - a)).exp().clamp(lo, hi))
}

/// An input: `{"config": …, "planted": null | a value planted in a CSV record}`.
pub fn input(u: &mut Unstructured<'_>) -> Vec<u8> {
    let mut build = || -> Result<Vec<u8>> {
        let kinds: Vec<_> = edges::kinds().collect();
        let kind = *u.choose(&kinds)?;
        let configs = edges::configs(kind);
        let (_, mut config) = u.choose(&configs)?.clone();
        // One or two more corners on top, then a few settings anywhere in their ranges.
        for _ in 0..u.int_in_range(0..=2u8)? {
            (u.choose(edges::CORNERS)?.apply)(&mut config);
        }
        let mut value = serde_json::to_value(&config).unwrap_or(Value::Null);
        for _ in 0..u.int_in_range(0..=3u8)? {
            let (key, lo, hi) = *u.choose(&RANGES)?;
            let v = draw(u, lo, hi)?;
            value[key] = if matches!(key, "n" | "steps") {
                json!(v.round() as u64)
            } else {
                json!(v)
            };
        }
        let planted = if u.ratio(1, 4)? {
            json!(u.choose(&PLANTED)?.1)
        } else {
            Value::Null
        };
        Ok(serde_json::to_vec(&json!({ "config": value, "planted": planted })).unwrap_or_default())
    };
    build().unwrap_or_default()
}

/// Runs the drawn config at two noise draws; a broken check is an invariant finding.
pub fn exec(input: &[u8]) -> std::result::Result<(), String> {
    let Ok(Value::Object(mut outer)) = serde_json::from_slice::<Value>(input) else {
        return Ok(());
    };
    let Some(Ok(mut config)) = outer
        .remove("config")
        .map(|c| RunConfig::from_json(&c.to_string()))
    else {
        return Ok(());
    };
    config.batch = config.batch.min(config.n);
    let planted = outer.remove("planted").and_then(|p| p.as_f64());
    let file = match planted.and_then(|v| edges::on_file(&config, v)) {
        Some((c, text)) => {
            config = c;
            Some(text)
        }
        None => None,
    };
    edges::check(&config, file.as_deref(), 2).map(|_| ())
}
