//! Experiment behind objective perturbation's Hessian stride (`HESSIAN_SAMPLES_PER_DIM` in
//! `crates/algorithms/src/algo/objective_perturbation.rs`): on `cargo bench --bench logreg`'s perturbed objective
//! (ε = 1, n = 10⁵, d = 20, Λ = 1/n, the noise b of each seed), the gradient-norm path of damped
//! Newton with the Hessian from every s-th block (with and without chord steps), and of warm
//! starts from a Newton solve on every k-th block, each with its cost in value-and-gradient
//! passes (a Hessian over every sample counted as `HCOST` passes, measured by the bench's
//! "one pass" line; cost counts, not times, so a loaded machine does not move them).
//!
//! `cargo run --release --example op_paths [-- SEEDS]` (SEEDS: comma-separated, default 0,1,2).
use dp_playground::algo::objective_perturbation::{AmpPlan, ObjectivePerturbationConfig};
use dp_playground::bench;
use dp_playground::data::{clip_features, generate};
use dp_playground::linalg::{dot, norm2};
use dp_playground::noise::L2Laplace;
use dp_playground::rng::{Stream, seeded};
use dp_playground::solver::{logistic_pass, newton};

const N: usize = 100_000;
const D: usize = 20;
/// A Hessian over every sample, in value-and-gradient passes (the bench's "one pass" line).
const HCOST: f64 = 2.2;

/// The perturbed objective J_b on a (sub)sample: mean data term, ridge and b/n.
struct P<'a> {
    x: &'a [f64],
    y: &'a [f64],
    lin: &'a [f64],
    ridge: f64,
}

impl P<'_> {
    /// Samples.
    fn m(&self) -> usize {
        self.y.len()
    }
    /// J_b and ∇J_b (and H of the data term, every stride-th block) on this (sub)sample.
    fn eval(&self, w: &[f64], g: &mut [f64], h: Option<(&mut [f64], usize)>) -> f64 {
        let mut block = vec![0.0; D];
        let mut scratch = Vec::new();
        let v = match h {
            Some((h, s)) => logistic_pass::value_gradient_hessian(
                self.x,
                self.y,
                w,
                self.m(),
                g,
                &mut block,
                h,
                &mut scratch,
                s,
            ),
            None => logistic_pass::value_and_gradient(self.x, self.y, w, self.m(), g, &mut block),
        };
        for ((g, l), p) in g.iter_mut().zip(self.lin).zip(w) {
            *g += l + self.ridge * p;
        }
        v + dot(self.lin, w) + 0.5 * self.ridge * dot(w, w)
    }
}

/// Every k-th block of samples, copied.
fn sub(x: &[f64], y: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
    let b = logistic_pass::BLOCK;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (i, (xb, yb)) in x.chunks(b * D).zip(y.chunks(b)).enumerate() {
        if i % k == 0 {
            xs.extend_from_slice(xb);
            ys.extend_from_slice(yb);
        }
    }
    (xs, ys)
}

/// Newton on `p` from w with Hessian stride `s`, `chord` true: keep the factor while the
/// contraction ≤ 0.25 after a ≤ 0.05 step. Stops at ‖g‖ ≤ tol or 30 steps. Returns cost
/// (in full passes, scaled by `scale` = m/n) and prints the path.
fn newton_run(
    p: &P,
    w: &mut [f64],
    s: usize,
    chord: bool,
    tol: f64,
    scale: f64,
    label: &str,
) -> (f64, Vec<f64>) {
    let mu = p.ridge;
    let (mut g, mut h) = (vec![0.0; D], vec![0.0; D * D]);
    let hfrac = 1.0 / s as f64;
    let mut cost = scale * (1.0 + HCOST * hfrac);
    let mut val = p.eval(w, &mut g, Some((&mut h, s)));
    let mut factor = newton::Factor::new(&h, D, mu);
    let mut fresh = true;
    let mut chording = false;
    let mut path = vec![norm2(&g)];
    let mut dir = vec![0.0; D];
    for _ in 0..30 {
        let gn = norm2(&g);
        if gn <= tol {
            break;
        }
        if factor.is_none() || (!fresh && !chording) {
            val = p.eval(w, &mut g, Some((&mut h, s)));
            cost += scale * (1.0 + HCOST * hfrac);
            factor = newton::Factor::new(&h, D, mu);
        }
        factor.as_ref().unwrap().direction(&g, &mut dir);
        let slope = dot(&g, &dir);
        let mut st = 1.0;
        let with_h = !chording;
        let (mut y, mut gy, mut hy) = (vec![0.0; D], vec![0.0; D], vec![0.0; D * D]);
        let vy = loop {
            for ((y, w), d) in y.iter_mut().zip(w.iter()).zip(&dir) {
                *y = w + st * d;
            }
            let v = if with_h {
                cost += scale * (1.0 + HCOST * hfrac);
                p.eval(&y, &mut gy, Some((&mut hy, s)))
            } else {
                cost += scale;
                p.eval(&y, &mut gy, None)
            };
            if v <= val + 1e-4 * st * slope || norm2(&gy) <= 0.5 * gn || st < 1e-12 {
                break v;
            }
            st *= 0.5;
        };
        w.copy_from_slice(&y);
        g.copy_from_slice(&gy);
        val = vy;
        if with_h {
            h.copy_from_slice(&hy);
            factor = newton::Factor::new(&h, D, mu);
            fresh = true;
        } else {
            fresh = false;
        }
        let ratio = norm2(&g) / gn;
        if chord {
            if chording {
                if ratio > 0.25 {
                    chording = false;
                    factor = None;
                }
            } else if st == 1.0 && ratio <= 0.05 {
                chording = true;
            }
        }
        path.push(norm2(&g));
    }
    println!(
        "{label}: cost {cost:.2} passes, path {}",
        path.iter()
            .map(|v| format!("{v:.1e}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    (cost, path)
}

/// Full-data gradient passes with a fixed factor (chord / preconditioned Richardson) from w.
fn chord_run(p: &P, w: &mut [f64], f: &newton::Factor, tol: f64, label: &str) -> f64 {
    let mut g = vec![0.0; D];
    let mut dir = vec![0.0; D];
    p.eval(w, &mut g, None);
    let mut cost = 1.0;
    let mut path = vec![norm2(&g)];
    for _ in 0..40 {
        if norm2(&g) <= tol {
            break;
        }
        f.direction(&g, &mut dir);
        for (w, d) in w.iter_mut().zip(&dir) {
            *w += d;
        }
        p.eval(w, &mut g, None);
        cost += 1.0;
        path.push(norm2(&g));
    }
    println!(
        "{label}: cost {cost:.2} passes, path {}",
        path.iter()
            .map(|v| format!("{v:.1e}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    cost
}

fn main() {
    let spec = bench::spec(N, D);
    let mut data = generate(&spec, seeded(1, Stream::Data)).unwrap();
    clip_features(&mut data, 1.0);
    let (x, y) = (data.matrix_slice().to_vec(), data.labels().to_vec());
    let ridge = 1.0 / N as f64;
    let cfg = ObjectivePerturbationConfig::default();
    let plan = AmpPlan::new(&cfg, N, D, ridge, 1.0).unwrap();
    let tol = plan.tolerance * 0.9;
    println!("γ = {:e}", plan.tolerance);
    let seeds: Vec<u32> = std::env::args().nth(1).map_or(vec![0, 1, 2], |s| {
        s.split(',').map(|v| v.parse().unwrap()).collect()
    });
    for seed in seeds {
        let mut lin = vec![0.0; D];
        let mut rng = seeded(seed, Stream::Noise);
        L2Laplace::new(plan.split.noise_scale(1.0))
            .unwrap()
            .fill(&mut rng, &mut lin)
            .unwrap();
        lin.iter_mut().for_each(|v| *v /= N as f64);
        let full = P {
            x: &x,
            y: &y,
            lin: &lin,
            ridge,
        };
        println!("--- seed {seed}");
        for s in [1, 2, 4, 8, 16, 32] {
            for chord in [true, false] {
                let mut w = vec![0.0; D];
                newton_run(
                    &full,
                    &mut w,
                    s,
                    chord,
                    tol,
                    1.0,
                    &format!("full newton stride {s} chord {chord}"),
                );
            }
        }
        for k in [4, 8, 16, 32] {
            let (xs, ys) = sub(&x, &y, k);
            let scale = ys.len() as f64 / N as f64;
            let sp = P {
                x: &xs,
                y: &ys,
                lin: &lin,
                ridge,
            };
            {
                let stol = 1e-9;
                let mut w = vec![0.0; D];
                let (c1, _) = newton_run(
                    &sp,
                    &mut w,
                    1,
                    false,
                    stol,
                    scale,
                    &format!("  sub 1/{k} to {stol:e}"),
                );
                let mut h = vec![0.0; D * D];
                let mut g = vec![0.0; D];
                sp.eval(&w, &mut g, Some((&mut h, 1)));
                let f = newton::Factor::new(&h, D, ridge).unwrap();
                let mut w2 = w.clone();
                let c2 = chord_run(&full, &mut w2, &f, tol, "    then chord with H_S");
                let mut w3 = w.clone();
                let (c3, _) = newton_run(
                    &full,
                    &mut w3,
                    1,
                    true,
                    tol,
                    1.0,
                    "    then full newton+chord",
                );
                let mut w4 = w.clone();
                let (c4, _) = newton_run(
                    &full,
                    &mut w4,
                    k,
                    true,
                    tol,
                    1.0,
                    "    then newton stride k + chord",
                );
                println!(
                    "  => 1/{k} {stol:e}: {:.2} | {:.2} | {:.2}",
                    c1 + c2,
                    c1 + c3,
                    c1 + c4
                );
            }
        }
    }
}
