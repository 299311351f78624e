//! `dp-playground`: the page's runs from a terminal (docs/GUIDE.md, "From a terminal").
//!
//! - `run <link | config.json | file holding a link>` reproduces a page run bit for bit and
//!   writes the same run JSON and diagnostics CSV as the page's Export buttons;
//! - `sweep <link | config.json> --epsilon … --n … --algorithms … --repeats R` runs a grid of
//!   runs on every core and prints the excess risk per point with its fitted log-log slope;
//! - `cards` prints the algorithm cards' prose as JSON: the page's `pkg/cards.json`, which the
//!   wasm module leaves out (`build_pkg` in scripts/setup.sh writes it).
//!
//! Only arguments, threads and files live here: the link decoder is [`RunConfig::from_link`], the
//! run is a [`Lab`], the files are [`export`], the grid and its summary are [`sweep`].

#[cfg(target_arch = "wasm32")]
fn main() {
    // The terminal binary is native only; the wasm build is the page's (crates/wasm/src/wasm).
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    use clap::{Args, Parser, Subcommand};
    use rayon::prelude::*;

    use dp_playground::config::{AlgorithmKind, DataSource, RunConfig};
    use dp_playground::session::export::{self, DIAGNOSTICS_CSV, RUN_JSON};
    use dp_playground::session::problem::ReferenceClock;
    use dp_playground::session::publish::compose_run;
    use dp_playground::session::sweep::{self, Summary, SweepSpec};
    use dp_playground::session::{Lab, Session};

    const EXAMPLES: &str = "\
Examples:
  # The run of a page link (copy it with \"Copy link\"; quote it for the shell):
  dp-playground run 'http://127.0.0.1:8000/#%7B%22epsilon%22%3A0.5%2C%22seed%22%3A42%7D'
  # The same from a settings file (the JSON of a link, or a file holding the link), files to out/:
  dp-playground run config.json --out out/
  # A run on a CSV file (the link says \"data\": \"csv\"; the label in the first column):
  dp-playground run link.txt --csv data.csv --label first
  # Excess risk against ε, two algorithms, 20 repeats per point, on every core:
  dp-playground sweep config.json --epsilon 0.1,0.3,1,3,10 \\
      --algorithms noisy_gd,output_perturbation --repeats 20
  # Against n at the link's ε, on 4 threads:
  dp-playground sweep link.txt --n 500,1000,2000,4000 --repeats 10 --threads 4";

    /// The dp-playground page's runs from a terminal: the same code, the same bits, the same files.
    #[derive(Parser)]
    #[command(name = "dp-playground", version, after_help = EXAMPLES)]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// Runs a page link or a config to its releases, prints the guarantee and the released
        /// points, and writes the page's run JSON and diagnostics CSV.
        #[command(after_help = EXAMPLES)]
        Run(RunArgs),
        /// Runs a sweep (ε values × n values × algorithms × R repeats) on every core, prints the
        /// excess risk per point (mean and spread) and the fitted log-log slope, and writes CSV.
        #[command(after_help = EXAMPLES)]
        Sweep(SweepArgs),
        /// Prints the algorithm cards' prose (paper, assumptions, privacy, utility, what to
        /// watch, each setting's help) as JSON: the page's pkg/cards.json, which the wasm module
        /// leaves out to stay small.
        Cards,
    }

    #[derive(Args)]
    struct RunArgs {
        /// A page link (the whole URL, or the part after '#'), a config.json, or a file holding
        /// a link.
        input: String,
        /// The CSV file of a config whose data are "csv" (a link cannot carry the file).
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// The CSV's label column: last, first, a 1-based column number or a header name.
        #[arg(long, value_name = "COLUMN", default_value = "last")]
        label: String,
        /// Where to write the run JSON and the diagnostics CSV.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
    }

    #[derive(Args)]
    struct SweepArgs {
        /// The settings every point shares: a page link, a config.json or a file holding a link.
        input: String,
        /// ε values, comma-separated (default: the config's ε).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        epsilon: Vec<f64>,
        /// n values, comma-separated (default: the config's n).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        n: Vec<usize>,
        /// Algorithms, comma-separated, as a link names them (default: the config's algorithm).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        algorithms: Vec<String>,
        /// Repeats R per point (independent noise streams on the point's data).
        #[arg(long, value_name = "R", default_value_t = 10)]
        repeats: usize,
        /// Worker threads (default: every core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Where to write dp-playground-sweep.csv and dp-playground-sweep-lanes.csv.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
    }

    pub fn main() -> ExitCode {
        let cli = Cli::parse();
        let result = match cli.command {
            Command::Run(args) => run(args),
            Command::Sweep(args) => run_sweep(args),
            Command::Cards => {
                println!("{}", dp_playground::catalog::prose_json());
                Ok(())
            }
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        }
    }

    /// The config of `input`: a page link through the page's own lenient reader (a field it
    /// cannot use falls back to its default, as on the page, with a warning), a JSON config read
    /// strictly, or a file holding either.
    fn read_config(input: &str) -> Result<RunConfig, String> {
        let path = Path::new(input);
        let text = if path.is_file() {
            // A config or a link is a few KB: a larger file is refused before it is read.
            let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            if size > MAX_INPUT_BYTES {
                return Err(format!(
                    "{input}: give a config.json or a file holding a page link, of at most {} KiB (now {} KiB)",
                    MAX_INPUT_BYTES >> 10,
                    size >> 10
                ));
            }
            fs::read_to_string(path).map_err(|e| format!("{input}: {e}"))?
        } else {
            input.to_string()
        };
        let text = text.trim();
        if text.starts_with('{') {
            return RunConfig::from_json(text).map_err(|e| {
                format!("the config's {e} (fix it in the file, or make a link on the page)")
            });
        }
        if !text.contains('#') && !text.starts_with("%7B") && !text.starts_with("%7b") {
            return Err(format!(
                "{input}: not a file, nor a page link (a URL with '#…' from \"Copy link\"), nor a JSON config"
            ));
        }
        let (config, errors) = RunConfig::from_link(text);
        for e in errors {
            eprintln!("warning: the link's {e}; the default is used, as the page does");
        }
        Ok(config)
    }

    fn write(dir: &Path, name: &str, text: &str) -> Result<PathBuf, String> {
        fs::create_dir_all(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    fn run(args: RunArgs) -> Result<(), String> {
        let config = read_config(&args.input)?;
        let file = match (config.data, &args.csv) {
            (DataSource::Csv, Some(path)) => {
                let bytes = fs::read(path).map_err(|e| format!("--csv {}: {e}", path.display()))?;
                let data = dp_playground::config::pose::load_file(&bytes, &config, &args.label)
                    .map_err(|e| format!("--csv {}: {e}", path.display()))?;
                Some(data)
            }
            (DataSource::Csv, None) => {
                return Err("the config's data are a CSV file, which a link cannot carry: pass it with --csv FILE".into());
            }
            (_, Some(_)) => {
                return Err("--csv given, but the config's data are synthetic: make the link on the page with the file loaded (data = csv)".into());
            }
            (_, None) => None,
        };
        if config.unseeded_noise {
            eprintln!(
                "warning: unseeded noise (from the OS): this run does not reproduce a page run"
            );
        }
        let composed = compose_run(&config).map_err(|e| format!("the config's {e}"))?;
        // The reference (a NOT private diagnostic) stops at its work cap, not at the page's clock,
        // so the files do not depend on this machine's load.
        let mut lab = Lab::with_clock(config, file, ReferenceClock::WorkOnly)
            .map_err(|e| format!("the config's {e}"))?;
        let record = export::run_to_end(&mut lab);
        println!(
            "guarantee of every release together: ε = {}, δ = {} ({}; {})",
            composed.epsilon,
            composed.delta,
            composed.relation.describe(),
            composed.method
        );
        if composed.not_private {
            println!("NOT PRIVATE: a demonstration of a pitfall ran");
        }
        if let Some(seeded) = composed.seeded {
            println!("{seeded}");
        }
        for (a, r, release) in record.releases() {
            let kind = lab.previews()[a].kind.key();
            let w: Vec<String> = release.w().iter().map(|v| format!("{v:?}")).collect();
            print!("release {kind} repeat {r}: w = [{}]", w.join(", "));
            if let Some(y) = release.y() {
                let y: Vec<String> = y.iter().map(|v| format!("{v:?}")).collect();
                print!(", y = [{}]", y.join(", "));
            }
            match release.excess {
                Some(e) => println!("  (excess {e:.4e}, NOT private)"),
                None => println!("  (excess: reference unavailable)"),
            }
        }
        let json = export::run_json(&lab, &record).map_err(|e| e.to_string())?;
        let a = write(&args.out, RUN_JSON, &json)?;
        let b = write(&args.out, DIAGNOSTICS_CSV, &export::run_csv(&lab, &record))?;
        println!("wrote {} and {} (NOT private)", a.display(), b.display());
        Ok(())
    }

    /// Largest config or link file read: ten times the longest link the page reads.
    const MAX_INPUT_BYTES: u64 = 10 * dp_playground::config::MAX_LINK_BYTES as u64;

    /// Most worker threads a sweep starts (`--threads 100000` tried to start them all
    /// and printed nothing for 20 s); far more than any machine's cores, which are the default.
    const MAX_THREADS: usize = 256;

    fn algorithm(name: &str) -> Result<AlgorithmKind, String> {
        // The list of all 27 keys made a message of over 400 characters; the keys are
        // in the page's menu and in `cards` (below the 300 a message may take).
        let shown: String = name.trim().chars().take(40).collect();
        serde_json::from_value(serde_json::Value::String(name.trim().to_string())).map_err(|_| {
            format!(
                "--algorithms: use an algorithm's key, as a page link names it (e.g. noisy_gd, \
                 output_perturbation; `dp-playground cards` lists them all), not '{shown}'"
            )
        })
    }

    /// The sweep's flags in range, each error naming its flag and what to do.
    fn check_sweep_flags(args: &SweepArgs) -> Result<(), String> {
        if let Some(t) = args.threads
            && !(1..=MAX_THREADS).contains(&t)
        {
            return Err(format!(
                "--threads: set it to 1 to {MAX_THREADS}, or leave it out to use every core (now {t})"
            ));
        }
        if !(1..=sweep::MAX_SWEEP_REPEATS).contains(&args.repeats) {
            return Err(format!(
                "--repeats: set it to 1 to {} (now {})",
                sweep::MAX_SWEEP_REPEATS,
                args.repeats
            ));
        }
        if let Some(e) = args.epsilon.iter().find(|e| !(e.is_finite() && **e > 0.0)) {
            return Err(format!("--epsilon: enter values of ε > 0 (now {e})"));
        }
        let count = |v: usize| v.max(1);
        let grid = count(args.epsilon.len()) * count(args.n.len()) * count(args.algorithms.len());
        if grid > sweep::MAX_SWEEP_POINTS || grid * args.repeats > sweep::MAX_SWEEP_LANES {
            return Err(format!(
                "--epsilon, --n, --algorithms or --repeats: give fewer: at most {} points \
                 (ε values × n values × algorithms) and {} runs in all (now {grid} points × {})",
                sweep::MAX_SWEEP_POINTS,
                sweep::MAX_SWEEP_LANES,
                args.repeats
            ));
        }
        Ok(())
    }

    fn run_sweep(args: SweepArgs) -> Result<(), String> {
        check_sweep_flags(&args)?;
        let base = read_config(&args.input)?;
        if base.data == DataSource::Csv {
            return Err(
                "a sweep generates its data at each n: use a config with synthetic data".into(),
            );
        }
        let spec = SweepSpec {
            base,
            epsilons: args.epsilon,
            ns: args.n,
            algorithms: args
                .algorithms
                .iter()
                .map(|a| algorithm(a))
                .collect::<Result<_, _>>()?,
            repeats: args.repeats,
        };
        let points = spec
            .points()
            .map_err(|e| format!("--epsilon, --n or --algorithms: {e}"))?;
        let mut noted = Vec::new();
        for p in points.iter().filter(|p| !p.notes.is_empty()) {
            if !noted.contains(&p.algorithm) {
                noted.push(p.algorithm);
                eprintln!("for {}: {}", p.algorithm.key(), p.notes.join("; "));
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or(0))
            .build()
            .map_err(|e| format!("--threads: {e}"))?;
        eprintln!(
            "{} points × {} repeats on {} threads…",
            points.len(),
            spec.repeats,
            pool.current_num_threads()
        );
        // Every point's problem (data, reference) in parallel, then every lane of every point:
        // lanes are independent, so the order they run in cannot change a bit.
        let mut labs = pool
            .install(|| {
                points
                    .par_iter()
                    .map(|p| p.lab())
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| e.to_string())?;
        let mut sessions: Vec<&mut Session> = labs.iter_mut().flat_map(Lab::sessions_mut).collect();
        let lanes: Vec<Option<f64>> =
            pool.install(|| sessions.par_iter_mut().map(|s| sweep::finish(s)).collect());
        let summary = Summary::new(points, spec.repeats, lanes);
        print!("{}", summary.table());
        let a = write(&args.out, "dp-playground-sweep.csv", &summary.points_csv())?;
        let b = write(
            &args.out,
            "dp-playground-sweep-lanes.csv",
            &summary.lanes_csv(),
        )?;
        println!(
            "wrote {} and {} (NOT private: excess risks of the raw data)",
            a.display(),
            b.display()
        );
        Ok(())
    }
}
