//! `cargo run --release --example huge_pages [ROUNDS]`: what transparent huge pages are worth to
//! the benchmark cases (crates/core/src/data/huge_pages.rs), measured in one process so that the comparison
//! survives a loaded machine.
//!
//! At each size of `bench::plan` (n = 10⁵, d = 100 and n = 10⁶, d = 20) it generates the same data
//! twice, once with the huge-page advice and once with it withheld (`DP_PLAYGROUND_NO_HUGE_PAGES`),
//! then alternates the two for ROUNDS rounds (default 9; who goes first alternates too), timing
//! one batch of runs of each case per round, in wall time and in this thread's CPU time (which
//! leaves out the time other processes held the core; memory stalls still count). It prints the
//! minimum of each and the ratios with/without. The certified reference solve is left out (the
//! fused logistic pass is its inner loop, timed on its own).
//!
//! Linux only: elsewhere there is no advice to compare.

#[cfg(target_os = "linux")]
fn main() {
    use std::sync::Arc;
    use std::time::Instant;

    use dp_playground::bench::{Case, Workload, dataset, runs_per_timing};

    const SWITCH: &str = "DP_PLAYGROUND_NO_HUGE_PAGES";
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    // The switch is read by `generate`; nothing else runs in this process meanwhile.
    let advise = |on: bool| {
        // SAFETY: this program has a single thread, so no other thread reads the environment.
        unsafe {
            if on {
                std::env::remove_var(SWITCH)
            } else {
                std::env::set_var(SWITCH, "1")
            }
        }
    };
    let cpu_ms = || {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec to write; the clock id is a constant Linux knows.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6
    };
    let anon_huge_kb = || {
        std::fs::read_to_string("/proc/self/smaps_rollup")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("AnonHugePages:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let cases = [
        Case::Read,
        Case::Squared,
        Case::Logistic,
        Case::DpSgdEpoch,
        Case::Generate,
    ];
    println!(
        "THP mode: {}",
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default()
            .trim()
    );
    for (n, d) in [(100_000, 100), (1_000_000, 20)] {
        let before = anon_huge_kb();
        advise(true);
        let with = dataset(n, d, 1).expect("data");
        let huge = anon_huge_kb() - before;
        advise(false);
        let without = dataset(n, d, 1).expect("data");
        assert_eq!(with, without, "the advice changed the data");
        println!(
            "n = {n}, d = {d}: {:.1} of {:.1} MB on huge pages with the advice; {rounds} rounds, \
             min ms per run",
            huge as f64 / 1024.0,
            (n * d * 8) as f64 / (1 << 20) as f64
        );
        let mut loads = [
            Workload::on(Arc::new(with)).expect("workload"),
            Workload::on(Arc::new(without)).expect("workload"),
        ];
        println!(
            "  {:<32} {:>9} {:>9} {:>6}   {:>9} {:>9} {:>6}",
            "case", "wall THP", "wall 4K", "ratio", "CPU THP", "CPU 4K", "ratio"
        );
        for case in cases {
            let mut runs = 0;
            let mut wall = [f64::INFINITY; 2];
            let mut cpu = [f64::INFINITY; 2];
            for round in 0..rounds {
                for k in [round % 2, 1 - round % 2] {
                    // The generate case allocates fresh data: advise it or not like its workload.
                    advise(k == 0);
                    let w = &mut loads[k];
                    if runs == 0 {
                        w.prepare(case, 1).expect("prepare");
                        let t = Instant::now();
                        std::hint::black_box(w.run(case, 1).expect("run"));
                        runs = runs_per_timing(t.elapsed().as_secs_f64() * 1e3);
                    }
                    w.prepare(case, runs).expect("prepare");
                    let (t, c) = (Instant::now(), cpu_ms());
                    std::hint::black_box(w.run(case, runs).expect("run"));
                    let c = (cpu_ms() - c) / runs as f64;
                    let t = t.elapsed().as_secs_f64() * 1e3 / runs as f64;
                    wall[k] = wall[k].min(t);
                    cpu[k] = cpu[k].min(c);
                }
            }
            println!(
                "  {:<32} {:9.2} {:9.2} {:6.3}   {:9.2} {:9.2} {:6.3}",
                case.name(),
                wall[0],
                wall[1],
                wall[0] / wall[1],
                cpu[0],
                cpu[1],
                cpu[0] / cpu[1]
            );
        }
    }
    advise(true);
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("huge pages: Linux only (madvise(MADV_HUGEPAGE)); nothing to compare here");
}
