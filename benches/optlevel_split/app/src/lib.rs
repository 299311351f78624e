//! Root crate: a timed entry for Node, plus some cold code (serde_json) to weigh.
use serde::{Deserialize, Serialize};

static mut X: Vec<f64> = Vec::new();
static mut Y: Vec<f64> = Vec::new();
static mut W: Vec<f64> = Vec::new();
static mut G: Vec<f64> = Vec::new();

#[unsafe(no_mangle)]
pub extern "C" fn setup(n: usize, d: usize) {
    let mut s = 0x2545F4914F6CDD1Du64;
    let mut r = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    unsafe {
        X = (0..n * d).map(|_| r()).collect();
        Y = (0..n).map(|_| if r() > 0.0 { 1.0 } else { -1.0 }).collect();
        W = (0..d).map(|_| r() * 0.1).collect();
        G = vec![0.0; d];
    }
}

#[unsafe(no_mangle)]
#[allow(static_mut_refs)]
pub extern "C" fn run(reps: u32) -> f64 {
    let mut v = 0.0;
    unsafe {
        for _ in 0..reps {
            v += kernels::logistic_grad(&X, &Y, &W, &mut G);
        }
        v + G[0]
    }
}

#[derive(Serialize, Deserialize)]
struct Config {
    epsilon: f64,
    delta: f64,
    n: usize,
    d: usize,
    name: String,
    seeds: Vec<u64>,
    tags: std::collections::BTreeMap<String, f64>,
}

#[unsafe(no_mangle)]
pub extern "C" fn cold(ptr: *const u8, len: usize) -> usize {
    let s = unsafe { std::slice::from_raw_parts(ptr, len) };
    match serde_json::from_slice::<Config>(s) {
        Ok(c) => serde_json::to_string_pretty(&c).map(|t| t.len()).unwrap_or(0),
        Err(e) => e.to_string().len(),
    }
}
