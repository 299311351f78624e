//! What a run publishes, and what it all costs together (docs/PRIVACY.md rule 7).
//!
//! - [`compose_run`] / [`compose_runs`]: the guarantee of *every* release a run (or a series of
//!   runs on one file) makes — compared algorithms × repeats — from the configs alone.
//! - [`private_part`]: the one definition of the private export: the released points, their
//!   ledgers, each algorithm's guarantee and the composed one. Everything else a run shows (paths,
//!   losses, noise norms, certificates) is a diagnostic of the raw data and the noise.

use serde::Serialize;

use crate::algo::registry;
use crate::config::menu;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::{Error, Result};
use crate::privacy::rdp::DEFAULT_ORDERS;
use crate::privacy::release::Published;
use crate::privacy::{Guarantee, Ledger, Rdp, Relation, Zcdp};

/// The form in which one release's guarantee composes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// ρ-zCDP (the guarantee's `rho`): ρ adds up.
    Zcdp,
    /// A Rényi-DP curve from an accountant: the curves add up order by order.
    Rdp,
    /// Pure ε-DP: ε adds up.
    Pure,
    /// (ε, δ)-DP only: ε and δ add up.
    Approx,
}

/// One algorithm's share of what a run publishes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    /// The algorithm (main or compared) whose releases these are.
    pub algorithm: AlgorithmKind,
    /// Releases it makes (the run's repeats, times the noise draws counted).
    pub releases: usize,
    /// The guarantee of each of them, as its ledger states it.
    pub guarantee: Guarantee,
    /// How they compose here (after any restatement under replace-one).
    pub form: Form,
}

/// The guarantee of everything a run (or a series of runs on one file) publishes together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composition {
    /// Released points in all.
    pub releases: usize,
    /// Total ε of every release together, at `delta`, under `relation`.
    pub epsilon: f64,
    /// Total δ: the releases' δs added up (after any restatement under replace-one), < 1.
    pub delta: f64,
    /// The relation the total holds under: the releases' own, or replace-one when they mix.
    pub relation: Relation,
    /// The total ρ when every release composes in zCDP.
    pub rho: Option<f64>,
    /// How the total was obtained, in words (which releases composed how).
    pub method: String,
    /// One share per algorithm of each run, in order (main, then `compare`).
    pub shares: Vec<Share>,
    /// Some release is NOT private: a demonstration ("demonstrate the pitfall", DP-SVRG "as
    /// printed"), or, in a private export, a release whose run failed in a way that depends on
    /// the data ([`Ledger::with_failure`]). The total then states what the correct mechanisms
    /// would have promised.
    pub not_private: bool,
    /// [`SEEDED_TOTAL`] when some release counted is seeded, else `None`:
    /// every statement of the total carries it (the page's composed line, the compare table's
    /// total, the private export).
    pub seeded: Option<&'static str>,
}

/// The seeded caveat of a composed total.
pub const SEEDED_TOTAL: &str = "seeded: the seed names every noise stream, so these releases demonstrate the mechanism and are not a private release (they count in the total all the same)";

/// One release's cost in its composable form, under the composition's relation.
enum Cost {
    Zcdp(f64),
    Rdp(Rdp),
    /// Pure ε-DP (its ε is the lane's `approx.0`).
    Pure,
    /// (ε, δ) only (the lane's `approx`); also what the other forms fall back to.
    Approx,
}

struct Lane {
    share: Share,
    cost: Cost,
    /// (ε, δ) of one release under the composition's relation (basic composition's terms).
    approx: (f64, f64),
}

/// The guarantee of every release `config` makes: each algorithm (main and compared) × repeats,
/// and as many times over as its noise draw counts (`noise_draw` k: draws 0 to k, each a release
/// on the same data, counted at these settings). From the config alone; seeded runs count too
/// (they publish their releases all the same).
pub fn compose_run(config: &RunConfig) -> Result<Composition> {
    // Saturating: a draw past `MAX_NOISE_DRAW` is refused by validation, not wrapped to 0 (on
    // wasm32 `usize` is `u32`).
    compose(
        &[(config, (config.noise_draw as usize).saturating_add(1))],
        config.noise_draw > 0,
    )
}

/// The guarantee of every release of every run in `configs`, made one after the other on the
/// same data (composition holds adaptively, so later settings may depend on earlier releases).
///
/// Rules, each a valid composition theorem, so their combination is valid too:
/// - releases with a zCDP form (`Guarantee::rho`) or an RDP curve (DP-SGD, certified DP-SVRG)
///   compose together: ρ and curves add up (Bun & Steinke 2016, Lemma 2.3; Mironov 2017,
///   Prop. 1), converted to (ε, δ) at the sum of their δs (Canonne, Kamath & Steinke 2020,
///   Prop. 12) — or by basic composition if that is smaller;
/// - the others (pure ε, or (ε, δ) only) add up by basic composition (Dwork & Roth 2014,
///   Thm 3.16), and so does the concentrated group's total with them;
/// - releases stated under different neighbouring relations are stated under replace-one, each
///   add/remove one by group privacy for two records (a replacement is a removal and an addition):
///   ρ → 4ρ (Bun & Steinke 2016, Prop. 1.9), ε → 2ε, δ → (1 + e^ε)δ.
///
/// Each config counts once, whatever its noise draw: the list itself is the runs that were made.
///
/// Equal configs are planned once and counted as many times as they ran (their releases are
/// alike), so a long list of re-runs costs one plan; at most [`MAX_COMPOSED_SETTINGS`] different
/// settings are composed (1,000 configs took 8–10 s, each planned anew).
pub fn compose_runs(configs: &[RunConfig]) -> Result<Composition> {
    let mut runs: Vec<(&RunConfig, usize)> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for c in configs {
        match seen.entry(c.to_json()) {
            std::collections::hash_map::Entry::Occupied(at) => runs[*at.get()].1 += 1,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(runs.len());
                runs.push((c, 1));
            }
        }
        if runs.len() > MAX_COMPOSED_SETTINGS {
            return Err(Error::invalid(
                "data",
                format!(
                    "load other data: at most {MAX_COMPOSED_SETTINGS} different settings are \
                     composed on one data set, and every run on these counts"
                ),
                "",
            ));
        }
    }
    compose(&runs, false)
}

/// The most different settings [`compose_runs`] composes: each is validated and planned (a plan
/// can calibrate numerically, ~1–10 ms), so the page's composition stays under about a second.
pub const MAX_COMPOSED_SETTINGS: usize = 256;

/// [`compose_runs`] of each config made `times` times (its releases are alike: the same plan);
/// `draws`: the times are noise draws of one run (a total δ ≥ 1 is then the noise draw's).
fn compose(runs: &[(&RunConfig, usize)], draws: bool) -> Result<Composition> {
    let mut lanes = Vec::new();
    let mut not_private = false;
    let mut seeded = None;
    for &(config, times) in runs {
        config.validate()?;
        if !config.unseeded_noise {
            seeded = Some(SEEDED_TOTAL);
        }
        for (i, kind) in config.algorithms().enumerate() {
            let lane = config.lane(kind);
            let plan =
                menu::plan(&lane).map_err(|e| if i == 0 { e } else { e.in_compare(kind) })?;
            not_private |= !plan.preview.is_private();
            let curve = plan.rdp();
            let g = plan.preview.guarantee;
            // A curve composes only under the relation it was computed for: DP-SGD and DP-SVRG
            // account in add/remove and restate a replace-one guarantee by group privacy, so
            // their add/remove curve says nothing about replace-one on its own.
            let curve = curve.filter(|c| c.relation == g.relation);
            let cost = match (curve, g.rho) {
                (Some(curve), _) => Cost::Rdp(curve),
                (None, Some(rho)) => Cost::Zcdp(rho),
                _ if g.delta == 0.0 => Cost::Pure,
                _ => Cost::Approx,
            };
            let form = match cost {
                Cost::Zcdp(_) => Form::Zcdp,
                Cost::Rdp(_) => Form::Rdp,
                Cost::Pure => Form::Pure,
                Cost::Approx => Form::Approx,
            };
            lanes.push(Lane {
                approx: (g.epsilon, g.delta),
                cost,
                share: Share {
                    algorithm: kind,
                    releases: config.repeats * times,
                    guarantee: g,
                    form,
                },
            });
        }
    }
    let first = lanes
        .first()
        .ok_or_else(|| Error::invalid("repeats", "at least one run", 0))?
        .share
        .guarantee
        .relation;
    let mixed = lanes.iter().any(|l| l.share.guarantee.relation != first);
    let relation = if mixed { Relation::ReplaceOne } else { first };
    if mixed {
        for lane in lanes
            .iter_mut()
            .filter(|l| l.share.guarantee.relation == Relation::AddRemove)
        {
            to_replace_one(lane);
        }
    }
    let releases: usize = lanes.iter().map(|l| l.share.releases).sum();
    if releases == 1 {
        // One release composes to itself (no conversion that could state it differently).
        let g = &lanes[0].share.guarantee;
        return Ok(Composition {
            releases,
            epsilon: lanes[0].approx.0,
            delta: lanes[0].approx.1,
            relation,
            rho: g.rho,
            method: "one release: its own guarantee".to_string(),
            shares: lanes.into_iter().map(|l| l.share).collect(),
            not_private,
            seeded,
        });
    }

    // The concentrated group: zCDP and RDP releases.
    let k = |l: &Lane| l.share.releases as f64;
    let concentrated: Vec<&Lane> = lanes
        .iter()
        .filter(|l| matches!(l.cost, Cost::Zcdp(_) | Cost::Rdp(_)))
        .collect();
    let rest: Vec<&Lane> = lanes
        .iter()
        .filter(|l| matches!(l.cost, Cost::Pure | Cost::Approx))
        .collect();
    let count = |ls: &[&Lane]| ls.iter().map(|l| l.share.releases).sum::<usize>();
    let mut words = Vec::new();
    let (mut epsilon, mut delta) = (0.0, 0.0);
    let mut rho_total = None;
    if !concentrated.is_empty() {
        let basic_eps: f64 = concentrated.iter().map(|l| k(l) * l.approx.0).sum();
        let group_delta: f64 = concentrated.iter().map(|l| k(l) * l.approx.1).sum();
        check_total_delta(group_delta, draws)?;
        let rho: f64 = concentrated
            .iter()
            .map(|l| match l.cost {
                Cost::Zcdp(r) => k(l) * r,
                _ => 0.0,
            })
            .sum();
        let has_rdp = concentrated.iter().any(|l| matches!(l.cost, Cost::Rdp(_)));
        let (converted, how) = if has_rdp {
            let orders: Vec<f64> = DEFAULT_ORDERS.iter().map(|&a| f64::from(a)).collect();
            let mut sum: Vec<f64> = orders.iter().map(|a| a * rho).collect();
            for l in &concentrated {
                if let Cost::Rdp(curve) = &l.cost {
                    for (s, e) in sum.iter_mut().zip(&curve.epsilons) {
                        *s += k(l) * e;
                    }
                }
            }
            let (e, _) = Rdp::new(orders, sum, relation)?.epsilon(group_delta)?;
            (
                e,
                "Rényi DP (the curves add up, a zCDP ρ counting as ρα at order α)",
            )
        } else {
            rho_total = Some(rho);
            (
                Zcdp::new(rho, relation)?.epsilon(group_delta)?,
                "zCDP (ρ adds up)",
            )
        };
        let n = count(&concentrated);
        if converted < basic_eps {
            epsilon += converted;
            words.push(format!(
                "{n} release{} composed in {how}, converted at δ = {group_delta:.1e}",
                plural(n)
            ));
        } else {
            epsilon += basic_eps;
            rho_total = None;
            words.push(format!(
                "{n} release{} by basic composition (ε and δ add up; smaller here than {how})",
                plural(n)
            ));
        }
        delta += group_delta;
    }
    if !rest.is_empty() {
        epsilon += rest.iter().map(|l| k(l) * l.approx.0).sum::<f64>();
        delta += rest.iter().map(|l| k(l) * l.approx.1).sum::<f64>();
        let n = count(&rest);
        let pure = rest.iter().all(|l| matches!(l.cost, Cost::Pure));
        words.push(if pure {
            format!("{n} pure-ε release{}: ε adds up", plural(n))
        } else {
            format!(
                "{n} release{} with an (ε, δ) form only: ε and δ add up",
                plural(n)
            )
        });
        if !concentrated.is_empty() {
            words.push("the two groups add up by basic composition".to_string());
            rho_total = None;
        }
    }
    check_total_delta(delta, draws)?;
    if mixed {
        words.push(
            "releases stated under add/remove are restated under replace-one by group privacy (2ε, (1 + e^ε)δ; 4ρ)"
                .to_string(),
        );
    }
    Ok(Composition {
        releases,
        epsilon,
        delta,
        relation,
        rho: rho_total,
        method: words.join("; "),
        shares: lanes.into_iter().map(|l| l.share).collect(),
        not_private,
        seeded,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A total δ ≥ 1 promises nothing: fewer noise draws, repeats (or compared algorithms, or a
/// smaller δ) fix it; the error names the noise draw where a run counts more than one draw (the
/// page's "New noise draw" is what raised the count), the repeats otherwise.
fn check_total_delta(delta: f64, draws: bool) -> Result<()> {
    if delta < 1.0 {
        return Ok(());
    }
    let delta = format!("total δ {delta:.3}");
    if draws {
        return Err(Error::invalid(
            "noise_draw",
            "lower it, the repeats or δ: every draw is another release, and their δs add up to ≥ 1",
            delta,
        ));
    }
    Err(Error::invalid(
        "repeats",
        "lower it, the compared algorithms or δ: the releases' δs add up to ≥ 1",
        delta,
    ))
}

/// Group privacy for the two records of a replacement, in the lane's own form. For (ε, δ):
/// P[M(D) ∈ S] ≤ e^ε (e^ε P[M(D″) ∈ S] + δ) + δ, i.e. (2ε, (1 + e^ε)δ). An RDP curve falls back
/// to its (ε, δ) statement first.
fn to_replace_one(lane: &mut Lane) {
    let (e, d) = lane.approx;
    lane.approx = (2.0 * e, (1.0 + libm::exp(e)) * d);
    lane.cost = match lane.cost {
        Cost::Zcdp(rho) => Cost::Zcdp(4.0 * rho),
        Cost::Pure => Cost::Pure,
        Cost::Rdp(_) | Cost::Approx => Cost::Approx,
    };
    lane.share.form = match lane.cost {
        Cost::Zcdp(_) => Form::Zcdp,
        Cost::Pure => Form::Pure,
        _ => Form::Approx,
    };
}

/// One released point as a lane published it: which lane, the point, its ledger. The point is
/// what the run released ([`crate::algo::run::Run::release`]): a
/// [`crate::privacy::release::Noised`] made only through its noise, or a demonstration typed
/// NOT PRIVATE; no plain vector is accepted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Released {
    /// Index of the algorithm (0 = the main one, then `compare` in order).
    pub algorithm: usize,
    /// Index r of the repeat (the noise stream) that released it.
    pub repeat: usize,
    /// The released point w ∈ W (x of a game, with its y), serialised as `w` and `y`.
    #[serde(flatten)]
    pub published: Published,
    /// Its ledger as the lane stated it (the export drops its data-dependent events).
    pub ledger: Ledger,
}

/// One release in the private export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivateRelease {
    /// The algorithm that released it.
    pub algorithm: AlgorithmKind,
    /// Index r of the repeat (the noise stream) that released it.
    pub repeat: usize,
    /// The released point w ∈ W (x of a game, with its y), serialised as `w` and `y` (and
    /// `not_private: true` for a demonstration).
    #[serde(flatten)]
    pub published: Published,
    /// Its ledger without the run's data-dependent path events, with every failure that made it
    /// NOT PRIVATE ([`Ledger::private`]).
    pub ledger: Ledger,
}

/// The private part of a run's export: what the guarantee covers, and nothing else.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrivatePart {
    /// [`PRIVATE_NOTE`]: what this part covers, for whoever opens the file.
    pub note: &'static str,
    /// The settings (chosen before the data were read).
    pub config: RunConfig,
    /// The guarantee of everything the run publishes together.
    pub composed: Composition,
    /// Every released point, with its ledger.
    pub releases: Vec<PrivateRelease>,
}

/// The note on the private part.
pub const PRIVATE_NOTE: &str = "PRIVATE PART: the released points w, each with its ledger, and \
the guarantee of all of them together (`composed`). The guarantee covers exactly these points; \
settings were fixed before the data were read. A seeded run is a demonstration: its seed lets \
anyone remove the noise.";

/// The private part of a run's export, from its config and the points it released.
pub fn private_part(config: &RunConfig, released: Vec<Released>) -> Result<PrivatePart> {
    let mut composed = compose_run(config)?;
    // A run-time failure that depends on the data ([`Ledger::with_failure`]) makes the whole
    // composed statement NOT PRIVATE, not only its own release.
    composed.not_private |= released.iter().any(|r| !r.ledger.is_private());
    // So does a demonstration that publishes without noise.
    composed.not_private |= released
        .iter()
        .any(|r| matches!(r.published, Published::NotPrivate(_)));
    let kinds: Vec<AlgorithmKind> = config.algorithms().collect();
    let releases = released
        .into_iter()
        .map(|r| {
            let algorithm = *kinds.get(r.algorithm).ok_or_else(|| {
                Error::invalid("algorithm", "an algorithm of the run", r.algorithm)
            })?;
            // A NaN or ∞ coordinate was exported as `null`, a point no one can use
            // and no guarantee describes; the export is refused instead.
            let finite = r
                .published
                .x()
                .iter()
                .chain(r.published.y().into_iter().flatten())
                .all(|v| v.is_finite());
            if !finite {
                return Err(Error::invalid(
                    "algorithm",
                    format!(
                        "choose a smaller radius, bound or step: {}'s release {} is not a \
                         finite point, so it is not exported",
                        registry::family(algorithm).card.name,
                        r.repeat + 1
                    ),
                    "",
                ));
            }
            Ok(PrivateRelease {
                algorithm,
                repeat: r.repeat,
                published: r.published,
                // Which certified path ran is a diagnostic; a failure stays (NOT PRIVATE).
                ledger: r.ledger.private(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(PrivatePart {
        note: PRIVATE_NOTE,
        config: config.clone(),
        composed,
        releases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AlgorithmKind;

    fn gd(repeats: usize) -> RunConfig {
        RunConfig {
            repeats,
            ..RunConfig::default()
        }
    }

    #[test]
    fn k_identical_gaussian_lanes_compose_in_zcdp_to_less_than_k_epsilon() {
        let one = compose_run(&gd(1)).unwrap();
        let ten = compose_run(&gd(10)).unwrap();
        assert_eq!((one.releases, ten.releases), (1, 10));
        let g = &ten.shares[0].guarantee;
        assert_eq!(ten.shares[0].form, Form::Zcdp);
        // ρ adds up exactly, and δ is what basic composition would spend.
        assert!((ten.rho.unwrap() - 10.0 * g.rho.unwrap()).abs() < 1e-15);
        assert!((ten.delta - 10.0 * g.delta).abs() < 1e-18);
        // zCDP composition grows like √k, not k: at ε = 1, δ = 1e-6 it is ≈ 3 for k = 10.
        assert!(ten.epsilon < 0.5 * 10.0 * g.epsilon, "{ten:?}");
        assert!(ten.epsilon > g.epsilon);
        // The total is the conversion of 10ρ at 10δ.
        let direct = Zcdp::new(10.0 * g.rho.unwrap(), g.relation)
            .unwrap()
            .epsilon(10.0 * g.delta)
            .unwrap();
        assert_eq!(ten.epsilon, direct);
        assert_eq!(one.epsilon, g.epsilon);
    }

    #[test]
    fn pure_lanes_sum() {
        let config = RunConfig {
            algorithm: AlgorithmKind::ExponentialGrid,
            delta: 0.0,
            repeats: 7,
            ..RunConfig::default()
        };
        let c = compose_run(&config).unwrap();
        let e = c.shares[0].guarantee.epsilon;
        assert_eq!(c.shares[0].form, Form::Pure);
        assert_eq!((c.epsilon, c.delta), (7.0 * e, 0.0));
        assert!(c.method.contains("ε adds up"), "{}", c.method);
    }

    #[test]
    fn mixed_lanes_compose_their_concentrated_part_and_add_the_rest() {
        // DP-GD (zCDP) with output perturbation (an (ε, δ) statement only) and DP-SGD (under
        // replace-one an (ε, δ) statement by group privacy over its add/remove accountant).
        let config = RunConfig {
            n: 300,
            l2: 0.1,
            compare: vec![AlgorithmKind::OutputPerturbation, AlgorithmKind::DpSgd],
            repeats: 4,
            ..RunConfig::default()
        };
        let c = compose_run(&config).unwrap();
        assert_eq!(c.releases, 12);
        let forms: Vec<Form> = c.shares.iter().map(|s| s.form).collect();
        let basic: f64 = c
            .shares
            .iter()
            .map(|s| 4.0 * s.guarantee.epsilon)
            .sum::<f64>();
        assert_eq!(c.relation, Relation::ReplaceOne);
        assert_eq!(forms, [Form::Zcdp, Form::Approx, Form::Approx]);
        let op = &c.shares[1].guarantee;
        let sgd = &c.shares[2].guarantee;
        assert_eq!(sgd.relation, Relation::ReplaceOne);
        let rest = 4.0 * op.epsilon + 4.0 * sgd.epsilon;
        let gd = &c.shares[0].guarantee;
        let gd_total = Zcdp::new(4.0 * gd.rho.unwrap(), Relation::ReplaceOne)
            .unwrap()
            .epsilon(4.0 * gd.delta)
            .unwrap();
        assert!((c.epsilon - (gd_total + rest)).abs() < 1e-12, "{c:?}");
        assert!(c.epsilon < basic);
        assert!(c.method.contains("zCDP"), "{}", c.method);
        assert!(c.rho.is_none());
        // Under add/remove throughout, DP-GD and DP-SGD compose together in RDP.
        let same = RunConfig {
            relation: Relation::AddRemove,
            compare: vec![AlgorithmKind::DpSgd],
            ..config
        };
        let c = compose_run(&same).unwrap();
        assert_eq!(c.relation, Relation::AddRemove);
        let basic: f64 = c.shares.iter().map(|s| 4.0 * s.guarantee.epsilon).sum();
        assert!(c.epsilon < basic, "{c:?}");
        assert!(c.method.contains("Rényi"), "{}", c.method);
    }

    #[test]
    fn a_replace_one_total_never_composes_add_remove_curves_as_if_they_were_replace_one() {
        // DP-SGD and DP-SVRG account in add/remove at (ε/2, ·) and restate replace-one by group
        // privacy: composing their add/remove curves under the replace-one label would state two
        // releases below the ε of one.
        for algorithm in [AlgorithmKind::DpSgd, AlgorithmKind::DpSvrg] {
            let config = RunConfig {
                algorithm,
                l2: 0.1,
                repeats: 2,
                ..RunConfig::default()
            };
            let c = compose_run(&config).unwrap();
            let one = &c.shares[0].guarantee;
            assert_eq!(one.relation, Relation::ReplaceOne);
            assert!(c.epsilon >= one.epsilon, "{algorithm:?}: {c:?}");
            assert!(c.shares.iter().all(|s| s.form == Form::Approx), "{c:?}");
        }
    }

    #[test]
    fn the_private_part_drops_which_certified_path_ran_and_keeps_every_failure() {
        // A fallback happens on some datasets and not on their neighbours: the private export
        // must state the same ledger either way. A failure the guarantee does not cover (a
        // certificate that never held) must not be hidden: it stays and says NOT PRIVATE.
        let config = gd(1);
        let mut session = crate::session::Session::new(RunConfig {
            n: 200,
            steps: 5,
            ..config.clone()
        })
        .unwrap();
        let release = session.advance(usize::MAX, || true).release.unwrap();
        let clean = release.ledger.clone();
        let with_event = clean.clone().with_event("projected GD from w₀ took over");
        let part = |ledger: Ledger| {
            private_part(
                &config,
                vec![Released {
                    algorithm: 0,
                    repeat: 0,
                    published: release.published.clone(),
                    ledger,
                }],
            )
            .unwrap()
        };
        let with_failure = clean.clone().with_failure("the certificate never held");
        let (a, b, c) = (part(clean), part(with_event), part(with_failure));
        assert_eq!(a, b);
        assert!(b.releases[0].ledger.events.is_empty());
        let json = serde_json::to_string(&b).unwrap();
        assert!(!json.contains("took over"), "{json}");
        // A failure the guarantee does not cover stays, and voids the composed total.
        assert!(!a.composed.not_private && c.composed.not_private);
        assert!(!c.releases[0].ledger.is_private());
        let json = serde_json::to_string(&c).unwrap();
        assert!(
            json.contains("NOT PRIVATE: the certificate never held"),
            "{json}"
        );
    }

    #[test]
    fn runs_on_one_file_add_up_and_too_many_deltas_are_refused_at_repeats() {
        let a = compose_run(&gd(3)).unwrap();
        let both = compose_runs(&[gd(3), gd(3)]).unwrap();
        assert_eq!(both.releases, 6);
        assert_eq!(both.epsilon, compose_run(&gd(6)).unwrap().epsilon);
        assert!(both.epsilon > a.epsilon);
        let config = RunConfig {
            delta: 0.02,
            repeats: 60,
            ..RunConfig::default()
        };
        assert_eq!(compose_run(&config).unwrap_err().field(), Some("repeats"));
    }

    #[test]
    fn every_noise_draw_on_the_same_data_counts_once_in_a_run_and_not_again_in_a_file_list() {
        // Draw 1 is the second release on these data: it costs what two runs of draw 0 cost.
        let second = RunConfig {
            noise_draw: 1,
            ..gd(3)
        };
        let c = compose_run(&second).unwrap();
        assert_eq!(c.releases, 6);
        assert_eq!(c.epsilon, compose_runs(&[gd(3), gd(3)]).unwrap().epsilon);
        assert!(c.epsilon > compose_run(&gd(3)).unwrap().epsilon);
        // A file's list names each run made: the draw is not counted again there.
        assert_eq!(
            compose_runs(&[gd(3), second]).unwrap().epsilon,
            compose_runs(&[gd(3), gd(3)]).unwrap().epsilon
        );
    }

    #[test]
    fn demonstrations_are_flagged() {
        let leak = RunConfig {
            leak: true,
            ..gd(2)
        };
        assert!(compose_run(&leak).unwrap().not_private);
        assert!(!compose_run(&gd(2)).unwrap().not_private);
    }
}
