//! The terminal binary: `dp-playground run` on a committed config reproduces the
//! golden bits that native code and both browsers agree on (tests/data/golden_run.txt), from a
//! config file and from a page link alike; `sweep` gives the same numbers on one thread and on
//! two; bad input exits non-zero with a message, never a panic.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dp_playground::config::RunConfig;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

const BIN: &str = env!("CARGO_BIN_EXE_dp-playground");
const GOLDEN_CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden_config.json");

fn dp(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary starts")
}

/// A fresh scratch directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dp-playground-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).expect("the file was written")
}

/// The golden lines of the kind `key` ("release", "excess") as f64 bits.
fn golden(key: &str) -> Vec<u64> {
    common::GOLDEN_RUN
        .lines()
        .filter_map(|l| l.strip_prefix(key)?.trim().parse().ok())
        .map(|h: String| u64::from_str_radix(&h, 16).expect("hex"))
        .collect()
}

#[test]
fn the_committed_config_is_the_golden_run() {
    let text = std::fs::read_to_string(GOLDEN_CONFIG).expect("committed");
    assert_eq!(
        RunConfig::from_json(&text).expect("valid"),
        common::golden_config()
    );
}

#[test]
fn run_reproduces_the_golden_release_and_excess_curve_bit_for_bit() {
    let dir = scratch("golden");
    let stdout = ok(&dp(&["run", GOLDEN_CONFIG, "--out", dir.to_str().unwrap()]));
    assert!(
        stdout.contains("guarantee of every release together: ε = 0.7"),
        "{stdout}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&read(&dir, "dp-playground-run.json")).expect("JSON");
    let w: Vec<u64> = json["private"]["releases"][0]["w"]
        .as_array()
        .expect("the released point")
        .iter()
        .map(|v| v.as_f64().expect("a number").to_bits())
        .collect();
    assert_eq!(w, golden("release"), "the released point's bits");
    assert_eq!(json["private"]["composed"]["epsilon"], 0.7);

    let csv = read(&dir, "dp-playground-diagnostics-NOT-PRIVATE.csv");
    let excess: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).expect("an excess cell"))
        .map(|c| c.parse::<f64>().expect("a number").to_bits())
        .collect();
    assert_eq!(
        excess,
        golden("excess"),
        "the excess curve's bits, release row included"
    );
    assert!(csv.trim_end().ends_with(",1"), "the release row is flagged");
}

#[test]
fn a_page_link_a_bare_hash_and_a_file_holding_the_link_give_the_config_files_bytes() {
    let config = common::golden_config().to_json();
    // The page writes its hash with encodeURIComponent; any percent-encoding decodes the same.
    let hash = utf8_percent_encode(&config, NON_ALPHANUMERIC).to_string();
    let link = format!("http://127.0.0.1:8000/#{hash}");
    let from_file = scratch("file");
    ok(&dp(&[
        "run",
        GOLDEN_CONFIG,
        "--out",
        from_file.to_str().unwrap(),
    ]));
    let holder = scratch("holder");
    std::fs::write(holder.join("link.txt"), format!("{link}\n")).unwrap();
    for (name, input) in [
        ("link", link.clone()),
        ("hash", format!("#{hash}")),
        (
            "holder",
            holder.join("link.txt").to_string_lossy().into_owned(),
        ),
    ] {
        let dir = scratch(&format!("via-{name}"));
        ok(&dp(&["run", &input, "--out", dir.to_str().unwrap()]));
        for file in [
            "dp-playground-run.json",
            "dp-playground-diagnostics-NOT-PRIVATE.csv",
        ] {
            assert_eq!(read(&dir, file), read(&from_file, file), "{name}: {file}");
        }
    }
}

/// A small sweep's files, on `threads` threads.
fn sweep_on(threads: &str) -> (String, String, Vec<String>) {
    let dir = scratch(&format!("sweep-{threads}"));
    let config = RunConfig {
        n: 300,
        d: 2,
        steps: 30,
        seed: 11,
        ..RunConfig::default()
    };
    std::fs::write(dir.join("config.json"), config.to_json()).unwrap();
    let stdout = ok(&dp(&[
        "sweep",
        dir.join("config.json").to_str().unwrap(),
        "--epsilon",
        "0.25,1,4",
        "--n",
        "200,400",
        "--algorithms",
        "noisy_gd,dp_sgd",
        "--repeats",
        "3",
        "--threads",
        threads,
        "--out",
        dir.to_str().unwrap(),
    ]));
    // The table, without the last line (where the files were written).
    let table = stdout
        .lines()
        .filter(|l| !l.starts_with("wrote "))
        .map(str::to_string)
        .collect();
    (
        read(&dir, "dp-playground-sweep-lanes.csv"),
        read(&dir, "dp-playground-sweep.csv"),
        table,
    )
}

#[test]
fn a_sweep_gives_the_same_numbers_on_one_thread_and_on_two() {
    let (lanes1, points1, table1) = sweep_on("1");
    let (lanes2, points2, table2) = sweep_on("2");
    // 2 algorithms × 2 n × 3 ε points × 3 repeats, each lane scored.
    assert_eq!(lanes1.lines().count(), 1 + 36, "{lanes1}");
    assert!(
        lanes1.lines().skip(1).all(|l| !l.ends_with(',')),
        "{lanes1}"
    );
    assert_eq!(lanes1, lanes2);
    assert_eq!(points1, points2);
    assert_eq!(table1, table2);
    // A slope along ε for each algorithm and n, and along n for each algorithm and ε.
    let slopes = |axis: &str| table1.iter().filter(|l| l.contains(axis)).count();
    assert_eq!(slopes("slope of ln(mean) against ln ε"), 4, "{table1:?}");
    assert_eq!(slopes("slope of ln(mean) against ln n"), 6, "{table1:?}");
}

#[test]
fn bad_input_exits_non_zero_with_a_message_and_no_panic() {
    let dir = scratch("bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"epsilon": -1}"#).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["run", "no-such-file.json"], "not a file"),
        (&["run", bad.to_str().unwrap()], "privacy ε"),
        (&["run", GOLDEN_CONFIG, "--csv", "x.csv"], "synthetic"),
        (
            &["sweep", GOLDEN_CONFIG, "--algorithms", "nope"],
            "not 'nope'",
        ),
        (&["sweep", GOLDEN_CONFIG, "--repeats", "0"], "repeat"),
    ];
    for (args, words) in cases {
        let out = dp(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// a sweep's flags are bounded before any work starts (`--threads 100000`
/// printed nothing for 20 s; a 200 × 200 grid with 100 repeats ran with no cap), and each error
/// names its flag, says what to do and stays under 300 characters (an unknown algorithm listed
/// all 27 keys in over 400).
#[test]
fn every_sweep_flag_is_bounded_and_its_error_names_the_flag_and_what_to_do() {
    let epsilons: Vec<String> = (1..=200).map(|i| (i as f64 / 10.0).to_string()).collect();
    let epsilons = epsilons.join(",");
    let ns: Vec<String> = (1..=200).map(|i| (100 * i).to_string()).collect();
    let ns = ns.join(",");
    let long_name = "x".repeat(400);
    let cases: [(&[&str], &str); 7] = [
        (&["--threads", "100000"], "--threads"),
        (&["--threads", "0"], "--threads"),
        (&["--repeats", "1000"], "--repeats"),
        (&["--epsilon=-1"], "--epsilon"),
        (
            &["--epsilon", &epsilons, "--n", &ns, "--repeats", "100"],
            "--epsilon",
        ),
        (&["--algorithms", &long_name], "--algorithms"),
        (&["--n", "5,100"], "--n"),
    ];
    for (flags, flag) in cases {
        let mut args = vec!["sweep", GOLDEN_CONFIG];
        args.extend_from_slice(flags);
        let start = std::time::Instant::now();
        let out = dp(&args);
        let took = start.elapsed().as_secs_f64();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.trim();
        assert!(!out.status.success(), "{flag} succeeded");
        assert!(took < 5.0, "{flag}: {took} s before the refusal");
        assert!(message.contains(flag), "{flag}: {message}");
        assert!(message.chars().count() <= 300, "{flag}: {message}");
        let acts = ["set", "enter", "use", "give", "lower", "change", "leave"];
        assert!(
            acts.iter().any(|verb| message.contains(verb)),
            "{flag}: says not what to do: {message}"
        );
    }
}

#[test]
fn help_shows_examples() {
    let help = ok(&dp(&["--help"]));
    assert!(help.contains("dp-playground run '"), "{help}");
    assert!(help.contains("dp-playground sweep"), "{help}");
}

#[test]
fn the_link_decoder_reads_what_the_page_writes_and_names_what_it_cannot_read() {
    let config = RunConfig {
        epsilon: 0.5,
        seed: 42,
        ..RunConfig::default()
    };
    let hash = utf8_percent_encode(&config.to_json(), NON_ALPHANUMERIC).to_string();
    for link in [
        format!("http://127.0.0.1:8000/#{hash}"),
        format!("#{hash}"),
        hash.clone(),
    ] {
        let (read, errors) = RunConfig::from_link(&link);
        assert!(errors.is_empty(), "{link}: {errors:?}");
        assert_eq!(read, config, "{link}");
    }
    // A page URL without settings, or an empty hash: the defaults, silently (as the page).
    for bare in ["http://127.0.0.1:8000/", "http://127.0.0.1:8000/#", ""] {
        let (read, errors) = RunConfig::from_link(bare);
        assert!(errors.is_empty(), "{bare}: {errors:?}");
        assert_eq!(read, RunConfig::default());
    }
    // Bytes that are not UTF-8 once decoded: the defaults, and the error says "link".
    let (read, errors) = RunConfig::from_link("http://x/#%FF%FE");
    assert_eq!(read, RunConfig::default());
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field(), Some("link"), "{}", errors[0]);
}

mod sweep {
    use dp_playground::config::RunConfig;
    use dp_playground::session::Lab;
    use dp_playground::session::export::run_to_end;
    use dp_playground::session::problem::ReferenceClock;
    use dp_playground::session::sweep::{SweepSpec, loglog_slope, run_sequential};

    fn spec() -> SweepSpec {
        SweepSpec {
            base: RunConfig {
                n: 200,
                d: 2,
                steps: 10,
                seed: 5,
                ..RunConfig::default()
            },
            epsilons: vec![0.5, 2.0],
            ns: Vec::new(),
            algorithms: Vec::new(),
            repeats: 2,
        }
    }

    #[test]
    fn a_lane_of_the_sweep_releases_what_the_same_run_releases() {
        let points = spec().points().expect("valid");
        let lanes = run_sequential(&points).expect("runs");
        assert_eq!(lanes.len(), 4);
        // The second point (ε = 2) run as `dp-playground run` runs it: the same metrics, bit
        // for bit.
        let mut lab = Lab::with_clock(points[1].config().clone(), None, ReferenceClock::WorkOnly)
            .expect("valid");
        let record = run_to_end(&mut lab);
        let metrics: Vec<Option<u64>> = record
            .releases()
            .map(|(_, _, r)| r.excess.map(f64::to_bits))
            .collect();
        let swept: Vec<Option<u64>> = lanes[2..4].iter().map(|v| v.map(f64::to_bits)).collect();
        assert_eq!(metrics, swept);
        assert!(swept.iter().all(Option::is_some));
    }

    #[test]
    fn the_slope_of_a_power_law_is_its_exponent() {
        let xs = [1.0, 2.0, 4.0, 8.0];
        let ys: Vec<f64> = xs.iter().map(|x: &f64| 3.0 * x.powf(-2.0)).collect();
        assert!((loglog_slope(&xs, &ys) + 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_refused_point_is_named() {
        let mut s = spec();
        s.epsilons = vec![1.0, -1.0];
        let e = s.points().expect_err("ε < 0 is refused").to_string();
        assert!(e.contains("ε = -1"), "{e}");
    }
}

#[test]
fn a_swept_algorithm_gets_its_needs_met_as_on_the_page_and_says_so() {
    // Output perturbation needs a ridge the golden config does not have: picked as from the menu.
    let dir = scratch("picked");
    let out = dp(&[
        "sweep",
        GOLDEN_CONFIG,
        "--epsilon",
        "0.5,2",
        "--algorithms",
        "noisy_gd,output_perturbation",
        "--repeats",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("for output_perturbation:"), "{stderr}");
    let lanes = read(&dir, "dp-playground-sweep-lanes.csv");
    assert_eq!(lanes.matches("output_perturbation,").count(), 4, "{lanes}");
}

/// The layering check, also run from a shell as `scripts/layers`.
#[path = "../../scripts/layers.rs"]
mod layers;

/// The layering of the workspace (src/ and crates/*/src/): the import cycles between top-level
/// modules, test code left out.
mod layering {
    use super::layers;
    use std::path::Path;

    /// No cycle at all: every strongly connected component of top-level modules (across the
    /// workspace's crates) is a single module. A cycle fails the test with the report of the
    /// references that form it.
    #[test]
    fn no_import_cycle_between_top_level_modules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (tops, refs) = layers::scan(root).expect("src/ and crates/*/src/ read");
        // The core crate's modules are nodes too (a module that moved there stays in the graph).
        for m in ["privacy", "linalg", "loss", "fused", "theory", "controls"] {
            assert!(tops.contains(m), "{m} is missing from {tops:?}");
        }
        let (report, cycles) = layers::report(&refs);
        assert!(cycles.is_empty(), "\n{report}");
    }

    /// The check on a made-up crate: a grouped `use`, a path in code, `super` up to the root and
    /// a doc link count; a comment, a string and test code do not.
    #[test]
    fn the_check_finds_a_cycle_and_leaves_test_code_out() {
        let root =
            std::env::temp_dir().join(format!("dp-playground-layers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |path: &str, text: &str| {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        write(
            "src/lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub use d::Thing;\n",
        );
        write("src/a/mod.rs", "mod inner;\nuse crate::{b::f, c};\n");
        write(
            "src/a/inner.rs",
            "// crate::d::x\nconst S: &str = \"crate::d\";\n",
        );
        write(
            "src/b.rs",
            "pub fn f() { super::a::g() }\n#[cfg(test)]\nmod tests { use crate::d::x; }\n",
        );
        write("src/c.rs", "/// See [`crate::Thing`].\npub fn h() {}\n");
        write(
            "src/d.rs",
            "pub struct Thing;\n#[cfg(test)]\nfn t() { crate::c::h() }\n",
        );
        let (tops, refs) = layers::scan(&root).expect("the made-up tree reads");
        assert_eq!(tops.len(), 4, "{tops:?}");
        let (report, cycles) = layers::report(&refs);
        // a -> b (grouped use), b -> a (super), a -> c, c -> d (a doc link to a re-export); the
        // test code's b -> d and d -> c, and the comment's and string's a -> d, are left out.
        assert_eq!(
            cycles,
            vec![vec!["a".to_string(), "b".to_string()]],
            "{report}"
        );
        assert_eq!(refs.iter().filter(|r| r.test).count(), 2, "{refs:?}");
        assert!(
            refs.iter().any(|r| r.from == "c" && r.to == "d" && r.doc),
            "{refs:?}"
        );
        assert!(
            !refs.iter().any(|r| r.from == "a" && r.to == "d"),
            "{refs:?}"
        );
        // With test code counted, d -> c -> d is a cycle: reported apart, not a failure.
        assert!(report.contains("With test code counted too"), "{report}");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// The check on a made-up workspace: a member crate's modules (crates/low, library `low`) are
    /// nodes of the same graph, a path or doc link through the member's library name counts,
    /// and a cycle inside the member is found and named by its files there.
    #[test]
    fn the_check_reads_the_member_crates_and_finds_a_cycle_in_one() {
        let root =
            std::env::temp_dir().join(format!("dp-playground-layers-ws-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |path: &str, text: &str| {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        write("Cargo.toml", "[package]\nname = \"top\"\n");
        write("src/lib.rs", "pub mod a;\npub use low::{m, n, o};\n");
        write(
            "src/a.rs",
            "use low::m::f;\n/// See [`low::n::g`].\npub fn h() {}\n",
        );
        write(
            "crates/low/Cargo.toml",
            "[package]\nname = \"low-crate\"\n\n[lib]\nname = \"low\"\n",
        );
        write(
            "crates/low/src/lib.rs",
            "pub mod m;\npub mod n;\npub mod o;\n",
        );
        write("crates/low/src/m.rs", "pub fn f() { crate::n::g() }\n");
        write(
            "crates/low/src/n.rs",
            "pub fn g() {}\npub fn k() { crate::m::f() }\n",
        );
        write(
            "crates/low/src/o.rs",
            "#[cfg(test)]\nmod tests { use crate::m::f; }\n",
        );
        let (tops, refs) = layers::scan(&root).expect("the made-up workspace reads");
        let tops: Vec<&str> = tops.iter().map(String::as_str).collect();
        assert_eq!(tops, ["a", "m", "n", "o"]);
        let (report, cycles) = layers::report(&refs);
        assert_eq!(
            cycles,
            vec![vec!["m".to_string(), "n".to_string()]],
            "{report}"
        );
        assert!(report.contains("crates/low/src/n.rs:2"), "{report}");
        // a -> m in code and a -> n in a doc link, through the member's library name.
        assert!(
            refs.iter().any(|r| r.from == "a" && r.to == "m" && !r.doc),
            "{refs:?}"
        );
        assert!(
            refs.iter().any(|r| r.from == "a" && r.to == "n" && r.doc),
            "{refs:?}"
        );
        assert!(refs.iter().any(|r| r.from == "o" && r.test), "{refs:?}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
