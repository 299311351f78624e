//! The instance a configuration poses, built once and shared by every lane of a run: the data
//! (generated from the seed, or a loaded file checked against the declaration) and the
//! minimisation problem over them, or the game of a saddle problem. These read the data
//! settings (the synthetic law, the seed, the loaded file), which no family's plan sees.

use std::sync::Arc;

use super::{DataSource, RunConfig, at_control};
use crate::algo::family::ProblemKind;
use crate::algo::noisy_gd::DpGdLeak;
use crate::algo::problem::{Game, PopulationSource, Posed, Problem, ReferenceClock};
use crate::algo::registry;
use crate::controls::{Control, choice_label};
use crate::data::gate::GateBounds;
use crate::data::{
    CsvOptions, Dataset, GeneratorSpec, LabelRange, Link, SparseSpec, Task, generate,
    generate_sparse, load_csv,
};
use crate::error::{Error, Result};
use crate::minimax::PosedGame;
use crate::minimax::auc::AucGame;
use crate::minimax::game::StochasticGame;
use crate::minimax::group_dro::GroupDro;
use crate::privacy::Relation;
use crate::progress::{self, Stage};
use crate::rng::{Stream, seeded};

/// The minimisation `config` poses: generates its data (or takes the loaded `file`), clips them
/// to the declared bounds and solves the reference (under the page's caps,
/// [`ReferenceClock::Capped`]).
pub fn problem(config: &RunConfig, file: Option<Dataset>) -> Result<Problem> {
    problem_with_clock(config, file, ReferenceClock::Capped)
}

/// [`problem`] with the reference solves capped by `clock`.
pub fn problem_with_clock(
    config: &RunConfig,
    file: Option<Dataset>,
    clock: ReferenceClock,
) -> Result<Problem> {
    config.validate()?;
    let declared = config.declaration();
    progress::begin(Stage::Data);
    let data = match (config.data, file) {
        (DataSource::Synthetic, _) => {
            generate(&generator_spec(config), seeded(config.seed, Stream::Data))?
        }
        (DataSource::Csv, Some(file)) => {
            // Replace-one: n is public and is the file's row count. Add/remove: n is declared,
            // and refusing a file of n ± 1 rows would itself tell D from D ∪ {z}; every mean
            // divides by the declared n instead (see `ProblemDeclaration::objective`).
            let rows_must_match = config.relation == Relation::ReplaceOne;
            if file.d() != config.d {
                return Err(Error::invalid(
                    "d",
                    format!("the loaded file's {} feature columns", file.d()),
                    config.d,
                ));
            }
            if rows_must_match && file.n() != config.n {
                return Err(Error::invalid(
                    "n",
                    format!(
                        "the loaded file's {} rows (with replace one record as neighbouring \
                         datasets, n is public: the row count; choose add or remove one record \
                         there to declare n yourself)",
                        file.n()
                    ),
                    config.n,
                ));
            }
            file
        }
        (DataSource::Sparse, _) => {
            let spec = SparseSpec {
                n: config.n,
                p: config.d,
                sparsity: config.sparsity,
                signal: config.signal,
            };
            generate_sparse(&spec, &mut seeded(config.seed, Stream::Data))?.0
        }
        (DataSource::Csv, None) => {
            return Err(Error::invalid(
                "data",
                "a loaded CSV file (a link cannot carry your data: load the file again)",
                "csv",
            ));
        }
    };
    let population = (config.data == DataSource::Synthetic).then(|| PopulationSource {
        spec: generator_spec(config),
        seed: config.seed,
    });
    Problem::from_data(declared, data, gate_bounds(config), population, clock)
}

/// The game of `config` (which must pose a saddle problem): one streamed pass over its records
/// for the empirical means.
pub fn game(config: &RunConfig) -> Result<Game> {
    let game: Arc<dyn PosedGame> = match (config.dro_spec(), config.auc_spec()) {
        (Some(dro), _) => Arc::new(GroupDro::new(dro).map_err(at_control)?),
        (_, Some(auc)) => Arc::new(AucGame::new(auc).map_err(at_control)?),
        (None, None) => Arc::new(StochasticGame::new(config.game_spec()).map_err(at_control)?),
    };
    Ok(Game::posed(game, config.game_dims().0))
}

/// The game of `config` with record 0 planted with `sign` (±1): the two signs are replace-one
/// neighbours at the declared bound's extremes ([`StochasticGame::with_planted_record`],
/// [`GroupDro::with_planted_record`]). For audits.
pub fn planted_game(config: &RunConfig, sign: f64) -> Result<Game> {
    if config.auc_spec().is_some() {
        return Err(Error::invalid(
            Control::Game.id(),
            "a matrix, ball, query-release or group DRO game to audit: the audit's planted \
             neighbour is a payoff or group DRO record, and AUC maximisation's records are not",
            choice_label(&config.game),
        ));
    }
    let game: Arc<dyn PosedGame> = match config.dro_spec() {
        Some(dro) => Arc::new(GroupDro::with_planted_record(dro, sign).map_err(at_control)?),
        None => Arc::new(
            StochasticGame::with_planted_record(config.game_spec(), sign).map_err(at_control)?,
        ),
    };
    Ok(Game::posed(game, config.game_dims().0))
}

/// The instance `config` poses: the data (generated, or the loaded `file`) and objective of a
/// minimisation, or the game of a saddle problem.
pub fn posed(config: &RunConfig, file: Option<Dataset>) -> Result<Posed> {
    posed_with_clock(config, file, ReferenceClock::Capped)
}

/// [`posed`] with a minimisation's reference solves capped by `clock`.
pub fn posed_with_clock(
    config: &RunConfig,
    file: Option<Dataset>,
    clock: ReferenceClock,
) -> Result<Posed> {
    match config.problem {
        ProblemKind::Minimisation => Ok(Posed::Min(Arc::new(problem_with_clock(
            config, file, clock,
        )?))),
        ProblemKind::Saddle => {
            config.validate()?;
            if config.data == DataSource::Csv {
                return Err(Error::invalid(
                    "data",
                    "generated records for a game (its records stream from the seed; \
                     loaded files pose minimisation problems)",
                    "a loaded file",
                ));
            }
            Ok(Posed::Saddle(Arc::new(game(config)?)))
        }
    }
}

/// The bounds every record of `config`'s problem is gated to, from the config alone: features to
/// the declared bound (+∞, finite only, for the no-clipping demonstrations: see
/// [`feature_clipping`]); the targets of a residual loss to its declared label bound (a
/// huge target would otherwise absorb the other records in every computed F value); a margin
/// loss's labels only to finite values (the objective refuses any label but ±1).
pub fn gate_bounds(config: &RunConfig) -> GateBounds {
    GateBounds {
        feature: match feature_clipping(config) {
            DpGdLeak::None => config.feature_bound,
            DpGdLeak::NoClipping => f64::INFINITY,
        },
        label: config.loss.label_bound().unwrap_or(f64::INFINITY),
    }
}

/// How a config's data are prepared: unclipped for the no-clipping demonstrations of DP-GD and
/// DP-SGD. DP-SGD's demonstration skips its per-sample gradient clip; with the features clipped
/// to the declared bound every per-sample gradient would already be within G ≤ C, so skipping
/// the clip would change nothing. Unclipped heavy-tailed features let the raw gradients through.
pub fn feature_clipping(config: &RunConfig) -> DpGdLeak {
    if registry::family(config.algorithm).unclipped_features(config.leak) {
        DpGdLeak::NoClipping
    } else {
        DpGdLeak::None
    }
}

/// The generator a synthetic config describes: margin losses get ±1 labels from a logistic link
/// (flipped with probability `label_noise`), residual losses real targets y = ⟨w₀, x⟩ + s·ξ with
/// s = `label_noise` and ξ from `noise_tail` (Gaussian, Student-t or symmetric Pareto).
pub fn generator_spec(config: &RunConfig) -> GeneratorSpec {
    let task = if config.loss.is_margin() {
        Task::Classification {
            link: Link::Logistic,
            flip: config.label_noise,
        }
    } else {
        Task::Regression {
            noise: config.noise_tail,
            noise_scale: config.label_noise,
        }
    };
    GeneratorSpec {
        n: config.n,
        d: config.d,
        features: config.tail,
        feature_scale: config.feature_scale,
        signal: config.signal,
        task,
    }
}

/// The labels `config`'s loss accepts: margin losses need ±1 labels.
pub fn label_range(config: &RunConfig) -> LabelRange {
    LabelRange::for_loss(config.loss.is_margin())
}

/// How the page reads a CSV file for `config`'s loss ([`CsvOptions::for_page`]; the page's
/// worker and the terminal binary both read files this way).
pub fn csv_options(config: &RunConfig, label: &str) -> CsvOptions {
    CsvOptions::for_page(label, config.loss.is_margin())
}

/// Reads a CSV file for `config`'s loss as the page does ([`csv_options`]).
pub fn load_file(bytes: &[u8], config: &RunConfig, label: &str) -> Result<Dataset> {
    load_csv(bytes, &csv_options(config, label))
}
