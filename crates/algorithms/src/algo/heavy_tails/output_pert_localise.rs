//! Localized output perturbation: Algorithm 1 (Pop-Localize) with Algorithm 2
//! (OutputPert-Localize) as the ERM solver of every call (Lowy 2026), a family of the registry.
//!
//! # Algorithm
//! Phase t = 1, 2, … takes the next n_t = ⌊n/2^t⌋ records in J disjoint blocks of m_t = ⌊n_t/J⌋
//! ([`super::localised`]'s schedule). Each call is Algorithm 2 on its block with the full ε, ridge
//! λ_t = 32^(t−1)·λ₁ around the public centre w̄_t and threshold C_t = G_k (m_t ε/d)^(1/k):
//! 1. w̃ ∈ W with F̂_{C,λ}(w̃) − min_W F̂_{C,λ} ≤ C²/(2λm²), i.e. certified within C/(λm);
//! 2. b ~ ℓ2-Laplace of scale β_t = 6C/(λmε) (density ∝ exp(−(ελm/(6C))‖b‖));
//! 3. the call releases w_loc = Π_W(w̃ + b) (its W₀ = W ∩ B(w_loc, r₀), r₀ = 100ζ·C·d/(λmε) with
//!    ζ = 3, is post-processing: the localisation ball a second stage would search);
//!
//! and the median trick aggregates the J releases into w̄_{t+1}. The release is w̄ after the last
//! phase. Beside Localized Double Output Perturbation it shows what Algorithm 4's second stage
//! buys: one draw at ε instead of two at ε/2, so half the scale, but at a certified distance
//! C/(λm) instead of C/(6λm) and with no second, smaller-domain solve.
//!
//! # Base solver (the `heavy_solver` control)
//! - **certified AGD** (default) on the R^d extension of a smooth GLM loss, stopped by the
//!   gradient-mapping certificate ‖w − argmin‖ ≤ C/(λm) (as the other heavy-tail families);
//! - **Algorithm 3** on the joint reformulation of Lemma 2.7 with the paper's W-constrained f_C,
//!   to the gap α_loc = C²/(2λm²) ([`super::joint`]); the plan refuses it, before any data and at
//!   that control, when Prop 2.9's bound ⌈(3·D_K·L/α)²⌉ over the run exceeds the work allowance.
//!
//! The guarantee box (before the run) and the ledger name the solver that ran.
//!
//! # Assumptions
//! Convex GLM loss with E[A(z)^k] ≤ G_k^k for the per-record Lipschitz constant A(z) (L may be
//! infinite), k ≥ 2, G_k declared from the generating distribution; W an ℓ2 ball; replace-one
//! neighbours with n public.
//!
//! # Privacy
//! Pure ε (Lemma 2.4 / C.2): the certified point moves by at most
//! 2C/(λm) + 2·C/(λm) = 4C/(λm) when one record is replaced (argmin sensitivity of a λ-strongly
//! convex objective with C-Lipschitz terms, plus the certificate on each side), and the draw is
//! calibrated to Δ = 6C/(λm) at ε. Calls use disjoint blocks and each record exactly once; the
//! centres are releases of other blocks; aggregation and W₀ are post-processing (parallel
//! composition, Theorem 2.1). C_t, λ_t, m_t and the partition come from n, d, ε and the declared
//! G_k, G₂ only.
//!
//! # Utility
//! Our derivation, not a theorem of the paper: a call ends within (C/(λm) + ‖b‖ + bias)/… of the
//! ridge-regularised ERM minimiser, with E‖b‖ = d·β = 6Cd/(λmε) and the extension's bias
//! ≤ G_k^k/((k−1)λC^(k−1)) (Lowy 2026); at C = C* this is eq. (6)'s order, so
//! Theorem 2.1 gives Theorem 3.1's rate G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n up to constants and logs.
//! λ₁ defaults to the localisation bound's minimiser with this call's constants
//! ([`super::localised::calibrated_lambda_of`]).
//!
//! # Reference
//! A. Lowy, "Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with
//! Heavy Tails", 2026: Algorithms 1–3, Lemmas 2.4 and 2.7–2.8, Theorem 2.1.

use super::family::{HEAVY_SOLVER, NEEDS, plan_pop_localise};
use super::localised::Call;
use crate::algo::family::{
    Demonstration, Family, MINIMISATION, Purity, RunLength, card_text, setting,
};
use crate::algo::kinds::AlgorithmKind;
use crate::algo::problem::ProblemDeclaration;
use crate::algo::registry::Planned;
use crate::algo::settings::Settings;
use crate::controls::Control;
use crate::error::Result;

/// The page's card for localized output perturbation.
pub const CARD: &str = "Localized output perturbation (Lowy 2026, Algorithm 2 OutputPert-Localize \
inside Algorithm 1): pure ε-DP for heavy-tailed data. Each record's loss is replaced by its \
Lipschitz extension f_C with C = G_k (mε/d)^(1/k) from the declared G_k. Phases take disjoint \
halves of the remaining data with a ridge growing 32-fold around the last released centre; each \
of the J calls per phase certifies a point within C/(λm) of its minimiser and releases it once, \
with ℓ2-Laplace noise at the full ε (Δ = 6C/(λm)). The certified solver is the AGD on the R^d \
extension unless Algorithm 3 on the joint reformulation is chosen, and the guarantee names the \
one that runs. Compare it with Localized Double Output Perturbation, whose second stage halves \
the budget of each draw to certify six times closer.";

/// Localized output perturbation's entry in the registry.
pub static FAMILY_OUTPUT_PERT_LOCALISE: Family = Family {
    kind: AlgorithmKind::LocalisedOutputPerturbation,
    card: card_text! {
        name: "localized output perturbation",
        source: "Lowy 2026, “Optimal Rates for Pure ε-Differentially Private Stochastic Convex Optimization with Heavy Tails”, Algorithms 1, 2 and 3, Lemma 2.4, Theorem 2.1",
        assumptions: "Convex loss with E[A(z)^k] ≤ G_k^k for the per-record Lipschitz constant A(z) (L may be infinite), k ≥ 2; G_k declared from the generating distribution; W an ℓ2 ball; a smooth loss with a bounded derivative.",
        privacy: "Pure ε, replace-one: one ℓ2-Laplace output perturbation at ε per call (Δ = 6C/(λm), β = 6C/(λmε)) after a point certified within C/(λm) (Lemma 2.4); calls on disjoint blocks compose in parallel.",
        utility: "Our derivation through Theorem 2.1 (not a theorem of the paper): each call meets eq. (6) at C = C*, so up to constants and logs G_k·D·(d/(nε))^(1−1/k) + G₂·D/√n, as Theorem 3.1.",
        watch: "One jump per call at the full ε: about half the noise of Double-OutputPert's draws, but no second solve inside the localisation ball W₀.",
        module: "algo::heavy_tails::output_pert_localize",
        summary: CARD,
    },
    settings: &[
        setting(
            Control::MomentK,
            "moment order k",
            "G_k is declared from the data's distribution; larger k means lighter tails and a larger C",
        ),
        setting(
            Control::Clip,
            "threshold C",
            "empty: C_t = G_k (m_t ε/d)^(1/k) per phase, the bias–noise balance; set, the same C everywhere",
        ),
        setting(
            Control::Repetitions,
            "calls per phase J",
            "J disjoint blocks per phase, aggregated by the median trick (utility only: privacy is ε for any J)",
        ),
        setting(
            Control::Lambda1,
            "base ridge λ₁",
            "empty: the λ₁ that minimises the localisation bound with this call's constants (one draw of scale 6C/(λmε), certificate C/(λm)); λ_t = 32^(t−1)·λ₁ (utility only: the noise follows λ_t)",
        ),
        HEAVY_SOLVER,
    ],
    needs: NEEDS,
    solves: MINIMISATION,
    purity: Purity::Pure,
    demonstration: Demonstration::None,
    length: RunLength::DataDependent,
    plan,
};

fn plan(settings: &Settings, declared: &ProblemDeclaration) -> Result<Planned> {
    plan_pop_localise(
        settings,
        declared,
        Call::Localise,
        "Localized output perturbation (Lowy 2026, Algorithms 1 and 2)",
    )
}
