//! Black-box output perturbation for strongly convex problems, with a certified base solver.
//!
//! # Algorithm
//! Lowy & Razaviyayn 2021, Algorithm 1, with a certificate in place of the paper's iteration count:
//!
//! 1. From the configuration alone: Δ_F = 2L/(μn) (ERM) or 2L/μ (non-ERM, e.g. TERM), the
//!    accuracy α and ρ = √(2α/μ), Δ_T = Δ_F + 2ρ, and the noise: ℓ2-Laplace with scale Δ_T/ε for
//!    δ = 0, a Gaussian calibrated to Δ_T for δ > 0 (ZWB+19 by default; analytic or classical
//!    selectable).
//! 2. Run a non-private base solver ([`crate::solver`]: GD, AGD, SGD, SVRG, Katyusha; for
//!    non-smooth losses the subgradient method or the stochastic subgradient method) from
//!    w₀ = P_W(0); every step evaluates the certificate ([`crate::solver::certify`]), a bound on
//!    ‖x⁺ − w*‖ (the subgradient method instead runs its theorem's fixed count, see Assumptions).
//! 3. As soon as the bound is ≤ ρ: release w_A = x⁺ + z (optionally projected onto W; post-processing).
//!
//! With [`Settings::regularised`] the same machinery is Lowy & Razaviyayn 2021 **Algorithm 6** (merely convex F,
//! classes G and J): the objective carries an added ridge λ ([`paper_lambda`], Thm 3.4/3.5),
//! Δ_λ = 2(L + λR)/(λn), Δ_T = Δ_λ + 2√(2α/λ), and the Gaussian uses the corrected σ (the paper's
//! Algorithm 6 prints a σ smaller by √2; see [`Regularised`]).
//!
//! Each [`PrivateAlgorithm::step`] is one solver iteration and reports its **non-private** iterate;
//! the step that meets the certificate adds the noise and releases.
//!
//! # Assumptions
//! - F = data term + (λ₁‖·‖₁ + (λ₂/2)‖·‖²) over W with μ = λ₂ > 0 (class F/H of the paper: the
//!   strong convexity comes from the declared ridge, never from the data).
//! - The data term's per-sample Lipschitz constant L over W and its smoothness β are the loss's
//!   **declared** constants for the declared feature bound (data are clipped to it) and domain radius
//!   ([`crate::objective::Objective::constants`]). The certificate needs β < ∞ (GD, AGD, SGD, SVRG,
//!   Katyusha). Non-smooth losses (hinge, absolute, adversarial) use the projected subgradient
//!   method with the best iterate (Lowy & Razaviyayn 2021, Algorithm 2), whose accuracy is a deterministic theorem
//!   (Prop 3.2: T = ⌈2L_F²/(μα)⌉ steps, L_F = L + μR on a bounded W, no ℓ1 term): it runs exactly
//!   T + 1 evaluations, a data-independent count, and the paper's class-F α (Cor 3.1/3.2) is the
//!   default.
//! - Replace-one adjacency with public n (the paper's; add/remove is refused: the ERM mean changes
//!   its normaliser and Prop 2.2 does not cover it).
//! - TERM (tilted) objectives are non-ERM: Δ_F = (2L/μ)·min{1, C_τ/n} (Prop 2.2 and Lemma 5.2,
//!   C_τ = e^{τ(A_R − a_R)} from [`loss_range`], a declared bound for margin losses; 2L/μ otherwise).
//!   TERM of the squared loss is refused: its declared β_τ = β + 2L²τ holds only on W, while the
//!   certificate needs smoothness on R^d.
//! - The **max-loss** objective F(w) = max_i f(w; xᵢ) + r(w) ([`OutputPerturbation::max_loss`],
//!   [`Form::MaxLoss`], [`crate::solver::max_loss`]) is Lowy & Razaviyayn 2021's other non-ERM example: Δ_F = 2L/μ
//!   (Prop 2.2: a maximum of L-Lipschitz functions is L-Lipschitz, so F(·, X′) − F(·, X) is
//!   2L-Lipschitz; attained, since one record can be the maximum). It is non-smooth and not a
//!   finite sum, so only the subgradient method (Algorithm 2, Cor 3.1's α = (L²/μ)·d/ε by default)
//!   solves it. Its smoothed version (soft-max) is TERM (Lemma 5.2's C_τ/n factor).
//!
//! # Privacy
//! Lowy & Razaviyayn 2021, Prop 3.1: if ‖w_T(X) − w*(X)‖ ≤ ρ on **every** dataset, then
//! ‖w_T(X) − w_T(X′)‖ ≤ Δ_F + 2ρ = Δ_T for neighbours (Prop 2.2 / Lemma B.2 for Δ_F, also on a
//! constrained W), and the ℓ2-Laplace (Prop 2.1) or Gaussian mechanism with sensitivity Δ_T is
//! ε-DP / (ε, δ)-DP. Corrections applied:
//! - The paper asks only E[F(w_T) − F*] ≤ α, but the proof needs it surely (the sensitivity
//!   bound must hold on every dataset). We never trust an iteration count or an expectation: the release waits for
//!   the deterministic certificate, which bounds the distance ‖x⁺ − w*‖ ≤ ρ directly (what the proof
//!   uses; it is implied by, and weaker than, F − F* ≤ α). No failure probability γ enters δ.
//! - **Lowy & Razaviyayn 2021, Algorithm 3** (stochastic subgradient, weighted average; [`SolverKind::StochasticSubgradient`],
//!   class F^ERM: hinge or absolute loss, ridge, bounded W) is accurate only in expectation
//!   (Bubeck Thm 6.2: E F(ŵ_T) − F* ≤ 2L_F²/(μ(T+1))). Of the two remedies (a sure certificate,
//!   or charging its failure probability as (ε, δ + 2γ)) we take the
//!   certificate: Markov's γ = 2L_F²/(μ(T+1)α) would need T ∝ 1/γ, i.e. ≈ 10⁵·n² steps for
//!   γ ≈ δ = 1e-5, and would turn a pure-ε release into an (ε, 2γ) one. Once per pass the Fenchel
//!   duality gap at ŵ ([`crate::solver::dual`], a dual point improved by one SDCA sweep) is
//!   evaluated; the release waits until gap ≤ α, which proves F(ŵ) − F* ≤ α and so ‖ŵ − w*‖ ≤ ρ
//!   surely. The guarantee is the requested (ε, δ), with no γ. After a data-independent budget
//!   (8× Cor 3.2's T = ⌈2L_F²/(μα)⌉ steps, or `max_iters`) without the certificate, the
//!   subgradient method (Algorithm 2) restarts from w₀ for its deterministic Prop 3.2 count:
//!   no abort (next item). The paper's Cor 3.2(b) T is too small; it is not used.
//! - A budget-exhausted abort is itself data-dependent. So no run aborts in exact
//!   arithmetic: if the chosen solver has not certified within `max_iters`, the run restarts
//!   projected GD from P_W(0), which provably certifies within [`gd_iteration_bound`] steps — a
//!   number computed from the declared constants alone. Only floating point can still defeat the
//!   certificate; the run then releases its planned noise around the data-independent w₀ = P_W(0),
//!   and its ledger marks the release NOT PRIVATE, in the private export too (that failure depends
//!   on the data).
//! - δ > 0 uses ZWB+19 (valid for every ε > 0), not the classical σ, which is refused for ε > 1
//!   (Lowy & Razaviyayn 2021).
//! - The regulariser is the same for every record and cancels in Lemma B.2, so L is the data term's
//!   constant alone.
//!
//! The number of solver iterations depends on the data and is visible (a timing side channel outside
//! the DP model, Lowy & Razaviyayn 2021); only the release is private.
//!
//! # Utility
//! Smooth, unprojected (Thm 3.2 proof, Lowy & Razaviyayn 2021): E F(w_A) − F* ≤ α + (β/2)E‖z‖², i.e.
//! O(κ(L²/μ)(d/(εn))²) for δ = 0 and O(κ(L²/μ)·d K_δ²/(εn)²) for δ > 0 (Cor 3.3/3.4); projected
//! and Lipschitz: α + L·E‖z‖ (Thm 3.1 proof). See [`crate::theory::output_perturbation`].
//!
//! # Reference
//! Lowy & Razaviyayn 2021: Algorithms 1 and 6, Props 2.1, 2.2, 3.1, 3.3, Theorems 3.1, 3.2, 3.4, 3.5, Cor 3.3/3.4,
//! Appendix A. The certificate lemma is in
//! [`crate::solver`].
//!
//! [`PrivateAlgorithm::step`]: crate::algo::PrivateAlgorithm::step
//! [`SolverKind::StochasticSubgradient`]: crate::solver::SolverKind::StochasticSubgradient

mod algorithm;
mod declared;
mod family;
mod plan;
#[cfg(test)]
mod tests;

/// The certified run of a base solver, kept at this path for the algorithms built on it; it lives
/// in [`crate::solver`], next to the certificate it runs.
pub use crate::solver::CertifiedRun;
pub use algorithm::{Outcome, OutputPerturbation, perturb};
pub use declared::{Form, ObjectiveConstants, ObjectiveDeclaration, loss_range, tilt_factor};
pub use family::{FAMILY, FAMILY_REGULARISED};
pub(crate) use family::{LOWER_SOURCE, erm_floor, op_declared, op_noise};
pub(crate) use plan::certified_gd_bound;
pub use plan::{
    ConvexClass, NoiseLaw, Regularised, ReleasePlan, Settings, default_alpha, gd_iteration_bound,
    k_delta, paper_alpha_regularised, paper_lambda, plan, privacy_ratio, subgradient_iterations,
    theory_bound,
};

/// The page's card for Lowy & Razaviyayn 2021 **Algorithm 1** (plain words; the base solver's sentence is
/// [`SolverKind::card`](crate::solver::SolverKind::card)). Cards and code share this text, so they
/// cannot drift.
pub const CARD: &str = "Output perturbation (Lowy & Razaviyayn 2021, Algorithm 1). \
Assumes a strongly convex objective: a declared ridge μ > 0 on top of a loss whose per-record \
Lipschitz constant L holds for the declared feature bound (data are clipped to it). A non-private \
solver runs until a certificate proves its point is within ρ = √(2α/μ) of the exact minimiser; \
only then is one noise vector added, calibrated to the sensitivity Δ_F + 2ρ with Δ_F = 2L/(μn) \
(ERM), 2L/μ (max-loss) or (2L/μ)·min{1, C_τ/n} (TERM): ℓ2-Laplace for pure ε-DP (δ = 0), the \
ZWB Gaussian for (ε, δ)-DP at any ε. The guarantee is fixed by these declared constants before \
the data are read; the solver's path and stopping time are not private. Expected excess risk, \
smooth loss: (β/2)(ρ² + E‖z‖²) ≈ κ(L²/μ)(d/(εn))², so the plot should show the measured risk \
falling as n⁻² and ε⁻² under the dashed bound; swapping the solver changes the gradient count, \
not the noise.";

/// The page's card for Lowy & Razaviyayn 2021 **Algorithm 6** (regularised output perturbation).
pub const CARD_REGULARISED: &str = "Regularised output perturbation (Lowy & Razaviyayn 2021, \
Lowy & Razaviyayn 2021, Algorithm 6). For a convex but not strongly convex loss on a ball of radius R: add a \
ridge (λ/2)‖w‖² (the paper's λ balances noise against the bias λR²/2), then run Algorithm 1 on \
the regularised objective with sensitivity 2(L + λR)/(λn) + 2√(2α/λ). The Gaussian uses the \
corrected scale K_δΔ_T/(√2ε): the paper's printed Algorithm 6 noise is √2 too small and not \
(ε, δ)-DP. Expected excess risk of the unregularised loss: about LR√(d/(εn)) (Lipschitz) or \
(d/(εn))^{2/3} (smooth); the plot should show the slower n⁻¹ᐟ² or n⁻²ᐟ³ fall, with the \
bias λR²/2 as a floor for a fixed λ.";
