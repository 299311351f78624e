//! The players plot's spec: a game's two mixed strategies, the release and the equilibrium.

use serde::Deserialize;

use super::Floats;
use crate::error::Error;

/// Most strategies a player's chart draws (the games' dimension limit is 100).
pub const MAX_STRATEGIES: usize = 200;

/// The players plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayersSpec {
    /// x where the run stands (empty before the first step).
    pub x: Floats,
    /// y where the run stands.
    pub y: Floats,
    /// The released x (empty until the release).
    #[serde(default)]
    pub release_x: Floats,
    /// The released y.
    #[serde(default)]
    pub release_y: Floats,
    /// The mean game's equilibrium x, when known (empty otherwise).
    #[serde(default)]
    pub equilibrium_x: Floats,
    /// The mean game's equilibrium y.
    #[serde(default)]
    pub equilibrium_y: Floats,
    /// Pinned games' releases, drawn as faded ticks.
    #[serde(default)]
    pub pinned: Vec<super::pinned::PinnedPlayers>,
    /// Whether both players are simplices of three strategies, drawn as ternary plots
    /// ([`super::ternary`]) rather than bars.
    #[serde(default)]
    pub ternary: bool,
    /// x's path for the ternary plot: points (x₁, x₂, x₃) one after another.
    #[serde(default)]
    pub path_x: Floats,
    /// y's path for the ternary plot.
    #[serde(default)]
    pub path_y: Floats,
    /// Whether x is a model's weights (a ball, weights of either sign) rather than a mixed
    /// strategy on a simplex: its chart is then captioned and labelled as such.
    #[serde(default)]
    pub x_model: bool,
}

/// One player's bars, checked: every non-empty array of the player has the same length.
pub struct Player<'a> {
    /// The player's caption.
    pub name: &'static str,
    /// What the horizontal axis counts ("strategy", or "feature" for a model's weights).
    pub axis: &'static str,
    /// Where the run stands.
    pub now: &'a [f64],
    /// The release (empty until it happens).
    pub release: &'a [f64],
    /// The equilibrium (empty when unknown).
    pub equilibrium: &'a [f64],
    /// The ternary plot's path (points of three, one after another; empty for bars).
    pub path: &'a [f64],
}

impl PlayersSpec {
    /// The two players' arrays, x first.
    pub fn players(&self) -> [Player<'_>; 2] {
        [
            Player {
                name: if self.x_model {
                    "x (minimising player): model weights, either sign"
                } else {
                    "x (minimising player)"
                },
                axis: if self.x_model { "feature" } else { "strategy" },
                now: &self.x,
                release: &self.release_x,
                equilibrium: &self.equilibrium_x,
                path: &self.path_x,
            },
            Player {
                name: "y (maximising player)",
                axis: "strategy",
                now: &self.y,
                release: &self.release_y,
                equilibrium: &self.equilibrium_y,
                path: &self.path_y,
            },
        ]
    }

    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        super::pinned::check_count("players.pinned", self.pinned.len(), super::pinned::MAX_PINS)?;
        for (i, p) in self.pinned.iter().enumerate() {
            for (name, values, now) in [("x", &p.x, &self.x), ("y", &p.y, &self.y)] {
                let field = format!("players.pinned[{i}].{name}");
                if values.iter().any(|v| !v.is_finite()) {
                    return Err(Error::invalid(
                        field,
                        "finite coordinates",
                        "a non-finite one",
                    ));
                }
                // A pin of another game's size has no bar to stand on.
                if !now.is_empty() && !values.is_empty() && values.len() != now.len() {
                    return Err(Error::invalid(
                        field,
                        format!("{} coordinates, like the current run's", now.len()),
                        values.len(),
                    ));
                }
            }
        }
        let arrays = [
            ("players.x", &self.x),
            ("players.releaseX", &self.release_x),
            ("players.equilibriumX", &self.equilibrium_x),
            ("players.y", &self.y),
            ("players.releaseY", &self.release_y),
            ("players.equilibriumY", &self.equilibrium_y),
        ];
        for (field, values) in arrays {
            if values.len() > MAX_STRATEGIES {
                return Err(Error::invalid(
                    field,
                    format!("at most {MAX_STRATEGIES} strategies"),
                    values.len(),
                ));
            }
            if let Some(v) = values.iter().find(|v| !v.is_finite()) {
                return Err(Error::invalid(field, "finite coordinates", v));
            }
        }
        self.check_ternary(&arrays)?;
        // Within a player, every array that is drawn has the player's length.
        for player in arrays.chunks(3) {
            let len = player.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
            if let Some((field, values)) =
                player.iter().find(|(_, v)| !v.is_empty() && v.len() != len)
            {
                return Err(Error::invalid(
                    *field,
                    format!("{len} coordinates, like the player's other arrays"),
                    values.len(),
                ));
            }
        }
        Ok(())
    }

    /// A ternary plot draws three strategies per player and a path of whole points.
    fn check_ternary(&self, arrays: &[(&str, &Floats)]) -> Result<(), Error> {
        for (field, path) in [
            ("players.pathX", &self.path_x),
            ("players.pathY", &self.path_y),
        ] {
            if path.len() % 3 != 0 {
                return Err(Error::invalid(
                    field,
                    "points of three strategies (p₁, p₂, p₃, p₁, …)",
                    path.len(),
                ));
            }
            if path.iter().any(|v| v.is_infinite()) {
                return Err(Error::invalid(
                    field,
                    "finite weights (NaN breaks the path)",
                    "±∞",
                ));
            }
        }
        if !self.ternary {
            return Ok(());
        }
        match arrays.iter().find(|(_, v)| !v.is_empty() && v.len() != 3) {
            Some((field, v)) => Err(Error::invalid(
                *field,
                "three strategies (a ternary plot; leave `ternary` off for bars)",
                v.len(),
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use serde_json::json;

    fn field(spec: serde_json::Value) -> Option<String> {
        Spec::parse("players", spec)
            .err()
            .and_then(|e| e.field().map(str::to_string))
    }

    #[test]
    fn a_ternary_spec_takes_three_strategies_and_whole_points() {
        let third = 1.0 / 3.0;
        let ok = json!({"x": [0.2, 0.3, 0.5], "y": [third, third, third], "ternary": true,
            "pathX": [third, third, third, 0.2, 0.3, 0.5], "pathY": [], "releaseX": [0.1, 0.1, 0.8]});
        assert!(Spec::parse("players", ok).is_ok());
        let four = json!({"x": [0.25, 0.25, 0.25, 0.25], "y": [0.5, 0.5, 0.0], "ternary": true});
        assert_eq!(field(four).as_deref(), Some("players.x"));
        // The same four strategies as bars are fine.
        let bars = json!({"x": [0.25, 0.25, 0.25, 0.25], "y": [0.5, 0.5]});
        assert!(Spec::parse("players", bars).is_ok());
        let partial = json!({"x": [0.2, 0.3, 0.5], "y": [], "ternary": true, "pathX": [0.2, 0.3]});
        assert_eq!(field(partial).as_deref(), Some("players.pathX"));
        // A path may come before the point where the run stands (the page draws before a
        // batch's players arrive).
        let early = json!({"x": [], "y": [], "ternary": true, "pathY": [0.2, 0.3, 0.5]});
        assert!(Spec::parse("players", early).is_ok());
    }
}
