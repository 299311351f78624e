//! Saddle problems given by records: the empirical game f̂(x, y) = (1/n) Σᵢ f(x, y; ξᵢ) that the
//! private minimax algorithms sample from (González, Guzmán & Paquette 2024's stochastic mirror descent draws fresh
//! disjoint batches; Zhang et al. 2022's base solvers take full or variance-reduced passes).
//!
//! Every constant that sets noise is **declared** ([`GameConstants`]), from the game's
//! declared bounds and domains, never measured from the records (docs/PRIVACY.md rule 1).

use super::SaddleProblem;
use crate::error::{Error, Result};

/// The declared constants of a record game, in both geometries the papers use.
///
/// González, Guzmán & Paquette 2024 measure gradients in the ℓ∞ norm against points
/// in the ℓ1 norm (simplices); Zhang et al. 2022 measure both in ℓ2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameConstants {
    /// L₀: sup ‖∇f(x, y; ξ)‖_∞ over X × Y and every record, both blocks (González, Guzmán & Paquette 2024, §1.3).
    pub linf_lipschitz: f64,
    /// L₁: ‖∇f(p; ξ) − ∇f(p′; ξ)‖_∞ ≤ L₁‖p − p′‖₁ with ‖(x, y)‖₁ = ‖x‖₁ + ‖y‖₁.
    pub l1_smoothness: f64,
    /// L₂: the second-order smoothness of González, Guzmán & Paquette 2024 (0 when every f(·; ξ) is quadratic).
    pub second_order: f64,
    /// L: the joint Euclidean Lipschitz bound of Zhang et al. 2022's Assumption 4.1,
    /// |f(x, y) − f(x′, y′)|² ≤ L²(‖x − x′‖² + ‖y − y′‖²) for every record.
    pub lipschitz: f64,
    /// ℓ: the Euclidean smoothness of Zhang et al. 2022 (the Lipschitz constant of (∇ₓf, ∇ᵧf)).
    pub smoothness: f64,
    /// μₓ: the strong convexity in x of every f(·, y; ξ) (0 when merely convex).
    pub mu_x: f64,
    /// μᵧ: the strong concavity in y of every f(x, ·; ξ) (0 when merely concave).
    pub mu_y: f64,
}

/// Per-record working memory of a [`RecordGame`] (a streamed record is regenerated into it).
/// Made once by [`RecordGame::scratch`] and kept in the algorithm's state, so that no iteration
/// allocates (docs/ARCHITECTURE.md, Performance).
#[derive(Debug, Clone, Default)]
pub struct RecordScratch {
    /// The buffer the game uses; its meaning is the game's.
    pub buf: Vec<f64>,
}

/// A saddle problem that is the mean of n records. Its [`SaddleProblem`] methods are the
/// empirical game f̂ (the objective the session scores by its duality gap).
pub trait RecordGame: SaddleProblem + Send + Sync {
    /// n, the number of records (public under replace-one).
    fn records(&self) -> usize;
    /// The declared constants (from the configuration, never from the records).
    fn constants(&self) -> GameConstants;
    /// Working memory for [`RecordGame::add_record_gradients`].
    fn scratch(&self) -> RecordScratch;
    /// Adds `weight`·∇ₓf(x, y; ξᵢ) into `gx` and `weight`·∇ᵧf(x, y; ξᵢ) into `gy` (record `i`
    /// < n), using `scratch`. Errors name mis-sized or non-finite input.
    #[allow(clippy::too_many_arguments)]
    fn add_record_gradients(
        &self,
        i: usize,
        x: &[f64],
        y: &[f64],
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()>;

    /// What every game checks before it reads record `i` at (x, y): the point and the buffers
    /// ([`SaddleProblem::check_point`]) and `i` < n. Errors name what is wrong.
    fn check_record(&self, i: usize, x: &[f64], y: &[f64], gx: &[f64], gy: &[f64]) -> Result<()> {
        self.check_point(x, y, gx, gy)?;
        let n = self.records();
        if i >= n {
            return Err(Error::invalid("record", format!("an index below {n}"), i));
        }
        Ok(())
    }

    /// The numbers one call of [`RecordGame::batch_gradients`] over `records` records reads (by
    /// default each record's dₓ·dᵧ payoffs and both blocks; a game that sums a batch in closed
    /// form says less): what a run weighs against [`crate::solver::work::STEP_WORK`] when it
    /// decides whether to split a batch across its steps.
    fn batch_work(&self, records: usize) -> usize {
        let (dx, dy) = self.dims();
        records.saturating_mul(dx * dy + dx + dy)
    }

    /// gx ← (1/|batch|) Σ_{i ∈ batch} ∇ₓf(x, y; ξᵢ) and gy likewise: the minibatch gradient
    /// over the records `batch` (non-empty).
    fn batch_gradients(
        &self,
        batch: std::ops::Range<usize>,
        x: &[f64],
        y: &[f64],
        gx: &mut [f64],
        gy: &mut [f64],
        scratch: &mut RecordScratch,
    ) -> Result<()> {
        gx.fill(0.0);
        gy.fill(0.0);
        let weight = 1.0 / batch.len() as f64;
        for i in batch {
            self.add_record_gradients(i, x, y, weight, gx, gy, scratch)?;
        }
        Ok(())
    }
}
