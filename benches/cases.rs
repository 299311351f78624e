//! `cargo bench --bench cases`: the benchmark cases of `dp_playground::bench` (the read of the
//! matrix, fused value+gradient for the squared and logistic losses, one DP-SGD epoch and its
//! parts, a certified reference solve, data generation) at n = 10⁵, d = 100 and n = 10⁶, d = 20, timed natively.
//! The browser page `/bench.html` times the same code in wasm; `scripts/bench` puts both side by
//! side.
//!
//! Prints a table (min and median over the repeats, and min/min ratio to the read of the same
//! size; each repeat times a batch of runs lasting ≥ 20 ms), then one line `BENCH_JSON {…}` for the runner. `-- --quick` runs the tiny plan the
//! page's `?quick` runs.

use std::time::Instant;

use dp_playground::bench::native::measure;
use dp_playground::bench::{Case, Workload, plan};
use serde_json::json;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut sizes = Vec::new();
    for size in plan(quick) {
        let t0 = Instant::now();
        let mut workload = Workload::new(size.n, size.d).expect("workload");
        println!(
            "n = {}, d = {} (set-up {:.0} ms); min (median) ms, ratio to the read (min/min):",
            size.n,
            size.d,
            t0.elapsed().as_secs_f64() * 1e3
        );
        let mut read_min = f64::NAN;
        let mut cases = Vec::new();
        for step in &size.cases {
            let case = Case::from_name(step.case).expect("a case of the plan");
            let m = measure(&mut workload, case, step.repeats).expect("measure");
            let (s, runs) = (m.summary, m.runs_per_repeat);
            if case == Case::Read {
                read_min = s.min;
            }
            let ratio = s.min / read_min;
            println!(
                "  {:<32} {:9.2} ({:9.2})  {:8.2}×",
                case.name(),
                s.min,
                s.median,
                ratio
            );
            cases.push(json!({
                "case": case.name(), "repeats": step.repeats, "runs_per_repeat": runs,
                "min_ms": s.min, "median_ms": s.median, "ratio_to_read": ratio,
            }));
        }
        sizes.push(json!({ "n": size.n, "d": size.d, "cases": cases }));
    }
    #[cfg(target_arch = "x86_64")]
    let kernels = if dp_playground::linalg::Avx2::detect().is_some() {
        "AVX2"
    } else {
        "portable"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernels = "portable";
    println!(
        "BENCH_JSON {}",
        json!({ "target": "native", "kernels": kernels, "quick": quick, "sizes": sizes })
    );
}
