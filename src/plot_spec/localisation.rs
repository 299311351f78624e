//! The localisation view's spec: a localized heavy-tail run's
//! [`LocalisationView`] — W, the phases' centres and localisation balls, the noise rings, the
//! candidates of each aggregation step, the one picked, and the release — as the page received
//! it from the run.

use serde::Deserialize;

use super::{check_finite, check_positive};
use crate::algo::heavy_tails::localisation_view::{LocalisationView, Planar};
use crate::error::Error;

/// A label's height in pixels (the view's 10-pixel font with its leading).
pub const LABEL_HEIGHT: f64 = 11.0;
/// A label's width per character in pixels (phase numbers are digits).
pub const LABEL_CHAR_WIDTH: f64 = 6.0;
/// The release marker's radius in pixels (a red disc in a white edge), which no label may cover.
pub const RELEASE_MARKER: f64 = 6.0;
/// The places a centre's label is tried at, in turn, as the text box's top-left corner relative to
/// the centre in pixels (x right, y down; `W` stands for the box's width): above right, below
/// right, above left, below left, then twice as far. Every one keeps the label within about 20
/// pixels of its point, so that it still names that point.
const LABEL_PLACES: [(f64, f64, f64); 8] = [
    (4.0, -13.0, 0.0),
    (4.0, 2.0, 0.0),
    (-4.0, -13.0, -1.0),
    (-4.0, 2.0, -1.0),
    (10.0, -20.0, 0.0),
    (10.0, 9.0, 0.0),
    (-10.0, -20.0, -1.0),
    (-10.0, 9.0, -1.0),
];

/// A square window of the (x₁, x₂) plane: its centre and half-width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The window's centre.
    pub centre: Planar,
    /// Its half-width (> 0).
    pub half: f64,
}

impl Window {
    /// Whether `p` lies in the window (edges included).
    pub fn contains(&self, p: Planar) -> bool {
        (p[0] - self.centre[0]).abs() <= self.half && (p[1] - self.centre[1]).abs() <= self.half
    }

    /// `p` in pixels of a square plotting area of `side` pixels (x right, y down).
    pub fn pixel(&self, p: Planar, side: f64) -> (f64, f64) {
        let scale = side / (2.0 * self.half);
        (
            (p[0] - self.centre[0] + self.half) * scale,
            (self.centre[1] + self.half - p[1]) * scale,
        )
    }
}

/// A label's box in pixels: left, top, right, bottom.
pub type LabelBox = [f64; 4];

/// One centre's label as the panel draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CentreLabel {
    /// The phase t whose centre w̄_t it names.
    pub t: usize,
    /// That centre.
    pub at: Planar,
    /// The text's top-left corner relative to the centre, in pixels.
    pub offset: (f64, f64),
    /// Its box in the plotting area's pixels.
    pub area: LabelBox,
}

/// Where a panel puts the centres' numbers: the labels that fit without overlapping one another
/// or the release, and the phases whose centres sit too close to the others to be named there.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CentreLabels {
    /// The labels drawn.
    pub placed: Vec<CentreLabel>,
    /// The phases whose centre is in the window but whose number found no free place near it.
    pub crowded: Vec<usize>,
}

impl CentreLabels {
    /// The note naming the crowded phases ("centres 3–6 too close to number"), or `None` when
    /// every centre in view is numbered.
    pub fn note(&self) -> Option<String> {
        let (first, last) = (self.crowded.first()?, self.crowded.last()?);
        let which = if first == last {
            format!("centre {first}")
        } else if last - first + 1 == self.crowded.len() {
            format!("centres {first}–{last}")
        } else {
            let list: Vec<String> = self.crowded.iter().map(|t| t.to_string()).collect();
            format!("centres {}", list.join(", "))
        };
        Some(format!("{which} too close to number"))
    }
}

fn overlaps(a: &LabelBox, b: &LabelBox) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// Most phases a view may hold: Algorithm 1 runs at most ⌈log₂ n⌉ ≤ 64.
pub const MAX_PHASES: usize = 64;
/// Most calls a phase may hold: the largest J the settings accept.
pub const MAX_CALLS: usize = 101;

/// The localisation view.
#[derive(Debug, Clone, Deserialize)]
pub struct LocalisationSpec {
    /// The run's view where it stands (`batch.localisation`, or the run's info before Play).
    pub view: LocalisationView,
}

/// A point, when present: both coordinates finite.
fn check_point(field: &str, p: Option<Planar>) -> Result<(), Error> {
    match p {
        Some([x, y]) if !(x.is_finite() && y.is_finite()) => Err(Error::invalid(
            field,
            "a point of two finite coordinates",
            format!("({x}, {y})"),
        )),
        _ => Ok(()),
    }
}

impl LocalisationSpec {
    /// Checks the view: W's radius and every phase's scales finite and > 0, its points finite,
    /// at most [`MAX_PHASES`] phases of at most [`MAX_CALLS`] calls, each picked index one of
    /// its phase's calls.
    pub fn check(&self) -> Result<(), Error> {
        let v = &self.view;
        check_positive("localisation.view.radius", v.radius)?;
        if v.d == 0 {
            return Err(Error::invalid("localisation.view.d", "d ≥ 1", v.d));
        }
        if v.phases.len() > MAX_PHASES {
            return Err(Error::invalid(
                "localisation.view.phases",
                format!("at most {MAX_PHASES} phases"),
                v.phases.len(),
            ));
        }
        check_point("localisation.view.release", v.release)?;
        for (i, p) in v.phases.iter().enumerate() {
            let at = |key: &str| format!("localisation.view.phases[{i}].{key}");
            if let Some(scale) = p.noise_scale {
                check_positive(&at("noiseScale"), scale)?;
            }
            if let Some(ring) = p.noise_ring {
                check_positive(&at("noiseRing"), ring)?;
            }
            check_positive(&at("ballRadius"), p.ball_radius)?;
            check_finite(&at("lambda"), p.lambda)?;
            check_positive(&at("clip"), p.clip)?;
            check_point(&at("centre"), p.centre)?;
            if p.calls.len() > MAX_CALLS {
                return Err(Error::invalid(
                    at("calls"),
                    format!("at most {MAX_CALLS} calls"),
                    p.calls.len(),
                ));
            }
            if let Some(k) = p.picked.filter(|&k| k >= p.calls.len()) {
                return Err(Error::invalid(
                    at("picked"),
                    format!("one of the phase's {} calls", p.calls.len()),
                    k,
                ));
            }
            for (j, c) in p.calls.iter().enumerate() {
                let at = |key: &str| format!("localisation.view.phases[{i}].calls[{j}].{key}");
                check_point(&at("ballCentre"), c.ball_centre)?;
                check_point(&at("certified"), c.certified)?;
                check_point(&at("candidate"), c.candidate)?;
            }
        }
        Ok(())
    }

    /// The window on all of W.
    pub fn whole(&self) -> Window {
        Window {
            centre: [0.0, 0.0],
            half: 1.08 * self.view.radius,
        }
    }

    /// The zoom on the phases after the first: around the release (or the latest centre), wide
    /// enough for every later centre, candidate and ball centre and for the last phase's noise
    /// ring; `None` when there is nothing after phase 1 yet or the zoom would show as much as W.
    pub fn zoom(&self) -> Option<Window> {
        let v = &self.view;
        let centre = *self.centres().last()?;
        let later: Vec<_> = v.phases.iter().filter(|p| p.t >= 2).collect();
        if !later.iter().any(|p| p.centre.is_some()) {
            return None;
        }
        let dist = |p: Planar| (p[0] - centre[0]).hypot(p[1] - centre[1]);
        let mut extent: f64 = 0.0;
        for p in &later {
            extent = extent.max(p.centre.map_or(0.0, dist));
            for c in &p.calls {
                for q in [c.ball_centre, c.certified, c.candidate]
                    .into_iter()
                    .flatten()
                {
                    extent = extent.max(dist(q));
                }
            }
        }
        if let Some(ring) = later
            .iter()
            .rev()
            .find(|p| !p.calls.is_empty())
            .and_then(|p| p.noise_ring)
        {
            extent = extent.max(ring);
        }
        let half = 1.25 * extent.max(1e-9 * v.radius);
        (half < 0.5 * v.radius).then_some(Window { centre, half })
    }

    /// Where the centres' numbers go in `window` drawn on a square plotting area of `side`
    /// pixels: each centre in view, in order of t, takes the first of a few places near it
    /// whose box stays in the area and overlaps neither a number placed before nor the release
    /// marker; a centre with no such place is listed as crowded (the panel says so in a note),
    /// never drawn over another number. Late phases' centres collapse onto the release at any
    /// scale that shows the first ones: this keeps what is drawn legible.
    pub fn centre_labels(&self, window: Window, side: f64) -> CentreLabels {
        let release = self.view.release.filter(|&r| window.contains(r)).map(|r| {
            let (x, y) = window.pixel(r, side);
            [
                x - RELEASE_MARKER,
                y - RELEASE_MARKER,
                x + RELEASE_MARKER,
                y + RELEASE_MARKER,
            ]
        });
        let mut labels = CentreLabels::default();
        for p in &self.view.phases {
            let Some(q) = p.centre.filter(|&q| window.contains(q)) else {
                continue;
            };
            let (x, y) = window.pixel(q, side);
            let width = LABEL_CHAR_WIDTH * p.t.to_string().len() as f64;
            let free = LABEL_PLACES.iter().find_map(|&(dx, dy, left)| {
                let offset = (dx + left * width, dy);
                let area = [
                    x + offset.0,
                    y + offset.1,
                    x + offset.0 + width,
                    y + offset.1 + LABEL_HEIGHT,
                ];
                let inside = area[0] >= 0.0 && area[1] >= 0.0 && area[2] <= side && area[3] <= side;
                let clear = !labels.placed.iter().any(|l| overlaps(&l.area, &area))
                    && !release.is_some_and(|r| overlaps(&r, &area));
                (inside && clear).then_some(CentreLabel {
                    t: p.t,
                    at: q,
                    offset,
                    area,
                })
            });
            match free {
                Some(label) => labels.placed.push(label),
                None => labels.crowded.push(p.t),
            }
        }
        labels
    }

    /// The public centres w̄₁, w̄₂, … reached so far, then the release: the path the view joins.
    pub fn centres(&self) -> Vec<Planar> {
        self.view
            .phases
            .iter()
            .filter_map(|p| p.centre)
            .chain(self.view.release)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use crate::algo::heavy_tails::localisation_view::PhaseView;
    use serde_json::json;

    fn field(spec: serde_json::Value) -> Option<String> {
        Spec::parse("localisation", spec)
            .err()
            .and_then(|e| e.field().map(str::to_string))
    }

    fn phase() -> serde_json::Value {
        json!({"t": 1, "m": 100, "lambda": 0.5, "clip": 2.0, "noiseScale": 0.1, "noiseRing": 0.2,
            "ballRadius": 3.0, "centre": [0, 0],
            "calls": [{"ballCentre": [0.1, 0.2], "certified": [0.1, 0.1], "candidate": [0.2, 0.1]}],
            "picked": 0})
    }

    #[test]
    fn a_run_s_view_parses_and_its_centres_end_at_the_release() {
        let spec = json!({"view": {"radius": 4, "d": 2, "algorithm": 4,
            "phases": [phase(), {"t": 2, "m": 50, "lambda": 16, "clip": 1.5, "noiseScale": 0.01,
                "noiseRing": 0.02, "ballRadius": 0.3, "centre": [0.2, 0.1]}],
            "release": [0.25, 0.1]}});
        match Spec::parse("localisation", spec) {
            Ok(Spec::Localisation(s)) => {
                assert_eq!(s.centres(), vec![[0.0, 0.0], [0.2, 0.1], [0.25, 0.1]]);
                assert!(s.view.phases[1].calls.is_empty() && s.view.phases[1].picked.is_none());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_views_are_refused_at_their_key() {
        let with = |key: &str, value: serde_json::Value| {
            let mut p = phase();
            p[key] = value;
            json!({"view": {"radius": 4, "d": 2, "algorithm": 4, "phases": [p]}})
        };
        assert_eq!(
            field(with("picked", json!(1))).as_deref(),
            Some("localisation.view.phases[0].picked")
        );
        assert_eq!(
            field(with("ballRadius", json!(0))).as_deref(),
            Some("localisation.view.phases[0].ballRadius")
        );
        let calls = json!(vec![json!({}); super::MAX_CALLS + 1]);
        assert_eq!(
            field(with("calls", calls)).as_deref(),
            Some("localisation.view.phases[0].calls")
        );
        let zero = json!({"view": {"radius": 0, "d": 2, "algorithm": 4, "phases": []}});
        assert_eq!(field(zero).as_deref(), Some("localisation.view.radius"));
        // A non-finite point (JSON has none; a JS caller can send NaN) is refused at its key.
        let mut spec = match Spec::parse("localisation", with("picked", json!(0))) {
            Ok(Spec::Localisation(s)) => s,
            other => panic!("{other:?}"),
        };
        spec.view.phases[0].calls[0].candidate = Some([f64::NAN, 0.0]);
        assert_eq!(
            spec.check().unwrap_err().field(),
            Some("localisation.view.phases[0].calls[0].candidate")
        );
    }

    /// A finished view whose phases 3 to 6 end within 1e-7 of the release (as Algorithm 1's
    /// centres do: each phase moves them ≈ 22 times less than the last).
    fn collapsing() -> super::LocalisationSpec {
        let centres = [
            [0.0, 0.0],
            [0.3, 0.2],
            [0.31, 0.21],
            [0.3105, 0.2102],
            [0.3105001, 0.2102],
            [0.3105001, 0.2102001],
        ];
        let phases: Vec<serde_json::Value> = centres
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let scale = 0.1 / 22f64.powi(i as i32);
                json!({"t": i + 1, "m": 100, "lambda": 1, "clip": 1, "noiseScale": scale,
                    "noiseRing": 2.0 * scale, "ballRadius": 10.0 * scale, "centre": c})
            })
            .collect();
        let spec = json!({"view": {"radius": 1, "d": 2, "algorithm": 4, "phases": phases,
            "release": [0.3105001, 0.21020015]}});
        match Spec::parse("localisation", spec) {
            Ok(Spec::Localisation(s)) => s,
            other => panic!("{other:?}"),
        }
    }

    /// No two placed labels overlap, none covers the release marker, each stays in the area and
    /// within 21 pixels of its centre, and every centre in the window is numbered or crowded.
    fn check_layout(
        spec: &super::LocalisationSpec,
        window: super::Window,
        side: f64,
    ) -> super::CentreLabels {
        let labels = spec.centre_labels(window, side);
        for (i, a) in labels.placed.iter().enumerate() {
            for b in &labels.placed[i + 1..] {
                assert!(!super::overlaps(&a.area, &b.area), "{a:?} overlaps {b:?}");
            }
            let [l, t, r, b] = a.area;
            assert!(l >= 0.0 && t >= 0.0 && r <= side && b <= side, "{a:?}");
            let (x, y) = window.pixel(a.at, side);
            let far = (l - x)
                .abs()
                .max((r - x).abs())
                .max((t - y).abs())
                .max((b - y).abs());
            assert!(far <= 21.0, "{a:?} is {far} px from its centre");
            if let Some(rel) = spec.view.release.filter(|&q| window.contains(q)) {
                let (rx, ry) = window.pixel(rel, side);
                let m = super::RELEASE_MARKER;
                assert!(
                    !super::overlaps(&a.area, &[rx - m, ry - m, rx + m, ry + m]),
                    "{a:?}"
                );
            }
        }
        let mut named: Vec<usize> = labels
            .placed
            .iter()
            .map(|l| l.t)
            .chain(labels.crowded.iter().copied())
            .collect();
        named.sort_unstable();
        let in_view: Vec<usize> = spec
            .view
            .phases
            .iter()
            .filter(|p| p.centre.is_some_and(|q| window.contains(q)))
            .map(|p| p.t)
            .collect();
        assert_eq!(named, in_view);
        labels
    }

    #[test]
    fn the_zoom_s_centre_numbers_never_overlap_where_late_phases_collapse_onto_the_release() {
        let spec = collapsing();
        let zoom = spec.zoom().expect("phases after the first");
        // The old layout (every number at (4, −13) from its centre): phases 4–6 share a pixel
        // with the release even in the zoom, so their numbers lay on one another.
        let side = 280.0;
        let (x4, y4) = zoom.pixel([0.3105, 0.2102], side);
        let (x6, y6) = zoom.pixel([0.3105001, 0.2102001], side);
        assert!((x4 - x6).abs() < 1.0 && (y4 - y6).abs() < 1.0);
        let labels = check_layout(&spec, zoom, side);
        assert!(labels.crowded.is_empty(), "{labels:?}");
        // All of W: phases 2–6 within two pixels of one another; one is left to the note.
        let whole = check_layout(&spec, spec.whole(), side);
        assert!(whole.placed.iter().any(|l| l.t == 1));
        assert_eq!(whole.crowded, vec![6]);
        // A crowded phase is named in the panel's note.
        let crowded = super::CentreLabels {
            placed: vec![],
            crowded: vec![3, 4, 5, 6],
        };
        assert_eq!(
            crowded.note().as_deref(),
            Some("centres 3–6 too close to number")
        );
        let scattered = super::CentreLabels {
            placed: vec![],
            crowded: vec![2, 5],
        };
        assert_eq!(
            scattered.note().as_deref(),
            Some("centres 2, 5 too close to number")
        );
        assert_eq!(super::CentreLabels::default().note(), None);
        // Many phases on one point: the ones past the free places are crowded, never stacked.
        let mut pile = collapsing();
        let last = pile.view.phases[5].clone();
        for t in 7..=10 {
            pile.view.phases.push(PhaseView { t, ..last.clone() });
        }
        for p in &mut pile.view.phases {
            p.centre = Some([0.5, 0.5]);
        }
        let labels = check_layout(&pile, pile.whole(), side);
        assert_eq!(labels.placed.len(), super::LABEL_PLACES.len());
        assert_eq!(labels.crowded, vec![9, 10]);
    }

    #[test]
    fn well_spread_centres_are_all_numbered_at_the_first_place() {
        let mut spec = collapsing();
        for (i, p) in spec.view.phases.iter_mut().enumerate() {
            p.centre = Some([-0.8 + 0.3 * i as f64, 0.0]);
        }
        spec.view.release = Some([0.9, -0.5]);
        let labels = check_layout(&spec, spec.whole(), 280.0);
        assert!(labels.crowded.is_empty(), "{labels:?}");
        assert!(labels.placed.iter().all(|l| l.offset == (4.0, -13.0)));
    }
}
