//! The audit of output perturbation on a pair that attains its sensitivity bound, with a
//! certificate-skipping variant: the bug output perturbation's design exists to prevent.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick};
use super::{Auditable, Bug, Side};
use crate::algo::output_perturbation::{
    NoiseLaw, ObjectiveDeclaration, OutputPerturbation, ReleasePlan, Settings, plan,
};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Regularizer};
use crate::noise::{L2Laplace, fill_gaussian};
use crate::objective::Objective;
use crate::privacy::ApproxDp;
use crate::rng::DpRng;
use crate::solver::{BaseSolver, CertificateConstants, Sgd, SolverKind};

/// Output perturbation ([`OutputPerturbation`], seed 000 Algorithm 1) on a pair where the
/// sensitivity bound of Prop 2.2 is attained exactly.
///
/// The pair (d = 1, Huber loss with threshold 1, ridge λ = 0.1, ball of radius 10, feature bound 1):
/// n − 1 shared records (x = 0, y = 0), which do not depend on w; the differing record is (1, +10)
/// in D and (1, −10) in D′. Its residual stays beyond the Huber threshold, so the gradient of its
/// loss is the constant ∓1 = ∓L and w* = ±1/(nλ): ‖w*(D) − w*(D′)‖ = 2L/(λn) = Δ_F exactly.
/// α is set so that 2ρ = Δ_F/100, so the release's true ε is within 1% of the claim. With the
/// subgradient solvers (seed 000 Algorithms 2 and 3) the loss is the absolute loss (the same
/// constant tail gradient, so the same tight pair) and 2ρ = Δ_F/10, keeping Prop 3.2's
/// deterministic count (the fallback of Algorithm 3) near 10⁷.
///
/// [`Bug::CertificateSkipped`] runs the one-sample SGD base solver for 5 steps and releases its
/// point with the same noise, as if it were certified. In the ≈ 5% of runs whose 5 samples hit
/// the differing record, its first steps (η_s = 2/(λ(s+1)) = 10, 6.7, …) move the point by
/// several Δ_F, which the noise calibrated to Δ_T cannot hide.
pub struct OutputPerturbationTarget {
    settings: Settings,
    data: [Arc<Dataset>; 2],
    bug: Bug,
}

impl OutputPerturbationTarget {
    /// Steps the planted bug runs the solver for.
    pub const PLANTED_STEPS: usize = 5;
    const LAMBDA: f64 = 0.1;

    /// n ≥ 2 records, target (ε, δ) (δ = 0: ℓ2-Laplace; δ > 0: ZWB Gaussian), base solver for
    /// the correct version, planted bug ([`Bug::None`] or [`Bug::CertificateSkipped`]).
    pub fn new(n: usize, epsilon: f64, delta: f64, solver: SolverKind, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if !matches!(bug, Bug::None | Bug::CertificateSkipped) {
            return Err(Error::invalid(
                "bug",
                "none or certificate_skipped for output perturbation",
                format!("{bug:?}"),
            ));
        }
        let [d, d_prime] = pair_1d([Some((1.0, 10.0)), Some((1.0, -10.0))], n - 1, (0.0, 0.0))?;
        let delta_f = 2.0 / (Self::LAMBDA * n as f64);
        // The subgradient methods' deterministic counts grow as 1/α: a coarser ρ keeps them short.
        let rho = delta_f
            / if Self::non_smooth(solver) {
                20.0
            } else {
                200.0
            };
        let mut settings = Settings::new(epsilon, delta);
        settings.solver = solver;
        settings.alpha = Some(0.5 * Self::LAMBDA * rho * rho);
        let target = Self {
            settings,
            data: [Arc::new(d), Arc::new(d_prime)],
            bug,
        };
        plan(
            ObjectiveDeclaration::of(&target.objective(Side::D)?)?,
            settings,
        )?;
        Ok(target)
    }

    /// The subgradient solvers (seed 000 Algorithms 2 and 3) run on the absolute loss, whose tail
    /// gradient equals Huber's, so the pair stays tight (Δ_F attained); the others on Huber.
    fn non_smooth(solver: SolverKind) -> bool {
        matches!(
            solver,
            SolverKind::Subgradient | SolverKind::StochasticSubgradient
        )
    }

    fn objective(&self, side: Side) -> Result<Objective> {
        let glm = if Self::non_smooth(self.settings.solver) {
            Glm::absolute()
        } else {
            Glm::huber(1.0)
        };
        Objective::with_loss(
            Arc::clone(pick(&self.data, side)),
            Loss::erm(glm),
            Regularizer::ridge(Self::LAMBDA),
            Box::new(L2Ball { radius: 10.0 }),
            1.0,
        )
    }

    /// The plan (Δ_F, ρ, Δ_T, noise) both sides share.
    pub fn plan(&self) -> Result<ReleasePlan> {
        plan(
            ObjectiveDeclaration::of(&self.objective(Side::D)?)?,
            self.settings,
        )
    }
}

impl Auditable for OutputPerturbationTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.settings.epsilon,
            delta: self.settings.delta,
            relation: self.settings.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = self.objective(side)?;
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        if self.bug == Bug::None {
            let mut alg = OutputPerturbation::new(self.settings, &objective, run_rng, false)?;
            return Ok(alg.run(&objective)[0]);
        }
        let mut run_rng = run_rng;
        let plan = plan(ObjectiveDeclaration::of(&objective)?, self.settings)?;
        let constants = CertificateConstants::of(&objective);
        let mut sgd = Sgd::new(&objective, &constants, run_rng.next_u64(), &[0.0]);
        for _ in 0..Self::PLANTED_STEPS {
            sgd.iterate(&objective);
        }
        let mut z = [0.0];
        match plan.noise {
            NoiseLaw::L2Laplace { scale } => L2Laplace::new(scale)?.fill(&mut run_rng, &mut z)?,
            NoiseLaw::Gaussian { sigma, .. } => fill_gaussian(&mut run_rng, sigma, &mut z),
        }
        Ok(sgd.current()[0] + z[0])
    }
}
