//! Single-stage output perturbation on the Lipschitz extension (Lowy 2026, "OutputPert-
//! LipExt"): our derivation from its lemmas, **not an algorithm of the paper**, run beside Lowy 2026's
//! Double-OutputPert to show what localisation buys.
//!
//! # Algorithm
//! 1. w_acc ∈ W certified within r_acc = C/(2λn) of argmin_W Q, Q(w) = (1/n)Σ f_C(w, zᵢ) +
//!    (l2/2)‖w‖² + (λ/2)‖w‖² (the R^d extension of a smooth GLM loss, [`super::Extension`]);
//! 2. Δ = 2C/(λn) + 2r_acc = 3C/(λn), b ~ ℓ2-Laplace of scale β = Δ/ε;
//! 3. release Π_W(w_acc + b).
//!
//! # Choices
//! C = G_k (nε/d)^(1/k) from the declared G_k unless declared (`clip`); λ = [`calibrated_ridge`]
//! unless declared (`lambda1`): the ridge that minimises the excess bound with the constants the
//! noise, the certificate, the extension's bias and the sampling error carry (its derivation is on
//! that function). The solver is the project's certified AGD with the GD safeguard. Its budget is
//! fixed by the plan from the declared constants alone (smoothness sup φ″·B² + l2 + λ with B the
//! declared feature bound the records are clipped to): [`SingleStagePlan::new`] refuses the
//! config at the ridge λ when the certificate's rounding allowance would swallow r_acc, so in
//! exact arithmetic the run always certifies within it. The solver itself steps with the data's
//! own, smaller smoothness bound (a true bound for these records; it decides only when the run
//! stops, never the budget or the noise).
//!
//! # Privacy
//! ε-DP for every dataset (replace-one, n public): Q is λ-strongly convex with convex C-Lipschitz
//! data terms, so its argmin moves by at most 2C/(λn) when one record is replaced; the certified
//! point adds r_acc on each side (the setting of the bias bound below). The release is a
//! [`Noised`] value, so it cannot skip its draw. Should the certificate still fail within the
//! planned budget (floating point only), the planned noise is released around the centre of W
//! and the ledger marks the release NOT PRIVATE ([`Ledger::with_failure`]): that failure depends
//! on the data.
//!
//! # Utility
//! E‖out − ŵ_λ‖ ≤ d·β + r_acc + E L_B/λ with E L_B ≤ G_k^k/((k−1)C^(k−1)) (Lowy 2026).
//!
//! # Reference
//! Our derivation, built on A. Lowy, "Optimal Rates for
//! Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails", 2026, Lemma 2.2.

use super::call_declared::CallDeclared;
use super::localised::{Region, Surrogate};
use crate::algo::output_perturbation::certified_gd_bound;
use crate::algo::{CertificateStatus, Draws, NoiseShape, PrivateAlgorithm, StepReport};
use crate::error::{Error, Result};
use crate::linalg::dot;
use crate::objective::Objective;
use crate::privacy::release::{Law, Noised, Published};
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, PureDp, Relation};
use crate::rng::DpRng;
use crate::solver::{CertificateConstants, CertifiedRun, SolverKind};

/// The ridge λ with the constants (the default), the single-stage analogue of
/// [`super::localised::calibrated_lambda`]: the minimiser of the excess bound below, from the
/// declared n, d, ε, k, G_k, G₂, R and the threshold C alone (never the sample).
///
/// # Derivation
/// Let w*_λ minimise the population F + (λ/2)‖·‖² over W = B(0, R) (the ridge is centred at 0,
/// the centre of W, so ‖w* − 0‖ ≤ R for every minimiser w* of F). Then F(w*_λ) ≤ F(w*) + λR²/2,
/// and F being G-Lipschitz in mean (G₁ ≤ G₂: we use the declared G₂),
///
///   F(out) − F* ≤ λR²/2 + G₂·E‖out − w*_λ‖,   E‖out − w*_λ‖ ≤ a/λ,
///
///   a = 3·√(d(d+1))·C/(nε) + C/(2n) + G_k^k/((k−1)C^(k−1)) + 2G₂/√n:
///
/// - **the draw**, ℓ2-Laplace of scale β = Δ/ε = 3C/(λnε) ([`SingleStagePlan::scale`]), in root
///   mean square √E‖b‖² = √(d(d+1))·β (an upper bound on E‖b‖ = dβ, the same choice as the
///   localized family's);
/// - **the certificate** r_acc = C/(2λn) ([`SingleStagePlan::accuracy`]);
/// - **the extension's bias** ‖ŵ_{C,λ} − ŵ_λ‖ ≤ E(A − C)₊/λ ≤ G_k^k/((k−1)λC^(k−1)) (our bound
///   from Lowy 2026's bias lemmas);
/// - **the sampling error** ‖ŵ_λ − w*_λ‖ ≈ 2G₂/(λ√n) (replace-one stability; the constant 2 is
///   ours, as in the localized family).
///
/// The bound λR²/2 + G₂·a/λ is least at **λ = √(2G₂·a)/R**, where it equals R·√(2G₂·a). At
/// C = C* every term of a but the certificate's is of order G_k (d/(nε))^(1−1/k) + G₂/√n, so the
/// bound falls as the square root of the localized rate: one output perturbation cannot shrink
/// its ridge's bias and its noise together, which is what localisation buys (Lowy 2026, §2).
///
/// The constant-free λ = (G_k (d/(nε))^(1−1/k) + G₂/√n)/D ([`super::localised::base_lambda`]), the
/// earlier default, left every constant out: at n = 4000, d = 2, ε = 1 (Pareto α = 3, k = 2) it is
/// 0.004, the draw's scale 3C/(λnε) is then 7 against R = 4, every release lands on the boundary of
/// W, and the excess stays at 0.53 at every n (measured, `tests/algorithms/heavy_slopes.rs`).
#[allow(clippy::too_many_arguments)]
pub fn calibrated_ridge(
    n: usize,
    d: usize,
    epsilon: f64,
    k: f64,
    moment_k: f64,
    moment_2: f64,
    radius: f64,
    clip: f64,
) -> f64 {
    let (nf, df) = (n as f64, d as f64);
    let noise = 3.0 * (df * (df + 1.0)).sqrt() * clip / (nf * epsilon);
    let certificate = clip / (2.0 * nf);
    let bias = libm::pow(moment_k, k) / ((k - 1.0) * libm::pow(clip, k - 1.0));
    let sampling = 2.0 * moment_2 / nf.sqrt();
    let a = noise + certificate + bias + sampling;
    (2.0 * moment_2 * a).sqrt() / radius
}

/// The declared side of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SingleStagePlan {
    /// What the call reads, every number declared.
    pub declared: CallDeclared,
    /// sup φ″.
    pub curvature: f64,
    /// The declared feature bound B the records are clipped to.
    pub feature_bound: f64,
    /// The certified solver's budget (AGD, then the GD safeguard), from the declared constants.
    budget: usize,
    /// The ℓ2-Laplace law of the release, scale [`SingleStagePlan::scale`].
    law: Law,
}

impl SingleStagePlan {
    /// The plan of `declared` on records clipped to `feature_bound`, for a loss with sup φ″ =
    /// `curvature`. Fixes the solver's budget from those constants alone and refuses, at the ridge
    /// λ, a config whose certificate cannot hold within any budget (its rounding allowance would
    /// swallow r_acc = C/(2λn)), or whose noise scale is not a finite number > 0.
    pub fn new(declared: CallDeclared, curvature: f64, feature_bound: f64) -> Result<Self> {
        let mut plan = Self {
            declared,
            curvature,
            feature_bound,
            budget: 0,
            law: Law::l2_laplace(1.0)?,
        };
        let refuse = |why: String| Error::invalid("lambda1", why, declared.lambda);
        plan.law = Law::l2_laplace(plan.scale()).map_err(|_| {
            refuse(format!(
                "a ridge λ whose noise scale 3C/(λnε) is a finite number > 0 (it is {:.3e})",
                plan.scale()
            ))
        })?;
        let mu = declared.l2 + declared.lambda;
        let constants = CertificateConstants {
            strong_convexity: mu,
            smoothness: curvature * feature_bound * feature_bound + mu,
            lipschitz: declared.clip + mu * 2.0 * declared.radius,
        };
        plan.budget = certified_gd_bound(
            &constants,
            declared.n + declared.d,
            declared.radius,
            2.0 * declared.radius,
            plan.accuracy(),
        )
        .map_err(|allowance| {
            refuse(format!(
                "a smaller ridge λ, a larger threshold C or a smaller feature bound: the certified \
                 accuracy C/(2λn) = {:.2e} must exceed the certificate's rounding \
                 allowance {allowance:.2e} tenfold, or no solver budget can certify it",
                plan.accuracy()
            ))
        })?;
        Ok(plan)
    }

    /// r_acc = C/(2λn).
    pub fn accuracy(&self) -> f64 {
        self.declared.clip / (2.0 * self.declared.lambda * self.declared.n as f64)
    }

    /// Δ = 2C/(λn) + 2r_acc.
    pub fn sensitivity(&self) -> f64 {
        2.0 * self.declared.clip / (self.declared.lambda * self.declared.n as f64)
            + 2.0 * self.accuracy()
    }

    /// β = Δ/ε.
    pub fn scale(&self) -> f64 {
        self.sensitivity() / self.declared.epsilon
    }

    /// The statement.
    pub fn guarantee(&self) -> Guarantee {
        Guarantee {
            epsilon: self.declared.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
            rho: None,
            accounting: "pure ε: one ℓ2-Laplace output perturbation, Δ = 2C/(λn) + 2r_acc \
                         (single-stage output perturbation on the Lipschitz extension)"
                .to_string(),
        }
    }

    /// The certificate constants on `objective`'s records (their own smoothness bound, a true
    /// one for them, at most the declared sup φ″·B² + l2 + λ): they decide only when the solver
    /// stops, never its budget ([`SingleStagePlan::new`]) or the noise.
    fn constants(&self, objective: &Objective) -> CertificateConstants {
        let data = objective.data();
        let mean_square = data.samples().map(|(x, _)| dot(x, x)).sum::<f64>() / data.n() as f64;
        let mu = self.declared.l2 + self.declared.lambda;
        CertificateConstants {
            strong_convexity: mu,
            smoothness: self.curvature * mean_square + mu,
            lipschitz: self.declared.clip + mu * 2.0 * self.declared.radius,
        }
    }
}

/// The running algorithm.
pub struct SingleStage {
    plan: SingleStagePlan,
    guarantee: Guarantee,
    rng: DpRng,
    seeded: bool,
    region: Region,
    centre: Vec<f64>,
    run: Option<CertifiedRun>,
    /// The point the run stands at (**non-private**): the solver's iterate, then the release.
    /// Kept here rather than by the session because the loss of the next step is read at it and
    /// the solver that held it is gone once the release is drawn.
    current: Vec<f64>,
    release: Option<Noised>,
    failed: bool,
    last: Option<CertificateStatus>,
    passes: f64,
}

impl SingleStage {
    /// The run of `plan` (its solver starts at 0, the ridge's centre).
    pub fn new(plan: SingleStagePlan, rng: DpRng, seeded: bool) -> Self {
        Self {
            guarantee: plan.guarantee(),
            region: Region::Ball(plan.declared.radius),
            centre: vec![0.0; plan.declared.d],
            current: vec![0.0; plan.declared.d],
            plan,
            rng,
            seeded,
            run: None,
            release: None,
            failed: false,
            last: None,
            passes: 0.0,
        }
    }

    /// Whether the certificate failed within the planned budget (floating point only), so the
    /// release is the planned noise around the centre of W and NOT PRIVATE.
    pub fn failed(&self) -> bool {
        self.failed
    }

    fn surrogate<'a>(&'a self, objective: &'a Objective) -> Surrogate<'a> {
        Surrogate {
            data: objective.data(),
            start: 0,
            m: objective.data().n(),
            extension: self.plan.declared.extension(),
            l2: self.plan.declared.l2,
            lambda: self.plan.declared.lambda,
            centre: &self.centre,
            region: &self.region,
        }
    }
}

impl PrivateAlgorithm for SingleStage {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let caveats = vec![
            format!(
                "C = {:.4} from the declared G_k = {:.4} (k = {}), never the sample; λ = {:.4e}",
                self.plan.declared.clip,
                self.plan.declared.moment.0,
                self.plan.declared.moment.1,
                self.plan.declared.lambda
            ),
            format!(
                "released only after the certificate ‖w − argmin Q‖ ≤ r_acc = {:.3e} held",
                self.plan.accuracy()
            ),
        ];
        let mechanism = "single-stage output perturbation on the Lipschitz extension (derived from Lowy 2026; not an algorithm of the paper)";
        let mut ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        if let Ok(p) = PureDp::new(self.plan.declared.epsilon, Relation::ReplaceOne) {
            ledger = ledger.with_spend("one ℓ2-Laplace output perturbation", PrivacyLoss::Pure(p));
        }
        if self.failed {
            ledger = ledger.with_failure(
                "the certificate never held within the planned budget (floating point); the \
                 release is the planned noise around the centre of W, and that failure depends on \
                 the data",
            );
        }
        ledger
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.release.is_some() {
            return None;
        }
        let loss = objective.value(&self.current);
        let mut run = match self.run.take() {
            Some(run) => run,
            None => CertifiedRun::new(
                &self.surrogate(objective),
                self.plan.constants(objective),
                SolverKind::Agd,
                0,
                &self.centre,
                self.plan.accuracy(),
                self.plan.budget,
                self.plan.budget,
            ),
        };
        let cert = run.step(&self.surrogate(objective));
        self.passes = run.grad_evals();
        self.last = Some(CertificateStatus {
            bound: cert.distance_bound,
            threshold: run.radius(),
            sensitivity: self.plan.sensitivity(),
            met: run.is_certified(),
        });
        self.current.copy_from_slice(run.current());
        let mut noise_norm = 0.0;
        // The certified point, or the fixed public centre of W if even the safeguard failed.
        let centre = if run.is_certified() {
            Some(run.certified_point())
        } else if run.failed() {
            self.failed = true;
            Some(&self.centre[..])
        } else {
            None
        };
        if let Some(centre) = centre {
            let region = &self.region;
            let (release, norm) =
                Noised::perturb(centre, &self.plan.law, &mut self.rng, |w| region.project(w));
            noise_norm = norm;
            self.current.copy_from_slice(release.x());
            self.release = Some(release);
        } else {
            self.run = Some(run);
        }
        let done = self.release.is_some();
        let report = StepReport {
            grad_evals: self.passes,
            loss,
            noise_norm,
            grad_norm: cert.grad_norm,
            epsilon_spent: if done {
                self.plan.declared.epsilon
            } else {
                0.0
            },
            done,
        };
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.current
    }

    fn release(&self) -> Option<Published> {
        self.release.clone().map(Published::Private)
    }

    fn draws(&self) -> Vec<Draws> {
        vec![Draws {
            noise: NoiseShape::L2Laplace {
                scale: self.plan.scale(),
                d: self.plan.declared.d,
            },
            count: 1,
            sensitivity: self.plan.sensitivity(),
        }]
    }

    fn grad_evals(&self) -> f64 {
        self.passes
    }

    fn certificate(&self) -> Option<CertificateStatus> {
        self.last
    }
}

/// Refuses an empty dataset (the constants divide by n).
pub fn check_records(objective: &Objective, n: usize) -> Result<()> {
    if objective.data().n() != n || n == 0 {
        return Err(Error::invalid(
            "n",
            format!(
                "the number of records, {} (n is public)",
                objective.data().n()
            ),
            n,
        ));
    }
    Ok(())
}
