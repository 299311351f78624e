//! Noisy projected gradient descent (DP-GD).
//!
//! # Algorithm
//! Seed 002 (Wang, Ye & Xu 2017), Algorithm 4 (`../shared/research/seeds/002-dp-erm-revisited.md`
//! §3.4), with the projection of §3.5 ("privacy-identical" post-processing):
//!
//! w₀ = P_W(0);  w_{t+1} = P_W(w_t − η(∇F(w_t) + z_t)),  z_t ~ N(0, σ²I_d),  t = 0, …, T−1;
//! release w_T (the last iterate, as in the paper's §6.1).
//!
//! # Assumptions
//! Each per-sample loss is G-Lipschitz on W. For GLM losses this is enforced, not assumed: features
//! are clipped to the declared bound R_x before the run, so G comes from the loss's declared constant
//! (logistic: G = R_x). η defaults to 1/β, the step size of the paper's theorems.
//!
//! # Privacy
//! Replace-one: ∇F has ℓ2-sensitivity Δ = 2G/n (add/remove with public n: Δ = G/n). Each step is a
//! Gaussian mechanism, Δ²/(2σ²)-zCDP; T steps compose to ρ = TΔ²/(2σ²)-zCDP, which implies
//! (ρ + 2√(ρ ln(1/δ)), δ)-DP. We invert this exactly for the target (ε, δ) (digest 002 §2.5(A),
//! confirmed by REVIEW-002 §2a): σ = Δ√(T/(2ρ)), ρ = (√(ln(1/δ)+ε) − √(ln(1/δ)))². Valid for every
//! ε > 0, unlike the printed c-form, which REVIEW-002 §1b shows fails for ε ≳ 7. The regulariser's
//! gradient is the same for every record and does not enter Δ. The projection is post-processing.
//!
//! # Utility
//! For convex, G-Lipschitz, β-smooth F on a ball of radius R, Bassily–Smith–Thakurta (2014) give
//! E[F(w_T)] − F* = Õ(G R √(d ln(1/δ)) / (n ε)) with suitably tuned T; the paper's Theorem 6.1 states
//! the PL-case rate O(G² d log²(n) ln(1/δ) / (n² ε² μ)). The playground plots measured excess risk;
//! the bound curves arrive with `theory.rs`.
//!
//! # Reference
//! Seed 002, Algorithm 4 and Theorem 6.1; digest 002 §2.5(A), §3.4, §3.5; REVIEW-002 §1b, §2a.

use crate::error::{Error, Result};
use crate::linalg::norm2;
use crate::noise::fill_gaussian;
use crate::objective::Objective;
use crate::privacy::{Guarantee, Ledger, PrivacyLoss, Relation, Zcdp, zcdp};
use crate::rng::DpRng;

use super::{PrivateAlgorithm, StepReport};

/// The declared inputs that fix the noise: nothing here may come from the data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub epsilon: f64,
    pub delta: f64,
    pub relation: Relation,
    /// Number of noisy gradient steps T.
    pub steps: usize,
    /// Declared per-sample Lipschitz constant G (from the loss and the declared bounds).
    pub lipschitz: f64,
    /// Number of records (public under replace-one).
    pub n: usize,
}

impl Calibration {
    /// ℓ2-sensitivity of the mean gradient.
    pub fn sensitivity(&self) -> f64 {
        let n = self.n as f64;
        match self.relation {
            Relation::ReplaceOne => 2.0 * self.lipschitz / n,
            Relation::AddRemove => self.lipschitz / n,
        }
    }

    /// The per-step noise σ and the guarantee it buys.
    pub fn calibrate(&self) -> Result<(f64, Guarantee)> {
        if self.steps == 0 {
            return Err(Error::invalid("steps", "at least 1", 0));
        }
        if !(self.lipschitz.is_finite() && self.lipschitz > 0.0) {
            return Err(Error::invalid(
                "lipschitz",
                "a finite number > 0",
                self.lipschitz,
            ));
        }
        let rho = zcdp::rho_for_epsilon(self.epsilon, self.delta)?;
        let sigma = zcdp::gaussian_sigma(self.sensitivity(), self.steps, rho);
        let guarantee = Guarantee {
            epsilon: self.epsilon,
            delta: self.delta,
            relation: self.relation,
            rho: Some(rho),
            accounting: format!(
                "{} Gaussian steps of sensitivity {:.3e} and σ = {:.3e}, composed in zCDP (ρ = {:.3e}) and converted to (ε, δ)",
                self.steps,
                self.sensitivity(),
                sigma,
                rho
            ),
        };
        Ok((sigma, guarantee))
    }
}

/// DP-GD state: the iterate and the buffers of one step, allocated once.
pub struct NoisyGd {
    calibration: Calibration,
    guarantee: Guarantee,
    sigma: f64,
    step_size: f64,
    seeded: bool,
    rng: DpRng,
    w: Vec<f64>,
    grad: Vec<f64>,
    noise: Vec<f64>,
    t: usize,
}

impl NoisyGd {
    /// Calibrates from `calibration` alone, then starts at w₀ = P_W(0).
    pub fn new(
        calibration: Calibration,
        step_size: f64,
        objective: &Objective,
        rng: DpRng,
        seeded: bool,
    ) -> Result<Self> {
        if !(step_size.is_finite() && step_size > 0.0) {
            return Err(Error::invalid(
                "step_size",
                "a finite number > 0",
                step_size,
            ));
        }
        if objective.data().n() != calibration.n {
            return Err(Error::DimensionMismatch {
                what: "n of the calibration",
                expected: objective.data().n(),
                got: calibration.n,
            });
        }
        let (sigma, guarantee) = calibration.calibrate()?;
        let d = objective.dim();
        let mut w = vec![0.0; d];
        objective.domain().project(&mut w);
        Ok(Self {
            calibration,
            guarantee,
            sigma,
            step_size,
            seeded,
            rng,
            w,
            grad: vec![0.0; d],
            noise: vec![0.0; d],
            t: 0,
        })
    }

    /// Per-coordinate standard deviation of the gradient noise.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// ε at the run's δ after `steps` of the T noisy releases: zCDP is additive, so ρ_t = ρ·t/T,
    /// converted the same way as the guarantee (so ε_T equals the target ε).
    pub fn epsilon_after(&self, steps: usize) -> f64 {
        let rho = self.guarantee.rho.unwrap_or(0.0) * steps as f64 / self.calibration.steps as f64;
        zcdp::epsilon_for_rho(rho, self.calibration.delta)
    }
}

impl PrivateAlgorithm for NoisyGd {
    fn guarantee(&self) -> &Guarantee {
        &self.guarantee
    }

    fn ledger(&self) -> Ledger {
        let mut caveats = Vec::new();
        if self.calibration.delta * self.calibration.n as f64 >= 1.0 {
            caveats.push(
                "δ ≥ 1/n: such a δ allows releasing a record outright; choose δ ≪ 1/n".to_string(),
            );
        }
        caveats.push(format!(
            "features clipped to the declared bound, so each per-sample gradient has norm ≤ G = {}",
            self.calibration.lipschitz
        ));
        let mechanism = format!(
            "noisy projected gradient descent, T = {}, η = {:.4}, σ = {:.4e} per coordinate",
            self.calibration.steps, self.step_size, self.sigma
        );
        let ledger = Ledger::new(self.guarantee.clone(), mechanism, self.seeded, caveats);
        let rho = self.guarantee.rho;
        match rho.map(|rho| Zcdp::new(rho, self.calibration.relation)) {
            Some(Ok(rho)) => ledger.with_spend(
                format!("{} Gaussian gradient releases", self.calibration.steps),
                PrivacyLoss::Zcdp(rho),
            ),
            _ => ledger,
        }
    }

    fn step(&mut self, objective: &Objective) -> Option<StepReport> {
        if self.is_done() {
            return None;
        }
        let loss = objective.value_and_gradient(&self.w, &mut self.grad);
        let grad_norm = norm2(&self.grad);
        fill_gaussian(&mut self.rng, self.sigma, &mut self.noise);
        for ((w, g), z) in self.w.iter_mut().zip(&self.grad).zip(&self.noise) {
            *w -= self.step_size * (g + z);
        }
        objective.domain().project(&mut self.w);
        let report = StepReport {
            t: self.t,
            grad_evals: (self.t + 1) as f64,
            loss,
            noise_norm: norm2(&self.noise),
            grad_norm,
            epsilon_spent: self.epsilon_after(self.t + 1),
        };
        self.t += 1;
        Some(report)
    }

    fn current(&self) -> &[f64] {
        &self.w
    }

    fn is_done(&self) -> bool {
        self.t >= self.calibration.steps
    }

    fn grad_evals(&self) -> f64 {
        self.t as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{ClassificationSpec, generate_classification};
    use crate::domain::L2Ball;
    use crate::loss::Logistic;
    use crate::reference;
    use crate::rng::{Stream, seeded};
    use std::sync::Arc;

    fn objective() -> Objective {
        let spec = ClassificationSpec {
            n: 1000,
            d: 3,
            feature_scale: 0.5,
            signal: 4.0,
        };
        let mut data = generate_classification(&spec, &mut seeded(2, Stream::Data)).unwrap();
        crate::data::clip_features(&mut data, 1.0);
        Objective::new(
            Arc::new(data),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius: 3.0 }),
            1.0,
        )
    }

    fn calibration(epsilon: f64, steps: usize) -> Calibration {
        Calibration {
            epsilon,
            delta: 1e-5,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: 1.0,
            n: 1000,
        }
    }

    fn run(alg: &mut NoisyGd, obj: &Objective) -> Vec<StepReport> {
        std::iter::from_fn(|| alg.step(obj)).collect()
    }

    #[test]
    fn without_noise_it_converges_to_the_reference_optimum() {
        let obj = objective();
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        // ε → ∞ is not allowed, so zero the noise by hand: this is the non-private skeleton.
        let mut alg = NoisyGd::new(
            calibration(1.0, 20_000),
            4.0,
            &obj,
            seeded(0, Stream::Noise),
            true,
        )
        .unwrap();
        alg.sigma = 0.0;
        run(&mut alg, &obj);
        let excess = obj.value(alg.current()) - reference.value;
        assert!(excess.abs() < 1e-8, "excess {excess}");
    }

    #[test]
    fn noise_norms_match_the_calibrated_sigma() {
        // ‖z‖² / σ² ~ χ²_d; over T = 4000 steps with d = 3 the mean of ‖z‖²/(dσ²) has sd √(2/(dT))
        // ≈ 0.013, so ±0.06 is a 4.6-sd window that a σ off by 3% (6% in variance) falls outside of.
        let obj = objective();
        let mut alg = NoisyGd::new(
            calibration(1.0, 4000),
            4.0,
            &obj,
            seeded(9, Stream::Noise),
            true,
        )
        .unwrap();
        let sigma = alg.sigma();
        let expected = Calibration::calibrate(&calibration(1.0, 4000)).unwrap().0;
        assert_eq!(sigma, expected);
        let reports = run(&mut alg, &obj);
        let ratio = reports
            .iter()
            .map(|r| r.noise_norm * r.noise_norm)
            .sum::<f64>()
            / (reports.len() as f64 * 3.0 * sigma * sigma);
        assert!((ratio - 1.0).abs() < 0.06, "ratio {ratio}");
    }

    #[test]
    fn privacy_spent_grows_to_exactly_the_target() {
        let obj = objective();
        let mut alg = NoisyGd::new(
            calibration(0.8, 50),
            4.0,
            &obj,
            seeded(1, Stream::Noise),
            true,
        )
        .unwrap();
        let spent: Vec<f64> = run(&mut alg, &obj)
            .iter()
            .map(|r| r.epsilon_spent)
            .collect();
        assert!(spent.windows(2).all(|w| w[0] < w[1]));
        assert!((spent[49] - 0.8).abs() < 1e-12, "{}", spent[49]);
        // Composition is sub-linear in ε: half the steps cost more than half the budget.
        assert!(spent[24] > 0.4 && spent[24] < 0.8);
    }

    #[test]
    fn sensitivity_follows_the_relation() {
        let mut c = calibration(1.0, 10);
        assert_eq!(c.sensitivity(), 2.0 / 1000.0);
        let (s_replace, _) = c.calibrate().unwrap();
        c.relation = Relation::AddRemove;
        assert_eq!(c.sensitivity(), 1.0 / 1000.0);
        let (s_add, _) = c.calibrate().unwrap();
        assert!((s_replace / s_add - 2.0).abs() < 1e-12);
    }

    #[test]
    fn more_privacy_means_more_noise_and_worse_excess_risk() {
        let obj = objective();
        let reference = reference::solve(&obj, 1e-12, 100_000).unwrap();
        let mean_excess = |epsilon: f64| {
            (0..20)
                .map(|seed| {
                    let mut alg = NoisyGd::new(
                        calibration(epsilon, 50),
                        4.0,
                        &obj,
                        seeded(seed, Stream::Noise),
                        true,
                    )
                    .unwrap();
                    run(&mut alg, &obj);
                    obj.value(alg.current()) - reference.value
                })
                .sum::<f64>()
                / 20.0
        };
        let (tight, loose) = (mean_excess(0.1), mean_excess(10.0));
        assert!(tight > 5.0 * loose, "ε=0.1: {tight}, ε=10: {loose}");
    }
}
