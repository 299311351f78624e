//! The certified run: a base solver driven until [`super::certify`] bounds its distance to the
//! exact minimiser, with the projected-GD safeguard (shared by every output-perturbation algorithm).

use super::{BaseSolver, Certificate, CertificateConstants, FiniteSum, ProjectedGd, SolverKind};

/// Runs a base solver until the certificate ‖x⁺ − w*‖ ≤ ρ holds, with the GD safeguard; shared by
/// every output-perturbation algorithm (Lowy & Razaviyayn 2021, Algorithms 1 and 6, Zhang et al. 2022, Algorithms 1 and 2).
/// Everything here is non-private; the caller adds the noise to [`CertifiedRun::certified_point`].
///
/// If the chosen solver has not certified within `max_iters` iterations, projected GD restarts
/// from the start point for `gd_bound` iterations. This run does not check those budgets: it
/// certifies in exact arithmetic only when the caller computed `gd_bound` at plan time from
/// declared constants that bound the problem it is given (a GD iteration bound for the declared
/// condition number, with the certificate's rounding allowance inside the radius,
/// `certified_gd_bound` in `algo::output_perturbation`), and refused the config otherwise. A
/// budget measured from the data, or a placeholder such as 1, makes [`CertifiedRun::failed`] a
/// data-dependent event. Even with a planned budget, floating point can end
/// the run [`CertifiedRun::failed`]; the caller must then still release its planned noise, around
/// a fixed public point, and mark the release NOT PRIVATE
/// ([`crate::privacy::Ledger::with_failure`]).
pub struct CertifiedRun {
    constants: CertificateConstants,
    solver: Box<dyn BaseSolver>,
    solver_name: &'static str,
    radius: f64,
    max_iters: usize,
    gd_bound: usize,
    safeguard: bool,
    iters_in_phase: usize,
    start: Vec<f64>,
    grad: Vec<f64>,
    x_plus: Vec<f64>,
    last: Option<Certificate>,
    certified: bool,
    failed: bool,
    grad_evals: f64,
    steps: usize,
    since_check: f64,
}

impl CertifiedRun {
    /// Prepares `kind` at P_W(`start`) on `problem`, to certify radius `radius`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        problem: &dyn FiniteSum,
        constants: CertificateConstants,
        kind: SolverKind,
        seed: u64,
        start: &[f64],
        radius: f64,
        max_iters: usize,
        gd_bound: usize,
    ) -> Self {
        let solver = kind.build(problem, &constants, seed, start);
        let d = problem.dim();
        let mut start = start.to_vec();
        problem.project(&mut start);
        Self {
            solver_name: solver.name(),
            constants,
            solver,
            radius,
            max_iters: max_iters.max(1),
            gd_bound: gd_bound.max(1),
            safeguard: false,
            iters_in_phase: 0,
            start,
            grad: vec![0.0; d],
            x_plus: vec![0.0; d],
            last: None,
            certified: false,
            failed: false,
            grad_evals: 0.0,
            steps: 0,
            since_check: 0.0,
        }
    }

    /// One step: evaluate the certificate at the solver's point (one full pass); if it holds, the
    /// run is certified; otherwise the solver iterates. Returns the certificate evaluated.
    pub fn step(&mut self, problem: &dyn FiniteSum) -> Certificate {
        // The certificate (one full pass) is evaluated once the solver has spent at least one
        // full pass since the last evaluation (every step for GD, AGD, SVRG and Katyusha; every
        // n steps for one-sample SGD), so checking never costs more than half the run. The
        // schedule depends only on the solvers' declared per-iteration costs, not on the data.
        let due = self.last.is_none() || self.since_check >= 1.0;
        let mut adopted = false;
        if due {
            let cert = crate::solver::certify(
                problem,
                &self.constants,
                self.solver.current(),
                &mut self.grad,
                &mut self.x_plus,
            );
            self.grad_evals += 1.0;
            self.steps += 1;
            self.since_check = 0.0;
            self.last = Some(cert);
            if cert.distance_bound <= self.radius {
                self.certified = true;
                return cert;
            }
            adopted = self.solver.adopt_gradient_step(&self.x_plus);
        }
        if adopted {
            // GD: the certificate's pass was its iteration.
            self.since_check += 1.0;
        } else {
            let cost = self.solver.iterate(problem);
            self.grad_evals += cost;
            self.since_check += cost;
        }
        self.iters_in_phase += 1;
        let budget = if self.safeguard {
            self.gd_bound
        } else {
            self.max_iters
        };
        if self.iters_in_phase >= budget {
            if self.safeguard {
                self.failed = true;
            } else {
                self.safeguard = true;
                self.iters_in_phase = 0;
                self.since_check = f64::INFINITY;
                self.solver = Box::new(ProjectedGd::new(problem, &self.constants, &self.start));
            }
        }
        self.last.unwrap_or(Certificate {
            value: f64::NAN,
            grad_norm: f64::NAN,
            residual: f64::NAN,
            distance_bound: f64::INFINITY,
        })
    }

    /// Whether the certificate held.
    pub fn is_certified(&self) -> bool {
        self.certified
    }

    /// Whether even the GD safeguard failed to certify (floating point).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The certified point x⁺ (meaningful once [`CertifiedRun::is_certified`]).
    pub fn certified_point(&self) -> &[f64] {
        &self.x_plus
    }

    /// The solver's current (non-private) point.
    pub fn current(&self) -> &[f64] {
        self.solver.current()
    }

    /// The projected start point.
    pub fn start(&self) -> &[f64] {
        &self.start
    }

    /// The latest certificate.
    pub fn last(&self) -> Option<Certificate> {
        self.last
    }

    /// Whether the GD safeguard took over.
    pub fn used_safeguard(&self) -> bool {
        self.safeguard
    }

    /// The chosen solver's name.
    pub fn solver_name(&self) -> &'static str {
        self.solver_name
    }

    /// Gradient evaluations used, in full passes over the problem's terms.
    pub fn grad_evals(&self) -> f64 {
        self.grad_evals
    }

    /// Certificate evaluations so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The radius the certificate must reach.
    pub fn radius(&self) -> f64 {
        self.radius
    }
}
