//! The loop: a reproducible input per (seed, index), each execution caught and timed.
//!
//! Every input is a pure function of the run's seed and its index (a ChaCha stream keyed by both
//! fills the bytes that `arbitrary::Unstructured` turns into mutation choices), so a finding is
//! reproduced from the two numbers alone; its input is also written under
//! `target/fuzz-findings/`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use dp_playground::rng::DpRng;
use rand::{Rng, RngExt, SeedableRng};

/// An execution slower than this is a hang (the bound).
pub const SLOW: Duration = Duration::from_secs(1);

/// A watchdog ends the process after this long on one input, reporting it: a true infinite loop
/// would otherwise never return to the loop's own timing.
const STUCK: Duration = Duration::from_secs(120);

/// A parser a user reaches, as the loop drives it.
pub struct Target {
    /// Its name on the command line (`FUZZ_TARGET`).
    pub name: &'static str,
    /// Builds one input from the choices in `u`.
    pub input: fn(&mut Unstructured<'_>) -> Vec<u8>,
    /// Runs the parser (and what the page runs after it) on one input. `Err` is a broken
    /// invariant; a panic is caught by the loop.
    pub exec: fn(&[u8]) -> Result<(), String>,
    /// A run gives this target one input per `share` asked for (1: all of them), for targets
    /// much slower than a parser.
    pub share: u64,
}

/// What went wrong on one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// The execution panicked.
    Crash(String),
    /// An invariant the target checks after the parser was broken.
    Invariant(String),
    /// The execution took longer than [`SLOW`].
    Slow(Duration),
}

/// One failing input, with what reproduces it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub target: &'static str,
    pub seed: u64,
    pub index: u64,
    pub kind: Kind,
    pub input: Vec<u8>,
}

/// What a run of one target did.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: &'static str,
    pub execs: u64,
    pub elapsed: Duration,
    /// The slowest execution and its index.
    pub slowest: (Duration, u64),
    pub findings: Vec<Finding>,
}

/// The generator of input `index` of run `seed` (splitmix-style mixing keeps nearby pairs apart).
fn stream(seed: u64, index: u64) -> DpRng {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    DpRng::seed_from_u64(z ^ (z >> 31))
}

/// Input `index` of run `seed` for `target`.
pub fn input(target: &Target, seed: u64, index: u64) -> Vec<u8> {
    let mut rng = stream(seed, index);
    let len = rng.random_range(16..4096usize);
    let mut bytes = vec![0u8; len];
    rng.fill_bytes(&mut bytes);
    (target.input)(&mut Unstructured::new(&bytes))
}

/// Runs `execs` inputs of `target` from `seed`, printing progress every `every` executions (0:
/// never).
pub fn run(target: &Target, seed: u64, execs: u64, every: u64) -> Report {
    let current = Arc::new(AtomicU64::new(u64::MAX));
    let started_at = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let clock = Instant::now();
    let watchdog = {
        let (current, started_at, done) = (current.clone(), started_at.clone(), done.clone());
        let name = target.name;
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let index = current.load(Ordering::Relaxed);
                let since = clock.elapsed().as_millis() as u64 - started_at.load(Ordering::Relaxed);
                if index != u64::MAX && Duration::from_millis(since) > STUCK {
                    eprintln!(
                        "fuzz {name}: input {index} of seed {seed} has run for {since} ms: stuck; \
                         reproduce with FUZZ_TARGET={name} FUZZ_SEED={seed} FUZZ_INDEX={index}"
                    );
                    std::process::exit(2);
                }
            }
        })
    };
    // The default hook would print every caught panic: keep one line per finding instead.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let mut report = Report {
        target: target.name,
        execs: 0,
        elapsed: Duration::ZERO,
        slowest: (Duration::ZERO, 0),
        findings: Vec::new(),
    };
    for index in 0..execs {
        let bytes = input(target, seed, index);
        current.store(index, Ordering::Relaxed);
        started_at.store(clock.elapsed().as_millis() as u64, Ordering::Relaxed);
        let t = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| (target.exec)(&bytes)));
        let took = t.elapsed();
        current.store(u64::MAX, Ordering::Relaxed);
        report.execs += 1;
        if took > report.slowest.0 {
            report.slowest = (took, index);
        }
        let kind = match outcome {
            Err(payload) => Some(Kind::Crash(panic_message(payload.as_ref()))),
            Ok(Err(broken)) => Some(Kind::Invariant(broken)),
            Ok(Ok(())) if took > SLOW => Some(Kind::Slow(took)),
            Ok(Ok(())) => None,
        };
        if let Some(kind) = kind {
            let finding = Finding {
                target: target.name,
                seed,
                index,
                kind,
                input: bytes,
            };
            save(&finding);
            report.findings.push(finding);
        }
        if every > 0 && (index + 1) % every == 0 {
            eprintln!(
                "fuzz {}: {} execs in {:.0} s, {} findings, slowest {:.1} ms (input {})",
                target.name,
                index + 1,
                start.elapsed().as_secs_f64(),
                report.findings.len(),
                report.slowest.0.as_secs_f64() * 1e3,
                report.slowest.1
            );
        }
    }
    std::panic::set_hook(hook);
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    report.elapsed = start.elapsed();
    report
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}

/// Writes a finding's input to `target/fuzz-findings/<target>-<seed>-<index>`, so it can be
/// turned into a regression test as it is.
fn save(f: &Finding) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings");
    let path = dir.join(format!("{}-{}-{}", f.target, f.seed, f.index));
    let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &f.input));
    eprintln!(
        "fuzz {}: {:?} on input {} of seed {} (saved to {})",
        f.target,
        f.kind,
        f.index,
        f.seed,
        path.display()
    );
}
