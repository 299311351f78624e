//! [`RunConfig::validate`]: every field in range, the choices consistent with each other and
//! with every algorithm's needs, each error at the [`Control`] to change.

use super::*;
use crate::algo::registry;

impl RunConfig {
    /// The game's fields in range, each error at its control.
    pub(super) fn validate_game(&self) -> Result<()> {
        if self.game == GameChoice::QueryRelease {
            Control::D.check_count_within(
                self.d,
                query_release::MIN_ATTRIBUTES,
                query_release::MAX_ATTRIBUTES,
            )?;
            if self.records != RecordChoice::Bounded {
                return Err(Error::invalid(
                    Control::Records.id(),
                    "bounded records for query release: a record is one universe element",
                    "heavy-tailed",
                ));
            }
        }
        Control::D.check_count(self.d, Some(MAX_GAME_DIMENSION))?;
        let (dx, dy) = self.game_dims();
        if self.n * dx * dy > MAX_GAME_ENTRIES {
            return Err(Error::invalid(
                Control::N.id(),
                format!(
                    "n·dₓ·dᵧ ≤ {MAX_GAME_ENTRIES}: every pass over the records regenerates n payoff matrices of dₓ × dᵧ"
                ),
                self.n * dx * dy,
            ));
        }
        Control::EntryBound.check(self.entry_bound)?;
        Control::MuX.check(self.mu_x)?;
        Control::MuY.check(self.mu_y)?;
        // μ = 1e-300 made a strongly monotone family's sensitivity ∝ 1/(μn) infinite,
        // refused at a "sensitivity" no control shows. A modulus is 0 (none) or at least
        // MIN_MODULUS: then 1/(μn) ≤ 10¹¹, times a Lipschitz bound ≤ 10⁵ (c ≤ 10³ over
        // d ≤ 100), squared in σ² ≤ 10³², far from overflow.
        for (control, mu) in [(Control::MuX, self.mu_x), (Control::MuY, self.mu_y)] {
            if mu > 0.0 && mu < MIN_MODULUS {
                return Err(Error::invalid(
                    control.id(),
                    format!("0 (none) or a number in [{MIN_MODULUS:e}, 1000]"),
                    mu,
                ));
            }
        }
        if self.records == RecordChoice::Bounded
            && self.entry_bound < 0.5
            && self.dro_spec().is_none()
            && self.auc_spec().is_none()
        {
            return Err(Error::invalid(
                Control::EntryBound.id(),
                "at least 0.5 for bounded ±c records (their mean is the base payoff, up to ½)",
                self.entry_bound,
            ));
        }
        if !self.clip_records && self.records == RecordChoice::Bounded {
            return Err(Error::invalid(
                Control::ClipRecords.id(),
                "heavy-tailed records to leave unclipped (bounded ones are within ±c by construction)",
                "bounded records",
            ));
        }
        if self.game == GameChoice::RockPaperScissors && self.d < 3 {
            return Err(Error::invalid(
                Control::D.id(),
                "at least 3 strategies for rock–paper–scissors",
                self.d,
            ));
        }
        if let Some(dro) = self.dro_spec() {
            Control::Radius.check_within(self.radius, 1e-3, 1e3)?;
            return dro.validate().map_err(at_control);
        }
        if let Some(auc) = self.auc_spec() {
            Control::Radius.check_within(self.radius, 1e-3, 1e3)?;
            return auc.validate().map_err(at_control);
        }
        self.game_spec().validate().map_err(at_control)
    }

    /// The regression noise's law: Gaussian, Student-t ν or symmetric Pareto α,
    /// with its parameter positive. The other tails are the features' alone.
    fn validate_noise_tail(&self) -> Result<()> {
        let field = Control::NoiseTail.id();
        match self.noise_tail {
            Tail::Gaussian | Tail::StudentT { .. } | Tail::ParetoRadial { .. } => {
                self.noise_tail.validate(field)
            }
            other => Err(Error::invalid(
                field,
                "choose Gaussian, Student-t (ν) or symmetric Pareto (α) for the regression noise",
                format!("{other:?}"),
            )),
        }
    }

    /// Every number in its row's range (the checks above, in the order the page's errors were
    /// first written, narrow some by other fields; a setting added to the table is checked here
    /// with nothing else to write). A blank optional number is the theory's value.
    fn check_rows(&self) -> Result<()> {
        let values = serde_json::to_value(self).unwrap_or_default();
        for control in Control::ALL {
            let Some(value) = values.get(control.id()) else {
                continue;
            };
            match (control.row().kind, value.as_u64(), value.as_f64()) {
                (Kind::Integer { .. }, Some(v), _) => {
                    control.check_count(usize::try_from(v).unwrap_or(usize::MAX), None)?
                }
                (Kind::Number { .. } | Kind::ZeroOr { .. } | Kind::Optional { .. }, _, Some(v)) => {
                    control.check(v)?
                }
                // serde writes a non-finite f64 as `null`: a plain number is never null, so this
                // is a NaN or ±∞ put in by Rust code (JSON cannot carry one), refused at its row.
                // (An optional one's `null` is also how a blank is written, and stays allowed.)
                (Kind::Number { .. } | Kind::ZeroOr { .. }, _, None) if value.is_null() => {
                    control.check(f64::NAN)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks every field against its allowed range, and the choices against each other (the
    /// check of [`RunConfig::check`], without the checked value).
    pub fn validate(&self) -> Result<()> {
        Control::N.check_count(self.n, None)?;
        Control::D.check_count(self.d, None)?;
        if self.problem == ProblemKind::Saddle {
            self.validate_game()?;
        }
        if self.n * self.d > MAX_ENTRIES {
            return Err(Error::invalid(
                Control::N.id(),
                format!("n·d ≤ {MAX_ENTRIES} (browser memory)"),
                self.n * self.d,
            ));
        }
        self.tail.validate(Control::Tail.id())?;
        self.validate_noise_tail()?;
        if self.data == DataSource::Sparse {
            Control::Sparsity.check_count(self.sparsity, Some(self.d))?;
            if !self.loss.is_margin() {
                return Err(Error::invalid(
                    Control::Data.id(),
                    "a margin loss (logistic, hinge, smoothed hinge) for the sparse data's ±1 labels",
                    format!("{:?}", self.loss),
                ));
            }
        }
        Control::FeatureScale.check(self.feature_scale)?;
        Control::Signal.check(self.signal)?;
        if self.loss.is_margin() {
            Control::LabelNoise.check_within(self.label_noise, 0.0, 0.5)?;
        } else {
            Control::LabelNoise.check(self.label_noise)?;
        }
        Loss {
            glm: self.loss,
            wrap: self.wrap,
        }
        .validate()?;
        Control::FeatureBound.check(self.feature_bound)?;
        Control::Radius.check(self.radius)?;
        // Every noise is calibrated to the declared Lipschitz constant G; the squared loss's
        // grows with ‖w‖, so it needs a bounded domain.
        let g = self.declaration().lipschitz();
        if !(g.is_finite() && g > 0.0) {
            let why = "a bounded domain: the squared loss's Lipschitz constant grows with ‖w‖";
            return Err(Error::invalid(Control::Domain.id(), why, g));
        }
        Control::L2.check(self.l2)?;
        Control::L1.check(self.l1)?;
        Control::Epsilon.check(self.epsilon)?;
        if self.compare.len() > 3 {
            return Err(Error::invalid(
                Control::Compare.id(),
                "untick all but three: at most three algorithms besides the main one",
                self.compare.len(),
            ));
        }
        for (i, kind) in self.compare.iter().enumerate() {
            if *kind == self.algorithm || self.compare[..i].contains(kind) {
                return Err(Error::invalid(
                    Control::Compare.id(),
                    "untick the main algorithm: compare it with others",
                    format!("{} twice", registry::family(*kind).card.name),
                ));
            }
        }
        // δ = 1e-320 (subnormal) made 1/δ overflow and σ infinite. Any δ below
        // MIN_DELTA is far beneath a meaningful failure probability (n ≤ 10⁶, δ ≪ 1/n is met at
        // 10⁻¹²) and keeps every ln(1/δ) and 1/δ of the calibrations and accountants finite.
        Control::Delta.check(self.delta)?;
        Control::Steps.check_count(self.steps, None)?;
        if let Some(eta) = self.step_size {
            Control::StepSize.check(eta)?;
        }
        Control::Batch.check_count(self.batch, Some(self.n))?;
        if let Some(c) = self.clip {
            Control::Clip.check(c)?;
        }
        Control::GridResolution.check_count(self.grid_resolution, None)?;
        Control::Repeats.check_count(self.repeats, None)?;
        Control::NoiseDraw.check_count(self.noise_draw as usize, None)?;
        Control::MomentK.check(self.moment_k)?;
        Control::Repetitions.check_count(self.repetitions, None)?;
        if let Some(lambda) = self.lambda1 {
            Control::Lambda1.check(lambda)?;
        }
        if let Some(u) = self.budget_u {
            // U ≥ 4: Theorem 3.14's least budget (González, Guzmán & Paquette 2024); the plan checks U ≤ n/2.
            Control::BudgetU.check(u)?;
        }
        self.check_rows()?;
        let lanes = self.algorithms().count();
        let total = self.repeats * self.steps * lanes;
        if total > MAX_RUN_STEPS {
            return Err(Error::invalid(
                Control::Repeats.id(),
                format!(
                    "lower it, the steps or the compared algorithms: repeats × steps × algorithms ≤ {MAX_RUN_STEPS}, as every step keeps a row the plots draw in the tab's memory"
                ),
                format!("{} × {} × {lanes} = {total}", self.repeats, self.steps),
            ));
        }
        if self.leak {
            if !self.compare.is_empty() {
                return Err(Error::invalid(
                    Control::Leak.id(),
                    "untick it or the compared algorithms: a leaky run is shown alone",
                    "",
                ));
            }
            if !self.algorithm.has_leak() {
                return Err(Error::invalid(
                    Control::Leak.id(),
                    "untick it: this algorithm has no pitfall to demonstrate",
                    registry::family(self.algorithm).card.name,
                ));
            }
        }
        if self.delta == 0.0
            && let Some(kind) = self.algorithms().find(|k| !k.allows_pure())
        {
            return Err(Error::invalid(
                Control::Delta.id(),
                format!(
                    "raise it above 0: {} has no pure ε-DP version",
                    registry::family(kind).card.name
                ),
                0.0,
            ));
        }
        // What each algorithm needs of the problem (a ridge, a domain, a loss …), from
        // its family's declaration; a compared algorithm's unmet need is named at `compare`.
        for (i, kind) in self.algorithms().enumerate() {
            menu::check(registry::family(kind), self)
                .map_err(|e| if i == 0 { e } else { e.in_compare(kind) })?;
        }
        Ok(())
    }
}
