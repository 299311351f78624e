//! The lenient link reader does work linear in the link's length. Work is
//! counted as bytes allocated (by a global allocator that tallies this thread's allocations), not
//! timed: the old reader cloned every kept field once per key, so a link holding a long valid
//! field and many unknown keys allocated in proportion to their product.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dp_playground::config::{MAX_LINK_BYTES, RunConfig};

struct Counting;

thread_local! {
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the counter is a const-initialised
// thread-local Cell, whose access never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.with(|c| c.set(c.get() + layout.size()));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.with(|c| c.set(c.get() + new_size));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A link of `k` units: a `compare` list of 2k valid names (kept by the field-by-field read, then
/// refused by validation), k unknown keys sorted after it, and 20k bytes of padding in a string.
fn hostile_link(k: usize) -> String {
    let names = vec!["\"dp_sgd\""; 2 * k].join(",");
    let unknown: String = (0..k).map(|i| format!("\"z{i}\":0,")).collect();
    let pad = "x".repeat(20 * k);
    format!(r#"{{"compare":[{names}],{unknown}"seed":7,"tail":{{"kind":"{pad}"}}}}"#)
}

/// (bytes allocated, seed read, errors) for reading `link`.
fn read(link: &str) -> (usize, u32, usize) {
    let before = BYTES.with(Cell::get);
    let (config, errors) = RunConfig::from_json_lenient(link);
    (BYTES.with(Cell::get) - before, config.seed, errors.len())
}

#[test]
fn a_large_allowed_link_is_read_in_linear_work() {
    let small = hostile_link(500);
    let large = hostile_link(1000);
    assert!(large.len() <= MAX_LINK_BYTES, "{} bytes", large.len());
    let (work_small, seed, errors) = read(&small);
    // The valid field survives; every unknown key, the padded tail and the long list are named.
    assert_eq!((seed, errors), (7, 500 + 2));
    let (work_large, seed, errors) = read(&large);
    assert_eq!((seed, errors), (7, 1000 + 2));
    // Doubling the link doubles the work (quadratic work would quadruple it)…
    let growth = work_large as f64 / work_small as f64;
    assert!(
        growth < 2.5,
        "work grew {growth:.2}× for a link twice as long"
    );
    // …and the work is a bounded multiple of the length (78 bytes per byte today: each unknown
    // key of 8 bytes is answered by a message of about 450 bytes listing the fields; the room is
    // for fields added later; the quadratic reader was far beyond).
    let per_byte = work_large as f64 / large.len() as f64;
    assert!(
        per_byte < 200.0,
        "{per_byte:.0} bytes allocated per byte of link"
    );
}
