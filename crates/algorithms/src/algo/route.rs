//! Errors restated at the control a person changes: an algorithm's own name for a setting, or a
//! number derived from the settings, becomes the page's control.

use crate::controls::Control;
use crate::error::Error;

/// The settings the algorithms (and the objective) name by their own names, and the control a
/// person changes for each: DP-SVRG's `epochs` are the page's steps T, DP-SGD's `sampling_rate`
/// is b/n, output perturbation's α is its base solver's target accuracy, the subgradient solver's
/// `regulariser.l1` is the lasso, …. Matched against the whole field first, then its first part.
pub const INTERNAL: [(&str, Control); 20] = [
    ("epochs", Control::Steps),
    ("epoch_length", Control::Batch),
    ("sampling_rate", Control::Batch),
    ("batch_size", Control::Batch),
    ("clip_norm", Control::Clip),
    ("mu", Control::L2),
    ("strong_convexity", Control::L2),
    ("regularizer.l2", Control::L2),
    // Algorithm 6's ridge λ and objective perturbation's tolerance γ (whose rounding floor
    // shrinks as μ grows) are both cured by a larger ridge.
    ("lambda", Control::L2),
    ("tolerance", Control::L2),
    ("regularizer.l1", Control::L1),
    // DP-AccMD refuses an ℓ1 penalty as a whole `regulariser`.
    ("regularizer", Control::L1),
    ("lipschitz", Control::FeatureBound),
    ("smoothness", Control::Loss),
    ("resolution", Control::GridResolution),
    ("variant", Control::Algorithm),
    ("c", Control::SvrgNoise),
    ("dimension", Control::D),
    // α is set from (ε, δ, n, d, μ) for the base solver, which is where the page offers a choice.
    ("alpha", Control::Solver),
    ("max_iters", Control::Solver),
];

/// Numbers the privacy calibration or a game derives from the settings, which a person changes at
/// another control: the key, that control, and what to do there (the derived number's own
/// range, "a finite number > 0", would send a person to a control that does not hold it).
const DERIVED: [(&str, Control, &str); 3] = [
    // z = σ/Δ of the accountants: 0 or ∞ only where ε is far from what the noise can carry.
    (
        "noise_multiplier",
        Control::Epsilon,
        "set ε nearer 1: the noise multiplier σ/Δ it calibrates must be finite and > 0",
    ),
    // A mechanism's Δ is the declared bounds' (‖x‖ times the loss's slope, over n and the ridge).
    (
        "sensitivity",
        Control::FeatureBound,
        "set it nearer 1: the sensitivity Δ the bounds declare must be finite and > 0",
    ),
    // A game's heavy-tailed records are drawn at the feature scale.
    (
        "noise_scale",
        Control::FeatureScale,
        "set a finite scale ≥ 0 for the heavy-tailed records",
    ),
];

/// An algorithm's (or the objective's) error restated at the control a person changes: its own
/// name for a setting (`epochs`, `sampling_rate`, `mu`, α, …) becomes the control's id, and a part
/// of the aggregation (`wrap.tau`) becomes the loss's, whose error line shows it. The page shows an
/// error beside the control whose id is the field. An error already at a control, or at no field,
/// is returned as it is.
pub fn at_control(error: Error) -> Error {
    let Error::InvalidParameter {
        field,
        expected,
        got,
    } = error
    else {
        return error;
    };
    let root = field.split('.').next().unwrap_or(&field);
    if let Some((_, control, todo)) = DERIVED.iter().find(|(key, ..)| *key == field) {
        return Error::InvalidParameter {
            field: control.id().to_string(),
            expected: todo.to_string(),
            got,
        };
    }
    if root == "wrap" {
        // The aggregation's control sits under the loss's, which shows its errors.
        return Error::InvalidParameter {
            field: format!("{}{}", Control::Loss.id(), &field[root.len()..]),
            expected,
            got,
        };
    }
    let internal = INTERNAL
        .iter()
        .find(|(name, _)| *name == field)
        .or_else(|| INTERNAL.iter().find(|(name, _)| *name == root));
    match internal {
        // The algorithm's own name for the setting is not on the page: the control's label is.
        Some((_, control)) => Error::InvalidParameter {
            field: control.id().to_string(),
            expected,
            got,
        },
        None => Error::InvalidParameter {
            field,
            expected,
            got,
        },
    }
}
