//! Every family picked from the menu on a fresh page moves away from its start.
//!
//! The page's pick is Rust's (`pickAlgorithm` in crates/wasm calls [`menu::pick`] on the
//! controls read leniently); this runs the same path from a fresh page's settings, then the run
//! the page runs (a [`Lab`] of the picked config, seeded), and compares the release with the
//! point the run started from.

use std::time::Instant;

use dp_playground::algo::run::Point;
use dp_playground::config::{AlgorithmKind, RunConfig, menu};
use dp_playground::session::{Lab, Release};

/// A fresh page's config as the page hands it to a pick: the defaults, through the page's
/// lenient reader (`RunConfig::from_json_lenient`, what `pickAlgorithm` reads the controls with).
fn fresh_page() -> RunConfig {
    let (config, errors) = RunConfig::from_json_lenient(&RunConfig::default().to_json());
    assert!(errors.is_empty(), "{errors:?}");
    config
}

/// `kind` picked from the menu on a fresh page, run to its release: (config, start, release,
/// seconds).
fn picked_run(kind: AlgorithmKind) -> (RunConfig, Vec<f64>, Release, f64) {
    let (config, _notes) = menu::pick(&fresh_page(), kind);
    let began = Instant::now();
    let mut lab = Lab::new(config.clone(), None).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
    let start = {
        let session = lab.sessions_mut().next().expect("a lane");
        match session.point() {
            Point::Min(w) => w.to_vec(),
            Point::Saddle { x, y } => x.iter().chain(y).copied().collect(),
        }
    };
    let mut release = None;
    while !lab.is_done() {
        for lane in lab.advance(10_000, || true) {
            if let Some(r) = lane.batch.release {
                release = Some(r);
            }
        }
    }
    let release = release.unwrap_or_else(|| panic!("{kind:?}: no release"));
    (config, start, release, began.elapsed().as_secs_f64())
}

/// The largest coordinate difference between what the run released and where it started (x
/// against the start's x, y against its y when y is released).
fn moved(start: &[f64], release: &Release) -> f64 {
    let released: Vec<f64> = release
        .w()
        .iter()
        .chain(release.y().into_iter().flatten())
        .copied()
        .collect();
    released
        .iter()
        .zip(start)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// How far a release must be from its start to count as moved: 10⁻³ in its largest coordinate.
/// The page shows each coordinate to four significant digits of values of order 0.1–1, so a
/// smaller move could not be seen on it; every family's picked run moves at least 20 times as
/// far (the smallest, non-private mirror descent's, moves 2.1·10⁻², docs/GUIDE.md's table).
const MOVED: f64 = 1e-3;

#[test]
fn every_family_picked_on_a_fresh_page_releases_a_point_away_from_its_start() {
    // Boosted private mirror descent (González, Guzmán & Paquette 2024, Algorithm 4) released
    // exactly the uniform start on every seed at n = 4228, the n its pick set.
    // `--nocapture` prints the table of docs/GUIDE.md.
    println!("| family | n | moved (largest coordinate) | seconds |");
    let mut still = Vec::new();
    for kind in AlgorithmKind::ALL {
        let (config, start, release, seconds) = picked_run(kind);
        let moved = moved(&start, &release);
        println!(
            "| {} | {} | {moved:.3e} | {seconds:.2} |",
            kind.key(),
            config.n
        );
        if moved <= MOVED {
            still.push(format!("{kind:?} (n = {}): moved {moved:e}", config.n));
        }
    }
    assert!(still.is_empty(), "released their start: {still:?}");
}

#[test]
fn the_c_sc_variant_publishes_x_alone() {
    // Zhang et al. 2022's C-SC variant releases only x; its y (the start) was published as if
    // released, and the page showed y = (1/3, 1/3, 1/3).
    let (_, _, release, _) = picked_run(AlgorithmKind::ByoaMinimaxCsc);
    assert_eq!(release.y(), None);
    let json = serde_json::to_value(&release).unwrap();
    assert!(json.get("y").is_none(), "{json}");
    // Still scored: the gap at (x, y₀), finite and ≥ 0.
    let gap = release.excess.expect("scored");
    assert!(gap.is_finite() && gap >= 0.0, "{gap}");
    // The phased convex–concave variant releases both.
    let (_, _, both, _) = picked_run(AlgorithmKind::ByoaMinimaxPhased);
    assert!(both.y().is_some());
}
