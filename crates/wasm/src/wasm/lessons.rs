//! The lessons' bindings: a lesson file read and checked by [`crate::lesson::Lesson::from_json`]
//! (the Lessons menu says a broken file beside it), and a prediction judged by the run it was
//! made for ([`crate::lesson::check`]). Planning backwards, beside the guarantee:
//! [`crate::session::plan_back`] (the ε whose bound meets a target, solved in a worker since it
//! poses the problem; the reading of the sweep that confirms it).

use wasm_bindgen::prelude::*;

use crate::config::RunConfig;
use crate::lesson::{self, Lesson};
use crate::session::plan_back;

use super::{to_js, to_js_error};

/// Reads and checks a lesson file's text; an error `{ field, message }` names the lesson and its
/// field at fault. (The page shows the file as written: returning the lesson would add its
/// serialiser to the module for nothing.)
#[wasm_bindgen(js_name = lessonCheck)]
pub fn lesson_check(text: &str) -> Result<(), JsValue> {
    Lesson::from_json(text)
        .map(|_| ())
        .map_err(|e| to_js_error(&e))
}

/// Judges the student's `answer` to the prediction of the lesson `lesson_text` against the run
/// of `config_json`: `released` holds the released metric of every lane, algorithm by
/// algorithm (main first), repeat by repeat, NaN where a lane has none. `{ held, value, right,
/// text }`, or an error naming "your prediction".
#[wasm_bindgen(js_name = predictionVerdict)]
pub fn prediction_verdict(
    lesson_text: &str,
    config_json: &str,
    answer: &str,
    released: &[f64],
) -> Result<JsValue, JsValue> {
    let lesson = Lesson::from_json(lesson_text).map_err(|e| to_js_error(&e))?;
    let prediction = lesson.predict.as_ref().ok_or_else(|| {
        to_js_error(&crate::error::Error::invalid(
            lesson::ANSWER_FIELD,
            "choose a lesson that asks for a prediction",
            "",
        ))
    })?;
    let config = RunConfig::from_json(config_json).map_err(|e| to_js_error(&e))?;
    let repeats = config.repeats.max(1);
    let lanes: Vec<Vec<Option<f64>>> = released
        .chunks(repeats)
        .map(|c| c.iter().map(|v| v.is_finite().then_some(*v)).collect())
        .collect();
    let verdict =
        lesson::check(prediction, &config, answer, &lanes).map_err(|e| to_js_error(&e))?;
    to_js(&verdict)
}

/// Reads the planning panel's typed target; an error names "target excess risk t".
#[wasm_bindgen(js_name = planTarget)]
pub fn plan_target(text: &str) -> Result<f64, JsValue> {
    plan_back::parse_target(text).map_err(|e| to_js_error(&e))
}

/// The smallest accepted ε whose bound on the main algorithm's expected excess risk meets the
/// typed target, at the settings `config_json` (it poses their problem: call it in a worker).
/// `{ algorithm, target, outcome: { kind, epsilon?, bound? }, source, text }`.
#[wasm_bindgen(js_name = planBackwards)]
pub fn plan_backwards(config_json: &str, target: &str) -> Result<JsValue, JsValue> {
    let target = plan_back::parse_target(target).map_err(|e| to_js_error(&e))?;
    let config = RunConfig::from_json(config_json).map_err(|e| to_js_error(&e))?;
    let answer = plan_back::solve_epsilon(&config, target).map_err(|e| to_js_error(&e))?;
    to_js(&answer)
}

/// Reads the sweep that confirms an answer at its ε: `{ ratio, loose, met, text }`.
#[wasm_bindgen(js_name = planConfirm)]
pub fn plan_confirm(
    target: f64,
    bound: f64,
    mean: f64,
    sd: f64,
    min: f64,
    max: f64,
    repeats: usize,
) -> Result<JsValue, JsValue> {
    to_js(&plan_back::confirm(
        target,
        bound,
        mean,
        sd,
        (min, max),
        repeats,
    ))
}
