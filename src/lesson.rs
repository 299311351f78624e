//! The lessons of the page's Lessons menu (`lessons/*.json`, listed in `lessons/index.json`): the
//! file format, read and checked here, and the check of a lesson's **prediction**.
//!
//! A lesson may ask the student to predict, before Play, a quantity of the run: a number within a
//! tolerance, or one of a few choices. After the run releases, the page hands the student's
//! answer and what the run released to [`check`], which measures the quantity **from that run**
//! (the mean released excess risk, or which algorithm's is lowest) or computes it **for the
//! run's settings** (σ from the plan, the total ε from the composition of every release), and
//! says whether the prediction held, with the lesson's reason. Nothing in the lesson file holds
//! the answer: a lesson whose preset changed would be judged by what the new preset does.
//!
//! The format is documented in CONTRIBUTING.md ("Adding a lesson") and checked, file by file,
//! by `tests/playground/lessons.rs`; the page reads a file through [`Lesson::from_json`] too
//! (`lessonCheck` in the bindings), so a broken prediction is said beside the Lessons menu.

use serde::{Deserialize, Serialize};

use crate::config::{AlgorithmKind, RunConfig, menu};
use crate::error::{Compared, Error, Result};
use crate::session::plan_back::short;
use crate::session::publish;

/// The page's control for the student's answer, as its errors name it (index.html's label).
pub const ANSWER_FIELD: &str = "your prediction";

/// One lesson, as `www/panels/lessons.js` shows it. Unknown fields are refused, so a typo in a
/// key ("try-next") is an error naming it rather than a blank on the page.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Its URL word (a–z, 0–9, -) and file name.
    pub id: String,
    /// Its title in the menu.
    pub title: String,
    /// Two or three paragraphs.
    pub paragraphs: Vec<String>,
    /// The settings, as the page's link holds them (a JSON object; missing fields default).
    pub preset: serde_json::Value,
    /// The ids of the page controls embed mode keeps beside the plots.
    pub controls: Vec<String>,
    /// The lesson's main plots (canvas ids), first in embed mode; none: the page's first two.
    #[serde(default)]
    pub plots: Vec<String>,
    /// What to watch.
    pub watch: String,
    /// The question (its answer is folded under it).
    pub question: String,
    /// The answer to the question.
    pub answer: String,
    /// What to try next.
    pub try_next: String,
    /// The prediction the student makes before Play, when the lesson asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict: Option<Prediction>,
}

/// A prediction: a quantity of the run, asked as a number within a tolerance (`within`) or as
/// one of a few `choices` (exactly one of the two).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// What the student is asked, shown above the answer (ends with "?" or ":").
    pub prompt: String,
    /// What the run is judged by.
    pub quantity: Quantity,
    /// For a number: how close counts as right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Within>,
    /// For a choice: the choices, two to five.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
    /// Why the quantity is what it is: the lesson's point, shown after the verdict either way.
    pub why: String,
}

/// The quantity a prediction is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Measured: the main algorithm's released excess risk (a game's duality gap), averaged
    /// over the run's repeats.
    MeanExcess,
    /// Measured: which algorithm (the main one or a compared one) has the lowest mean released
    /// excess risk (or gap). Asked as a choice whose choices name `algorithm`s.
    LowestExcess,
    /// Computed for the run's settings: the main algorithm's noise scale σ (the preview's).
    Sigma,
    /// Computed for the run's settings: the total ε of everything the run publishes (every
    /// repeat and compared algorithm composed, as the line under the guarantee states it).
    TotalEpsilon,
}

/// How close a number must be to count as right.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Within {
    /// Within a factor f > 1 either way: value/f ≤ answer ≤ value·f (for quantities that range
    /// over orders of magnitude, such as an excess risk).
    Factor(f64),
    /// Within a relative error r ∈ (0, 1): |answer − value| ≤ r·value.
    Relative(f64),
}

/// One choice: a range of the quantity (`from` ≤ value < `below`, either end open), or, for
/// [`Quantity::LowestExcess`], an algorithm.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// What the page shows beside the radio button.
    pub label: String,
    /// The range's lower end (inclusive); none for the first choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<f64>,
    /// The range's upper end (exclusive); none for the last choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<f64>,
    /// The algorithm this choice names (for `lowest_excess`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<AlgorithmKind>,
}

/// A lesson file's error: `lesson <id>: <field>: <what to do>`, field named as in the file.
fn bad(id: &str, field: &str, what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("lesson {id}"), format!("fix {field}: {what}"), "")
}

impl Lesson {
    /// Reads and checks one lesson file. Errors name the lesson and the field at fault.
    pub fn from_json(text: &str) -> Result<Lesson> {
        let lesson: Lesson = serde_json::from_str(text)
            .map_err(|e| Error::invalid("lesson file", format!("fix the JSON: {e}"), ""))?;
        lesson.check()?;
        Ok(lesson)
    }

    /// The checks of the format beyond its shape: every text present, the id a URL word, the
    /// prediction well formed for its quantity and for the preset's algorithms.
    pub fn check(&self) -> Result<()> {
        let id = self.id.as_str();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(bad(id, "id", "use a URL word: a-z, 0-9 and -"));
        }
        if !(2..=3).contains(&self.paragraphs.len()) {
            return Err(bad(id, "paragraphs", "write two or three"));
        }
        for (field, text) in [
            ("title", &self.title),
            ("watch", &self.watch),
            ("question", &self.question),
            ("answer", &self.answer),
            ("try_next", &self.try_next),
        ] {
            if text.trim().is_empty() {
                return Err(bad(id, field, "write it (it is empty)"));
            }
        }
        if !self.preset.is_object() {
            return Err(bad(id, "preset", "give the settings as a JSON object"));
        }
        if let Some(p) = &self.predict {
            p.check(id, &self.algorithms()?)?;
        }
        Ok(())
    }

    /// The preset's algorithms, main first (its `algorithm` and `compare`; the default main
    /// algorithm when it names none).
    fn algorithms(&self) -> Result<Vec<AlgorithmKind>> {
        // Read as the page reads a link (the lenient reader the wasm has anyway: a second
        // deserialiser of the whole config, from a JSON value, would add ~30 KB to the module).
        let (config, errors) = RunConfig::from_json_lenient(&self.preset.to_string());
        if let Some(e) = errors.first() {
            return Err(bad(&self.id, "preset", e));
        }
        Ok(config.algorithms().collect())
    }
}

impl Prediction {
    fn check(&self, id: &str, algorithms: &[AlgorithmKind]) -> Result<()> {
        let prompt = self.prompt.trim_end();
        if prompt.len() < 10 || !(prompt.ends_with('?') || prompt.ends_with(':')) {
            return Err(bad(
                id,
                "predict.prompt",
                "ask a question (ending with ? or :)",
            ));
        }
        if self.why.trim().len() < 10 {
            return Err(bad(id, "predict.why", "say why the quantity is what it is"));
        }
        match (&self.within, self.choices.is_empty()) {
            (Some(_), false) => {
                return Err(bad(
                    id,
                    "predict",
                    "give either within (a number) or choices, not both",
                ));
            }
            (None, true) => {
                return Err(bad(
                    id,
                    "predict",
                    "give within (a number within a tolerance) or choices",
                ));
            }
            (Some(w), true) => {
                if self.quantity == Quantity::LowestExcess {
                    return Err(bad(
                        id,
                        "predict.within",
                        "lowest_excess names an algorithm: give choices",
                    ));
                }
                match *w {
                    Within::Factor(f) if !(f.is_finite() && f > 1.0) => {
                        return Err(bad(id, "predict.within.factor", "use a number above 1"));
                    }
                    Within::Relative(r) if !(r > 0.0 && r < 1.0) => {
                        return Err(bad(
                            id,
                            "predict.within.relative",
                            "use a number between 0 and 1",
                        ));
                    }
                    _ => {}
                }
            }
            (None, false) => self.check_choices(id, algorithms)?,
        }
        Ok(())
    }

    fn check_choices(&self, id: &str, algorithms: &[AlgorithmKind]) -> Result<()> {
        let choices = &self.choices;
        if !(2..=5).contains(&choices.len()) {
            return Err(bad(id, "predict.choices", "give two to five"));
        }
        if choices.iter().any(|c| c.label.trim().is_empty()) {
            return Err(bad(id, "predict.choices.label", "label every choice"));
        }
        if self.quantity == Quantity::LowestExcess {
            if algorithms.len() < 2 {
                return Err(bad(
                    id,
                    "predict.quantity",
                    "lowest_excess compares algorithms: add compare to the preset",
                ));
            }
            let mut named: Vec<AlgorithmKind> = Vec::new();
            for c in choices {
                match c.algorithm {
                    Some(a) if c.from.is_none() && c.below.is_none() => {
                        if !algorithms.contains(&a) {
                            return Err(bad(
                                id,
                                "predict.choices.algorithm",
                                format!("{a:?} is not in the preset's algorithm or compare"),
                            ));
                        }
                        if named.contains(&a) {
                            return Err(bad(
                                id,
                                "predict.choices.algorithm",
                                "name each algorithm once",
                            ));
                        }
                        named.push(a);
                    }
                    _ => {
                        return Err(bad(
                            id,
                            "predict.choices",
                            "give each choice an algorithm and no from or below",
                        ));
                    }
                }
            }
            if named.len() != algorithms.len() {
                return Err(bad(
                    id,
                    "predict.choices",
                    "name every algorithm of the preset, so one choice is right",
                ));
            }
            return Ok(());
        }
        // Ranges: the first open below, the last open above, each starting where the one before
        // ends, so every value falls in exactly one.
        let last = choices.len() - 1;
        for (i, c) in choices.iter().enumerate() {
            if c.algorithm.is_some() {
                return Err(bad(
                    id,
                    "predict.choices.algorithm",
                    "only lowest_excess choices name an algorithm",
                ));
            }
            let ok_from = match (i, c.from) {
                (0, None) => true,
                (0, Some(_)) => false,
                (_, Some(f)) => f.is_finite() && Some(f) == choices[i - 1].below,
                (_, None) => false,
            };
            let ok_below = match (i == last, c.below) {
                (true, None) => true,
                (false, Some(b)) => b.is_finite() && c.from.is_none_or(|f| b > f),
                _ => false,
            };
            if !ok_from || !ok_below {
                return Err(bad(
                    id,
                    format!("predict.choices[{i}]").as_str(),
                    "make the ranges follow on: the first has no from, the last no below, \
                     and each from is the below before it",
                ));
            }
        }
        Ok(())
    }
}

/// Whether a prediction held, with its reading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Whether the prediction held.
    pub held: bool,
    /// The quantity's value for the run (for `lowest_excess`, the lowest mean).
    pub value: f64,
    /// The right choice's index, for a choice.
    pub right: Option<usize>,
    /// The verdict, the measured value and the lesson's reason, in words.
    pub text: String,
}

/// The mean of the scored repeats of one algorithm (NaN when none is scored).
fn mean(values: &[Option<f64>]) -> f64 {
    let scored: Vec<f64> = values.iter().flatten().copied().collect();
    if scored.is_empty() {
        f64::NAN
    } else {
        scored.iter().sum::<f64>() / scored.len() as f64
    }
}

/// Checks the student's `answer` (the typed number, or the index of the picked choice) against
/// the run of `config`: `released[a][r]` is the released metric of algorithm `a` (main first,
/// as [`RunConfig::algorithms`] orders them) in repeat `r`, `None` where it was not scored.
/// Errors: a missing or unreadable answer names [`ANSWER_FIELD`]; a run without a scored release
/// is refused with what to do.
pub fn check(
    prediction: &Prediction,
    config: &RunConfig,
    answer: &str,
    released: &[Vec<Option<f64>>],
) -> Result<Verdict> {
    let answer = answer.trim();
    let algorithms: Vec<AlgorithmKind> = config.algorithms().collect();
    let metric = match config.problem {
        crate::algo::family::ProblemKind::Saddle => "duality gap",
        crate::algo::family::ProblemKind::Minimisation => "excess risk",
    };
    let repeats = released.first().map_or(0, Vec::len);
    let means: Vec<f64> = released.iter().map(|r| mean(r)).collect();
    let needs_run = matches!(
        prediction.quantity,
        Quantity::MeanExcess | Quantity::LowestExcess
    );
    if needs_run && (means.len() != algorithms.len() || means.iter().any(|m| !m.is_finite())) {
        return Err(Error::invalid(
            ANSWER_FIELD,
            "press Play and let the run release every repeat before checking",
            "",
        ));
    }
    let (value, reading) = match prediction.quantity {
        Quantity::MeanExcess => (
            means[0],
            if repeats == 1 {
                format!("the run's released {metric} is {}", short(means[0]))
            } else {
                format!(
                    "the run's mean released {metric} over its {repeats} repeats is {}",
                    short(means[0])
                )
            },
        ),
        Quantity::LowestExcess => {
            let (best, v) = means
                .iter()
                .copied()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("at least one algorithm");
            let others: Vec<String> = means
                .iter()
                .enumerate()
                .filter(|(a, _)| *a != best)
                .map(|(a, m)| format!("{} {}", algorithms[a].menu_name(), short(*m)))
                .collect();
            (
                v,
                format!(
                    "{} has the lowest mean released {metric} over the {repeats} repeats, {} \
                     (against {})",
                    algorithms[best].menu_name(),
                    short(v),
                    others.join(", ")
                ),
            )
        }
        Quantity::Sigma => {
            let sigma = menu::plan(&config.lane(config.algorithm))?.preview.sigma;
            (
                sigma,
                format!("this run's noise scale is σ = {}", short(sigma)),
            )
        }
        Quantity::TotalEpsilon => {
            let total = publish::compose_run(config)?.epsilon;
            (
                total,
                format!(
                    "the total this run publishes is ε = {} (every release composed)",
                    short(total)
                ),
            )
        }
    };
    let (held, said, right) = if let Some(within) = prediction.within {
        let typed: f64 = answer
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                Error::invalid(ANSWER_FIELD, "enter a number, such as 0.02 or 2e-2", answer)
            })?;
        let (held, how) = match within {
            Within::Factor(f) => (
                typed > 0.0 && typed >= value / f && typed <= value * f,
                format!("within a factor {} either way", short(f)),
            ),
            Within::Relative(r) => (
                (typed - value).abs() <= r * value.abs(),
                format!("within {}%", short(100.0 * r)),
            ),
        };
        (
            held,
            format!(
                "you said {}, and {reading}: {}{how}",
                short(typed),
                if held { "" } else { "not " }
            ),
            None,
        )
    } else {
        let picked: usize = answer
            .parse()
            .ok()
            .filter(|&i: &usize| i < prediction.choices.len())
            .ok_or_else(|| Error::invalid(ANSWER_FIELD, "pick one of the choices", answer))?;
        let right = match prediction.quantity {
            Quantity::LowestExcess => {
                let best = means
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(a, _)| algorithms[a])
                    .expect("at least one algorithm");
                prediction
                    .choices
                    .iter()
                    .position(|c| c.algorithm == Some(best))
            }
            _ => prediction.choices.iter().position(|c| {
                c.from.is_none_or(|f| value >= f) && c.below.is_none_or(|b| value < b)
            }),
        }
        // The checked choices cover every number, so only a value that is not one (a NaN from a
        // run that published nothing measurable) finds none: an error at the answer, not a panic.
        .ok_or_else(|| {
            Error::invalid(
                ANSWER_FIELD,
                "this run gives no number to check against: press Play again and let it release",
                value,
            )
        })?;
        (
            picked == right,
            if picked == right {
                format!(
                    "you picked “{}”, and {reading}",
                    prediction.choices[picked].label
                )
            } else {
                format!(
                    "you picked “{}”, but {reading}: the answer is “{}”",
                    prediction.choices[picked].label, prediction.choices[right].label
                )
            },
            Some(right),
        )
    };
    let head = if held {
        "Your prediction held"
    } else {
        "Your prediction did not hold"
    };
    Ok(Verdict {
        held,
        value,
        right,
        text: format!("{head}: {said}. Why: {}", prediction.why.trim()),
    })
}
