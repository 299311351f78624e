//! The crate's one error type. Every message names the field (or line and column) at fault and what
//! was expected, because it is shown to a person next to the control they just touched.

use thiserror::Error;

/// Everything that can go wrong between a user's input and a release.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    /// A configuration value is out of its allowed range or of the wrong kind. Shown as the
    /// control's label, what to set (`expected`, an instruction or the value wanted) and the
    /// value it has now (see `invalid_text`).
    #[error("{}", invalid_text(field, expected, got))]
    InvalidParameter {
        field: String,
        expected: String,
        got: String,
    },
    /// Two sizes that must agree do not.
    #[error("{what}: dimension mismatch, expected {expected}, got {got}")]
    DimensionMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A computation produced NaN or ±∞ where a finite number is required.
    #[error("{what}: value is not finite")]
    NonFinite { what: &'static str },
    /// A text input (CSV, JSON config, URL hash) could not be read.
    #[error("line {line}, column {col}: {message}")]
    Parse {
        line: usize,
        col: usize,
        message: String,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(
        field: impl Into<String>,
        expected: impl Into<String>,
        got: impl ToString,
    ) -> Self {
        Error::InvalidParameter {
            field: field.into(),
            expected: expected.into(),
            got: got.to_string(),
        }
    }

    /// The configuration field this error is about, if any, so the page can show it next to that control.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::InvalidParameter { field, .. } => Some(field),
            _ => None,
        }
    }

    /// This error, raised by a compared algorithm, restated at the `compare` field (where the
    /// page shows it) with the algorithm's name as the menu shows it.
    pub fn in_compare(self, algorithm: impl Compared) -> Self {
        let name = algorithm.menu_name();
        // The refusal without its "(now …)": the compared algorithm's value is the page's own
        // setting, shown beside its control, and the message stays short enough to read.
        let text = self.to_string();
        let text = text.trim_end_matches('.');
        let refusal = match text.rfind(" (now ") {
            Some(at) if text.ends_with(')') => &text[..at],
            _ => text,
        };
        Error::invalid("compare", format!("untick {name}, or {refusal}"), "")
    }
}

/// An algorithm that [`Error::in_compare`] can name: the playground's `AlgorithmKind` implements
/// it with the name of its menu entry (its family's card), so this crate names no algorithm.
pub trait Compared {
    /// The algorithm's name as the menu shows it.
    fn menu_name(self) -> &'static str;
}

/// The verbs an `expected` text may open with to be an instruction already (it is then shown
/// as it is); any other is a value wanted, and "set it to" says what to do with it.
const INSTRUCTIONS: [&str; 16] = [
    "choose", "set", "raise", "lower", "pick", "load", "use", "turn", "give", "enter", "untick",
    "tick", "add", "remove", "copy", "save",
];

/// At most this many characters of the offending value are echoed: a pasted megabyte would
/// otherwise fill the page.
const MAX_ECHO: usize = 40;

/// The teaching panels' controls (index.html's labels): they are no [`crate::controls::Control`],
/// since no run config holds them, but their errors name them by what they say all the same.
const PANEL_LABELS: [(&str, &str); 4] = [
    ("neighbour_record", "the record that differs"),
    ("neighbour_runs", "runs on each side"),
    ("audit_scenario", "mechanism"),
    ("audit_bug", "planted bug"),
];

fn panel_label(field: &str) -> Option<&'static str> {
    PANEL_LABELS
        .iter()
        .find(|(key, _)| *key == field)
        .map(|(_, label)| *label)
}

/// An [`Error::InvalidParameter`] as a person reads it beside the control: the control's label
/// (the page's words, not its key), what to do, and the value it has now, shortened.
fn invalid_text(field: &str, expected: &str, got: &str) -> String {
    let subject = crate::controls::Control::label_of(field)
        .or_else(|| panel_label(field))
        .unwrap_or(field);
    let first = expected.split_whitespace().next().unwrap_or("");
    let what = if INSTRUCTIONS.contains(&first) {
        expected.to_string()
    } else {
        format!("set it to {expected}")
    };
    let what = what.trim_end_matches('.');
    if got.is_empty() {
        return format!("{subject}: {what}.");
    }
    // A float shown in full (1e308 has 309 digits) is shortened to its exponent form.
    let got = match got.parse::<f64>() {
        Ok(v) if got.len() > 12 && v.is_finite() => format!("{v:e}"),
        _ => got.to_string(),
    };
    let got: String = if got.chars().count() > MAX_ECHO {
        got.chars().take(MAX_ECHO).chain(['…']).collect()
    } else {
        got.to_string()
    };
    format!("{subject}: {what} (now {got}).")
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_teaching_panels_error_names_its_control_by_the_pages_words() {
        let text = Error::invalid("neighbour_runs", "100 to 5000 runs per side", 7).to_string();
        assert!(
            text.starts_with("runs on each side: set it to 100 to 5000"),
            "{text}"
        );
        assert!(!text.contains("neighbour_runs"), "{text}");
    }

    #[test]
    fn every_panel_label_is_the_label_index_html_shows() {
        let page = include_str!("../../../index.html");
        for (key, label) in PANEL_LABELS {
            let tag = format!("<label for=\"{key}\">{label}</label>");
            let legend = format!("id=\"{key}\" class=\"bugs\"><legend>{label}</legend>");
            assert!(
                page.contains(&tag) || page.contains(&legend),
                "{key}: {label}"
            );
        }
    }
}
