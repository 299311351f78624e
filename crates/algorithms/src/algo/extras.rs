//! A run's per-family views, as named extras beside its point: a small typed map from a name
//! ([`Extra`]'s variant) to a value, which a run fills with the views it has and the session
//! reads by name, showing those it knows how to. No trait method exists per view, so a family
//! with a new view adds an entry, not a hook on [`super::run::Run`] that every other family
//! answers `None` to. **Non-private**, like every view of where a run stands, but the parts
//! each entry's documentation names.

use super::heavy_tails::localisation_view::LocalisationView;
use super::run::{PhaseRow, VertexView};

/// One named view of a run where it stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra<'a> {
    /// `vertices`: a vertex-sampling run's public draws beside its dense iterate
    /// ([`VertexView`]).
    Vertices(VertexView<'a>),
    /// `phases`: a phased run's timeline, one row per phase of its schedule ([`PhaseRow`]).
    Phases(Vec<PhaseRow>),
    /// `stopped`: why the run ended before its planned steps (a budget, a privacy filter), as a
    /// sentence, once it has.
    Stopped(String),
    /// `localisation`: a localized heavy-tail run's 2-D localisation view
    /// ([`LocalisationView`]); **non-private** but its release.
    Localisation(&'a LocalisationView),
}

impl Extra<'_> {
    /// The name the entry goes by.
    pub fn name(&self) -> &'static str {
        match self {
            Extra::Vertices(_) => "vertices",
            Extra::Phases(_) => "phases",
            Extra::Stopped(_) => "stopped",
            Extra::Localisation(_) => "localisation",
        }
    }
}

/// The extras a run reports (empty for most runs), at most one entry per name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras<'a> {
    entries: Vec<Extra<'a>>,
}

impl<'a> Extras<'a> {
    /// No extras.
    pub fn none() -> Self {
        Self::default()
    }

    /// With `extra`, replacing any entry of the same name.
    pub fn with(mut self, extra: Extra<'a>) -> Self {
        self.entries.retain(|e| e.name() != extra.name());
        self.entries.push(extra);
        self
    }

    /// With `extra` when there is one.
    pub fn with_some(self, extra: Option<Extra<'a>>) -> Self {
        match extra {
            Some(extra) => self.with(extra),
            None => self,
        }
    }

    /// The entries, in the order they were added.
    pub fn entries(&self) -> &[Extra<'a>] {
        &self.entries
    }

    /// The `vertices` entry.
    pub fn vertices(&self) -> Option<VertexView<'a>> {
        self.entries.iter().find_map(|e| match e {
            Extra::Vertices(v) => Some(*v),
            _ => None,
        })
    }

    /// The `phases` entry (empty without one).
    pub fn phases(&self) -> Vec<PhaseRow> {
        self.entries
            .iter()
            .find_map(|e| match e {
                Extra::Phases(rows) => Some(rows.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The `stopped` entry.
    pub fn stopped(&self) -> Option<String> {
        self.entries.iter().find_map(|e| match e {
            Extra::Stopped(why) => Some(why.clone()),
            _ => None,
        })
    }

    /// The `localisation` entry.
    pub fn localisation(&self) -> Option<&'a LocalisationView> {
        self.entries.iter().find_map(|e| match e {
            Extra::Localisation(view) => Some(*view),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_read_by_its_name_and_a_second_of_a_name_replaces_the_first() {
        let extras = Extras::none()
            .with(Extra::Stopped("a budget".into()))
            .with_some(None)
            .with(Extra::Stopped("a privacy filter".into()));
        assert_eq!(extras.entries().len(), 1);
        assert_eq!(extras.stopped().as_deref(), Some("a privacy filter"));
        assert!(extras.vertices().is_none() && extras.localisation().is_none());
        assert!(extras.phases().is_empty());
        assert_eq!(Extras::none().entries().len(), 0);
    }
}
