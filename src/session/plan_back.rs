//! Planning backwards: "I need excess risk ≤ t: what ε does the theory say?"
//!
//! Solved from the plan's own bound, the one the page draws dashed on the excess plot (the last
//! value of [`crate::algo::family::Plan::theory`]: a one-release bound is flat, an iterative one
//! ends at the release). The bound is computed for the page's settings with only ε changed, on
//! the problem those settings pose (some bounds read F(w₀) − F* or ‖w*‖ from it: plot
//! ingredients, never noise settings), and the smallest accepted ε whose bound is at most t is
//! found by a scan over a log grid of the accepted range followed by bisection in log ε
//! between the last grid point above t and the first at or below it. The bound of every family
//! the page plans falls as ε grows where the noise dominates (the noise scale goes like 1/ε); where
//! a bound does not fall steadily, the answer is still the smallest grid-refined ε that meets t,
//! and the text says at which larger ε it is above t again. An ε the plan refuses (too small
//! for an accountant to certify, say) is no answer, and is skipped.
//!
//! The answer is rounded **up** to three significant digits, so the bound at the ε the page sets
//! is still at most t. A target below the bound at the largest accepted ε is out of reach at any
//! accepted ε; the message says so, with the bound there, and what would move it.
//!
//! What this promises is the theorem's: an upper bound on the **expected** excess empirical risk.
//! The page then confirms it with a small sweep around the answer (`www/panels/plan.js`, through
//! [`super::sweep_lanes`]), and [`confirm`] says how far below the bound the measured mean is.

use serde::Serialize;

use crate::config::{AlgorithmKind, RunConfig, menu, pose};
use crate::controls::Control;
use crate::error::{Error, Result};

/// The panel's control for the target, as its error names it (index.html's label).
pub const TARGET_FIELD: &str = "target excess risk t";

/// Grid points per decade of ε in the scan before bisection.
const PER_DECADE: usize = 8;
/// Bisection steps in log ε: the bracket is one grid step (a factor 10^(1/8) ≈ 1.33) wide, and
/// 40 halvings leave it far below the three digits the answer is rounded to.
const BISECTIONS: usize = 40;
/// The measured mean this many times below the bound is said to be far below it: the bound is
/// loose.
pub const LOOSE_RATIO: f64 = 10.0;

/// Reads the typed target: a positive finite number. The error names the panel's control.
pub fn parse_target(text: &str) -> Result<f64> {
    let trimmed = text.trim();
    let value: f64 = trimmed.parse().map_err(|_| {
        Error::invalid(
            TARGET_FIELD,
            "enter a positive number, such as 0.01 or 1e-3",
            trimmed,
        )
    })?;
    if !value.is_finite() || value <= 0.0 {
        return Err(Error::invalid(
            TARGET_FIELD,
            "enter a positive number, such as 0.01 or 1e-3",
            trimmed,
        ));
    }
    Ok(value)
}

/// What the theory says about a target.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The smallest ε (rounded up to three digits) whose bound is at most the target.
    Found {
        /// The ε to set.
        epsilon: f64,
        /// The bound at that ε (at most the target).
        bound: f64,
    },
    /// Even the smallest accepted ε meets the target.
    AnyEpsilon {
        /// The smallest ε the page accepts.
        epsilon: f64,
        /// The bound there.
        bound: f64,
    },
    /// No accepted ε meets it.
    OutOfReach {
        /// The largest ε the page accepts.
        epsilon: f64,
        /// The bound there: the least the theory promises at these settings.
        bound: f64,
    },
    /// The family states no bound for these settings.
    NoBound,
}

/// The answer with the words the page shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Backwards {
    /// The main algorithm it was solved for.
    pub algorithm: AlgorithmKind,
    /// The target t.
    pub target: f64,
    /// The answer.
    pub outcome: Outcome,
    /// The bound's inequality, in words (the theory curve's source), when there is one.
    pub source: Option<&'static str>,
    /// The answer in one or two sentences.
    pub text: String,
}

/// The bound at the release of `config`'s main algorithm on `problem`, ε set to `epsilon`.
fn bound_at(
    config: &RunConfig,
    problem: &crate::session::problem::Posed,
    epsilon: f64,
) -> Result<Option<(f64, &'static str)>> {
    let mut lane = config.lane(config.algorithm);
    lane.epsilon = epsilon;
    let plan = menu::plan(&lane)?;
    Ok(plan.theory(problem).and_then(|curve| {
        let last = curve.y.last().copied()?;
        (last.is_finite() && last > 0.0).then_some((last, curve.source))
    }))
}

/// ε rounded up to three significant digits.
fn round_up(epsilon: f64) -> f64 {
    let scale = 10f64.powi(2 - epsilon.log10().floor() as i32);
    let up = (epsilon * scale).ceil() / scale;
    // The division may land a hair below the product it undid.
    if up < epsilon { up + 1.0 / scale } else { up }
}

/// Three significant digits, without trailing zeros: 0.0163, 2.5, 100, 1.6e-4.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if (1e-2..1e4).contains(&a) {
        let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{v:.2e}");
        match s.split_once('e') {
            Some((m, e)) => format!("{}e{}", m.trim_end_matches('0').trim_end_matches('.'), e),
            None => s,
        }
    }
}

/// The smallest accepted ε whose bound on the main algorithm's expected excess risk, at the
/// page's other settings, is at most `target`.
pub fn solve_epsilon(config: &RunConfig, target: f64) -> Result<Backwards> {
    if !target.is_finite() || target <= 0.0 {
        return Err(Error::invalid(
            TARGET_FIELD,
            "enter a positive number, such as 0.01 or 1e-3",
            target,
        ));
    }
    let config = config.check()?.into_config();
    // The plan is refused here, at its control, before the data are generated.
    menu::plan(&config.lane(config.algorithm))?;
    let problem = pose::posed(&config, None)?;
    let (lo, hi) = Control::Epsilon.range().expect("ε is a number control");
    let decades = (hi / lo).log10();
    let points = (decades * PER_DECADE as f64).round() as usize;
    let grid: Vec<f64> = (0..=points)
        .map(|i| lo * 10f64.powf(decades * i as f64 / points as f64))
        .collect();
    let algorithm = config.algorithm;
    // The bound at each grid point: `None` where it does not apply, or where the plan refuses
    // that ε (a budget too small for the accountant to certify, say): such an ε is simply not
    // an answer.
    let mut values: Vec<Option<f64>> = Vec::with_capacity(grid.len());
    let mut source = None;
    let mut refusal = None;
    let mut refused = 0;
    for &eps in &grid {
        match bound_at(&config, &problem, eps) {
            Ok(Some((b, s))) => {
                source = Some(s);
                values.push(Some(b));
            }
            Ok(None) => values.push(None),
            // The plan was accepted at the page's own ε (checked above), so a refusal here is
            // this ε's (its field may be a setting the refusal is restated at).
            Err(e) => {
                refusal.get_or_insert(e);
                refused += 1;
                values.push(None);
            }
        }
    }
    let admitted: Vec<usize> = (0..grid.len()).filter(|&i| values[i].is_some()).collect();
    let Some(&first) = admitted.first() else {
        // Refused at every ε of the grid: say why (the page's own ε was accepted, so this is
        // rare); else no bound applies at any.
        if let Some(e) =
            refusal.filter(|_| values.iter().all(Option::is_none) && refused == grid.len())
        {
            return Err(e);
        }
        return Ok(Backwards {
            algorithm,
            target,
            outcome: Outcome::NoBound,
            source: None,
            text: "The theory states no bound for these settings (the excess plot says what \
                   would make one apply), so there is nothing to solve: sweep ε instead."
                .to_string(),
        });
    };
    let value = |i: usize| values[i].expect("an admitted point");
    let meets = admitted.iter().copied().find(|&i| value(i) <= target);
    let Some(j) = meets else {
        // The least the bound gives anywhere in the accepted range.
        let best = admitted
            .iter()
            .copied()
            .min_by(|&a, &b| value(a).total_cmp(&value(b)))
            .expect("an admitted point");
        let at = if best == grid.len() - 1 {
            format!("even at ε = {}, the largest the page accepts,", short(hi))
        } else {
            format!("at its least, at ε = {},", short(grid[best]))
        };
        return Ok(Backwards {
            algorithm,
            target,
            outcome: Outcome::OutOfReach {
                epsilon: grid[best],
                bound: value(best),
            },
            source,
            text: format!(
                "Out of reach: {at} the bound is {} > {}. More data lowers it (raise n), or ask \
                 for a larger t.",
                short(value(best)),
                short(target)
            ),
        });
    };
    // Where the bound rises above t again at a larger ε, say so: the answer is the smallest ε
    // that meets t, not a promise for every larger one.
    let rises = admitted
        .iter()
        .copied()
        .find(|&i| i > j && value(i) > target)
        .map(|i| {
            format!(
                " This bound does not fall steadily with ε: at ε = {} it is {} again.",
                short(grid[i]),
                short(value(i))
            )
        })
        .unwrap_or_default();
    if j == 0 {
        return Ok(Backwards {
            algorithm,
            target,
            outcome: Outcome::AnyEpsilon {
                epsilon: lo,
                bound: value(0),
            },
            source,
            text: format!(
                "Any ε will do: even at ε = {}, the smallest the page accepts, the bound is {} ≤ \
                 {}.{rises}",
                short(lo),
                short(value(0)),
                short(target)
            ),
        });
    }
    let (epsilon, bound) = if j == first {
        // The smallest ε at which the bound applies already meets t.
        (round_up(grid[j]).min(hi), value(j))
    } else {
        // bound(grid[j - 1]) > t ≥ bound(grid[j]): bisect in log ε, keeping the upper end at
        // or below t.
        let (mut a, mut b) = (grid[j - 1].ln(), grid[j].ln());
        for _ in 0..BISECTIONS {
            let mid = 0.5 * (a + b);
            let at = bound_at(&config, &problem, mid.exp())
                .ok()
                .flatten()
                .map_or(f64::INFINITY, |(v, _)| v);
            if at <= target {
                b = mid;
            } else {
                a = mid;
            }
        }
        let epsilon = round_up(b.exp()).min(hi);
        match bound_at(&config, &problem, epsilon).ok().flatten() {
            Some((v, _)) if v <= target => (epsilon, v),
            // Rounding up keeps the bound at most t for a falling bound; where it does not,
            // the grid point known to meet it.
            _ => (round_up(grid[j]).min(hi), value(j)),
        }
    };
    Ok(Backwards {
        algorithm,
        target,
        outcome: Outcome::Found { epsilon, bound },
        source,
        text: format!(
            "The theory says ε = {}: there the bound on the expected excess risk is {} ≤ {}, with \
             every other setting as it is.{rises}",
            short(epsilon),
            short(bound),
            short(target)
        ),
    })
}

/// What a sweep around the answer measured at the answer's ε, against the bound there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confirmation {
    /// bound / measured mean (∞ when the mean is 0; NaN when nothing was measured).
    pub ratio: f64,
    /// Whether the measured mean is at least [`LOOSE_RATIO`] times below the bound.
    pub loose: bool,
    /// Whether the measured mean is at most the target.
    pub met: bool,
    /// The reading, in words.
    pub text: String,
}

/// Reads the confirming sweep at the answer: the mean (and sample standard deviation, min and max)
/// of the released excess over `repeats` runs at ε, against the bound there and the target.
pub fn confirm(
    target: f64,
    bound: f64,
    mean: f64,
    sd: f64,
    range: (f64, f64),
    repeats: usize,
) -> Confirmation {
    if !mean.is_finite() {
        return Confirmation {
            ratio: f64::NAN,
            loose: false,
            met: false,
            text: "No repeat could be scored (the reference optimum is unavailable).".to_string(),
        };
    }
    let ratio = if mean > 0.0 {
        bound / mean
    } else {
        f64::INFINITY
    };
    let met = mean <= target;
    let loose = ratio >= LOOSE_RATIO;
    let spread = if sd.is_finite() {
        format!("sd {}, ", short(sd))
    } else {
        String::new()
    };
    let measured = format!(
        "Measured over {repeats} repeats at this ε: mean excess {} ({spread}min {}, max {}), {} the \
         target {}.",
        short(mean),
        short(range.0),
        short(range.1),
        if met { "within" } else { "above" },
        short(target)
    );
    let reading = if loose {
        format!(
            " The bound is loose here: the measured mean is {}× below it, so a smaller ε would \
             likely do; the sweep's other points show how much.",
            short_ratio(ratio)
        )
    } else if ratio >= 1.0 {
        format!(
            " The bound holds with room to spare: the measured mean is {}× below it.",
            short_ratio(ratio)
        )
    } else {
        format!(
            " The measured mean is above the bound (ratio {}): the bound is on the expected \
             excess, so a few repeats may exceed it by chance; more repeats would say.",
            short_ratio(ratio)
        )
    };
    Confirmation {
        ratio,
        loose,
        met,
        text: measured + &reading,
    }
}

fn short_ratio(r: f64) -> String {
    if !r.is_finite() {
        "infinitely".to_string()
    } else if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_up_keeps_three_digits_and_never_goes_down() {
        for &(v, want) in &[
            (0.12341, 0.124),
            (1.0, 1.0),
            (2.5e-3, 2.5e-3),
            (99.91, 100.0),
        ] {
            let got = round_up(v);
            assert!(got >= v, "{v} → {got}");
            assert!(
                (got - want).abs() <= 1e-12 * want,
                "{v} → {got}, want {want}"
            );
        }
    }

    #[test]
    fn a_typed_target_is_read_or_refused_at_its_control() {
        assert_eq!(parse_target(" 0.01 ").unwrap(), 0.01);
        for bad in ["", "abc", "0", "-1", "inf", "NaN"] {
            let e = parse_target(bad).unwrap_err();
            assert_eq!(e.field(), Some(TARGET_FIELD), "{bad}");
            assert!(e.to_string().starts_with(TARGET_FIELD), "{e}");
            assert!(e.to_string().len() < 300);
        }
    }

    #[test]
    fn the_confirmation_says_when_the_bound_is_loose_with_the_ratio() {
        let c = confirm(0.01, 0.01, 0.0005, 0.0001, (0.0003, 0.0008), 20);
        assert!(c.loose && c.met, "{c:?}");
        assert!(c.text.contains("20× below"), "{}", c.text);
        let c = confirm(0.01, 0.01, 0.004, 0.001, (0.002, 0.006), 20);
        assert!(!c.loose && c.met, "{c:?}");
        assert!(c.text.contains("2.5× below"), "{}", c.text);
    }
}
