//! The exact (sort-based) ℓ1-ball and simplex projections allocate nothing once warmed up
//! (no allocation inside an iteration: docs/ARCHITECTURE.md, Performance). Counted by a global allocator
//! that tallies this thread's allocations only, so the test harness's own threads do not count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dp_playground::domain::{Domain, DomainKind};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the counter is a const-initialised
// thread-local Cell, whose access never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn warmed_up_projections_do_not_allocate() {
    let d = 64;
    // Inputs far outside every set, so each projection does its full sort-based work.
    let inputs: Vec<Vec<f64>> = (0..50)
        .map(|k| {
            (0..d)
                .map(|j| 5.0 * ((j * 7 + k * 13) as f64 * 0.37).sin())
                .collect()
        })
        .collect();
    for dom in DomainKind::examples() {
        let mut w = inputs[0].clone();
        dom.project(&mut w);
        let mut batch = inputs.clone();
        let before = allocations();
        for w in &mut batch {
            dom.project(w);
        }
        let after = allocations();
        assert_eq!(after - before, 0, "{} allocated", dom.name());
        // The projections did their work (this is not a test of a no-op).
        assert!(batch.iter().all(|w| dom.contains(w, 1e-12)));
        assert!(batch.iter().zip(&inputs).all(|(p, x)| p != x) || dom.name() == "unconstrained");
    }
    // Sanity check of the counter itself.
    let before = allocations();
    let v = std::hint::black_box(vec![1.0f64; 10]);
    assert!(allocations() > before && v.len() == 10);
}
