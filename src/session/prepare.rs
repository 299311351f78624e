//! From a validated [`RunConfig`] to what each algorithm promises, before any data are read
//! (DESIGN.md §5 rule 2): the guarantee, the noise and its scale. `Session` then builds the
//! algorithm from the prepared settings and checks that it states the same guarantee.

use serde::Serialize;

use super::problem::{self, Declared};
use crate::algo::Draws;
use crate::algo::byoa::{self, ByoaSettings};
use crate::algo::dp_accmd::{AccMdLeak, DpAccMdConfig, Geometry};
use crate::algo::dp_sgd::{DpSgdCalibration, DpSgdConfig, DpSgdLeak};
use crate::algo::dp_svrg::{
    DpSvrgCalibration, DpSvrgConfig, SvrgLeak, SvrgNoise, SvrgPreset, SvrgVariant,
};
use crate::algo::exponential_grid::{self, GridSettings};
use crate::algo::noisy_gd::Calibration;
use crate::algo::objective_perturbation::{AmpPlan, ObjectivePerturbationConfig};
use crate::algo::output_perturbation::{
    self as op, ConvexClass, Form, NoiseLaw, Plan, Regularised, Settings,
};
use crate::config::{AlgorithmKind, DomainChoice, RunConfig, SvrgNoiseChoice};
use crate::domain::Domain;
use crate::error::{Error, Result};
use crate::loss::{Glm, Wrap};
use crate::privacy::calibration::{GaussianRow, compare_gaussian};
use crate::privacy::{Guarantee, Relation};

/// The "as printed" DP-SVRG constant the digest derives (digest 002 §2).
const SVRG_PRINTED_C: f64 = 8.0;

/// The law of the released noise, for the histogram's density (defined beside the algorithms,
/// which report their own draws in it).
pub use crate::algo::NoiseShape;

/// What is known before any data are touched: the promise and the noise that buys it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// Which algorithm ([`AlgorithmKind`], snake_case) — the key of its card.
    pub kind: AlgorithmKind,
    /// The algorithm and where it comes from, in words.
    pub algorithm: &'static str,
    pub guarantee: Guarantee,
    /// The scale of each noise draw: per-coordinate σ (Gaussian), the ℓ2-Laplace scale, or the
    /// exponential mechanism's sensitivity.
    pub sigma: f64,
    /// The noise law of each release, in the units the run reports its noise norms in.
    pub noise: NoiseShape,
    /// How many noisy releases the run makes (T for DP-GD, 1 for output perturbation).
    pub releases: usize,
    /// The whole noise law: every draw's kind, scale and sensitivity, in order. The running
    /// algorithm reports its own ([`crate::algo::PrivateAlgorithm::draws`]) and `Session` refuses
    /// to run unless the two agree.
    pub draws: Vec<Draws>,
    /// Declared per-sample Lipschitz constant G.
    pub lipschitz: f64,
    /// ℓ2-sensitivity of one noisy release (for output perturbation Δ_T = Δ_F + 2ρ, which
    /// includes the solver's certified error ρ).
    pub sensitivity: f64,
    /// For one-release methods: the radius around the non-private solution within which a
    /// neighbouring dataset's solution may lie (the sensitivity ball of the parameter view).
    pub sensitivity_ball: Option<f64>,
    /// The step size of iterative methods.
    pub step_size: Option<f64>,
    /// For teaching: σ of a *single* Gaussian release of the same sensitivity at the whole
    /// (ε, δ), by the classical, ZWB+19 and analytic calibrations side by side (empty for pure ε).
    pub single_release: Vec<GaussianRow>,
    /// Why this run is NOT private (a leaky demonstration, DP-SVRG's as-printed noise): the very
    /// sentences its ledger's `leaks` will carry, so the page can say so before Play. Empty for
    /// an honest run.
    pub leaks: Vec<String>,
}

impl Preview {
    /// False when a demonstration voids the guarantee (see [`Preview::leaks`]).
    pub fn is_private(&self) -> bool {
        self.leaks.is_empty()
    }
}

/// What `Session::new` needs to build the algorithm, fixed from the configuration alone (cloned
/// for each repeat: calibrations such as DP-SGD's bisection run once per algorithm).
#[derive(Clone)]
pub enum Prepared {
    NoisyGd(Calibration, f64),
    DpAccMd(DpAccMdConfig),
    DpSgd(Box<DpSgdCalibration>),
    DpSvrg(Box<DpSvrgCalibration>),
    ObjectivePerturbation(ObjectivePerturbationConfig),
    /// A plan and the ridge the algorithm adds to the objective it solves (Algorithm 6's λ).
    OutputPerturbation(Box<Plan>, f64),
    Byoa(ByoaSettings),
    ByoaPhased(ByoaSettings),
    /// The settings and the relation (the declared n is the config's).
    Grid(GridSettings, Relation),
}

/// The guarantee and noise scale a config's main algorithm gets, without touching data.
pub fn preview(config: &RunConfig) -> Result<Preview> {
    config.validate()?;
    prepare(config).map(|(preview, _)| preview)
}

/// The preview and the prepared settings of the config's main algorithm. Errors name the page's
/// control for the setting at fault ([`at_control`]).
pub fn prepare(config: &RunConfig) -> Result<(Preview, Prepared)> {
    prepare_settings(config).map_err(at_control)
}

/// An algorithm's error restated at the control a person changes: the algorithms name their own
/// settings (DP-SVRG's `epochs` is the page's steps T, DP-SGD's `sampling_rate` is b/n, …), and the
/// page shows an error beside the control whose id is the field.
pub fn at_control(error: Error) -> Error {
    const CONTROLS: [(&str, &str); 12] = [
        ("epochs", "steps"),
        ("epoch_length", "batch"),
        ("sampling_rate", "batch"),
        ("batch_size", "batch"),
        ("clip_norm", "clip"),
        ("mu", "l2"),
        ("strong_convexity", "l2"),
        ("lipschitz", "feature_bound"),
        ("resolution", "grid_resolution"),
        ("variant", "algorithm"),
        ("c", "svrg_noise"),
        ("dimension", "d"),
    ];
    match error {
        Error::InvalidParameter {
            field,
            expected,
            got,
        } => match CONTROLS.iter().find(|(internal, _)| *internal == field) {
            Some((internal, control)) => Error::InvalidParameter {
                field: (*control).to_string(),
                expected: format!("{expected} (for the algorithm's {internal})"),
                got,
            },
            None => Error::InvalidParameter {
                field,
                expected,
                got,
            },
        },
        other => other,
    }
}

fn prepare_settings(config: &RunConfig) -> Result<(Preview, Prepared)> {
    let declared = Declared::of(config);
    let lipschitz = declared.lipschitz();
    let smoothness = declared.smoothness();
    if !(lipschitz.is_finite() && lipschitz > 0.0) {
        return Err(Error::invalid(
            "domain",
            "a bounded domain: the squared loss's Lipschitz constant grows with ‖w‖",
            lipschitz,
        ));
    }
    // The gradient-perturbation family calibrates to the sensitivity of a mean of per-sample
    // gradients: TERM is not one (its weights move with every record), and the stochastic
    // methods' per-sample kernels serve plain ERM only.
    let mean_only = matches!(
        config.algorithm,
        AlgorithmKind::DpSgd
            | AlgorithmKind::DpSvrg
            | AlgorithmKind::DpSvrgPlusPlus
            | AlgorithmKind::DpAccmd
    );
    let tilted = matches!(config.wrap, Wrap::Tilted { .. });
    if (mean_only && config.wrap != Wrap::None)
        || (config.algorithm == AlgorithmKind::NoisyGd && tilted)
    {
        return Err(Error::invalid(
            "loss",
            format!(
                "plain ERM for {:?}: its noise is calibrated to a mean of per-sample gradients (tilted or robust losses run under output perturbation)",
                config.algorithm
            ),
            format!("{:?}", config.wrap),
        ));
    }
    let base = |kind, algorithm, guarantee, sigma, noise, releases, sensitivity| Preview {
        kind,
        algorithm,
        guarantee,
        sigma,
        noise,
        releases,
        draws: vec![Draws {
            noise,
            count: releases,
            sensitivity,
        }],
        lipschitz,
        sensitivity,
        sensitivity_ball: None,
        step_size: None,
        single_release: Vec::new(),
        leaks: Vec::new(),
    };
    let d = config.d;
    let gaussian = |sigma| NoiseShape::Gaussian { sigma, d };
    let kind = config.algorithm;
    let (mut preview, prepared) = match kind {
        AlgorithmKind::NoisyGd => {
            let calibration = Calibration {
                epsilon: config.epsilon,
                delta: config.delta,
                relation: config.relation,
                steps: config.steps,
                lipschitz,
                n: config.n,
            };
            let step_size = config
                .step_size
                .unwrap_or_else(|| default_step(&declared, config.steps));
            let (sigma, guarantee) = calibration.calibrate()?;
            let sensitivity = calibration.sensitivity();
            let mut p = base(
                kind,
                "noisy gradient descent (DP-GD; Wang–Ye–Xu 2017, Algorithm 4)",
                guarantee,
                sigma,
                gaussian(sigma),
                config.steps,
                sensitivity,
            );
            p.step_size = Some(step_size);
            p.leaks = leaks([problem::gd_leak(config).describe()]);
            (p, Prepared::NoisyGd(calibration, step_size))
        }
        AlgorithmKind::DpSgd => {
            let clip = config.clip.unwrap_or(lipschitz);
            let step_size = config
                .step_size
                .unwrap_or_else(|| default_step(&declared, config.steps));
            let sgd = DpSgdConfig {
                epsilon: config.epsilon,
                delta: config.delta,
                clip_norm: clip,
                batch_size: config.batch,
                sampling_rate: config.batch as f64 / config.n as f64,
                steps: config.steps,
                step_size,
                leak: if config.leak {
                    DpSgdLeak::NoClipping
                } else {
                    DpSgdLeak::None
                },
            };
            let calibration = DpSgdCalibration::for_relation(sgd, config.relation)?;
            let b = config.batch as f64;
            // The run reports ‖noise‖ on the averaged gradient: z·C per coordinate, over b.
            let sigma = calibration.noise_multiplier() * clip / b;
            let mut p = base(
                kind,
                "DP-SGD (Abadi et al. 2016): per-sample clipping, Poisson subsampling, RDP accountant",
                calibration.guarantee().clone(),
                sigma,
                gaussian(sigma),
                config.steps,
                clip / b,
            );
            p.step_size = Some(step_size);
            p.leaks = leaks([sgd.leak.describe()]);
            (p, Prepared::DpSgd(Box::new(calibration)))
        }
        AlgorithmKind::DpSvrg | AlgorithmKind::DpSvrgPlusPlus => {
            let variant = if kind == AlgorithmKind::DpSvrg {
                SvrgVariant::Svrg
            } else {
                SvrgVariant::SvrgPlusPlus
            };
            let noise = match config.svrg_noise {
                SvrgNoiseChoice::Certified => SvrgNoise::Certified,
                SvrgNoiseChoice::AsPrinted => SvrgNoise::AsPrinted { c: SVRG_PRINTED_C },
            };
            if !smoothness.is_finite() {
                return Err(Error::invalid(
                    "loss",
                    "a smooth loss for DP-SVRG (its step size is 1/β-based)",
                    format!("{:?}", config.loss),
                ));
            }
            let svrg = DpSvrgConfig {
                variant,
                noise,
                epsilon: config.epsilon,
                delta: config.delta,
                lipschitz,
                n: config.n,
                epochs: config.steps,
                epoch_length: (config.n / config.batch).max(1),
                step_size: 0.0,
                batch_size: config.batch,
                leak: if config.leak {
                    SvrgLeak::BbStepFromExactGradients
                } else {
                    SvrgLeak::None
                },
            };
            let svrg = match config.step_size {
                None => svrg.with_preset(SvrgPreset::Theory, smoothness, config.l2)?,
                Some(eta) => DpSvrgConfig {
                    step_size: eta,
                    ..svrg
                },
            };
            let calibration = DpSvrgCalibration::for_relation(svrg, config.relation)?;
            let sigma = calibration.sigma();
            let releases = usize::try_from(calibration.releases()?).unwrap_or(usize::MAX);
            let mut p = base(
                kind,
                if kind == AlgorithmKind::DpSvrg {
                    "DP-SVRG (Wang–Ye–Xu 2017, Algorithm 1)"
                } else {
                    "DP-SVRG++ (Wang–Ye–Xu 2017, Algorithm 2)"
                },
                calibration.guarantee().clone(),
                sigma,
                gaussian(sigma),
                releases,
                2.0 * lipschitz / config.batch as f64,
            );
            p.step_size = Some(svrg.step_size);
            // In the ledger's order: the as-printed noise first, then the leaky step size.
            p.leaks = leaks([svrg.noise.leak(), svrg.leak.describe()]);
            (p, Prepared::DpSvrg(Box::new(calibration)))
        }
        AlgorithmKind::DpAccmd => {
            let geometry = match config.domain {
                DomainChoice::L2Ball => Geometry::L2 {
                    radius: config.radius,
                },
                DomainChoice::L1Ball => Geometry::L1 {
                    radius: config.radius,
                },
                _ => {
                    return Err(Error::invalid(
                        "domain",
                        "the ℓ2 or ℓ1 ball for DP-AccMD (its mirror maps are for these)",
                        format!("{:?}", config.domain),
                    ));
                }
            };
            let accmd = DpAccMdConfig {
                epsilon: config.epsilon,
                delta: config.delta,
                relation: config.relation,
                steps: config.steps,
                lipschitz,
                smoothness,
                n: config.n,
                geometry,
                leak: if config.leak {
                    AccMdLeak::ExactGradientYStep
                } else {
                    AccMdLeak::None
                },
            };
            let (sigma, guarantee) = accmd.calibrate()?;
            let mut p = base(
                kind,
                "DP-AccMD (Wang–Ye–Xu 2017, Algorithm 3; corrected coupling)",
                guarantee,
                sigma,
                gaussian(sigma),
                config.steps,
                accmd.calibration().sensitivity(),
            );
            p.leaks = leaks([accmd.leak.describe()]);
            (p, Prepared::DpAccMd(accmd))
        }
        AlgorithmKind::ObjectivePerturbation => {
            if config.loss != Glm::Logistic {
                return Err(Error::invalid(
                    "loss",
                    "the logistic loss (objective perturbation needs |ℓ′| ≤ 1 and a bounded ℓ″)",
                    format!("{:?}", config.loss),
                ));
            }
            let settings = ObjectivePerturbationConfig {
                epsilon: config.epsilon,
                ..ObjectivePerturbationConfig::default()
            };
            let plan = AmpPlan::new(&settings, config.n, d, config.l2, config.feature_bound)?;
            // b ~ ℓ2-Laplace of scale 2R/ε′; the run reports ‖b/n‖. The residual z is the second
            // draw (approximate minima perturbation), shown in `draws` and the accounting.
            let b = plan.noise();
            let scale = plan.split.noise_scale(config.feature_bound) / config.n as f64;
            replace_one_only(
                config,
                "objective perturbation's proof (Chaudhuri, Monteleoni & Sarwate 2011, Theorem 9) \
                 bounds the change of the noise b and of the Hessian when one record is replaced",
            )?;
            let guarantee = plan.guarantee(config.epsilon);
            let mut p = base(
                kind,
                "objective perturbation (Chaudhuri–Monteleoni–Sarwate 2011, Algorithm 2) with approximate minima perturbation (Iyengar et al. 2019)",
                guarantee,
                scale,
                b.noise,
                1,
                b.sensitivity,
            );
            p.draws = plan.draws();
            (p, Prepared::ObjectivePerturbation(settings))
        }
        AlgorithmKind::OutputPerturbation | AlgorithmKind::RegularisedOutputPerturbation => {
            let regularised = kind == AlgorithmKind::RegularisedOutputPerturbation;
            replace_one_only(
                config,
                "output perturbation's sensitivity 2L/(μn) (Lowy & Razaviyayn 2021, \"Output \
                 perturbation for differentially private convex optimization\", Proposition 2.2) is for one \
                 record replaced among a fixed, public n, and its certified solvers average over the \
                 records present",
            )?;
            let mut settings = Settings::new(config.epsilon, config.delta);
            settings.relation = config.relation;
            settings.solver = config.solver;
            settings.gaussian = config.gaussian;
            let mut extra = 0.0;
            if regularised {
                // Algorithm 6: λ from Theorem 3.4 (Lipschitz class) or 3.5 (smooth class),
                // computed from the unregularised F's declared constants.
                let class = if smoothness.is_finite() {
                    ConvexClass::Smooth
                } else {
                    ConvexClass::Lipschitz
                };
                // TERM is seed 000's non-ERM form (as `op::Declared::from_constants` reads it);
                // the unregularised F may have μ = 0, so its declaration cannot be validated here.
                let form = if matches!(config.wrap, Wrap::Tilted { .. }) {
                    Form::NonErm
                } else {
                    Form::Erm
                };
                let ratio = op::privacy_ratio(d, config.n, form, config.epsilon, config.delta);
                let lambda = op::paper_lambda(
                    class,
                    lipschitz,
                    smoothness - config.l2,
                    declared.radius(),
                    ratio,
                );
                extra = lambda;
                settings.regularised = Some(Regularised {
                    lambda: config.l2 + lambda,
                    class,
                    paper_sensitivity: true,
                });
            }
            let plan = op::plan(op_declared(&declared, config, extra)?, settings)?;
            let (sigma, noise) = op_noise(&plan.noise, d);
            let mut p = base(
                kind,
                if regularised {
                    "regularised output perturbation (Lowy–Razaviyayn 2021, Algorithm 6)"
                } else {
                    "output perturbation (Lowy–Razaviyayn 2021, Algorithm 1; certified solver)"
                },
                plan.guarantee.clone(),
                sigma,
                noise,
                1,
                plan.total_sensitivity,
            );
            p.sensitivity_ball = Some(plan.total_sensitivity);
            (p, Prepared::OutputPerturbation(Box::new(plan), extra))
        }
        AlgorithmKind::Byoa => {
            replace_one_only(
                config,
                "the sensitivity 4G/(μn) of output perturbation with a certified solver (Zhang, \
                 Thekumparampil, Oh & He 2022, \"Bring your own algorithm\", Algorithm 1) holds for \
                 a fixed, public n: its solvers average over the records present, so a record \
                 added or removed also changes the mean's normaliser",
            )?;
            let mut settings = ByoaSettings::new(config.epsilon, config.delta);
            settings.solver = config.solver;
            settings.calibration = byoa_calibration(config.epsilon);
            let mu = config.l2;
            if mu <= 0.0 {
                return Err(Error::invalid(
                    "l2",
                    "a ridge l2 > 0: Zhang et al. 2022, Algorithm 1 needs a strongly convex objective",
                    mu,
                ));
            }
            // The algorithm's own plan from the declared constants: σ, Δ = 4L/(μn) and the
            // rounding-allowance check, refused here as it would be at the run.
            let plan =
                byoa::plan_algorithm_1_declared(op_declared(&declared, config, 0.0)?, settings)?;
            let (sigma, noise) = op_noise(&plan.noise, d);
            let total = plan.total_sensitivity;
            let mut p = base(
                kind,
                "bring your own algorithm (Zhang et al. 2022, Algorithm 1): certified solver + one Gaussian",
                approx(
                    config.epsilon,
                    config.delta,
                    config.relation,
                    "Zhang et al. 2022, Alg. 1",
                ),
                sigma,
                noise,
                1,
                total,
            );
            p.sensitivity_ball = Some(total);
            (p, Prepared::Byoa(settings))
        }
        AlgorithmKind::ByoaPhased => {
            replace_one_only(
                config,
                "phased output perturbation (Zhang, Thekumparampil, Oh & He 2022, \"Bring your \
                 own algorithm\", Algorithm 2) splits the n records into chunks of fixed sizes, and \
                 a record added or removed shifts every later chunk",
            )?;
            let mut settings = ByoaSettings::new(config.epsilon, config.delta);
            settings.solver = config.solver;
            settings.calibration = byoa_calibration(config.epsilon);
            let schedule = byoa::schedule(
                config.n,
                d,
                lipschitz,
                // D: the domain radius, as `PhasedOutputPerturbation::new` reads it.
                declared.domain.radius_in(d),
                config.epsilon,
                config.delta,
                None,
                settings.calibration,
            )?;
            let first = schedule
                .specs
                .first()
                .ok_or_else(|| Error::invalid("n", "at least 2 records for one phase", config.n))?;
            let mut p = base(
                kind,
                "phased output perturbation (Zhang et al. 2022, Algorithm 2): K disjoint chunks, μ doubling",
                approx(
                    config.epsilon,
                    config.delta,
                    config.relation,
                    "Zhang et al. 2022, Alg. 2",
                ),
                first.sigma,
                gaussian(first.sigma),
                schedule.phases,
                first.sensitivity,
            );
            p.sensitivity_ball = Some(first.sensitivity);
            p.draws = schedule
                .specs
                .iter()
                .map(|spec| Draws {
                    noise: gaussian(spec.sigma),
                    count: 1,
                    sensitivity: spec.sensitivity,
                })
                .collect();
            (p, Prepared::ByoaPhased(settings))
        }
        AlgorithmKind::ExponentialGrid => {
            let radius = declared.radius();
            if !radius.is_finite() || d > 2 {
                return Err(Error::invalid(
                    if d > 2 { "d" } else { "domain" },
                    "d ≤ 2 and a bounded domain for the exponential mechanism on a grid",
                    if d > 2 {
                        d.to_string()
                    } else {
                        "unbounded".into()
                    },
                ));
            }
            let erm = !matches!(config.wrap, Wrap::Tilted { .. });
            let sensitivity = exponential_grid::sensitivity_under(
                lipschitz,
                radius,
                config.n,
                erm,
                config.relation,
            );
            let p = base(
                kind,
                "exponential mechanism on a grid (Lowy & Razaviyayn 2021, Algorithm 9)",
                pure(
                    config.epsilon,
                    config.relation,
                    "Lowy & Razaviyayn 2021, Alg. 9",
                ),
                sensitivity,
                NoiseShape::None,
                1,
                sensitivity,
            );
            (
                p,
                Prepared::Grid(
                    GridSettings {
                        epsilon: config.epsilon,
                        resolution: config.grid_resolution,
                    },
                    config.relation,
                ),
            )
        }
    };
    if preview.guarantee.delta > 0.0 && matches!(preview.noise, NoiseShape::Gaussian { .. }) {
        preview.single_release = compare_gaussian(
            preview.sensitivity,
            preview.guarantee.epsilon,
            preview.guarantee.delta,
        )?;
    }
    Ok((preview, prepared))
}

/// The theory step size: 1/β for smooth objectives, D/(G√T) (the subgradient method's) otherwise.
fn default_step(declared: &Declared, steps: usize) -> f64 {
    let beta = declared.smoothness();
    if beta.is_finite() {
        return 1.0 / beta;
    }
    let diameter = declared.domain.diameter_in(declared.d);
    let scale = if diameter.is_finite() { diameter } else { 1.0 };
    scale / (declared.lipschitz() * (steps as f64).sqrt())
}

/// Seed 004's calibration: the paper's (classical at δ/2) where it is valid (ε ≤ 1), the exact
/// analytic Gaussian beyond.
fn byoa_calibration(epsilon: f64) -> byoa::Calibration {
    if epsilon <= 1.0 {
        byoa::Calibration::Paper
    } else {
        byoa::Calibration::CertifiedAnalytic
    }
}

fn op_noise(noise: &NoiseLaw, d: usize) -> (f64, NoiseShape) {
    let scale = match *noise {
        NoiseLaw::Gaussian { sigma, .. } => sigma,
        NoiseLaw::L2Laplace { scale } => scale,
    };
    (scale, noise.shape(d))
}

/// Seed 000's declared constants of the objective the algorithm will solve (the problem's, plus
/// `extra_ridge`), read exactly as [`op::Declared::of`] reads them from that objective;
/// `OutputPerturbation::from_plan` checks the two agree.
fn op_declared(declared: &Declared, config: &RunConfig, extra_ridge: f64) -> Result<op::Declared> {
    op::Declared::from_constants(op::Constants {
        n: config.n,
        d: config.d,
        lipschitz: declared.lipschitz(),
        strong_convexity: declared.strong_convexity() + extra_ridge,
        // Summed in the objective's order, β_loss + (λ₂ + λ): (β_loss + λ₂) + λ can differ in the
        // last bit, and `from_plan` then refuses the plan (seen at δ = 1e-6, λ₂ = 0.1).
        smoothness: declared.constants().smoothness + (config.l2 + extra_ridge),
        domain: &declared.domain,
        l1: config.l1,
        loss: Some(declared.loss),
        feature_bound: config.feature_bound,
    })
}

/// Neighbouring relations, one rule (issue 12 item 7): every algorithm honours the `relation`
/// asked for, with a calibration that uses it, or refuses it here, at that field, saying why and
/// which relation it supports. It never states another relation than the one asked for.
fn replace_one_only(config: &RunConfig, why: &str) -> Result<()> {
    match config.relation {
        Relation::ReplaceOne => Ok(()),
        Relation::AddRemove => Err(Error::invalid(
            "relation",
            format!("replace one record (the only relation this algorithm supports): {why}"),
            "add or remove one record",
        )),
    }
}

/// The statement of an algorithm whose calibration is fixed for `relation` (checked by the
/// caller: [`replace_one_only`] or a sensitivity that depends on it).
fn pure(epsilon: f64, relation: Relation, what: &str) -> Guarantee {
    approx(epsilon, 0.0, relation, what)
}

fn approx(epsilon: f64, delta: f64, relation: Relation, what: &str) -> Guarantee {
    Guarantee {
        epsilon,
        delta,
        relation,
        rho: None,
        accounting: what.to_string(),
    }
}

/// The preview's "NOT PRIVATE" sentences: the same `describe()` texts the ledger's leaks carry.
fn leaks<const N: usize>(sentences: [Option<&'static str>; N]) -> Vec<String> {
    sentences.into_iter().flatten().map(String::from).collect()
}

/// Whether two statements promise the same: ε, δ and relation (the accounting text may differ).
pub fn same_promise(a: &Guarantee, b: &Guarantee) -> bool {
    a.epsilon == b.epsilon && a.delta == b.delta && a.relation == b.relation
}
