//! The problem a run solves (built by `config::pose` from a configuration alone, synthetic data,
//! or with a loaded file): the clipped dataset, the objective, its certified reference optimum, and the plane the
//! parameter view draws. One problem serves every lane (compared algorithms × repeats) of a run.

use std::sync::Arc;

use serde::Serialize;

use crate::data::gate::{GateBounds, Records};
use crate::data::{Dataset, GeneratorSpec};
use crate::domain::{Domain, DomainKind};
use crate::error::{Error, Result};
use crate::linalg::{dot, norm2};
use crate::loss::{Bounds, Loss, LossConstants, Regulariser};
use crate::minimax::PosedGame;
use crate::objective::Objective;
use crate::progress::{self, Stage};
use crate::reference::{self, Cap, PopulationProblem, PopulationReference, Reference};
use crate::rng::{Stream, seeded};

/// Relative accuracy of F* (certified): excess risks far below the privacy noise are still resolved.
const REFERENCE_TOL: f64 = 1e-11;
const REFERENCE_MAX_ITERS: usize = 1_000_000;
/// The reference's work cap, in passes × n × (d + 16) (a sample's scalar loss costs about as
/// much as sixteen coordinates of its dot product): F* is a non-private diagnostic solved before
/// any lane runs, so it must end soon whether or not it converges (docs/PRIVACY.md rule 6). Sized
/// to ≈ 1–2 s natively at small d (≈ 14 000 passes at n = 2000, d = 2); the separable logistic
/// pair of tests/playground/reference_optional.rs used to take 290 s to certify on one side and fail after
/// 10⁶ iterations (466 s) on the other.
const REFERENCE_WORK: f64 = 5e8;
/// The reference's time cap: the work cap is sized for this on a fast machine; a slow one (or
/// a browser) stops at the clock instead.
const REFERENCE_SECONDS: f64 = 2.0;
/// Feature norms kept for the data histogram (a fair sample: the samples are exchangeable).
const NORM_SAMPLE: usize = 10_000;
/// Values (samples × d) of the fresh sample that estimates the population risk: at least 10n
/// samples where that fits (2·10⁴ at n = 10⁵, d = 100), so that its optimum's own error is
/// usually below the empirical problem's.
const POPULATION_VALUES: usize = 2_000_000;
const POPULATION_TOL: f64 = 1e-9;

/// The declared side of a problem: everything the noise may depend on, from the config alone
/// (docs/PRIVACY.md rule 1). [`Problem`] builds its objective from exactly these values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProblemDeclaration {
    /// Number of records: public under replace-one; under add/remove declared, and every mean
    /// divides by it.
    pub n: usize,
    /// Dimension of w and of each feature vector.
    pub d: usize,
    /// The data term: a GLM loss and its aggregation (plain, tilted or adversarial).
    pub loss: Loss,
    /// The elastic net: λ₁ (`l1`) and the ridge λ₂ = μ (`l2`).
    pub regulariser: Regulariser,
    /// W (kind and radius), from the config's `domain` and `radius`.
    pub domain: DomainKind,
    /// Declared bound on ‖x‖: features are clipped to it, which is what makes G hold.
    pub feature_bound: f64,
}

impl ProblemDeclaration {
    /// The loss's constants, as [`Objective::constants`] states them for the same declaration.
    pub fn constants(&self) -> LossConstants {
        self.loss.constants(Bounds {
            feature: self.feature_bound,
            radius: self.domain.radius_in(self.d),
        })
    }

    /// G: the per-sample Lipschitz bound of the data term.
    pub fn lipschitz(&self) -> f64 {
        self.constants().lipschitz
    }

    /// β of the smooth part (data term plus ridge); ∞ for non-smooth losses.
    pub fn smoothness(&self) -> f64 {
        self.constants().smoothness + self.regulariser.l2
    }

    /// μ (the ridge).
    pub fn strong_convexity(&self) -> f64 {
        self.regulariser.l2
    }

    /// sup ‖w‖ over the domain (∞ when unbounded).
    pub fn radius(&self) -> f64 {
        self.domain.radius_in(self.d)
    }

    /// The objective over the gated `records` with these declared constants and an extra ridge
    /// (Algorithm 6 solves F + (λ/2)‖w‖²). Its data term divides by the declared n, not by the
    /// row count (they differ only under add/remove; see `config::pose::problem`).
    pub fn objective(&self, records: &Records, extra_ridge: f64) -> Result<Objective> {
        let reg = Regulariser::elastic(self.regulariser.l1, self.regulariser.l2 + extra_ridge);
        Objective::with_loss(
            Arc::clone(records.dataset()),
            self.loss,
            reg,
            self.domain.boxed(),
            self.feature_bound,
        )
        .map(|objective| objective.with_declared_n(self.n))
    }
}

/// Two orthonormal directions through an origin: the parameter view's plane. For d ≤ 2 it is
/// the coordinate plane itself; for d > 2 it passes through w* and is spanned by the direction
/// from w* to the start and the start's descent direction, fixed before the run so that the live
/// view does not jump (a choice: the issue asks for "the two leading directions of the path",
/// which a run only knows at its end).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plane {
    /// The point of R^d at plane coordinates (0, 0): 0 for d ≤ 2; w* for d > 2, or the start
    /// without a reference.
    pub origin: Vec<f64>,
    /// First unit axis (d > 2 with a reference: from w* towards the start).
    pub e1: Vec<f64>,
    /// Second unit axis, orthogonal to e1 (d > 2 with a reference: the start's descent
    /// direction); zero when d = 1.
    pub e2: Vec<f64>,
}

impl Plane {
    fn coordinates(d: usize) -> Self {
        let unit = |j: usize| (0..d).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
        Self {
            origin: vec![0.0; d],
            e1: unit(0),
            e2: if d > 1 { unit(1) } else { vec![0.0; d] },
        }
    }

    /// Without a reference (d > 2): the plane through the start spanned by the first two
    /// coordinate axes. A choice, and a data-free one: a plane fitted to the data would be one
    /// more thing to go wrong, and the start is where every path begins.
    fn at_start(start: &[f64]) -> Self {
        Self {
            origin: start.to_vec(),
            ..Self::coordinates(start.len())
        }
    }

    fn through(w_star: &[f64], start: &[f64], descent: &[f64]) -> Self {
        let d = w_star.len();
        let mut e1: Vec<f64> = start.iter().zip(w_star).map(|(s, w)| s - w).collect();
        if !normalise(&mut e1) {
            e1 = (0..d).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
        }
        let mut e2 = descent.to_vec();
        let along = dot(&e2, &e1);
        e2.iter_mut().zip(&e1).for_each(|(v, u)| *v -= along * u);
        if !normalise(&mut e2) {
            // The coordinate axis least aligned with e1, made orthogonal to it.
            let j = (0..d)
                .min_by(|&a, &b| e1[a].abs().total_cmp(&e1[b].abs()))
                .unwrap_or(0);
            e2 = (0..d).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
            let along = e1[j];
            e2.iter_mut().zip(&e1).for_each(|(v, u)| *v -= along * u);
            normalise(&mut e2);
        }
        Self {
            origin: w_star.to_vec(),
            e1,
            e2,
        }
    }

    /// The plane coordinates of w.
    pub fn project(&self, w: &[f64]) -> [f64; 2] {
        let (mut a, mut b) = (0.0, 0.0);
        for ((wi, oi), (u, v)) in w.iter().zip(&self.origin).zip(self.e1.iter().zip(&self.e2)) {
            a += (wi - oi) * u;
            b += (wi - oi) * v;
        }
        [a, b]
    }

    /// The point of R^d at plane coordinates (a, b).
    pub fn point(&self, a: f64, b: f64, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.origin[i] + a * self.e1[i] + b * self.e2[i];
        }
    }
}

fn normalise(v: &mut [f64]) -> bool {
    let n = norm2(v);
    if n > 1e-12 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
        true
    } else {
        false
    }
}

/// Data, objective and reference, shared by every lane of a run.
pub struct Problem {
    /// What the noise may depend on, from the config alone.
    pub declared: ProblemDeclaration,
    /// The records after the gate ([`Records::gate`], the only way to make them): features to
    /// the declared bound (+∞ for a no-clipping demonstration: finite only), residual losses'
    /// targets to their label bound. **Private**.
    pub data: Records,
    /// F over `data` as `declared` states it (means over the declared n); every lane is scored on
    /// it.
    pub objective: Objective,
    /// The certified reference optimum, or why there is none (it failed or met its caps).
    /// **Non-private** diagnostic: nothing of the release depends on it, and its absence only
    /// takes the excess-risk readouts off the page (docs/PRIVACY.md rule 6).
    pub reference: std::result::Result<Reference, String>,
    /// Samples whose features clipping shortened. **Non-private** diagnostic.
    pub clipped: usize,
    /// ‖xᵢ‖ before clipping for the first (at most 10⁴) samples. **Non-private**.
    pub feature_norms: Vec<f64>,
    /// The parameter view's plane, fixed before any lane runs (through w* for d > 2, so
    /// **non-private**).
    pub plane: Plane,
    /// For synthetic data: the population optimum, estimated on a fresh sample from the same
    /// generator (or in closed form), to report the releases' population excess risk.
    /// **Non-private** diagnostic.
    pub population: Option<PopulationReference>,
}

/// The synthetic law a minimisation's records were drawn from, and the seed whose population
/// stream draws the fresh sample that estimates its population optimum.
#[derive(Debug, Clone, PartialEq)]
pub struct PopulationSource {
    /// The generator of the records.
    pub spec: GeneratorSpec,
    /// The run's seed.
    pub seed: u32,
}

/// Whether the reference solves (F* and the population optimum) also stop at the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReferenceClock {
    /// Also after a fixed time (the page: a tab must not wait on a diagnostic). Whether the
    /// reference is available then depends on the machine's speed and load.
    #[default]
    Capped,
    /// The work cap only: the same reference, or the same failure, on every machine however long
    /// it takes (the terminal binary, whose sweeps and exports must not depend on the load).
    WorkOnly,
}

impl Problem {
    /// The problem `declared` states over `data` (generated, or a loaded file already checked
    /// against the declaration): the records gated to `gate`, the objective, the reference
    /// (capped by `clock`) and the parameter view's plane; with `population`, the population
    /// optimum estimated on a fresh sample of the same synthetic law.
    pub fn from_data(
        declared: ProblemDeclaration,
        data: Dataset,
        gate: GateBounds,
        population: Option<PopulationSource>,
        clock: ReferenceClock,
    ) -> Result<Self> {
        let capped = |mut cap: Cap| {
            if clock == ReferenceClock::WorkOnly {
                cap.max_seconds = f64::INFINITY;
            }
            cap
        };
        let (n, d) = (declared.n, declared.d);
        let feature_norms = data
            .samples()
            .take(NORM_SAMPLE)
            .map(|(x, _)| norm2(x))
            .collect();
        let data = Records::gate(data, gate)?;
        let clipped = data.clipped();
        let objective = declared.objective(&data, 0.0)?;
        let cap = capped(reference_cap(n, d));
        progress::begin(Stage::Reference);
        // A failed reference is reported, never raised: the run goes on without it.
        let reference = reference::solve_capped(&objective, REFERENCE_TOL, &cap)
            .map_err(|e| format!("reference unavailable (non-private diagnostic): {e}"));
        let mut start = vec![0.0; d];
        objective.domain().project(&mut start);
        let plane = match &reference {
            _ if d <= 2 => Plane::coordinates(d),
            Ok(reference) => {
                let mut grad = vec![0.0; d];
                objective.value_and_gradient(&start, &mut grad);
                grad.iter_mut().for_each(|g| *g = -*g);
                Plane::through(&reference.w, &start, &grad)
            }
            Err(_) => Plane::at_start(&start),
        };
        let population = population.and_then(|source| {
            let samples = (10 * n).min(POPULATION_VALUES / d);
            let problem = PopulationProblem {
                spec: source.spec,
                loss: declared.loss,
                regulariser: declared.regulariser,
                domain: declared.domain,
                feature_bound: declared.feature_bound,
                clip: true,
            };
            // An estimate for the readout only: a failure leaves it out, not the run.
            progress::begin(Stage::Population);
            problem
                .solve_capped(
                    seeded(source.seed, Stream::Population),
                    samples,
                    POPULATION_TOL,
                    &capped(reference_cap(samples, d)),
                )
                .ok()
        });
        Ok(Self {
            declared,
            data,
            objective,
            reference,
            clipped,
            feature_norms,
            plane,
            population,
        })
    }
}

/// A saddle problem's instance, shared by every lane of a run: the game, whose records are
/// streamed from the seed (**private**: the records are the data), and the plane x's path is
/// drawn in.
pub struct Game {
    /// The game the config declares (`RunConfig::game_declaration`): a stochastic bilinear game
    /// or group DRO.
    pub game: Arc<dyn PosedGame>,
    /// The plane of x's first two coordinates (data-free).
    pub plane: Plane,
}

impl Game {
    /// The posed `game`, its x drawn in the plane of x's first two coordinates (of `dx`).
    pub fn posed(game: Arc<dyn PosedGame>, dx: usize) -> Self {
        Self {
            game,
            plane: Plane::coordinates(dx),
        }
    }
}

/// What a run poses, built once and shared by every lane: a minimisation [`Problem`] or a saddle
/// [`Game`] (the config's `problem`).
#[derive(Clone)]
pub enum Posed {
    /// Data, objective and reference of a minimisation.
    Min(Arc<Problem>),
    /// A game.
    Saddle(Arc<Game>),
}

impl Posed {
    /// The minimisation problem, or an error at `problem` for a game (a minimisation family is
    /// refused a game before it gets here: this is the type's own check).
    pub fn min(&self) -> Result<&Arc<Problem>> {
        match self {
            Posed::Min(problem) => Ok(problem),
            Posed::Saddle(_) => Err(Error::invalid(
                "problem",
                "a minimisation problem for this algorithm",
                "saddle",
            )),
        }
    }

    /// The game, or an error at `problem` for a minimisation.
    pub fn saddle(&self) -> Result<&Arc<Game>> {
        match self {
            Posed::Saddle(game) => Ok(game),
            Posed::Min(_) => Err(Error::invalid(
                "problem",
                "a saddle problem for this algorithm",
                "minimisation",
            )),
        }
    }

    /// The parameter view's plane (x's, for a game).
    pub fn plane(&self) -> &Plane {
        match self {
            Posed::Min(problem) => &problem.plane,
            Posed::Saddle(game) => &game.plane,
        }
    }
}

/// The caps of a reference solve over `n` samples of dimension `d`: 5·10⁸ units of
/// passes × n × (d + 16) (at least 100 passes), 2 s, 10⁶ iterations.
pub fn reference_cap(n: usize, d: usize) -> Cap {
    let per_pass = (n.max(1) * (d + 16)) as f64;
    Cap {
        max_iters: REFERENCE_MAX_ITERS,
        max_passes: ((REFERENCE_WORK / per_pass) as usize).max(100),
        max_seconds: REFERENCE_SECONDS,
    }
}
