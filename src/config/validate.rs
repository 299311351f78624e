//! [`RunConfig::validate`]: every field in range, the choices consistent with each other and
//! with every algorithm's needs, each error at the [`Control`] to change.

use super::*;

impl RunConfig {
    /// The game's fields in range, each error at its control.
    pub(super) fn validate_game(&self) -> Result<()> {
        if self.game == GameChoice::QueryRelease {
            in_range_usize(
                Control::D,
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
        in_range_usize(Control::D, self.d, 1, MAX_GAME_DIMENSION)?;
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
        in_range(Control::EntryBound, self.entry_bound, 1e-3, 1e3)?;
        in_range(Control::MuX, self.mu_x, 0.0, 1e3)?;
        in_range(Control::MuY, self.mu_y, 0.0, 1e3)?;
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
            in_range(Control::Radius, self.radius, 1e-3, 1e3)?;
            return dro.validate().map_err(at_control);
        }
        if let Some(auc) = self.auc_spec() {
            in_range(Control::Radius, self.radius, 1e-3, 1e3)?;
            return auc.validate().map_err(at_control);
        }
        self.game_spec().validate().map_err(at_control)
    }

    /// The regression noise's law: Gaussian, Student-t ν or symmetric Pareto α (issue 15 item 3),
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

    /// Checks every field against its allowed range, and the choices against each other (the
    /// check of [`RunConfig::check`], without the checked value).
    pub fn validate(&self) -> Result<()> {
        in_range_usize(Control::N, self.n, 10, 1_000_000)?;
        in_range_usize(Control::D, self.d, 1, 1000)?;
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
            in_range_usize(Control::Sparsity, self.sparsity, 1, self.d)?;
            if !self.loss.is_margin() {
                return Err(Error::invalid(
                    Control::Data.id(),
                    "a margin loss (logistic, hinge, smoothed hinge) for the sparse data's ±1 labels",
                    format!("{:?}", self.loss),
                ));
            }
        }
        in_range(Control::FeatureScale, self.feature_scale, 1e-6, 1e3)?;
        in_range(Control::Signal, self.signal, 0.0, 1e3)?;
        if self.loss.is_margin() {
            in_range(Control::LabelNoise, self.label_noise, 0.0, 0.5)?;
        } else {
            in_range(Control::LabelNoise, self.label_noise, 0.0, 1e3)?;
        }
        Loss {
            glm: self.loss,
            wrap: self.wrap,
        }
        .validate()?;
        in_range(Control::FeatureBound, self.feature_bound, 1e-6, 1e6)?;
        in_range(Control::Radius, self.radius, 1e-6, 1e6)?;
        // Every noise is calibrated to the declared Lipschitz constant G; the squared loss's
        // grows with ‖w‖, so it needs a bounded domain.
        let g = ProblemDeclaration::of(self).lipschitz();
        if !(g.is_finite() && g > 0.0) {
            let why = "a bounded domain: the squared loss's Lipschitz constant grows with ‖w‖";
            return Err(Error::invalid(Control::Domain.id(), why, g));
        }
        in_range(Control::L2, self.l2, 0.0, 1e3)?;
        in_range(Control::L1, self.l1, 0.0, 1e3)?;
        in_range(Control::Epsilon, self.epsilon, 1e-4, 100.0)?;
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
        // Issue 18: δ = 1e-320 (subnormal) made 1/δ overflow and σ infinite. Any δ below
        // MIN_DELTA is far beneath a meaningful failure probability (n ≤ 10⁶, δ ≪ 1/n is met at
        // 10⁻¹²) and keeps every ln(1/δ) and 1/δ of the calibrations and accountants finite.
        if self.delta != 0.0 && !(self.delta >= MIN_DELTA && self.delta < 0.5) {
            return Err(Error::invalid(
                Control::Delta.id(),
                format!("0 (pure ε) or a number in [{MIN_DELTA:e}, 0.5)"),
                self.delta,
            ));
        }
        in_range_usize(Control::Steps, self.steps, 1, 100_000)?;
        if let Some(eta) = self.step_size {
            in_range(Control::StepSize, eta, 1e-9, 1e6)?;
        }
        in_range_usize(Control::Batch, self.batch, 1, self.n)?;
        if let Some(c) = self.clip {
            in_range(Control::Clip, c, 1e-9, 1e6)?;
        }
        in_range_usize(Control::GridResolution, self.grid_resolution, 2, 400)?;
        in_range_usize(Control::Repeats, self.repeats, 1, 100)?;
        in_range_usize(
            Control::NoiseDraw,
            self.noise_draw as usize,
            0,
            MAX_NOISE_DRAW,
        )?;
        in_range(Control::MomentK, self.moment_k, 2.0, 100.0)?;
        in_range_usize(Control::Repetitions, self.repetitions, 1, 101)?;
        if let Some(lambda) = self.lambda1 {
            in_range(Control::Lambda1, lambda, 1e-9, 1e6)?;
        }
        if let Some(u) = self.budget_u {
            // U ≥ 4: Theorem 3.14's least budget (digest 001 P12); the plan checks U ≤ n/2.
            in_range(Control::BudgetU, u, 4.0, 1e9)?;
        }
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
            registry::check(registry::family(kind), self)
                .map_err(|e| if i == 0 { e } else { e.in_compare(kind) })?;
        }
        Ok(())
    }
}

fn in_range(field: Control, v: f64, lo: f64, hi: f64) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::invalid(
            field.id(),
            format!("a number in [{lo}, {hi}]"),
            v,
        ))
    }
}

fn in_range_usize(field: Control, v: usize, lo: usize, hi: usize) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(Error::invalid(
            field.id(),
            format!("an integer in [{lo}, {hi}]"),
            v,
        ))
    }
}
