//! The config's own choice menus: data source, game and records (the domain's and DP-SVRG's noise
//! menus are settings a family reads: [`crate::algo::choices`]). Each
//! serialises to the snake_case key a link and the page's menu use.

use serde::{Deserialize, Serialize};

use crate::minimax::group_dro::{DroDomain, DroLoss};

/// Where the samples come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// The seeded generator ([`crate::data::generate`]).
    #[default]
    Synthetic,
    /// A CSV file the user loaded; it stays in the tab and is not part of a link.
    Csv,
    /// Wang, Ye & Xu 2017's high-dimensional mode: features N(0, 1/d), a `sparsity`-sparse planted w₀ of
    /// unit ℓ1 norm, logistic labels ([`crate::data::generate_sparse`]); for d ≫ n.
    Sparse,
}

/// The saddle problem's game (`problem: saddle`): every game is the stochastic regularised
/// bilinear game of [`crate::minimax::game`], f(x, y; ξ) = (μₓ/2)‖x‖² + xᵀM_ξ y − b_ξᵀy − (μᵧ/2)‖y‖².
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GameChoice {
    /// Rock–paper–scissors embedded in d ≥ 3 strategies per player, both on simplices.
    #[default]
    RockPaperScissors,
    /// A random d × d matrix game (payoffs uniform in [−½, ½]), both players on simplices.
    RandomMatrix,
    /// A random bilinear game with a linear term in y on two ℓ2 balls of radius `radius`
    /// (strongly convex–strongly concave when μₓ, μᵧ > 0: Zhang et al.'s regularised game).
    BallGame,
    /// Query release over d binary attributes: a synthetic histogram x over the 2^d universe
    /// elements against the worst signed 2-way marginal y ([`crate::minimax::query_release`]).
    QueryRelease,
    /// Zhang et al.'s ℓ1 system fit: min over ‖x‖₂ ≤ `radius` of ‖Āx − b̄‖₁, the non-smooth primal
    /// of the bilinear game yᵀ(A_ξx − b_ξ) with y in the box [−1, 1]^d (a smooth game).
    L1SystemFit,
    /// Worst-group logistic regression: x in the ℓ2 ball of radius `radius` over d features, y
    /// the weights of three groups ([`crate::minimax::group_dro`]).
    GroupDroLogistic,
    /// Worst-group least squares, as [`GameChoice::GroupDroLogistic`] with the squared loss.
    GroupDroSquares,
    /// Worst-group logistic regression with x on the probability simplex over the d features (a
    /// mixture): both players on simplices, so the vertex-sampling mirror-descent families run on
    /// it (González, Guzmán & Paquette 2024, §1.4). A game entry of its own rather than a domain
    /// setting: the domain control belongs to the minimisation panel, and the game menu is where
    /// a newcomer picks what the players are.
    GroupDroLogisticSimplex,
    /// Worst-group least squares with x on the simplex, as [`GameChoice::GroupDroLogisticSimplex`].
    GroupDroSquaresSimplex,
    /// AUC maximisation (Ying, Wen & Lyu 2016's square-loss saddle form): x = (w, s, t) with w
    /// in the ℓ2 ball of radius `radius` over d features, y = α; convex in x, strongly concave
    /// in α ([`crate::minimax::auc`]). Its moduli are the game's own (μₓ = 0, μᵧ = 2p(1 − p)):
    /// `mu_x` and `mu_y` do not apply.
    AucMaximisation,
}

impl GameChoice {
    /// The group DRO loss of this choice, if it is one.
    pub fn dro_loss(self) -> Option<DroLoss> {
        match self {
            GameChoice::GroupDroLogistic | GameChoice::GroupDroLogisticSimplex => {
                Some(DroLoss::Logistic)
            }
            GameChoice::GroupDroSquares | GameChoice::GroupDroSquaresSimplex => {
                Some(DroLoss::Squares)
            }
            _ => None,
        }
    }

    /// The group DRO game's set for x (the ℓ2 ball unless the entry says the simplex).
    pub fn dro_domain(self) -> DroDomain {
        match self {
            GameChoice::GroupDroLogisticSimplex | GameChoice::GroupDroSquaresSimplex => {
                DroDomain::Simplex
            }
            _ => DroDomain::L2Ball,
        }
    }

    /// Whether the game's moduli are its own, fixed by its declaration, rather than the
    /// `mu_x`, `mu_y` settings (AUC maximisation: μₓ = 0, μᵧ = 2p(1 − p)).
    pub fn own_moduli(self) -> bool {
        self == GameChoice::AucMaximisation
    }

    /// The name of the game's own readout of a release, beside its duality gap
    /// ([`crate::minimax::PosedGame::readout`]): the page keeps a row for it.
    pub fn readout_name(self) -> Option<&'static str> {
        (self == GameChoice::AucMaximisation).then_some(crate::minimax::auc::READOUT)
    }
}

/// How a game's records scatter around its base payoffs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RecordChoice {
    /// Every entry ±c with the base payoff as its mean: bounded by construction.
    #[default]
    Bounded,
    /// The base payoff plus `feature_scale` times a draw from `tail`, clipped to ±c.
    Heavy,
}
