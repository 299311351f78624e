//! The vertex view's spec: what a vertex-sampling run shows an outsider — the vertex
//! it drew for its output at each step — beside the dense iterate those draws come from, which
//! only the curator sees (González, Guzmán & Paquette 2024, Algorithms 1 and 3).

use serde::Deserialize;

use super::Floats;
use super::players::MAX_STRATEGIES;
use crate::error::Error;

/// The vertex view.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerticesSpec {
    /// The steps whose draws are drawn (thinned evenly: see `session::game_views`).
    pub steps: Floats,
    /// For each step, the vertices drawn (x's, y's), 0-based; NaN where none was.
    pub draws: Floats,
    /// The dense iterate x^t (**non-private**; empty before the run).
    pub dense_x: Floats,
    /// The dense iterate y^t.
    pub dense_y: Floats,
}

/// Whether `v` numbers one of `d` strategies (0-based).
fn is_strategy(v: f64, d: usize) -> bool {
    v.fract() == 0.0 && (0.0..d as f64).contains(&v)
}

impl VerticesSpec {
    /// Checks the spec: a pair of draws per step, each a strategy of its player (when the
    /// dense iterate says how many there are), the dense iterates finite weights.
    pub fn check(&self) -> Result<(), Error> {
        if self.draws.len() != 2 * self.steps.len() {
            return Err(Error::invalid(
                "vertices.draws",
                format!("two entries (x's, y's) per step: {}", 2 * self.steps.len()),
                self.draws.len(),
            ));
        }
        for (field, dense) in [
            ("vertices.denseX", &self.dense_x),
            ("vertices.denseY", &self.dense_y),
        ] {
            if dense.len() > MAX_STRATEGIES {
                return Err(Error::invalid(
                    field,
                    format!("at most {MAX_STRATEGIES} strategies"),
                    dense.len(),
                ));
            }
            if let Some(v) = dense.iter().find(|v| !v.is_finite()) {
                return Err(Error::invalid(field, "finite weights", v));
            }
        }
        for (player, dense) in [(0, &self.dense_x), (1, &self.dense_y)] {
            let d = if dense.is_empty() {
                MAX_STRATEGIES
            } else {
                dense.len()
            };
            let bad = self
                .draws
                .iter()
                .skip(player)
                .step_by(2)
                .find(|v| !(v.is_nan() || is_strategy(**v, d)));
            if let Some(v) = bad {
                return Err(Error::invalid(
                    "vertices.draws",
                    format!("strategy numbers 0 to {} (or NaN for none)", d - 1),
                    v,
                ));
            }
        }
        Ok(())
    }

    /// Each player's (steps, strategy drawn) points, x's first, skipping steps without a draw.
    pub fn points(&self) -> [Vec<(f64, f64)>; 2] {
        let of = |player: usize| {
            self.steps
                .iter()
                .zip(self.draws.chunks_exact(2))
                .filter(|(_, d)| !d[player].is_nan())
                .map(|(t, d)| (*t, d[player]))
                .collect()
        };
        [of(0), of(1)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use serde_json::json;

    fn parse(spec: serde_json::Value) -> Result<super::VerticesSpec, Option<String>> {
        match Spec::parse("vertices", spec) {
            Ok(Spec::Vertices(s)) => Ok(s),
            Ok(_) => unreachable!("the vertices kind parses to its spec"),
            Err(e) => Err(e.field().map(str::to_string)),
        }
    }

    #[test]
    fn draws_pair_up_with_steps_and_name_a_strategy_of_their_player() {
        let spec = parse(json!({"steps": [0, 5, 9], "draws": [0, 2, 1, 1, 2, 0],
            "denseX": [0.2, 0.3, 0.5], "denseY": [0.6, 0.2, 0.2]}))
        .unwrap();
        let [x, y] = spec.points();
        assert_eq!(x, vec![(0.0, 0.0), (5.0, 1.0), (9.0, 2.0)]);
        assert_eq!(y, vec![(0.0, 2.0), (5.0, 1.0), (9.0, 0.0)]);
        let odd = json!({"steps": [0, 1], "draws": [0, 1, 2], "denseX": [], "denseY": []});
        assert_eq!(
            parse(odd).err().flatten().as_deref(),
            Some("vertices.draws")
        );
        // Strategy 3 of a three-strategy player does not exist; 1.5 is no strategy at all.
        for bad in [3.0, 1.5, -1.0] {
            let spec = json!({"steps": [0], "draws": [bad, 0], "denseX": [0.2, 0.3, 0.5],
                "denseY": [1.0]});
            assert_eq!(
                parse(spec).err().flatten().as_deref(),
                Some("vertices.draws"),
                "{bad}"
            );
        }
        let dense = json!({"steps": [], "draws": [], "denseX": vec![0.0; 201], "denseY": []});
        assert_eq!(
            parse(dense).err().flatten().as_deref(),
            Some("vertices.denseX")
        );
    }
}
