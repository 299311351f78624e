//! What an exported figure says about itself: the context line drawn inside it (algorithms, ε,
//! δ, n, repeats) and the file name it is saved under, both from the run's settings alone.
//!
//! A figure pasted into a slide travels without the page around it, so it must carry the
//! settings it shows; a file saved next to others must not overwrite them, so its name holds the
//! plot and the key settings, in characters every file system accepts.

use crate::algo::registry::family;
use crate::config::{AlgorithmKind, RunConfig};
use crate::session::sweep_lanes::{Axis, SweepRequest};

/// A number as a figure prints it: at most four significant digits with no trailing zeros, in
/// scientific form (`1e-6`) below 10⁻³ or from 10⁵ up. Rounding noise of the float
/// arithmetic that produced it (3.0000000000000004) does not show.
pub fn short_number(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".into()
        } else if v > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    // Four significant digits, read back so the shortest form of that value is printed.
    let rounded: f64 = format!("{v:.3e}").parse().unwrap_or(v);
    let a = rounded.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
}

/// What a figure shows, in the terms of its context line and its file name: the algorithms, ε
/// and n (one value each, or a sweep's values), δ, the repeats and where the noise came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    algorithms: Vec<&'static str>,
    epsilon: Vec<f64>,
    delta: f64,
    n: Vec<f64>,
    repeats: usize,
    per_point: bool,
    seed: Option<u32>,
}

impl Shown {
    /// A run of `config`: its algorithm, then the compared ones.
    pub fn run(config: &RunConfig) -> Self {
        let kinds = std::iter::once(config.algorithm).chain(config.compare.iter().copied());
        Shown {
            algorithms: kinds.map(|kind| family(kind).card.name).collect(),
            epsilon: vec![config.epsilon],
            delta: config.delta,
            n: vec![config.n as f64],
            repeats: config.repeats,
            per_point: false,
            seed: (!config.unseeded_noise).then_some(config.seed),
        }
    }

    /// A sweep of `request` around `config`: the swept axis takes the request's values, the
    /// algorithms are the request's (the run's own when it names none; a key that names no
    /// algorithm is shown as given).
    pub fn sweep(config: &RunConfig, request: &SweepRequest) -> Self {
        let mut shown = Shown::run(config);
        if !request.algorithms.is_empty() {
            shown.algorithms = request
                .algorithms
                .iter()
                .map(|key| {
                    serde_json::from_value::<AlgorithmKind>(serde_json::Value::String(key.clone()))
                        .map_or("an unknown algorithm", |kind| family(kind).card.name)
                })
                .collect();
        }
        match request.axis {
            Axis::Epsilon => shown.epsilon = request.values.clone(),
            Axis::N => shown.n = request.values.clone(),
        }
        shown.repeats = request.repeats as usize;
        shown.per_point = true;
        shown
    }

    /// The line drawn inside an exported figure, e.g.
    /// `DP-GD vs DP-SGD · ε = 0.5, δ = 1e-6 · n = 2000 · R = 12 repeats · seed 42`; a sweep's
    /// axis reads `ε = 0.1 … 10 (5 values)`.
    pub fn caption(&self) -> String {
        let values = |v: &[f64]| match v {
            [one] => short_number(*one),
            [first, .., last] => format!(
                "{} … {} ({} values)",
                short_number(*first),
                short_number(*last),
                v.len()
            ),
            [] => "–".into(),
        };
        let privacy = if self.delta == 0.0 {
            format!("pure ε = {} (δ = 0)", values(&self.epsilon))
        } else {
            format!(
                "ε = {}, δ = {}",
                values(&self.epsilon),
                short_number(self.delta)
            )
        };
        let repeats = match (self.repeats, self.per_point) {
            (1, false) => "one run".to_string(),
            (1, true) => "one run per point".to_string(),
            (r, false) => format!("R = {r} repeats"),
            (r, true) => format!("R = {r} repeats per point"),
        };
        let noise = self
            .seed
            .map_or("unseeded noise".to_string(), |seed| format!("seed {seed}"));
        format!(
            "{} · {privacy} · n = {} · {repeats} · {noise}",
            self.algorithms.join(" vs "),
            values(&self.n),
        )
    }

    /// The file name of plot `plot` with extension `ext`, e.g.
    /// `excess_dp-gd_eps0.1_delta1e-6_n2000_R5.svg`: the plot, the algorithms (joined by
    /// `_vs_`), ε, δ, n (a sweep's range as `0.1to10`) and the repeats, in the characters a–z,
    /// A–Z, 0–9, `.`, `-` and `_` only.
    pub fn file_name(&self, plot: &str, ext: &str) -> String {
        let values = |v: &[f64]| match v {
            [first, .., last] => format!("{}to{}", short_number(*first), short_number(*last)),
            [one] => short_number(*one),
            [] => String::new(),
        };
        let algorithms: Vec<String> = self.algorithms.iter().map(|a| slug(a)).collect();
        format!(
            "{}_{}_eps{}_delta{}_n{}_R{}.{}",
            slug(plot),
            algorithms.join("_vs_"),
            slug(&values(&self.epsilon)),
            slug(&short_number(self.delta)),
            slug(&values(&self.n)),
            self.repeats,
            slug(ext),
        )
    }
}

/// The context line of a run's figure ([`Shown::caption`] of [`Shown::run`]).
pub fn caption(config: &RunConfig) -> String {
    Shown::run(config).caption()
}

/// The file name of plot `plot` of a run ([`Shown::file_name`] of [`Shown::run`]).
pub fn file_name(plot: &str, config: &RunConfig, ext: &str) -> String {
    Shown::run(config).file_name(plot, ext)
}

/// `text` in lower case with every run of other characters than a–z, 0–9 and `.` turned into
/// one `-`, trimmed: safe in a file name on every system.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_short_without_rounding_noise() {
        assert_eq!(short_number(3.0000000000000004), "3");
        assert_eq!(short_number(0.1 + 0.2), "0.3");
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(2000.0), "2000");
        assert_eq!(short_number(1e-6), "1e-6");
        assert_eq!(short_number(1.5e-5), "1.5e-5");
        assert_eq!(short_number(123456.0), "1.235e5");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(f64::INFINITY), "∞");
    }

    #[test]
    fn the_file_name_holds_the_plot_and_the_key_settings_in_safe_characters() {
        let config = RunConfig {
            epsilon: 0.1,
            n: 2000,
            repeats: 5,
            ..RunConfig::default()
        };
        let name = file_name("excess", &config, "svg");
        assert!(
            name.starts_with(&format!(
                "excess_{}_eps0.1_delta",
                slug(family(config.algorithm).card.name)
            )),
            "{name}"
        );
        assert!(name.ends_with("_n2000_R5.svg"), "{name}");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-R".contains(c)),
            "{name}"
        );
        // Another ε is another file.
        let other = RunConfig {
            epsilon: 5.0,
            ..config.clone()
        };
        assert_ne!(file_name("excess", &other, "svg"), name);
    }

    #[test]
    fn compared_algorithms_are_named_in_order_in_the_caption_and_the_name() {
        let config = RunConfig {
            algorithm: AlgorithmKind::NoisyGd,
            compare: vec![AlgorithmKind::DpSgd],
            epsilon: 0.5,
            delta: 1e-6,
            n: 2000,
            repeats: 12,
            seed: 42,
            ..RunConfig::default()
        };
        assert_eq!(
            caption(&config),
            "DP-GD vs DP-SGD · ε = 0.5, δ = 1e-6 · n = 2000 · R = 12 repeats · seed 42"
        );
        assert_eq!(
            file_name("path", &config, "png"),
            "path_dp-gd_vs_dp-sgd_eps0.5_delta1e-6_n2000_R12.png"
        );
    }

    #[test]
    fn pure_epsilon_and_a_single_run_read_as_such() {
        let config = RunConfig {
            algorithm: AlgorithmKind::NoisyGd,
            compare: vec![],
            epsilon: 2.0,
            delta: 0.0,
            repeats: 1,
            unseeded_noise: true,
            ..RunConfig::default()
        };
        let text = caption(&config);
        assert!(
            text.starts_with("DP-GD · pure ε = 2 (δ = 0) · n = "),
            "{text}"
        );
        assert!(text.ends_with(" · one run · unseeded noise"), "{text}");
    }

    #[test]
    fn a_sweep_names_its_range_and_its_algorithms() {
        let config = RunConfig {
            epsilon: 1.0,
            delta: 1e-6,
            n: 500,
            seed: 7,
            ..RunConfig::default()
        };
        let request: SweepRequest = serde_json::from_str(
            r#"{"axis": "epsilon", "values": [0.1, 0.3, 1, 3, 10], "algorithms": ["noisy_gd", "dp_sgd"], "repeats": 10}"#,
        )
        .unwrap();
        let shown = Shown::sweep(&config, &request);
        assert_eq!(
            shown.caption(),
            "DP-GD vs DP-SGD · ε = 0.1 … 10 (5 values), δ = 1e-6 · n = 500 · R = 10 repeats per point · seed 7"
        );
        assert_eq!(
            shown.file_name("sweep", "svg"),
            "sweep_dp-gd_vs_dp-sgd_eps0.1to10_delta1e-6_n500_R10.svg"
        );
    }

    #[test]
    fn slugs_keep_letters_digits_and_dots_only() {
        assert_eq!(slug("DP-GD"), "dp-gd");
        assert_eq!(
            slug("output perturbation on f_C"),
            "output-perturbation-on-f-c"
        );
        assert_eq!(slug("  ε = 0.1!"), "0.1");
    }
}
