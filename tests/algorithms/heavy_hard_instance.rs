//! The heavy-tail rate point on the paper's own hard instance (Lowy 2026, "Optimal Rates for Pure
//! ε-Differentially Private Stochastic Convex Optimization with Heavy Tails", Appendix G): is the
//! pure-ε clipped GD baseline measurably worse than Localized Double Output Perturbation where the
//! k-th moment bound is tight, i.e. where all of E A(z)^k sits in rare large outliers?
//!
//! Verdict: **no**: in no cell measured is the baseline worse by more than 3 standard errors (the
//! one gap above 3 s.e. has it better), and the localized family's slope is −1/2 there only
//! because the centre of W's is.
//!
//! # The instance, as the page runs it
//! Appendix G's private-term law P_ν = (1 − p)·δ₀ + p·δ_{aν}, a = G_k·p^(−1/k): the page's
//! `Tail::RareOutlier { p, a }` (ν = e₁), G_k = 1 at k = 2 (feature scale 1, feature bound 2a, so
//! nothing is clipped but by the algorithms), d = 2, W the ℓ2 ball of radius R = 4, ridge 0,
//! pure ε, replace-one. p at each n is the proof's p = ln((|V| − 1)/(4eζ))/(nε) with a 1/2-packing
//! of |V| = 2^d points and ζ = 0.1 (`outlier_probability`): about 1/ε outliers per data set
//! whatever n, so the lower bound bites at every n. Two losses:
//! - **linear**: Huber (δ = 1) regression with the planted w₀₁ = 2R + 1 and no label noise, so
//!   every outlier's residual stays beyond δ on all of W: f is then Appendix G's linear loss
//!   ⟨z, w⟩ up to a constant, F(w) − F* = p·a·(R − w₁) = G_k·√p·(R − w₁);
//! - **logistic** (the page's default loss), labels from the planted w₀ (‖w₀‖ = 4, no flips):
//!   F(w) − F* ≈ p·ln(1 + e^(−a·w₁)), about G_k·√p·max(0, −w₁) off the centre.
//!
//! The families, each run through a [`dp_playground::session::Lab`] as the page runs it
//! (tests/common/heavy_rates.rs, shared with tests/algorithms/heavy_slopes.rs): localized Double Output
//! Perturbation with the baseline at its own T = √(nε/d) and the single stage on f_C as compared
//! lanes, then the baseline alone at the page's default T = 200. Metric: the **exact** excess
//! population risk of each release, from the closed form above (the empirical excess says nothing
//! here: a sample with no outlier has a flat empirical risk). One lane per seed, so the lanes are
//! independent (each has its own data); mean ± standard error over seeds 1..=S. "Gap" is
//! (baseline − localized)/√(s.e.² + s.e.²).
//!
//! ```text
//! cargo test --release --test algorithms heavy_hard_instance::on_the_linear -- --ignored --nocapture
//! HARD_LOSS=logistic HARD_EPS=1 HARD_SEEDS=8 cargo test --release --test algorithms heavy_hard_instance::explore -- --ignored --nocapture
//! ```
//! (`explore` reads HARD_LOSS (logistic | huber), HARD_EPS, HARD_NS, HARD_P (a number, or G for
//! Appendix G's), HARD_ZETA, HARD_D, HARD_RADIUS, HARD_L2, HARD_FLIP, HARD_SEEDS and HARD_PRINT,
//! which prints every released point.)
//!
//! # Measured (release build, 2 cores at load 15)
//! Linear instance, ε = 1, 8 seeds (`on_the_linear_hard_instance_every_family_sits_at_the_centre_of_w`,
//! 136 s, and 310 s at a load of 15):
//!
//! | n | p | a | localized | clipped GD, T = √(nε/d) | single stage | clipped GD, T = 200 | centre of W |
//! |---|---|---|---|---|---|---|---|
//! | 4000 | 2.54e-4 | 62.8 | 0.0612 ± 0.0015 | 0.0615 ± 0.0052 | 0.0668 ± 0.0040 | 0.0578 ± 0.0074 | 0.0637 |
//! | 16 000 | 6.34e-5 | 125.6 | 0.0306 ± 0.0008 | 0.0313 ± 0.0020 | 0.0330 ± 0.0014 | 0.0299 ± 0.0026 | 0.0319 |
//! | 64 000 | 1.59e-5 | 251.1 | 0.0153 ± 0.0004 | 0.0155 ± 0.0007 | 0.0163 ± 0.0005 | 0.0154 ± 0.0007 | 0.0159 |
//! | slope | | | −0.500 | −0.497 | −0.509 | −0.477 | −1/2 |
//!
//! Gaps of the baselines over the localized family: +0.1 and −0.4, +0.3 and −0.3, +0.3 and +0.2
//! s.e. Every family sits within 3 s.e. of the centre of W. At ε = 10 and 100 (`explore`,
//! HARD_LOSS=huber, 4 seeds, n = 4000 and 16 000; p·n ≈ 0.1 and 0.01):
//!
//! | ε | n | localized | clipped GD, T = √(nε/d) | single stage | clipped GD, T = 200 | centre of W |
//! |---|---|---|---|---|---|---|
//! | 10 | 4000 | 0.0194 ± 0.0004 | 0.0187 ± 0.0001 | 0.0206 ± 0.0010 | 0.0176 ± 0.0004 | 0.0202 |
//! | 10 | 16 000 | 0.0097 ± 0.0002 | 0.0096 ± 0.0002 | 0.0103 ± 0.0004 | 0.0094 ± 0.0001 | 0.0101 |
//! | 100 | 4000 | 0.00623 ± 0.00006 | 0.00645 ± 0.00014 | 0.00642 ± 0.00009 | 0.00611 ± 0.00004 | 0.00637 |
//! | 100 | 16 000 | 0.00312 ± 0.00003 | 0.00321 ± 0.00006 | 0.00320 ± 0.00003 | 0.00312 ± 0.00001 | 0.00319 |
//!
//! Slopes −0.500, −0.483, −0.505, −0.451 (ε = 10) and −0.500, −0.503, −0.501, −0.485 (ε = 100).
//! The only gap above 3 s.e. is the wrong way: at ε = 10, n = 4000 the baseline at T = 200 is
//! 3.1 s.e. *better*, on 4 seeds. It is chance: with 32 seeds
//! (`HARD_SEEDS=32 HARD_EPS=10 HARD_NS=4000 HARD_LOSS=huber … explore`, 2 s in a debug build)
//! the gaps are −0.3 and −0.7 s.e. (localized 1.943e-2 ± 5.0e-4, the baseline at its own T
//! 1.923e-2 ± 4.9e-4, at T = 200 1.890e-2 ± 5.9e-4; centre 2.015e-2). Two things made 4 seeds
//! look like a drift (w₁ > 0 in all four clipped GD releases): a family's two GD lanes of one
//! seed share that seed's noise stream, so their directions are close (seed 2: (0.25, −0.53) at
//! T = 141 and (0.36, −0.47) at T = 200), and so they are 4 draws, not 8; and p·n = 0.1, so about
//! one seed in ten holds an outlier (`outliers_per_sample` checks 8 seeds only), whose label pulls
//! w₁ towards the planted 9 and to W's boundary. Over 32 seeds w₁ > 0 in 22, 22 and 23 of the
//! releases of localized and the two baselines (means 0.14, 0.18, 0.25) and in 18 for the single
//! stage (mean 0.004).
//!
//! Logistic instance, ε = 1, 8 seeds, then 24 seeds (`explore` with HARD_SEEDS=24; its n = 64 000
//! row was not waited for):
//!
//! | n | localized | clipped GD, T = √(nε/d) | single stage | clipped GD, T = 200 | centre of W |
//! |---|---|---|---|---|---|
//! | 4000 | 7.0e-4 ± 6.8e-4 | 4.4e-3 ± 2.4e-3 | 5.4e-3 ± 3.4e-3 | 5.4e-3 ± 5.2e-3 | 1.76e-4 |
//! | 16 000 | 3.5e-4 ± 3.5e-4 | 2.1e-3 ± 1.3e-3 | 1.9e-3 ± 1.2e-3 | 1.9e-3 ± 1.9e-3 | 4.40e-5 |
//! | 64 000 | 1.8e-4 ± 1.8e-4 | 5.5e-4 ± 4.8e-4 | 6.9e-4 ± 4.2e-4 | 5.0e-4 ± 4.8e-4 | 1.10e-5 |
//! | slope | −0.49 | −0.76 | −0.74 | −0.86 | −1 |
//! | 4000, 24 seeds | 2.40e-3 ± 1.0e-3 | 4.36e-3 ± 1.9e-3 | 2.93e-3 ± 1.2e-3 | 6.22e-3 ± 2.5e-3 | 1.76e-4 |
//! | 16 000, 24 seeds | 1.20e-3 ± 5.2e-4 | 1.82e-3 ± 6.9e-4 | 1.04e-3 ± 4.4e-4 | 2.21e-3 ± 9.4e-4 | 4.40e-5 |
//!
//! Gaps (8 seeds) +1.5 and +0.9, +1.3 and +0.8, +0.7 and +0.6 s.e.; (24 seeds) +0.9 and +1.4,
//! +0.7 and +0.9: more seeds shrink the ratio of the means (6.3 to 1.8 at n = 4000) rather than
//! the gap's standing. At ε = 10 (8 seeds): 1.9e-4 ± 1.9e-4
//! against 8.5e-4 ± 6.7e-4 and 8.0e-4 ± 7.7e-4 at n = 4000, 9.3e-5 ± 9.3e-5 against
//! 2.3e-4 ± 2.2e-4 and 2.0e-4 ± 2.0e-4 at 16 000 (gaps under 1 s.e.).
//!
//! With a learnable signal (logistic, fixed p = 0.01, a = 10: 40 and 160 outliers at n = 4000 and
//! 16 000, ε = 1, 8 seeds) the baseline at its own T is *better* in the mean (gaps −1.2 and −1.1
//! s.e.), as on Pareto data
//! (tests/algorithms/heavy_slopes.rs): 4.0e-4 ± 2.1e-4 and 6.2e-4 ± 4.6e-4 against the localized
//! 4.8e-3 ± 3.6e-3 and 3.8e-3 ± 3.0e-3 (centre 6.9e-3); at T = 200 it is 2.0e-2 ± 2.0e-2 and
//! 2.4e-4 ± 2.3e-4 (one lane in eight carries each mean).
//!
//! # Why the baseline is not measurably worse here
//! - **Where the lower bound bites, nobody learns.** With p from the proof there are about 1/ε
//!   outliers in the sample at every n: no ε-DP algorithm can place the release measurably better
//!   than the centre of W (that is the lower bound). On the linear loss every family's mean is the
//!   centre's G_k·√p·R (table 1), and its slope −1/2 is the centre's: p ∝ 1/n makes the trivial
//!   algorithm's excess fall at Theorem 3.1's exponent, so the slope cannot tell a good algorithm
//!   from a trivial one (as tests/algorithms/heavy_slopes.rs's module docs foresaw).
//! - **On a linear loss noise is free in expectation.** E⟨μ, w + b⟩ = ⟨μ, w⟩ for symmetric b, and
//!   projecting onto a ball centred at the start keeps the symmetry: the baseline's √T-inflated
//!   steps widen its spread (its s.e. is 1.7–5 times the localized family's) but not its mean.
//! - **On the logistic loss the noise costs, but in rare lanes.** The excess is ≈ G_k·√p·max(0,
//!   −w₁): a release costs only when it lands at w₁ < 0, so most lanes are near 0 and a few carry
//!   the mean (s.e. ≈ mean). The baseline's means are 1.5–6 times the localized ones, but 24
//!   seeds do not resolve it, and the localized family also lands far from the centre in some
//!   lanes (its mean is 4–27 times the centre's).
//! - **Clipping removes no direction on this instance.** All outliers of one P_ν sit at the same
//!   point a·ν, so clipping them at the baseline's C = G_k(n(ε/T)/d)^(1/2) (C/a = √(ln(…)/(T·d)),
//!   0.11 at T = 45, against 0.5 in the localized family's first phase) shortens their gradient without turning
//!   it: the clipped objective's minimiser along ν is the unclipped one. Per step, the clipped
//!   signal p·C against the noise scale 2CT/(nε) is p·nε/(2T) whatever C is: the bias p·(a − C)
//!   costs the baseline nothing that its noise does not already cost, and with p·nε ≈ 1 that
//!   signal is below the noise for every family. The √T the lesson names divides a signal that is
//!   not there to find.
//!
//! Not run (time): the linear instance at ε = 10, 100 with more seeds and n = 64 000; a
//! Pareto-radial α = 3 run with a less curved loss (Huber, smoothed hinge) or a larger d.

use crate::common;

use common::{Sums, Tally, run_lanes, slope};
use dp_playground::algo::heavy_tails::outlier_probability;
use dp_playground::config::{AlgorithmKind, RunConfig};
use dp_playground::data::Tail;
use dp_playground::loss::Glm;

/// The family columns of every table: the three families of one run, then the baseline again at
/// the page's default T.
const NAMES: [&str; 4] = [
    "localized",
    "clipped GD, T = √(nε/d)",
    "single stage",
    "clipped GD, page's T",
];

/// The loss of the instance, and so how the outliers' labels enter.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Instance {
    /// The page's default loss: logistic, labels from the planted w₀ (flipped with `flip`).
    Logistic { flip: f64 },
    /// Huber (δ = 1) regression whose outliers' residuals stay beyond δ on all of W: the loss is
    /// then linear on W, Appendix G's linear loss ⟨z, w⟩ with μ = −p·a·e₁ (up to a constant).
    LinearHuber,
}

/// One cell of the grid.
#[derive(Debug, Clone, Copy)]
struct Cell {
    n: usize,
    d: usize,
    epsilon: f64,
    /// The outlier probability p; the outliers' norm is a = G·p^(−1/2) (k = 2), G = 1.
    p: f64,
    radius: f64,
    l2: f64,
    instance: Instance,
}

impl Cell {
    /// a = G_k·p^(−1/k) with G_k = 1 at k = 2 (Appendix G: the k-th moment is exactly G_k^k).
    fn a(&self) -> f64 {
        1.0 / self.p.sqrt()
    }

    /// The planted w₀'s first coordinate (`data::planted_direction`: signal/√d).
    fn planted_first(&self) -> f64 {
        self.signal() / (self.d as f64).sqrt()
    }

    /// ‖w₀‖: the page's default 4 for the logistic instance; for the linear one, w₀₁ = 2R + 1,
    /// so every outlier's residual a(w₀₁ − w₁) ≥ a(R + 1) > δ = 1 on W.
    fn signal(&self) -> f64 {
        match self.instance {
            Instance::Logistic { .. } => 4.0,
            Instance::LinearHuber => (2.0 * self.radius + 1.0) * (self.d as f64).sqrt(),
        }
    }

    fn config(&self, seed: u32, algorithm: AlgorithmKind, steps: usize) -> RunConfig {
        let a = self.a();
        let (loss, label_noise) = match self.instance {
            Instance::Logistic { flip } => (Glm::Logistic, flip),
            Instance::LinearHuber => (
                Glm::Huber {
                    delta: 1.0,
                    label_bound: 2.0 * a * self.planted_first(),
                },
                0.0,
            ),
        };
        RunConfig {
            seed,
            n: self.n,
            d: self.d,
            tail: Tail::RareOutlier { p: self.p, a },
            feature_scale: 1.0,
            feature_bound: 2.0 * a,
            signal: self.signal(),
            label_noise,
            loss,
            radius: self.radius,
            l2: self.l2,
            moment_k: 2.0,
            delta: 0.0,
            epsilon: self.epsilon,
            steps,
            repeats: 1,
            algorithm,
            compare: if algorithm == AlgorithmKind::LocalisedDoubleOutputPerturbation {
                vec![
                    AlgorithmKind::PureClippedGd,
                    AlgorithmKind::OutputPerturbationLipschitzExtension,
                ]
            } else {
                Vec::new()
            },
            ..RunConfig::default()
        }
    }

    /// The population objective F(w) = E f(w, z) + (l2/2)‖w‖² up to a constant, exactly: the
    /// records at 0 cost the same everywhere, an outlier x = a·e₁ costs its loss at t = a·w₁.
    fn population(&self, w: &[f64]) -> f64 {
        let a = self.a();
        let t = a * w[0];
        let outlier = match self.instance {
            Instance::Logistic { flip } => {
                let plus = sigmoid(a * self.planted_first());
                let q = (1.0 - flip) * plus + flip * (1.0 - plus);
                q * softplus(-t) + (1.0 - q) * softplus(t)
            }
            Instance::LinearHuber => {
                let e = t - a * self.planted_first();
                if e.abs() <= 1.0 {
                    0.5 * e * e
                } else {
                    e.abs() - 0.5
                }
            }
        };
        let squares: f64 = w.iter().map(|v| v * v).sum();
        self.p * outlier + 0.5 * self.l2 * squares
    }

    /// min over W (the ℓ2 ball of radius R) of F: on the e₁ axis (the other coordinates only pay
    /// the ridge), by golden section (F is convex in w₁).
    fn population_min(&self) -> f64 {
        let f = |w1: f64| self.population(&[w1]);
        let (mut lo, mut hi) = (-self.radius, self.radius);
        const INV_PHI: f64 = 0.618_033_988_749_894_8;
        for _ in 0..200 {
            let (x1, x2) = (hi - INV_PHI * (hi - lo), lo + INV_PHI * (hi - lo));
            if f(x1) <= f(x2) {
                hi = x2;
            } else {
                lo = x1;
            }
        }
        f(0.5 * (lo + hi)).min(f(-self.radius)).min(f(self.radius))
    }
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^t), without overflow.
fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

/// The baseline's own T = √(nε/d) (tests/algorithms/heavy_slopes.rs).
fn theory_steps(n: usize, epsilon: f64, d: usize) -> usize {
    ((n as f64 * epsilon / d as f64).sqrt().round() as usize).max(1)
}

/// Every family on `cell` over seeds 1..=`seeds` (one lane each, so the lanes are independent:
/// each has its own data): the localized run with its two compared families, and the baseline
/// alone at the page's default T.
fn measure(cell: &Cell, seeds: u32) -> Vec<Sums> {
    let mut sums = vec![Sums::default(); 4];
    let best = cell.population_min();
    let print = std::env::var("HARD_PRINT").is_ok();
    let exact = |w: &[f64]| {
        if print {
            println!("released {w:?}");
        }
        cell.population(w) - best
    };
    for seed in 1..=seeds {
        let t = theory_steps(cell.n, cell.epsilon, cell.d);
        run_lanes(
            cell.config(seed, AlgorithmKind::LocalisedDoubleOutputPerturbation, t),
            &mut sums[..3],
            Some(&exact),
        );
        let page = RunConfig::default().steps;
        run_lanes(
            cell.config(seed, AlgorithmKind::PureClippedGd, page),
            &mut sums[3..],
            Some(&exact),
        );
    }
    sums
}

/// How many standard errors of the difference `worse`'s mean lies above `better`'s.
fn gap(better: Tally, worse: Tally) -> f64 {
    (worse.mean() - better.mean()) / better.std_error().hypot(worse.std_error())
}

/// Prints one row: the exact excess population risk of each family ± its standard error, the
/// excess at the centre of W, and each baseline's gap above the localized family in s.e.
fn print_row(cell: &Cell, sums: &[Sums]) {
    let cells: Vec<String> = sums
        .iter()
        .map(|s| format!("{:.3e} ± {:.1e}", s.exact.mean(), s.exact.std_error()))
        .collect();
    let centre = cell.population(&vec![0.0; cell.d]) - cell.population_min();
    println!(
        "{:>6} {:>5} {:.2e} {:>7.1} | {} | centre {:.3e} | gaps {:+.1} {:+.1}",
        cell.n,
        cell.epsilon,
        cell.p,
        cell.a(),
        cells.join(" | "),
        centre,
        gap(sums[0].exact, sums[1].exact),
        gap(sums[0].exact, sums[3].exact),
    );
}

/// The table over `ns` for one (ε, p rule), and each family's fitted slope of the exact excess.
fn sweep(ns: &[usize], cell_at: impl Fn(usize) -> Cell, seeds: u32) -> Vec<Vec<Sums>> {
    println!(
        "     n     ε        p       a | {} | centre | gaps (s.e.)",
        NAMES.join(" | ")
    );
    let rows: Vec<Vec<Sums>> = ns
        .iter()
        .map(|&n| {
            let cell = cell_at(n);
            let sums = measure(&cell, seeds);
            print_row(&cell, &sums);
            sums
        })
        .collect();
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    for (lane, name) in NAMES.iter().enumerate() {
        let ys: Vec<f64> = rows.iter().map(|r| r[lane].exact.mean()).collect();
        println!("{name}: slope {:.3}", slope(&xs, &ys));
    }
    rows
}

/// A free exploration from the environment: HARD_LOSS (logistic | huber), HARD_EPS, HARD_NS
/// (comma-separated), HARD_P (a number, or "G" for Appendix G's p at each n with ζ = HARD_ZETA),
/// HARD_D, HARD_RADIUS, HARD_L2, HARD_FLIP, HARD_SEEDS, and HARD_PRINT (set: print every released
/// point).
#[test]
#[ignore = "exploration: see the module docs"]
fn explore() {
    let get = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let epsilon: f64 = get("HARD_EPS", "1").parse().unwrap();
    let ns: Vec<usize> = get("HARD_NS", "4000,16000,64000")
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let d: usize = get("HARD_D", "2").parse().unwrap();
    let radius: f64 = get("HARD_RADIUS", "4").parse().unwrap();
    let l2: f64 = get("HARD_L2", "0").parse().unwrap();
    let zeta: f64 = get("HARD_ZETA", "0.1").parse().unwrap();
    let seeds: u32 = get("HARD_SEEDS", "8").parse().unwrap();
    let instance = match get("HARD_LOSS", "logistic").as_str() {
        "huber" => Instance::LinearHuber,
        _ => Instance::Logistic {
            flip: get("HARD_FLIP", "0").parse().unwrap(),
        },
    };
    let p_rule = get("HARD_P", "G");
    sweep(
        &ns,
        |n| Cell {
            n,
            d,
            epsilon,
            p: if p_rule == "G" {
                outlier_probability(n, d, epsilon, zeta)
            } else {
                p_rule.parse().unwrap()
            },
            radius,
            l2,
            instance,
        },
        seeds,
    );
}

/// Appendix G's p at n, d = 2, ε, ζ = 0.1 (`outlier_probability`), on the linear (Huber) instance.
fn linear_appendix_g(n: usize, epsilon: f64) -> Cell {
    Cell {
        n,
        d: 2,
        epsilon,
        p: outlier_probability(n, 2, epsilon, 0.1),
        radius: 4.0,
        l2: 0.0,
        instance: Instance::LinearHuber,
    }
}

/// The finding on Appendix G's linear instance at ε = 1 (module docs, first table), asserted so
/// that it is rewritten if it ever flips: every family's mean exact excess lies within 3 standard
/// errors of the centre of W's (no family measurably learns from the ≈ 1/ε outliers, nor is
/// measurably hurt by its noise), so neither clipped GD baseline is measurably worse than the
/// localized family (their gap is under 3 s.e. at every n), and the localized family's slope sits
/// at Theorem 3.1's exponent −1/2 ± 0.15, as the centre's own does. 8 seeds, one lane each.
#[test]
#[ignore = "experiment, about five minutes in release: see the module docs for the command"]
fn on_the_linear_hard_instance_every_family_sits_at_the_centre_of_w() {
    let ns = [4000, 16_000, 64_000];
    let rows = sweep(&ns, |n| linear_appendix_g(n, 1.0), 8);
    for (row, n) in rows.iter().zip(ns) {
        let cell = linear_appendix_g(n, 1.0);
        let centre = cell.population(&[0.0, 0.0]) - cell.population_min();
        for (sums, name) in row.iter().zip(NAMES) {
            let t = sums.exact;
            assert_eq!(t.count(), 8, "n = {n}, {name}: every lane released");
            assert!(
                (t.mean() - centre).abs() <= 3.0 * t.std_error(),
                "n = {n}, {name}: {:.3e} ± {:.1e} against the centre's {centre:.3e}",
                t.mean(),
                t.std_error()
            );
        }
        for baseline in [1, 3] {
            let g = gap(row[0].exact, row[baseline].exact);
            assert!(
                g.abs() < 3.0,
                "n = {n}, {}: gap {g:.1} s.e.",
                NAMES[baseline]
            );
        }
    }
    let xs: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let localised: Vec<f64> = rows.iter().map(|r| r[0].exact.mean()).collect();
    let fitted = slope(&xs, &localised);
    assert!(
        (fitted + 0.5).abs() <= 0.15,
        "{localised:?}: slope {fitted}"
    );
}

/// How many outliers each seed's sample holds (HARD_EPS, HARD_NS's first n; Appendix G's p):
/// the expected count is p·n ≈ 1.015/ε at d = 2, ζ = 0.1.
#[test]
#[ignore = "exploration: prints the outlier count of each seed's sample"]
fn outliers_per_sample() {
    use dp_playground::config::pose::generator_spec;
    use dp_playground::data::generate;
    use dp_playground::rng::{Stream, seeded};
    let get = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let epsilon: f64 = get("HARD_EPS", "1").parse().unwrap();
    let n: usize = get("HARD_NS", "4000")
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let cell = linear_appendix_g(n, epsilon);
    for seed in 1..=8 {
        let config = cell.config(seed, AlgorithmKind::PureClippedGd, 200);
        let data = generate(&generator_spec(&config), seeded(seed, Stream::Data)).unwrap();
        let count = data.samples().filter(|(x, _)| x[0] != 0.0).count();
        println!(
            "seed {seed}: {count} outliers (p·n = {:.3})",
            cell.p * n as f64
        );
    }
}
