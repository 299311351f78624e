//! WebAssembly bindings: the only module that names JavaScript types (but for the reader of a
//! plot spec's numbers, [`crate::plot_spec::Floats`], which serde's orphan rule keeps there).
//!
//! The worker owns a [`WasmSession`]; the page uses [`preview`] and the plotting functions
//! [`draw_plot`] and [`plot_svg`]. Errors cross as `{ field, message }` objects so the page can put them next to the
//! control at fault.
//!

mod bench;
mod heavy;
mod lessons;
mod pins;
mod plot;
mod progress;
mod sweep;
mod teach;

use crate::config::pose;
use js_sys::{Float64Array, Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::config::{DataSource, RunConfig};
use crate::data::{CsvFile, MAX_CSV_BYTES};
use crate::error::Error;
use crate::session::export::{self, Record};
use crate::session::problem::Posed;
use crate::session::{self, Batch, Lab, Problem};
use crate::session::{GameView, ProblemView};

pub use bench::{BenchWorkload, bench_plan, bench_runs_per_timing};
pub use heavy::{heavy_largest_record, heavy_panel, heavy_record};
pub use lessons::{lesson_check, plan_backwards, plan_confirm, plan_target, prediction_verdict};
pub use pins::spread_of;
pub use plot::{draw_plot, plot_svg};
pub use progress::on_progress;
pub use sweep::{WasmSweepPlan, WasmSweepPoint};
pub use teach::{WasmAuditJob, WasmNeighbourJob, audit_scenarios};

/// Installs the panic hook once, so that a bug shows as a console message rather than a bare trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A Rust error as a plain JS object `{ field, message }` (field is `null` when none applies).
fn to_js_error(e: &Error) -> JsValue {
    js_error(e.field(), &e.to_string())
}

/// The `{ field, message }` object the page shows next to control `field`.
fn js_error(field: Option<&str>, message: &str) -> JsValue {
    let obj = Object::new();
    set(
        &obj,
        "field",
        &field.map_or(JsValue::NULL, JsValue::from_str),
    );
    set(&obj, "message", &JsValue::from_str(message));
    obj.into()
}

fn set(obj: &Object, key: &str, value: &JsValue) {
    // Reflect.set on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Parses and validates a config given as JSON text, returning the normalised config (all
/// defaults filled in) as JSON text.
#[wasm_bindgen(js_name = normaliseConfig)]
pub fn normalise_config(json: &str) -> Result<String, JsValue> {
    RunConfig::from_json(json)
        .map(|c| c.to_json())
        .map_err(|e| to_js_error(&e))
}

/// Reads a link's settings leniently: `{ config: JSON text, errors: [{ field, message }] }`, where
/// each field that could not be used fell back to its default on its own.
#[wasm_bindgen(js_name = configFromLink)]
pub fn config_from_link(json: &str) -> JsValue {
    lenient_to_js(RunConfig::from_json_lenient(json))
}

fn lenient_to_js((config, errors): (RunConfig, Vec<Error>)) -> JsValue {
    let obj = Object::new();
    set(&obj, "config", &JsValue::from_str(&config.to_json()));
    let list = js_sys::Array::new();
    for e in &errors {
        list.push(&to_js_error(e));
    }
    set(&obj, "errors", &list.into());
    obj.into()
}

/// Reads a page link (the whole URL or its hash, percent-encoded) as [`config_from_link`] reads
/// JSON: `{ config, errors }`. The one decoder of a link, shared with the terminal binary
/// ([`RunConfig::from_link`]).
#[wasm_bindgen(js_name = configFromUrl)]
pub fn config_from_url(link: &str) -> JsValue {
    lenient_to_js(RunConfig::from_link(link))
}

/// The guarantee and noise scale a config's main algorithm would get, computed without touching
/// any data.
#[wasm_bindgen]
pub fn preview(json: &str) -> Result<JsValue, JsValue> {
    let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
    let p = session::preview(&config).map_err(|e| to_js_error(&e))?;
    to_js(&p)
}

/// One preview per algorithm of the config (main first, then the compared ones).
#[wasm_bindgen]
pub fn previews(json: &str) -> Result<JsValue, JsValue> {
    let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
    let list = config
        .algorithms()
        .enumerate()
        .map(|(i, kind)| {
            session::preview(&config.lane(kind))
                .map_err(|e| if i == 0 { e } else { e.in_compare(kind) })
        })
        .collect::<crate::error::Result<Vec<_>>>()
        .map_err(|e| to_js_error(&e))?;
    to_js(&list)
}

/// The guarantee of everything a config's run publishes together (compared algorithms ×
/// repeats), from the config alone: `{ releases, epsilon, delta, relation, rho, method, shares,
/// not_private }`.
#[wasm_bindgen(js_name = composeRun)]
pub fn compose_run(json: &str) -> Result<JsValue, JsValue> {
    let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
    let c = session::publish::compose_run(&config).map_err(|e| to_js_error(&e))?;
    to_js(&c)
}

/// The guarantee of every release of a series of runs on the same data (`json`: an array of
/// configs, in the order they ran), as [`compose_run`] states one run's.
#[wasm_bindgen(js_name = composeRuns)]
pub fn compose_runs(json: &str) -> Result<JsValue, JsValue> {
    let configs = serde_json::from_str::<Vec<serde_json::Value>>(json)
        .map_err(|e| to_js_error(&Error::invalid("runs", "a JSON array of configs", e)))?
        .iter()
        .map(|v| RunConfig::from_json(&v.to_string()))
        .collect::<crate::error::Result<Vec<_>>>()
        .map_err(|e| to_js_error(&e))?;
    let c = session::publish::compose_runs(&configs).map_err(|e| to_js_error(&e))?;
    to_js(&c)
}

/// Every algorithm's card, with the settings it reads (key and label) and what it needs, in menu
/// order: the page builds its menu and settings panel from these. The prose (paper,
/// assumptions, guarantee, bound, what to watch, each setting's help) is not in the module: the
/// page fetches it as `pkg/cards.json` ([`crate::catalog::prose_json`]).
#[wasm_bindgen]
pub fn cards() -> Result<JsValue, JsValue> {
    to_js(&crate::catalog::cards())
}

/// The table of the page's controls (`[{ key, label, kind, min, max, optional, choices, default,
/// page, help, … }]`, [`crate::config::controls_table`]): the page builds its lists of number,
/// optional and choice fields from it, and fills empty labels.
#[wasm_bindgen]
pub fn controls() -> Result<JsValue, JsValue> {
    to_js(&crate::config::controls_table())
}

/// The config (JSON) with algorithm `kind` picked from the menu: every need of the algorithm met
/// (a ridge, a domain, a step count …). Returns `{ config, notes }`, a note per change saying
/// what changed and why.
#[wasm_bindgen(js_name = pickAlgorithm)]
pub fn pick_algorithm(json: &str, kind: &str) -> Result<JsValue, JsValue> {
    let (config, _) = RunConfig::from_json_lenient(json);
    let kind: crate::config::AlgorithmKind =
        serde_json::from_value(serde_json::Value::String(kind.to_string())).map_err(|e| {
            to_js_error(&Error::invalid("algorithm", "an algorithm of the menu", e))
        })?;
    let (picked, notes) = crate::config::menu::pick(&config, kind);
    let obj = Object::new();
    set(&obj, "config", &JsValue::from_str(&picked.to_json()));
    set(&obj, "notes", &to_js(&notes)?);
    Ok(obj.into())
}

/// The config (JSON) posing a `problem` of another kind ("minimisation", "saddle") from the
/// problem menu: an algorithm that cannot solve it gives way to the first that can, and the
/// problem's needs are met. Returns `{ config, notes }` like [`pick_algorithm`].
#[wasm_bindgen(js_name = pickProblem)]
pub fn pick_problem(json: &str, problem: &str) -> Result<JsValue, JsValue> {
    let (config, _) = RunConfig::from_json_lenient(json);
    let problem: crate::algo::family::ProblemKind =
        serde_json::from_value(serde_json::Value::String(problem.to_string()))
            .map_err(|e| to_js_error(&Error::invalid("problem", "a problem of the menu", e)))?;
    let (posed, notes) =
        crate::config::menu::pose(&config, problem).map_err(|e| to_js_error(&e))?;
    let obj = Object::new();
    set(&obj, "config", &JsValue::from_str(&posed.to_json()));
    set(&obj, "notes", &to_js(&notes)?);
    Ok(obj.into())
}

/// The config (JSON) with `game` picked from the game menu: posed as a saddle problem, and an
/// algorithm that cannot run it giving way to one that can
/// ([`crate::config::menu::pick_game`]). Returns `{ config, notes }` like [`pick_algorithm`].
#[wasm_bindgen(js_name = pickGame)]
pub fn pick_game(json: &str, game: &str) -> Result<JsValue, JsValue> {
    let (config, _) = RunConfig::from_json_lenient(json);
    let game: crate::config::GameChoice =
        serde_json::from_value(serde_json::Value::String(game.to_string()))
            .map_err(|e| to_js_error(&Error::invalid("game", "a game of the menu", e)))?;
    let (picked, notes) = crate::config::menu::pick_game(&config, game);
    let obj = Object::new();
    set(&obj, "config", &JsValue::from_str(&picked.to_json()));
    set(&obj, "notes", &to_js(&notes)?);
    Ok(obj.into())
}

/// What the page shows of game `game` before any run: `{ own_moduli, readout }` — whether the
/// μx, μy settings do not apply ([`crate::config::GameChoice::own_moduli`]) and the name of the
/// game's own readout row, or null.
#[wasm_bindgen(js_name = gameFacts)]
pub fn game_facts(game: &str) -> Result<JsValue, JsValue> {
    let game: crate::config::GameChoice =
        serde_json::from_value(serde_json::Value::String(game.to_string()))
            .map_err(|e| to_js_error(&Error::invalid("game", "a game of the menu", e)))?;
    let obj = Object::new();
    set(&obj, "own_moduli", &JsValue::from_bool(game.own_moduli()));
    set(&obj, "readout", &to_js(&game.readout_name())?);
    Ok(obj.into())
}

/// Refuses a file of `bytes` bytes over the size the page reads ([`crate::data::MAX_CSV_BYTES`]),
/// with the reason, at field `csv`: the page asks before it reads the file into memory.
#[wasm_bindgen(js_name = checkCsvSize)]
pub fn check_csv_size(bytes: f64) -> Result<(), JsValue> {
    // A size beyond usize (a 32-bit wasm) saturates, and is refused like any other too large.
    crate::data::check_csv_size(bytes as usize).map_err(|e| to_js_error(&e))
}

/// The largest CSV file the page reads, in bytes ([`crate::data::MAX_CSV_BYTES`]): the page
/// states it beside its file input, so the limit lives in Rust alone.
#[wasm_bindgen(js_name = csvSizeLimit)]
pub fn csv_size_limit() -> f64 {
    MAX_CSV_BYTES as f64
}

/// Parses a CSV file for the config's loss (`label`: "last", "first", a 1-based column number or
/// a header name). Returns `{ n, d, head: first rows as [label, x…] }`, or an error naming the
/// line and column at fault (field `csv`).
#[wasm_bindgen(js_name = inspectCsv)]
pub fn inspect_csv(bytes: &[u8], config_json: &str, label: &str) -> Result<JsValue, JsValue> {
    WasmCsvFile::new(bytes, config_json, label)?.shape(config_json)
}

/// An error of the CSV file, placed at the page's CSV control.
fn csv_error(e: &Error) -> JsValue {
    let obj = to_js_error(e);
    set(obj.unchecked_ref(), "field", &JsValue::from_str("csv"));
    obj
}

/// A CSV file parsed once and kept (by the worker): every run on it takes its data from here
/// rather than parsing the file again; the labels are checked against each run's loss.
#[wasm_bindgen(js_name = CsvFile)]
pub struct WasmCsvFile {
    inner: CsvFile,
}

#[wasm_bindgen(js_class = CsvFile)]
impl WasmCsvFile {
    /// Parses `bytes` with the label column `label` ("last", "first", a 1-based number or a
    /// header name), checking the labels against the loss of `config_json`; errors name the
    /// line and column (field `csv`).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], config_json: &str, label: &str) -> Result<WasmCsvFile, JsValue> {
        let config = RunConfig::from_json(config_json).map_err(|e| to_js_error(&e))?;
        CsvFile::read(bytes, &pose::csv_options(&config, label))
            .map(|inner| WasmCsvFile { inner })
            .map_err(|e| csv_error(&e))
    }

    /// `{ n, d, head: first rows as [label, x…], mapped }` for the loss of `config_json` (`mapped`:
    /// how many labels 0 that loss reads as −1), or the error naming the first label that loss
    /// refuses (field `csv`).
    pub fn shape(&self, config_json: &str) -> Result<JsValue, JsValue> {
        let config = RunConfig::from_json(config_json).map_err(|e| to_js_error(&e))?;
        let data = self.dataset(&config)?;
        let obj = Object::new();
        let mapped = self.inner.labels_mapped(pose::label_range(&config));
        set(&obj, "mapped", &JsValue::from_f64(mapped as f64));
        set(&obj, "n", &JsValue::from_f64(data.n() as f64));
        set(&obj, "d", &JsValue::from_f64(data.d() as f64));
        let head: Vec<Vec<f64>> = data
            .samples()
            .take(5)
            .map(|(x, y)| std::iter::once(y).chain(x.iter().copied()).collect())
            .collect();
        set(&obj, "head", &to_js(&head)?);
        Ok(obj.into())
    }
}

impl WasmCsvFile {
    /// The data for `config`'s loss (margin losses need ±1 labels: a 0 is read as −1).
    fn dataset(
        &self,
        config: &RunConfig,
    ) -> Result<std::borrow::Cow<'_, crate::data::Dataset>, JsValue> {
        self.inner
            .dataset(pose::label_range(config))
            .map_err(|e| csv_error(&e))
    }
}

/// The minimisation problem's part of [`WasmSession::info`]: the reference (optional: a
/// non-private diagnostic that may fail or meet its caps, `referenceUnavailable` says why), the
/// view and the data diagnostics.
fn min_info(obj: &Object, problem: &Problem) -> Result<(), JsValue> {
    match &problem.reference {
        Ok(reference) => {
            set(obj, "reference", &to_js(reference)?);
            set(obj, "referenceUnavailable", &JsValue::NULL);
        }
        Err(why) => {
            set(obj, "reference", &JsValue::NULL);
            set(obj, "referenceUnavailable", &JsValue::from_str(why));
        }
    }
    set(obj, "clipped", &JsValue::from_f64(problem.clipped as f64));
    set(obj, "n", &JsValue::from_f64(problem.declared.n as f64));
    set(obj, "rows", &JsValue::from_f64(problem.data.n() as f64));
    set(obj, "d", &JsValue::from_f64(problem.declared.d as f64));
    set(obj, "view", &to_js(&problem.view())?);
    set(
        obj,
        "featureNorms",
        &Float64Array::from(problem.feature_norms.as_slice()).into(),
    );
    Ok(())
}

/// A run owned by a Web Worker: every lane (compared algorithms × repeats) on one problem.
#[wasm_bindgen(js_name = Session)]
pub struct WasmSession {
    inner: Lab,
    /// Every slice handed out, for the exports ([`export`]): the same record the terminal
    /// binary writes its files from.
    record: Record,
}

#[wasm_bindgen(js_class = Session)]
impl WasmSession {
    /// Validates `json`, states the guarantees, generates the data (or reads `csv` with the
    /// label column `label` when the config's data are "csv") and solves the reference problem.
    #[wasm_bindgen(constructor)]
    pub fn new(
        json: &str,
        csv: Option<Vec<u8>>,
        label: Option<String>,
    ) -> Result<WasmSession, JsValue> {
        let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
        let file = match (config.data, csv) {
            (DataSource::Csv, Some(bytes)) => Some(WasmCsvFile::new(
                &bytes,
                json,
                label.as_deref().unwrap_or("last"),
            )?),
            _ => None,
        };
        Self::start(json, file.as_ref())
    }

    /// [`WasmSession::new`] on a file parsed before (the worker keeps one, so a run does not
    /// parse it again).
    #[wasm_bindgen(js_name = withCsv)]
    pub fn with_csv(json: &str, file: &WasmCsvFile) -> Result<WasmSession, JsValue> {
        Self::start(json, Some(file))
    }

    /// Everything the page shows about the run before it starts: the normalised config, one
    /// preview per algorithm, the reference optimum, the parameter view, and the non-private
    /// data diagnostics (clip count, feature norms before clipping).
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let obj = Object::new();
        set(
            &obj,
            "config",
            &JsValue::from_str(&self.inner.config().to_json()),
        );
        set(&obj, "previews", &to_js(&self.inner.previews())?);
        // Per algorithm (main first): whether its step counter and ε-spent curve are measured on
        // the data, so the page labels them NOT PRIVATE.
        let measured: Vec<bool> = self
            .inner
            .previews()
            .iter()
            .map(|p| crate::session::readouts::length_depends_on_data(p.kind))
            .collect();
        set(&obj, "lengthDependsOnData", &to_js(&measured)?);
        set(&obj, "theories", &to_js(&self.inner.theories())?);
        set(&obj, "theoryMissing", &to_js(&self.inner.theory_missing())?);
        match self.inner.posed() {
            Posed::Min(problem) => min_info(&obj, problem)?,
            Posed::Saddle(game) => {
                set(&obj, "reference", &JsValue::NULL);
                set(
                    &obj,
                    "referenceUnavailable",
                    &JsValue::from_str(
                        "a game is scored by its duality gap (exact, or a certified upper bound for group DRO): it needs no reference",
                    ),
                );
                let (dx, _) = game.game.dims();
                set(&obj, "clipped", &JsValue::from_f64(0.0));
                set(&obj, "n", &JsValue::from_f64(game.game.records() as f64));
                set(&obj, "rows", &JsValue::from_f64(game.game.records() as f64));
                set(&obj, "d", &JsValue::from_f64(dx as f64));
                set(&obj, "view", &to_js(&game.view())?);
                // The base game's equilibrium when declared in closed form (public: a property
                // of the generator, not of the records), else null.
                let equilibrium = match game.game.base_equilibrium() {
                    Some((x, y)) => to_js(&serde_json::json!({ "x": x, "y": y }))?,
                    None => JsValue::NULL,
                };
                set(&obj, "equilibrium", &equilibrium);
                set(
                    &obj,
                    "featureNorms",
                    &Float64Array::new_with_length(0).into(),
                );
            }
        }
        let (_, lanes) = self.inner.progress();
        set(&obj, "lanes", &JsValue::from_f64(lanes as f64));
        // The saddle views before Play (a phased run's schedule, whether it samples vertices).
        let views = match self.inner.game_views() {
            Some(v) => to_js(&v)?,
            None => JsValue::NULL,
        };
        set(&obj, "views", &views);
        // A localized heavy-tail run's localisation view before Play (W, the schedule), else null.
        let localisation = match self.inner.localisation() {
            Some(v) => to_js(&v)?,
            None => JsValue::NULL,
        };
        set(&obj, "localisation", &localisation);
        Ok(obj.into())
    }

    /// F on a res × res grid over the parameter view, else `undefined` (and for a game).
    #[wasm_bindgen(js_name = lossGrid)]
    pub fn loss_grid(&self, res: usize) -> Option<Float64Array> {
        self.inner
            .problem()?
            .loss_grid(res)
            .map(|(g, _)| Float64Array::from(g.as_slice()))
    }

    /// Runs lanes for at most `budget_ms` (each at most `max_steps` steps) and returns
    /// `{ lanes: [{ algorithm, repeat, columns…, release }], progress: [done, total], done }`.
    pub fn advance(&mut self, max_steps: usize, budget_ms: f64) -> Result<JsValue, JsValue> {
        let deadline = js_sys::Date::now() + budget_ms;
        let lanes = self
            .inner
            .advance(max_steps, || js_sys::Date::now() < deadline);
        self.record.absorb(&lanes);
        let list = js_sys::Array::new();
        for lane in &lanes {
            let obj = batch_to_js(&lane.batch)?;
            set(
                obj.unchecked_ref(),
                "algorithm",
                &JsValue::from_f64(lane.algorithm as f64),
            );
            set(
                obj.unchecked_ref(),
                "repeat",
                &JsValue::from_f64(lane.repeat as f64),
            );
            list.push(&obj);
        }
        let out = Object::new();
        set(&out, "lanes", &list.into());
        let (done, total) = self.inner.progress();
        set(&out, "progress", &to_js(&[done, total])?);
        set(&out, "done", &JsValue::from_bool(self.inner.is_done()));
        Ok(out.into())
    }

    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// The run JSON of everything advanced so far ([`export::run_json`]): its `private` part
    /// and its NOT private `diagnostics`, the bytes `dp-playground run` writes for the same run.
    #[wasm_bindgen(js_name = runJson)]
    pub fn run_json(&self) -> Result<String, JsValue> {
        export::run_json(&self.inner, &self.record).map_err(|e| to_js_error(&e))
    }

    /// The diagnostics CSV (NOT private) of everything advanced so far ([`export::run_csv`]).
    #[wasm_bindgen(js_name = runCsv)]
    pub fn run_csv(&self) -> String {
        export::run_csv(&self.inner, &self.record)
    }
}

impl WasmSession {
    /// Validates `json` and starts the run, on `file`'s data when the config's data are "csv".
    fn start(json: &str, file: Option<&WasmCsvFile>) -> Result<WasmSession, JsValue> {
        let config = RunConfig::from_json(json).map_err(|e| to_js_error(&e))?;
        let data = match (config.data, file) {
            (DataSource::Csv, Some(file)) => Some(file.dataset(&config)?.into_owned()),
            _ => None,
        };
        Lab::new(config, data)
            .map(|inner| WasmSession {
                record: Record::new(&inner),
                inner,
            })
            .map_err(|e| to_js_error(&e))
    }
}

fn batch_to_js(batch: &Batch) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    let columns: [(&str, &[f64]); 8] = [
        ("t", &batch.t),
        ("gradEvals", &batch.grad_evals),
        ("loss", &batch.loss),
        ("excess", &batch.excess),
        ("path", &batch.path),
        ("noiseNorm", &batch.noise_norm),
        ("gradNorm", &batch.grad_norm),
        ("epsSpent", &batch.epsilon_spent),
    ];
    for (name, column) in columns {
        set(&obj, name, &Float64Array::from(column).into());
    }
    let release = match &batch.release {
        Some(r) => to_js(r)?,
        None => JsValue::NULL,
    };
    set(&obj, "release", &release);
    // Named values (a certificate, a phase, a gap …): `{ name: value }`. **Non-private**.
    let diagnostics: std::collections::BTreeMap<&str, f64> = batch
        .diagnostics
        .iter()
        .map(|d| (d.name, d.value))
        .collect();
    set(&obj, "diagnostics", &to_js(&diagnostics)?);
    // A game's players where the run stands (non-private, the curator's view), else null.
    let players = match &batch.players {
        Some(p) => to_js(p)?,
        None => JsValue::NULL,
    };
    set(&obj, "players", &players);
    // A game's views (ternary path, vertex draws, dense iterate, phases, why it stopped), else
    // null: see `session::game_views`.
    let views = match &batch.views {
        Some(v) => to_js(v)?,
        None => JsValue::NULL,
    };
    set(&obj, "views", &views);
    // A localized heavy-tail run's localisation view (non-private diagnostics and the release),
    // else null: see `algo::heavy_tails::localisation_view`.
    let localisation = match &batch.localisation {
        Some(v) => to_js(v)?,
        None => JsValue::NULL,
    };
    set(&obj, "localisation", &localisation);
    set(&obj, "done", &JsValue::from_bool(batch.done));
    Ok(obj.into())
}
