//! Reading settings: strict JSON ([`RunConfig::from_json`]) and a page link, read leniently
//! ([`RunConfig::from_link`]), where every unusable field falls back to its default on its own
//! and is reported at its control.

use super::*;

impl RunConfig {
    /// Parses JSON and validates it. A wrong type names the field path (e.g. `epsilon: invalid
    /// type: string "x", expected f64`).
    ///
    /// Only a JSON object is read: text after its closing brace, and an array anywhere but
    /// `compare` (serde would read `[1, false]` positionally as `seed`, `unseeded_noise`, …), are
    /// refused, so a truncated or concatenated link cannot pass for a different config.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            if let Some(error) = out_of_range(text, &e) {
                return error;
            }
            Error::Parse {
            line: e.line(),
            col: e.column(),
            message: match e.classify() {
                serde_json::error::Category::Syntax if e.to_string().starts_with("trailing") => {
                    "text after the settings' closing '}': expected one JSON object and nothing after it".to_string()
                }
                _ => strip_position(&e.to_string()),
            },
        }})?;
        let serde_json::Value::Object(map) = &value else {
            return Err(Error::Parse {
                line: 1,
                col: 1,
                message: format!(
                    "expected a JSON object of settings {{\"key\": value, …}}, got {}",
                    json_kind(&value)
                ),
            });
        };
        for (key, value) in map {
            positional(key, value)?;
        }
        let config: RunConfig = read_tracked(text).map_err(|e| {
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
                // A part of the aggregation (`wrap.tau`) is shown under the loss's control.
                let message = inner.to_string();
                if message.starts_with("unknown field") {
                    return unknown_setting(&path);
                }
                let (wanted, got) = wanted_and_got(&message);
                at_control(Error::invalid(path, format!("enter {wanted}"), got))
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads a page link as the page does; the page's own `configFromHash` calls this, so there
    /// is one decoder. `text` is the whole URL, its hash (`#…`) or the hash without `#`: the part
    /// after the first `#` is percent-decoded (the page writes it with `encodeURIComponent`) and
    /// read leniently ([`RunConfig::from_json_lenient`]). A URL without a hash, or an empty hash,
    /// is the default config.
    pub fn from_link(text: &str) -> (RunConfig, Vec<Error>) {
        let text = text.trim();
        let hash = match text.split_once('#') {
            Some((_, hash)) => hash,
            // A URL the page made without settings in it.
            None if text.contains("://") => "",
            None => text,
        };
        match percent_encoding::percent_decode_str(hash).decode_utf8() {
            Ok(json) if json.trim().is_empty() => (RunConfig::default(), Vec::new()),
            Ok(json) => Self::from_json_lenient(&json),
            Err(e) => (
                RunConfig::default(),
                vec![Error::invalid(
                    "link",
                    "percent-encoded UTF-8 text after '#' (copy the link again with \"Copy link\")",
                    e,
                )],
            ),
        }
    }

    /// Reads a hand-edited or damaged link leniently: every field that cannot be used falls back
    /// to its default on its own, and each fallback is reported as an error naming the field. Only
    /// text that is not a JSON object at all falls back as a whole.
    pub fn from_json_lenient(text: &str) -> (RunConfig, Vec<Error>) {
        let mut errors = Vec::new();
        if text.len() > MAX_LINK_BYTES {
            errors.push(Error::invalid(
                "link",
                format!(
                    "copy the link again with \"Copy link\", or set the controls by hand: a link of more than {MAX_LINK_BYTES} bytes is not read (the page makes about 1 KB)"
                ),
                format!("{} bytes", text.len()),
            ));
            return (RunConfig::default(), errors);
        }
        // A link pasted from a document may carry a byte-order mark or a zero-width space.
        let text = text.trim_start_matches(['\u{feff}', '\u{200b}']);
        let given = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                errors.push(Error::invalid(
                    "link",
                    "copy the link again: it must hold a JSON object of settings",
                    text,
                ));
                return (RunConfig::default(), errors);
            }
            Err(e) => {
                errors.push(out_of_range(text, &e).unwrap_or_else(|| {
                    Error::invalid(
                        "link",
                        format!(
                            "copy the link again, or set the controls by hand: it is damaged at \
                             character {} ({})",
                            e.column(),
                            strip_position(&e.to_string())
                        ),
                        "",
                    )
                }));
                return (RunConfig::default(), errors);
            }
        };
        // Each field is read on its own (missing fields default, so whether one parses does not
        // depend on the others): trying it beside every field kept so far cloned them all per
        // key, quadratic in the link's length.
        let mut kept = serde_json::Map::new();
        for (key, value) in given {
            let mut alone = serde_json::Map::from_iter([(key, value)]);
            while let Some((path, message)) = first_error(&alone) {
                // A bad part (`loss.delta`) falls back alone, keeping the kind and the other
                // parts; serde names only the field of a tagged choice's bad part, so the part
                // is the one whose fallback changes the error.
                let part = if fall_back_part(&mut alone, &path) {
                    Some(path)
                } else {
                    let parts: Vec<String> = alone
                        .get(&path)
                        .and_then(|v| v.as_object())
                        .map(|o| o.keys().map(|p| format!("{path}.{p}")).collect())
                        .unwrap_or_default();
                    parts.into_iter().find(|part| {
                        let mut trial = alone.clone();
                        fall_back_part(&mut trial, part)
                            && first_error(&trial) != Some((path.clone(), message.clone()))
                            && {
                                alone = trial;
                                true
                            }
                    })
                };
                let Some(part) = part else {
                    if message.starts_with("unknown field") {
                        errors.extend(alone.keys().map(|key| unknown_setting(key)));
                        alone = serde_json::Map::new();
                        break;
                    }
                    let (wanted, got) = wanted_and_got(&message);
                    errors.extend(alone.into_iter().map(|(key, _)| {
                        Error::invalid(
                            key,
                            format!("enter {wanted}: the link's value is replaced by the default"),
                            &got,
                        )
                    }));
                    alone = serde_json::Map::new();
                    break;
                };
                let (wanted, got) = wanted_and_got(&message);
                errors.push(at_control(Error::invalid(
                    part,
                    format!("enter {wanted}: the link's value is replaced by the default"),
                    got,
                )));
            }
            kept.extend(alone);
        }
        // Cross-field and range checks: drop the field (or the part of it) that each error is
        // about until the rest is valid.
        loop {
            let config = read_map(&kept).unwrap_or_default();
            let Err(e) = config.validate() else {
                return (config, errors);
            };
            let field = e.field().unwrap_or("").to_string();
            if fall_back_part(&mut kept, &field) {
                errors.push(e);
                continue;
            }
            // The field that cures the error: the one it names, or another whose value it is
            // about (a tilt's error is shown at the loss, an algorithm's need at a field left at
            // its default). Only a removal that changes the error cures it, so a valid loss is
            // not dropped for its tilt.
            let root = field.split('.').next().unwrap_or("");
            let keys: Vec<String> = kept.keys().cloned().collect();
            let culprit = keys
                .iter()
                .filter(|key| *key == root)
                .chain(keys.iter().filter(|key| *key != root))
                .find(|key| {
                    let value = kept.remove(*key).unwrap_or_default();
                    let cures =
                        read_map(&kept).map_or(true, |c| c.validate().err().as_ref() != Some(&e));
                    kept.insert((*key).clone(), value);
                    cures
                });
            match culprit.and_then(|key| kept.remove_entry(key)) {
                Some((key, _)) if key == root => errors.push(e),
                Some((key, value)) => errors.push(at_control(Error::invalid(
                    key,
                    clash_text(&field, &e),
                    value,
                ))),
                None => {
                    errors.push(e);
                    return (RunConfig::default(), errors);
                }
            }
        }
    }
}

/// What to do about a link's field that clashed with another of the link's settings (`field`,
/// whose error `e` it caused): choose it again from the menu, which meets its needs; and why, in
/// the other setting's own words (shortened, so the message stays one sentence a phone shows).
fn clash_text(field: &str, e: &Error) -> String {
    let label = Control::label_of(field).unwrap_or("other settings");
    let shorten = |text: &str, most: usize| -> String {
        let text = text.trim_end_matches('.');
        if text.chars().count() > most {
            text.chars().take(most).chain(['…']).collect()
        } else {
            text.to_string()
        }
    };
    match e {
        Error::InvalidParameter { expected, got, .. } => format!(
            "choose it again from the menu, which sets what it needs (the link's {label}{}: {}); \
             the default is used",
            if got.is_empty() {
                String::new()
            } else {
                format!(" {}", shorten(got, 40))
            },
            shorten(expected, 110),
        ),
        _ => format!(
            "choose it again from the menu, which sets what it needs (it clashed with the \
             link's {label}); the default is used"
        ),
    }
}

/// Reads a [`RunConfig`] from JSON text, keeping the path of a field that fails. The one reader
/// of `RunConfig` in the crate: serde compiles all of the config's visitors once per
/// deserializer type it is read with, and three readers (text, a map, a map with paths) took
/// 77 KB more of the wasm than one (docs/benchmarks.md, "Keeping the wasm small").
fn read_tracked(
    text: &str,
) -> std::result::Result<RunConfig, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
}

/// [`read_tracked`] of a map of settings, through its JSON text (numbers print and read back
/// bit for bit: `float_roundtrip`).
fn read_map(
    map: &serde_json::Map<String, serde_json::Value>,
) -> std::result::Result<RunConfig, serde_path_to_error::Error<serde_json::Error>> {
    read_tracked(&serde_json::Value::Object(map.clone()).to_string())
}

/// The first reason the one-field map `alone` cannot be read as a [`RunConfig`] field: an array
/// where none belongs, or serde's error, as (path, message).
fn first_error(alone: &serde_json::Map<String, serde_json::Value>) -> Option<(String, String)> {
    for (key, value) in alone {
        if let Err(Error::InvalidParameter { field, got, .. }) = positional(key, value) {
            return Some((field, format!("{got}, not an object or a single value")));
        }
    }
    read_map(alone).err().map(|e| {
        (
            e.path().to_string(),
            strip_position(&e.into_inner().to_string()),
        )
    })
}

/// The page's default of each parameter a choice carries (`loss.delta` of the Huber loss, …),
/// as www/page/controls.js sets them when a person picks the choice: a link's bad parameter falls back to
/// it and keeps the choice. A parameter not listed has a serde default, or none (the whole field
/// then falls back).
const PART_DEFAULTS: [(&str, &str, f64); 10] = [
    ("smoothed_hinge", "gamma", 1.0),
    ("huber", "delta", 1.0),
    ("squared", "label_bound", 1.0),
    ("tilted", "tau", 1.0),
    ("adversarial", "radius", 0.1),
    ("student_t", "nu", 3.0),
    ("pareto_radial", "alpha", 3.0),
    ("log_normal", "sigma", 1.0),
    ("contaminated", "p", 0.05),
    ("contaminated", "scale", 10.0),
];

/// Sets the part `key.part` of `map`'s object to its default (or removes it when serde has one),
/// if `path` names such a part (an error at `loss.tau` names the tilt, whose object is `wrap`).
/// Returns whether it did; the kind, and the path's other forms, are never fallen back here.
fn fall_back_part(map: &mut serde_json::Map<String, serde_json::Value>, path: &str) -> bool {
    let Some((root, part)) = path.split_once('.') else {
        return false;
    };
    if part == "kind" || part.contains('.') {
        return false;
    }
    // The loss's control shows the aggregation's errors, under the loss's name.
    let roots: &[&str] = if root == Control::Loss.id() {
        &["loss", "wrap"]
    } else {
        &[root]
    };
    for root in roots {
        let Some(serde_json::Value::Object(object)) = map.get_mut(*root) else {
            continue;
        };
        if !object.contains_key(part) {
            continue;
        }
        let kind = object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        match PART_DEFAULTS
            .iter()
            .find(|(k, p, _)| *k == kind && *p == part)
        {
            Some((_, _, v)) if object.get(part) != Some(&serde_json::json!(v)) => {
                object.insert(part.to_string(), serde_json::json!(v));
            }
            Some(_) => return false,
            None => {
                object.remove(part);
            }
        }
        return true;
    }
    false
}

/// What a JSON value is, for messages.
fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Refuses an array at `path` or inside it, except the list `compare`: serde reads a struct or a
/// tagged enum from an array by position (`"loss": ["huber", 1]` as Huber with δ = 1), a form the
/// page never writes and a person cannot check.
fn positional(path: &str, value: &serde_json::Value) -> Result<()> {
    match value {
        serde_json::Value::Array(_) if path != Control::Compare.id() => {
            Err(at_control(Error::invalid(
                path,
                "enter one value (or one menu choice with its parameters), not an array",
                "an array",
            )))
        }
        serde_json::Value::Object(map) => map
            .iter()
            .try_for_each(|(key, value)| positional(&format!("{path}.{key}"), value)),
        _ => Ok(()),
    }
}

/// The error for a setting the page has no control for (a misspelt or made-up key), at the link
/// (whose errors show in the run's line), with the key shown as it was.
fn unknown_setting(key: &str) -> Error {
    Error::invalid(
        "link",
        "remove this setting, which the page has no control for",
        key,
    )
}

/// The error for a number too large for a float (`1e999`), at the setting it was given for:
/// serde_json refuses the whole text, so the key is found before the error's position. Only a
/// top-level setting is named (a part of a choice would name the wrong control).
fn out_of_range(text: &str, e: &serde_json::Error) -> Option<Error> {
    if !e.to_string().starts_with("number out of range") {
        return None;
    }
    let offset: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + e.column();
    let before = text.get(..offset.min(text.len()))?;
    let colon = before.rfind(':')?;
    let key_end = before[..colon].trim_end().strip_suffix('"')?;
    let key = &key_end[key_end.rfind('"')? + 1..];
    let depth =
        (before[..colon].matches('{').count()).saturating_sub(before[..colon].matches('}').count());
    let control = Control::of(key).filter(|_| depth == 1)?;
    let number = before[colon + 1..].trim();
    Some(Error::invalid(
        control.id(),
        "enter a finite number: this one is beyond the largest a float holds",
        number,
    ))
}

/// serde's complaint about a value (`invalid type: string "x", expected f64`) in a person's
/// words: what to enter instead, and the value it had (`string "x"`), for an error at the field.
fn wanted_and_got(message: &str) -> (String, String) {
    let message = strip_position(message);
    let wanted = if message.contains("unknown variant") {
        "one of the menu's choices"
    } else if message.contains("expected f64") {
        "a number"
    } else if ["expected usize", "expected u64", "expected u32"]
        .iter()
        .any(|t| message.contains(t))
    {
        "a whole number ≥ 0"
    } else if message.contains("expected a boolean") || message.contains("expected bool") {
        "on or off"
    } else if message.contains("expected a sequence") {
        "a list of algorithms"
    } else {
        "a value the control offers"
    };
    let got = if let Some(rest) = message.strip_prefix("unknown variant `") {
        rest.split('`').next().unwrap_or("").to_string()
    } else if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
    {
        rest.split(", expected")
            .next()
            .unwrap_or("")
            .replace('`', "")
    } else {
        String::new()
    };
    (wanted.to_string(), got)
}

/// serde_json appends " at line L column C", which means nothing for a one-line hash.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
