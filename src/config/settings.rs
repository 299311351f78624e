//! The one place a [`RunConfig`] becomes what a family plans from: its lane's typed
//! [`Settings`] and the [`ProblemDeclaration`] of the problem it poses. A setting a family reads
//! is a field of [`Settings`] and a line here.

use super::{DataSource, MAX_RUN_STEPS, RunConfig};
use crate::algo::family::ProblemKind;
use crate::algo::heavy_tails::declared_moment;
use crate::algo::problem::ProblemDeclaration;
use crate::algo::settings::{Budget, FeatureMoments, GameSettings, Settings};
use crate::algo::smd::boosted::value_bound;
use crate::controls::choice_label;
use crate::error::Result;
use crate::loss::{Loss, Regulariser};

impl RunConfig {
    /// The typed settings of this config's main algorithm (a lane's: [`RunConfig::lane`]).
    pub fn settings(&self) -> Settings {
        // Every lane's steps keep a row: the cap on repeats × steps × algorithms is shared.
        let lanes = self.repeats.max(1) * (1 + self.compare.len());
        Settings {
            kind: self.algorithm,
            problem: self.problem,
            budget: Budget {
                epsilon: self.epsilon,
                delta: self.delta,
                relation: self.relation,
            },
            gaussian: self.gaussian,
            steps: self.steps,
            step_size: self.step_size,
            batch: self.batch,
            clip: self.clip,
            leak: self.leak,
            solver: self.solver,
            svrg_noise: self.svrg_noise,
            gd_output: self.gd_output,
            grid_resolution: self.grid_resolution,
            moment_k: self.moment_k,
            repetitions: self.repetitions,
            lambda1: self.lambda1,
            heavy_solver: self.heavy_solver,
            budget_u: self.budget_u,
            minimax_solver: self.minimax_solver,
            mu_x: self.mu_x,
            mu_y: self.mu_y,
            game: (self.problem == ProblemKind::Saddle).then(|| self.game_settings()),
            feature_moments: self
                .feature_moment(self.moment_k)
                .zip(self.feature_moment(2.0))
                .map(|(k, two)| FeatureMoments { k, two }),
            step_allowance: MAX_RUN_STEPS / lanes,
        }
    }

    /// The game as a saddle family plans from it (whatever `problem` says).
    pub fn game_settings(&self) -> GameSettings {
        GameSettings {
            declaration: self.game_declaration(),
            label: choice_label(&self.game),
            value_bound: self
                .dro_spec()
                .map_or_else(|| value_bound(&self.game_spec()), |dro| dro.value_bound()),
            own_moduli: self.game.own_moduli(),
        }
    }

    /// (E‖x‖^j)^(1/j) of the synthetic features in closed form ([`crate::data::Tail::norm_moment`]:
    /// Pareto-radial, multivariate t, the rare outlier of Lowy 2026 Appendix G exactly), before
    /// clipping; `None` for data not drawn from the synthetic law. It lives here, beside the law
    /// it reads (`tail`, `feature_scale`), so that a family reads only the number.
    pub fn feature_moment(&self, j: f64) -> Option<f64> {
        (self.data == DataSource::Synthetic)
            .then(|| self.feature_scale * libm::pow(self.tail.norm_moment(self.d, j), 1.0 / j))
    }

    /// The declared G_j of this config's synthetic data
    /// ([`crate::algo::heavy_tails::declared_moment`] of [`RunConfig::feature_moment`]).
    pub fn declared_moment(&self, j: f64) -> Result<f64> {
        declared_moment(self.loss, self.feature_moment(j), self.feature_bound)
    }

    /// The declaration this config makes, from the config alone (no data): everything the noise
    /// of a minimisation may depend on.
    pub fn declaration(&self) -> ProblemDeclaration {
        ProblemDeclaration {
            n: self.n,
            d: self.d,
            loss: Loss {
                glm: self.loss,
                wrap: self.wrap,
            },
            regulariser: Regulariser::elastic(self.l1, self.l2),
            domain: self.domain.kind(self.radius),
            feature_bound: self.feature_bound,
        }
    }
}
