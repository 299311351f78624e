//! The numbers of the page's heavy-tail panel, from the configuration alone
//! except where labelled: the tail-index and k sliders with G₁, G₂, G_k and L from the closed
//! forms; the threshold explorer (the bias and noise terms against C, least at C*); one record's
//! loss f against its Lipschitz extension f_C; which settings set the noise and which only the
//! utility; and the ledger per stage.
//!
//! Privacy (docs/PRIVACY.md): the readouts, C* and the curves use the declared distribution only
//! ([`declared_moment`](crate::config::RunConfig::declared_moment), [`threshold`]). The two things read from the raw data, the fraction of
//! records above C and the record of the f/f_C plot, are diagnostics that the page labels
//! "measured on the raw data (not private)"; neither reaches a run's settings.
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Lemma 2.2 (the extension), Prop 2.5 and 3.2 (the bias–noise balance);
//! the bias bound G_k^k/((k−1)C^(k−1)) is Markov's inequality on the tail of A, as
//! [`localised`](crate::algo::heavy_tails::localised) uses it.

use serde::Serialize;

use crate::algo::heavy_tails::extension::{Extension, derivative_bounds, threshold};
use crate::algo::heavy_tails::family::{call_of, localised_plan};
use crate::algo::heavy_tails::localised::Call;
use crate::config::pose::{feature_clipping, generator_spec};
use crate::config::{AlgorithmKind, Control, RunConfig};
use crate::data::{Tail, clip_labels, generate};
use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::loss::GlmLoss;
use crate::rng::{Stream, seeded};

/// The k slider's step, and the least k the theory takes.
const K_STEP: f64 = 0.05;
const K_MIN: f64 = 2.0;
/// The largest k offered when every moment is finite (the k field accepts up to 100).
const K_MAX_LIGHT: f64 = 10.0;
/// Points of each curve of the threshold explorer and of the record's plot.
const POINTS: usize = 121;

/// Whether `kind` is one of the heavy-tail families the panel serves.
pub fn is_heavy(kind: AlgorithmKind) -> bool {
    matches!(
        kind,
        AlgorithmKind::LocalisedDoubleOutputPerturbation
            | AlgorithmKind::LocalisedOutputPerturbation
            | AlgorithmKind::PureClippedGd
            | AlgorithmKind::OutputPerturbationLipschitzExtension
            | AlgorithmKind::EmPgm
            | AlgorithmKind::LocalisedApproxEm
    )
}

/// A number as the panel shows it: four significant digits, "∞" when infinite.
fn shown(v: f64) -> String {
    if v.is_infinite() {
        "∞".into()
    } else if v == 0.0 {
        "0".into()
    } else if (1e-3..1e5).contains(&v.abs()) {
        let s = format!(
            "{:.*}",
            (3 - v.abs().log10().floor() as i32).max(0) as usize,
            v
        );
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{v:.3e}")
    }
}

/// The tail-index slider of the chosen feature tail: α (Pareto-radial), ν (multivariate t) or the
/// rare outlier's p (on a log₁₀ scale). Values are the slider's own (log₁₀ p for p).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailIndex {
    /// The tail's parameter key in the config (`alpha`, `nu`, `p`).
    pub key: &'static str,
    /// Its symbol and meaning, for the slider's label.
    pub label: &'static str,
    /// Whether the slider moves log₁₀ of the parameter.
    pub log: bool,
    /// The slider's least value.
    pub min: f64,
    /// The slider's largest value.
    pub max: f64,
    /// The slider's step.
    pub step: f64,
    /// The parameter now, in slider units.
    pub value: f64,
}

/// The tail readout: the sliders' ranges and the declared moments, live.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailReadout {
    /// The tail-index slider, or `None` for a tail without one (Gaussian, log-normal, …).
    pub index: Option<TailIndex>,
    /// The k slider: 2 ≤ k < k_bound (α or ν; 10 when every moment is finite), on its step grid.
    pub k_min: f64,
    /// The largest k on the slider (below α or ν).
    pub k_max: f64,
    /// The k slider's step.
    pub k_step: f64,
    /// k itself when it is in range, else the nearest k in range (the slider's value).
    pub k: f64,
    /// G₁, declared, as the panel prints it.
    pub g1: String,
    /// G₂, declared.
    pub g2: String,
    /// G_k, declared.
    pub gk: String,
    /// L = sup A(z): ∞ for the raw law of an unbounded tail, with its value after the clip.
    pub lipschitz: String,
    /// One sentence on what the numbers mean here (raw moments infinite, capped by B, …).
    pub note: String,
}

/// The largest k on the slider's grid strictly below `bound`.
fn k_below(bound: f64) -> f64 {
    let steps = ((bound - K_MIN) / K_STEP).ceil() - 1.0;
    // Rounded to the grid's decimals, so the page shows 2.95, not 2.9500000000000002.
    libm::round((K_MIN + steps.max(0.0) * K_STEP) * 1e6) / 1e6
}

/// The tail readout of `config` (its tail and k).
pub fn tail_readout(config: &RunConfig) -> Result<TailReadout> {
    let (slope, _) = derivative_bounds(config.loss).ok_or_else(|| {
        Error::invalid(
            "loss",
            "choose a loss with a bounded derivative (logistic, smoothed hinge or Huber) for the heavy-tail panel",
            crate::config::choice_label(&config.loss),
        )
    })?;
    let (index, k_bound) = match config.tail {
        Tail::ParetoRadial { alpha } => (
            Some(TailIndex {
                key: "alpha",
                label: "tail index α (Pareto-radial: E‖ξ‖^k is finite for k < α)",
                log: false,
                min: 2.1,
                max: 10.0,
                step: 0.05,
                value: alpha,
            }),
            alpha,
        ),
        Tail::StudentT { nu } => (
            Some(TailIndex {
                key: "nu",
                label: "degrees of freedom ν (multivariate t: E‖ξ‖^k is finite for k < ν)",
                log: false,
                min: 2.1,
                max: 30.0,
                step: 0.1,
                value: nu,
            }),
            nu,
        ),
        Tail::RareOutlier { p, .. } => (
            Some(TailIndex {
                key: "p",
                label: "outlier probability p (log scale; Lowy 2026, Appendix G: G_k = a·p^(1/k))",
                log: true,
                min: -4.0,
                max: 0.0,
                step: 0.01,
                value: libm::log10(p.max(1e-300)),
            }),
            f64::INFINITY,
        ),
        _ => (None, f64::INFINITY),
    };
    let k_max = k_below(k_bound.min(K_MAX_LIGHT));
    let k = config.moment_k.clamp(K_MIN, k_max.max(K_MIN));
    let at = |j: f64| {
        RunConfig {
            moment_k: k,
            ..config.clone()
        }
        .declared_moment(j)
    };
    let (g1, g2, gk) = (at(1.0)?, at(2.0)?, at(k)?);
    let raw =
        |j: f64| config.feature_scale * libm::pow(config.tail.norm_moment(config.d, j), 1.0 / j);
    // L = sup A(z): the raw law's largest ‖x‖ (finite only for the rare outlier's two points),
    // and after the declared clip to ‖x‖ ≤ B at most sup|φ'|·B.
    let support = match config.tail {
        Tail::RareOutlier { a, p } if p > 0.0 => config.feature_scale * a,
        Tail::RareOutlier { .. } => 0.0,
        _ => f64::INFINITY,
    };
    let capped = slope * config.feature_bound;
    let lipschitz = if support.is_finite() {
        shown(slope * support.min(config.feature_bound))
    } else {
        format!(
            "∞ for the raw law; {} after the clip to ‖x‖ ≤ {}",
            shown(capped),
            shown(config.feature_bound)
        )
    };
    let mut note = String::new();
    if config.moment_k > k_max && k_bound > K_MIN {
        // The run reads its own k, not the slider's: say what it gets.
        note = format!(
            "The run's k = {} is not below the tail index {}: its G_k is {}, which only the clip to ‖x‖ ≤ B bounds. The slider offers k < {}.",
            shown(config.moment_k),
            shown(k_bound),
            shown(config.declared_moment(config.moment_k)?),
            shown(k_bound)
        );
    } else if k_bound <= K_MIN {
        note = format!(
            "No k ≥ 2 has a finite moment at this tail index ({}): only the clip to ‖x‖ ≤ B bounds G_k. Raise it above 2.",
            shown(k_bound)
        );
    } else if raw(k) > config.feature_bound {
        note = format!(
            "The raw law's G_k ({}) exceeds sup|φ'|·B: the declared G_k is the clip's {}.",
            shown(slope * raw(k)),
            shown(capped)
        );
    }
    Ok(TailReadout {
        index,
        k_min: K_MIN,
        k_max: k_max.max(K_MIN),
        k_step: K_STEP,
        k,
        g1: shown(g1),
        g2: shown(g2),
        gk: shown(gk),
        lipschitz,
        note,
    })
}

/// The call whose threshold the explorer shows: m records at budget ε, and the C the run uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdCall {
    /// Records of the call.
    pub m: usize,
    /// The call's budget (ε for a call of Double-OutputPert or the single stage, ε/T per step).
    pub epsilon: f64,
    /// The threshold the run uses (the declared C, or C*).
    pub used: f64,
    /// In words: which call it is.
    pub words: String,
}

/// The call of `config`'s heavy-tail family whose threshold sets the noise (phase 1's for the
/// localized run, one step's for clipped GD, the one solve's for the single stage).
pub fn threshold_call(config: &RunConfig) -> Result<ThresholdCall> {
    let (gk, k, d) = (
        config.declared_moment(config.moment_k)?,
        config.moment_k,
        config.d,
    );
    let call = |m: usize, epsilon: f64, words: String| ThresholdCall {
        m,
        epsilon,
        used: config
            .clip
            .unwrap_or_else(|| threshold(gk, m, epsilon, d, k)),
        words,
    };
    Ok(match config.algorithm {
        AlgorithmKind::LocalisedDoubleOutputPerturbation
        | AlgorithmKind::LocalisedOutputPerturbation
        | AlgorithmKind::EmPgm
        | AlgorithmKind::LocalisedApproxEm => {
            let plan = localised_plan(
                &config.settings(),
                &config.declaration(),
                call_of(&config.settings()),
            )?;
            let first = *plan
                .phases
                .first()
                .ok_or_else(|| Error::invalid("n", "enough records for one phase", config.n))?;
            ThresholdCall {
                m: first.m,
                epsilon: config.epsilon,
                used: first.clip,
                words: format!(
                    "phase 1's calls: m₁ = {} records each, at the whole ε = {} (later phases halve m)",
                    first.m,
                    shown(config.epsilon)
                ),
            }
        }
        AlgorithmKind::PureClippedGd => {
            let eps = config.epsilon / config.steps as f64;
            call(
                config.n,
                eps,
                format!(
                    "one of T = {} steps: all n = {} records at ε/T = {}",
                    config.steps,
                    config.n,
                    shown(eps)
                ),
            )
        }
        AlgorithmKind::OutputPerturbationLipschitzExtension => call(
            config.n,
            config.epsilon,
            format!(
                "the one solve: n = {} records at ε = {}",
                config.n,
                shown(config.epsilon)
            ),
        ),
        other => {
            return Err(Error::invalid(
                "algorithm",
                "a heavy-tail algorithm (localized double output perturbation, pure-ε clipped GD or output perturbation on f_C) for the threshold explorer",
                format!("{other:?}"),
            ));
        }
    })
}

/// The bias bound G_k^k/((k−1)C^(k−1)) of the extension at C (Markov's inequality on the tail of A).
pub fn bias_term(gk: f64, k: f64, c: f64) -> f64 {
    libm::pow(gk, k) / ((k - 1.0) * libm::pow(c, k - 1.0))
}

/// The noise term C·d/(mε): the output noise's effect at threshold C.
pub fn noise_term(c: f64, m: usize, epsilon: f64, d: usize) -> f64 {
    c * d as f64 / (m as f64 * epsilon)
}

/// The threshold explorer's numbers at the slider's C.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdView {
    /// The slider's least log₁₀ C.
    pub slider_min: f64,
    /// The slider's largest log₁₀ C.
    pub slider_max: f64,
    /// log₁₀ C*: where the slider's marker sits.
    pub log_c_star: f64,
    /// C* = G_k (mε/d)^(1/k) of the call.
    pub c_star: f64,
    /// The slider's C.
    pub c: f64,
    /// The C the run uses (the declared threshold, or C*).
    pub c_used: f64,
    /// The bias bound against C, as [C, value] pairs (NaN above the plot's top).
    pub bias: Vec<[f64; 2]>,
    /// The noise term against C.
    pub noise: Vec<[f64; 2]>,
    /// Their sum against C.
    pub sum: Vec<[f64; 2]>,
    /// The sum at the slider's C.
    pub sum_at_c: f64,
    /// The sum at C* (its least value).
    pub sum_at_c_star: f64,
    /// Which call the threshold is of, in words.
    pub call: String,
    /// The two terms and their sum at C, in words.
    pub terms: String,
    /// P(A(z) > C) under the declared law, where it has a closed form (public).
    pub declared_above: String,
    /// The fraction of the data's records with A(z) > C: **measured on the raw data (not
    /// private)**; "run to measure" before the data exist.
    pub measured_above: String,
}

/// The threshold explorer of `config` at C = `c` (`None`: the C the run uses), with the raw
/// feature norms `norms` (before clipping; non-private) when the data exist.
pub fn threshold_view(
    config: &RunConfig,
    c: Option<f64>,
    norms: Option<&[f64]>,
) -> Result<ThresholdView> {
    let call = threshold_call(config)?;
    let (gk, k, d) = (
        config.declared_moment(config.moment_k)?,
        config.moment_k,
        config.d,
    );
    let c_star = threshold(gk, call.m, call.epsilon, d, k);
    let c = c.unwrap_or(call.used);
    if !(c.is_finite() && c > 0.0) {
        return Err(Error::invalid("heavy-c", "a threshold C > 0", c));
    }
    let (slope, _) = derivative_bounds(config.loss).unwrap_or((1.0, 0.0));
    // The slider spans A's unit (sup|φ'|·scale) from 10⁻¹ to 10⁵: every C* the page's n, ε, d, k
    // give lies inside, so the marker moves when k or the tail moves.
    let unit = libm::log10((slope * config.feature_scale).max(1e-300));
    let (slider_min, slider_max) = (unit - 1.0, unit + 5.0);
    let sum = |x: f64| bias_term(gk, k, x) + noise_term(x, call.m, call.epsilon, d);
    let (lo, hi) = (c.min(c_star) / 4.0, c.max(c_star) * 4.0);
    let top = (3.0 * sum(c_star)).max(1.2 * sum(c));
    let capped = |v: f64| if v <= top { v } else { f64::NAN };
    let xs: Vec<f64> = (0..POINTS)
        .map(|i| lo * libm::pow(hi / lo, i as f64 / (POINTS - 1) as f64))
        .collect();
    let curve = |f: &dyn Fn(f64) -> f64| xs.iter().map(|&x| [x, capped(f(x))]).collect();
    let bias = curve(&|x| bias_term(gk, k, x));
    let noise = curve(&|x| noise_term(x, call.m, call.epsilon, d));
    let total = curve(&sum);
    let unit_c = c / (slope * config.feature_scale);
    let declared_above = match config.tail.norm_tail(unit_c) {
        Some(p) if config.feature_bound * slope > c => format!(
            "P(A(z) > C) = {} under the declared law (public: from the distribution)",
            shown(p)
        ),
        Some(_) => "P(A(z) > C) = 0 after the clip to ‖x‖ ≤ B (public)".into(),
        None => "P(A(z) > C) under the declared law: no closed form for this tail".into(),
    };
    let measured_above = match norms {
        Some(norms) if !norms.is_empty() => {
            let above = norms
                .iter()
                .filter(|&&r| slope * r.min(config.feature_bound) > c)
                .count();
            format!(
                "records with A(z) > C: {} of {} ({}%), measured on the raw data (not private)",
                above,
                norms.len(),
                shown(100.0 * above as f64 / norms.len() as f64)
            )
        }
        _ => "records with A(z) > C: measured on the raw data (not private) once the data are made"
            .into(),
    };
    Ok(ThresholdView {
        slider_min,
        slider_max,
        log_c_star: libm::log10(c_star),
        c_star,
        c,
        c_used: call.used,
        bias,
        noise,
        sum: total,
        sum_at_c: sum(c),
        sum_at_c_star: sum(c_star),
        call: call.words,
        terms: format!(
            "at C = {}: bias G_k^k/((k−1)C^(k−1)) = {}, noise C·d/(mε) = {}, sum {} (least at C* = {}: {})",
            shown(c),
            shown(bias_term(gk, k, c)),
            shown(noise_term(c, call.m, call.epsilon, d)),
            shown(sum(c)),
            shown(c_star),
            shown(sum(c_star))
        ),
        declared_above,
        measured_above,
    })
}

/// One record's loss f and its extension f_C along the line w = s·x/‖x‖, s ∈ [−R, R].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordView {
    /// [s, f] pairs.
    pub loss: Vec<[f64; 2]>,
    /// [s, f_C] pairs.
    pub extension: Vec<[f64; 2]>,
    /// What the plot shows, in words (the record's ‖x‖, y, A(z) against C).
    pub words: String,
}

/// f and f_C of record `index` of `config`'s synthetic data (clipped as the run clips it) at
/// threshold `c`: **measured on the raw data (not private)**. The record is drawn again from the
/// seeded generator (the draws are per record in order, so the first index + 1 records are the
/// run's).
pub fn record_view(config: &RunConfig, index: usize, c: f64) -> Result<RecordView> {
    if index >= config.n {
        return Err(Error::invalid(
            "heavy-record",
            format!("a record index from 0 to n − 1 = {}", config.n - 1),
            index,
        ));
    }
    if !(c.is_finite() && c > 0.0) {
        return Err(Error::invalid("heavy-c", "a threshold C > 0", c));
    }
    if config.data != crate::config::DataSource::Synthetic {
        return Err(Error::invalid(
            "data",
            "synthetic data for the record view",
            format!("{:?}", config.data),
        ));
    }
    let mut spec = generator_spec(config);
    spec.n = (index + 1).max(2);
    let mut data = generate(&spec, seeded(config.seed, Stream::Data))?;
    feature_clipping(config).prepare(&mut data, config.feature_bound);
    if let Some(bound) = config.loss.label_bound() {
        clip_labels(&mut data, bound);
    }
    let (x, y) = (data.features(index).to_vec(), data.label(index));
    let norm = norm2(&x);
    let (slope, _) = derivative_bounds(config.loss).unwrap_or((1.0, 0.0));
    let extension = Extension {
        glm: config.loss,
        threshold: c,
    };
    let radius = config.radius;
    let s = |i: usize| -radius + 2.0 * radius * i as f64 / (POINTS - 1) as f64;
    let (mut loss, mut ext) = (Vec::with_capacity(POINTS), Vec::with_capacity(POINTS));
    for i in 0..POINTS {
        let t = s(i) * norm;
        loss.push([s(i), config.loss.value(t, y)]);
        let fc = if norm > 0.0 {
            extension.scalar(t, y, c / norm).0
        } else {
            config.loss.value(t, y)
        };
        ext.push([s(i), fc]);
    }
    let a = slope * norm;
    let verdict = if norm == 0.0 {
        "its features are 0, so f and f_C are both flat".to_string()
    } else if a > c {
        format!(
            "A(z) = {} > C = {}: f_C follows f where its slope is at most C and goes on straight beyond",
            shown(a),
            shown(c)
        )
    } else {
        format!(
            "A(z) = {} ≤ C = {}: f_C = f on the whole line",
            shown(a),
            shown(c)
        )
    };
    Ok(RecordView {
        loss,
        extension: ext,
        words: format!(
            "record {index}: ‖x‖ = {}, y = {}; {verdict}. Along w = s·x/‖x‖, s from −R to R (R = {}).",
            shown(norm),
            shown(y),
            shown(radius)
        ),
    })
}

/// The index of the record with the largest feature norm among `norms` (the page's sample of
/// the raw data: non-private), to show a record the extension changes.
pub fn largest_record(norms: &[f64]) -> Option<usize> {
    norms
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
}

/// Which of a heavy-tail family's settings set the noise calibration (privacy-critical: a value
/// read from the data would break the guarantee) and which change only the utility.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnobGroups {
    /// Config keys (control ids) of the settings that set the noise.
    pub noise: Vec<&'static str>,
    /// Config keys of the utility-only settings.
    pub utility: Vec<&'static str>,
}

/// Whether `control` sets the noise of a heavy-tail family (`Some(true)`), only its utility
/// (`Some(false)`), or is none of theirs (`None`).
pub fn sets_noise(control: Control) -> Option<bool> {
    match control {
        // G_k (from the tail and k), C and the steps T fix the sensitivity and the per-release ε.
        Control::MomentK | Control::Clip | Control::Steps | Control::Epsilon | Control::Tail => {
            Some(true)
        }
        // λ₁ (the noise follows λ_t: ε holds for every λ₁), J (parallel blocks), η, and the
        // certified solver (the noise law is the same whichever certifies the point).
        // The grid's resolution too: the exponential mechanism is ε-DP over any data-free grid.
        Control::Lambda1
        | Control::Repetitions
        | Control::StepSize
        | Control::HeavySolver
        | Control::GridResolution => Some(false),
        _ => None,
    }
}

/// The knob groups of heavy-tail family `kind`, from its registry settings.
pub fn knob_groups(kind: AlgorithmKind) -> Option<KnobGroups> {
    if !is_heavy(kind) {
        return None;
    }
    let settings = crate::algo::registry::family(kind).settings;
    let of = |noise: bool| {
        settings
            .iter()
            .filter(|s| sets_noise(s.key) == Some(noise))
            .map(|s| s.key.id())
            .collect()
    };
    Some(KnobGroups {
        noise: of(true),
        utility: of(false),
    })
}

/// One row of the ledger per stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageRow {
    /// "phase 2", "steps 1–50", "the release".
    pub stage: String,
    /// Records each release reads.
    pub records: usize,
    /// ℓ2-Laplace draws of the stage.
    pub draws: usize,
    /// ε of each draw (Δ/scale).
    pub epsilon_each: f64,
    /// ε the stage spends on one record.
    pub epsilon_stage: f64,
    /// The stage's threshold C.
    pub clip: f64,
    /// The ℓ2 sensitivity Δ each draw is calibrated to.
    pub sensitivity: f64,
    /// The ℓ2-Laplace scale of each draw.
    pub scale: f64,
}

/// The ledger per stage of `config`'s heavy-tail run: each stage's ε share and noise scale, from
/// the plan alone, with the sentence on how the stages compose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageLedger {
    /// One row per stage.
    pub rows: Vec<StageRow>,
    /// How the stages compose to the run's ε, in words.
    pub composition: String,
}

/// The ledger per stage (see [`StageLedger`]).
pub fn stage_ledger(config: &RunConfig) -> Result<StageLedger> {
    let preview = super::preview(config)?;
    let one = |stage: String, records: usize, count: usize, clip: f64| -> Result<StageRow> {
        let draw = preview
            .draws
            .first()
            .ok_or_else(|| Error::invalid("algorithm", "a plan with a noise draw", 0))?;
        let scale = draw
            .noise
            .scale()
            .ok_or_else(|| Error::invalid("algorithm", "a plan whose noise has a scale", 0))?;
        let each = draw.sensitivity / scale;
        Ok(StageRow {
            stage,
            records,
            draws: count,
            epsilon_each: each,
            epsilon_stage: each * count as f64,
            clip,
            sensitivity: draw.sensitivity,
            scale,
        })
    };
    Ok(match config.algorithm {
        AlgorithmKind::LocalisedDoubleOutputPerturbation
        | AlgorithmKind::LocalisedOutputPerturbation => {
            let call = call_of(&config.settings());
            let plan = localised_plan(&config.settings(), &config.declaration(), call)?;
            let per_call = call.draws();
            let j = config.repetitions;
            let rows = plan
                .phases
                .iter()
                .map(|p| {
                    let each = p.sensitivity() / p.beta;
                    StageRow {
                        stage: format!("phase {} (λ = {})", p.t, shown(p.lambda)),
                        records: p.m,
                        draws: per_call * j,
                        epsilon_each: each,
                        // Each record is in one call of the phase: its draws.
                        epsilon_stage: per_call as f64 * each,
                        clip: p.clip,
                        sensitivity: p.sensitivity(),
                        scale: p.beta,
                    }
                })
                .collect();
            StageLedger {
                rows,
                composition: match call {
                    Call::Double => format!(
                        "Every record is read by exactly one call (J = {j} disjoint blocks per phase, phases on disjoint halves): its two draws at ε/2 each give ε = {} in total (parallel composition).",
                        shown(config.epsilon)
                    ),
                    Call::Localise => format!(
                        "Every record is read by exactly one call (J = {j} disjoint blocks per phase, phases on disjoint halves): its one draw at the whole ε gives ε = {} in total (parallel composition).",
                        shown(config.epsilon)
                    ),
                },
            }
        }
        AlgorithmKind::EmPgm | AlgorithmKind::LocalisedApproxEm => grid_ledger(config)?,
        AlgorithmKind::PureClippedGd => StageLedger {
            rows: vec![one(
                format!("steps 1–{}", config.steps),
                config.n,
                config.steps,
                preview.lipschitz,
            )?],
            composition: format!(
                "Every step reads all n records: T = {} draws at ε/T each give ε = {} (basic composition; pure ε has no advanced composition).",
                config.steps,
                shown(config.epsilon)
            ),
        },
        AlgorithmKind::OutputPerturbationLipschitzExtension => StageLedger {
            rows: vec![one("the release".into(), config.n, 1, preview.lipschitz)?],
            composition: format!("One draw at the whole ε = {}.", shown(config.epsilon)),
        },
        other => {
            return Err(Error::invalid(
                "algorithm",
                "a heavy-tail algorithm for the ledger per stage",
                format!("{other:?}"),
            ));
        }
    })
}

/// The ledger per stage of a grid family inside Algorithm 1 ([`em_phases`](crate::algo::heavy_tails::em_phases)): per phase,
/// EM-PGM's J draws at ε, or Algorithm 7's J localisations at ε/2 and J draws at ε/4. For an
/// exponential-mechanism draw the "scale" is its temperature 2Δ/ε: the score difference that
/// changes a probability e-fold.
fn grid_ledger(config: &RunConfig) -> Result<StageLedger> {
    use crate::algo::heavy_tails::em_phases::{GridCall, phased_plan};
    let call = if config.algorithm == AlgorithmKind::EmPgm {
        GridCall::Pgm
    } else {
        GridCall::Approx
    };
    let plan = phased_plan(&config.settings(), &config.declaration(), call)?;
    let j = plan.repetitions();
    let mut rows = Vec::new();
    for p in plan.phases() {
        let phase = format!("phase {} (λ = {})", p.t, shown(p.lambda));
        let em = |stage: String, epsilon: f64, sensitivity: f64| StageRow {
            stage,
            records: p.m,
            draws: j,
            epsilon_each: epsilon,
            epsilon_stage: epsilon,
            clip: p.clip,
            sensitivity,
            scale: 2.0 * sensitivity / epsilon,
        };
        match call {
            GridCall::Pgm => {
                let c = plan.pgm_call(p);
                rows.push(em(phase, c.declared.epsilon, c.sensitivity()));
            }
            GridCall::Approx => {
                let c = plan.approx_call(p);
                rows.push(StageRow {
                    stage: format!("{phase}: localisation"),
                    records: p.m,
                    draws: j,
                    epsilon_each: c.declared.epsilon / 2.0,
                    epsilon_stage: c.declared.epsilon / 2.0,
                    clip: p.clip,
                    sensitivity: c.localisation_sensitivity(),
                    scale: c.scale(),
                });
                rows.push(em(
                    format!("{phase}: draw on W₀"),
                    c.em_epsilon(),
                    c.em_sensitivity(),
                ));
            }
        }
    }
    let eps = shown(plan.composed_epsilon());
    Ok(StageLedger {
        rows,
        composition: match call {
            GridCall::Pgm => format!(
                "Every record is read by exactly one call (J = {j} disjoint blocks per phase, phases on disjoint halves): its one exponential-mechanism draw at the whole ε gives ε = {eps} in total (parallel composition)."
            ),
            GridCall::Approx => format!(
                "Every record is read by exactly one call (J = {j} disjoint blocks per phase, phases on disjoint halves): its localisation at ε/2 and its draw at ε/4 stay within the call's ε (the paper's last ε/4 covers inexact evaluation and sampling, exact here), so ε = {eps} in total (parallel composition)."
            ),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DomainChoice;

    /// A heavy-tail run the page would make: Pareto α = 3, k = 2, logistic, W the ℓ2 ball.
    fn heavy(kind: AlgorithmKind) -> RunConfig {
        let base = RunConfig {
            tail: Tail::ParetoRadial { alpha: 3.0 },
            moment_k: 2.0,
            domain: DomainChoice::L2Ball,
            delta: 0.0,
            ..RunConfig::default()
        };
        crate::config::menu::pick(&base, kind).0
    }

    #[test]
    fn the_bias_plus_noise_curve_is_least_at_c_star() {
        // The sum's minimiser, found numerically on a fine log grid and refined by golden
        // section, is C* = G_k (mε/d)^(1/k) for several k, m, ε, d.
        for (gk, k, m, eps, d) in [
            (1.7, 2.0, 1000, 1.0, 2),
            (2.0, 3.0, 10_000, 0.5, 10),
            (0.4, 4.5, 300, 4.0, 1),
        ] {
            let c_star = threshold(gk, m, eps, d, k);
            let f = |lc: f64| {
                let c = libm::exp(lc);
                bias_term(gk, k, c) + noise_term(c, m, eps, d)
            };
            let (mut lo, mut hi) = (libm::log(c_star) - 5.0, libm::log(c_star) + 5.0);
            for _ in 0..200 {
                let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
                if f(a) < f(b) { hi = b } else { lo = a }
            }
            let found = libm::exp(0.5 * (lo + hi));
            assert!(
                (found / c_star - 1.0).abs() < 1e-6,
                "k = {k}: {found} vs C* = {c_star}"
            );
            // And moving C either way by 10% raises the sum.
            assert!(f(libm::log(1.1 * c_star)) > f(libm::log(c_star)));
            assert!(f(libm::log(c_star / 1.1)) > f(libm::log(c_star)));
        }
    }

    #[test]
    fn the_readouts_are_the_declared_moments() {
        let mut config = heavy(AlgorithmKind::LocalisedDoubleOutputPerturbation);
        config.feature_bound = 1e6;
        for (alpha, k) in [(3.0, 2.0), (5.0, 3.5), (2.5, 2.2)] {
            config.tail = Tail::ParetoRadial { alpha };
            config.moment_k = k;
            let r = tail_readout(&config).unwrap();
            let g = |j: f64| shown(config.declared_moment(j).unwrap());
            assert_eq!(
                (r.g1.clone(), r.g2.clone(), r.gk.clone()),
                (g(1.0), g(2.0), g(k)),
                "α = {alpha}"
            );
            assert_eq!(r.k, k);
            assert!(
                r.k_max < alpha && r.k_max + K_STEP >= alpha - 1e-12,
                "{} vs {alpha}",
                r.k_max
            );
            assert!(r.lipschitz.starts_with('∞'), "{}", r.lipschitz);
        }
        // A k at or above α is pulled back below it on the slider.
        config.tail = Tail::ParetoRadial { alpha: 3.0 };
        config.moment_k = 4.0;
        let r = tail_readout(&config).unwrap();
        assert!((r.k - 2.95).abs() < 1e-12, "{}", r.k);
        assert!(
            r.note.starts_with("The run's k = 4 is not below"),
            "{}",
            r.note
        );
        assert_eq!(r.index.unwrap().key, "alpha");
        // Multivariate t: G₂² = ν·d/(ν − 2)·scale² in closed form.
        config.tail = Tail::StudentT { nu: 5.0 };
        config.moment_k = 2.0;
        let r = tail_readout(&config).unwrap();
        assert_eq!(
            r.g2,
            shown((5.0 * config.d as f64 / 3.0).sqrt() * config.feature_scale)
        );
        // The rare outlier: G_k = a·p^(1/k) exactly and L = a (finite).
        config.tail = Tail::RareOutlier { p: 0.01, a: 100.0 };
        config.feature_scale = 1.0;
        config.moment_k = 3.0;
        let r = tail_readout(&config).unwrap();
        assert_eq!(r.gk, shown(100.0 * libm::pow(0.01, 1.0 / 3.0)));
        assert_eq!(r.lipschitz, "100");
        let index = r.index.unwrap();
        assert!(index.log && (index.value + 2.0).abs() < 1e-12);
    }

    #[test]
    fn the_explorers_c_star_is_the_threshold_each_family_runs_with() {
        for kind in AlgorithmKind::ALL.into_iter().filter(|&k| is_heavy(k)) {
            let config = heavy(kind);
            assert_eq!(config.clip, None);
            let view = threshold_view(&config, None, None).unwrap();
            let preview = crate::session::preview(&config).unwrap();
            // The preview states the run's (first) threshold as its Lipschitz constant.
            assert!(
                (view.c_star / preview.lipschitz - 1.0).abs() < 1e-12,
                "{kind:?}: {} vs {}",
                view.c_star,
                preview.lipschitz
            );
            assert_eq!(view.c, view.c_used);
            assert!(view.sum_at_c_star <= view.sum_at_c + 1e-15);
            assert!(view.slider_min < view.log_c_star && view.log_c_star < view.slider_max);
            // Moving k moves C*.
            let lighter = RunConfig {
                moment_k: 2.5,
                ..config.clone()
            };
            assert_ne!(
                threshold_view(&lighter, None, None).unwrap().c_star,
                view.c_star
            );
        }
    }

    #[test]
    fn the_measured_fraction_counts_records_above_c_after_the_clip() {
        let mut config = heavy(AlgorithmKind::OutputPerturbationLipschitzExtension);
        config.feature_bound = 50.0;
        // Logistic: A(z) = ‖x‖ (clipped to B = 50). At C = 10: 20 and 100 (→ 50) are above.
        let view = threshold_view(&config, Some(10.0), Some(&[1.0, 20.0, 100.0, 5.0])).unwrap();
        assert!(
            view.measured_above.contains("2 of 4 (50%)"),
            "{}",
            view.measured_above
        );
        assert!(
            view.measured_above
                .contains("measured on the raw data (not private)")
        );
        // At C = 60 nothing is above B = 50.
        let view = threshold_view(&config, Some(60.0), Some(&[1.0, 20.0, 100.0])).unwrap();
        assert!(
            view.measured_above.contains("0 of 3"),
            "{}",
            view.measured_above
        );
        // Pareto's declared tail: P(‖ξ‖ > c) = c^(−α).
        let view = threshold_view(&config, Some(2.0 * config.feature_scale), None).unwrap();
        assert!(
            view.declared_above.contains(&shown(libm::pow(2.0, -3.0))),
            "{}",
            view.declared_above
        );
        assert!(
            threshold_view(&config, Some(-1.0), None)
                .unwrap_err()
                .field()
                == Some("heavy-c")
        );
    }

    #[test]
    fn the_record_view_is_f_and_its_extension_for_that_record() {
        let mut config = heavy(AlgorithmKind::OutputPerturbationLipschitzExtension);
        config.n = 200;
        // The record is the run's: the same generator, the same clip.
        let mut data =
            generate(&generator_spec(&config), seeded(config.seed, Stream::Data)).unwrap();
        feature_clipping(&config).prepare(&mut data, config.feature_bound);
        let i = 17;
        let (x, y) = (data.features(i).to_vec(), data.label(i));
        let c = 0.5 * norm2(&x);
        let view = record_view(&config, i, c).unwrap();
        assert_eq!(view.loss.len(), POINTS);
        let ext = Extension {
            glm: config.loss,
            threshold: c,
        };
        for (p, q) in view.loss.iter().zip(&view.extension) {
            let w: Vec<f64> = x.iter().map(|v| p[0] * v / norm2(&x)).collect();
            assert!((p[1] - config.loss.value(crate::linalg::dot(&w, &x), y)).abs() < 1e-9);
            assert!((q[1] - ext.value(&w, &x, y)).abs() < 1e-9);
            assert!(q[1] <= p[1] + 1e-12, "f_C ≤ f");
        }
        // A(z) = ‖x‖ > C here: the two differ somewhere on the line.
        assert!(
            view.loss
                .iter()
                .zip(&view.extension)
                .any(|(p, q)| p[1] - q[1] > 1e-6)
        );
        assert!(view.words.contains("> C"), "{}", view.words);
        assert_eq!(
            record_view(&config, 200, c).unwrap_err().field(),
            Some("heavy-record")
        );
        assert_eq!(largest_record(&[1.0, 5.0, f64::NAN, 3.0]), Some(1));
    }

    #[test]
    fn every_setting_of_the_heavy_families_is_in_one_knob_group() {
        for kind in AlgorithmKind::ALL.into_iter().filter(|&k| is_heavy(k)) {
            for s in crate::algo::registry::family(kind).settings {
                assert!(
                    sets_noise(s.key).is_some(),
                    "{kind:?}: {:?} is in no group",
                    s.key
                );
            }
            let groups = knob_groups(kind).unwrap();
            assert!(groups.noise.contains(&"moment_k") && groups.noise.contains(&"clip"));
        }
        let localised = knob_groups(AlgorithmKind::LocalisedDoubleOutputPerturbation).unwrap();
        assert_eq!(
            localised.utility,
            vec!["repetitions", "lambda1", "heavy_solver"]
        );
        let grid = knob_groups(AlgorithmKind::EmPgm).unwrap();
        assert_eq!(grid.noise, vec!["moment_k", "clip"]);
        assert_eq!(
            grid.utility,
            vec!["lambda1", "repetitions", "grid_resolution"]
        );
        assert!(knob_groups(AlgorithmKind::NoisyGd).is_none());
    }

    #[test]
    fn the_ledger_per_stage_adds_up_to_epsilon() {
        let config = heavy(AlgorithmKind::LocalisedDoubleOutputPerturbation);
        let ledger = stage_ledger(&config).unwrap();
        assert!(ledger.rows.len() >= 2, "{ledger:?}");
        for row in &ledger.rows {
            // Each draw is ε/2 and a record sees two: ε per record.
            assert!((row.epsilon_each - config.epsilon / 2.0).abs() < 1e-12);
            assert!((row.epsilon_stage - config.epsilon).abs() < 1e-12);
        }
        // The noise shrinks phase after phase (λ grows 32-fold, m halves).
        assert!(ledger.rows.windows(2).all(|w| w[1].scale < w[0].scale));
        let gd = heavy(AlgorithmKind::PureClippedGd);
        let rows = stage_ledger(&gd).unwrap().rows;
        assert_eq!(rows.len(), 1);
        assert!((rows[0].epsilon_each - gd.epsilon / gd.steps as f64).abs() < 1e-12);
        assert!((rows[0].epsilon_stage - gd.epsilon).abs() < 1e-12);
    }

    #[test]
    fn the_grid_families_ledger_is_per_phase_and_composes_in_parallel() {
        // EM-PGM: one row per phase, one draw at the whole ε per record; its temperature 2Δ/ε
        // shrinks with the phases (Δ = 2C_t/m_t, C_t falls as m_t halves).
        let pgm = heavy(AlgorithmKind::EmPgm);
        let ledger = stage_ledger(&pgm).unwrap();
        assert!(ledger.rows.len() >= 3, "{ledger:?}");
        assert!(ledger.rows[0].stage.starts_with("phase 1"));
        for row in &ledger.rows {
            assert_eq!(
                (row.epsilon_each, row.epsilon_stage),
                (pgm.epsilon, pgm.epsilon)
            );
            assert!((row.sensitivity - 2.0 * row.clip / row.records as f64).abs() < 1e-15);
        }
        let most = ledger
            .rows
            .iter()
            .map(|r| r.epsilon_stage)
            .fold(0.0, f64::max);
        assert_eq!(most, pgm.epsilon);
        assert!(ledger.composition.contains("parallel composition"));
        // Algorithm 7: per phase the localisation (ε/2, its Laplace scale shrinking) and the draw
        // on W₀ (ε/4); a record's call spends 3ε/4 of the ε it is stated at.
        let approx = heavy(AlgorithmKind::LocalisedApproxEm);
        let rows = stage_ledger(&approx).unwrap().rows;
        assert_eq!(rows.len() % 2, 0);
        for pair in rows.chunks_exact(2) {
            assert!(pair[0].stage.ends_with("localisation") && pair[1].stage.ends_with("W₀"));
            assert_eq!(pair[0].epsilon_each, approx.epsilon / 2.0);
            assert_eq!(pair[1].epsilon_each, approx.epsilon / 4.0);
            assert!(pair[0].epsilon_stage + pair[1].epsilon_stage <= approx.epsilon);
        }
        assert!(rows[2].scale < rows[0].scale);
    }
}
