//! Which of a run's readouts are public: the step counter (gradient evaluations in passes), the
//! ε-spent plot's extent and the phase rows' progress are fixed by the settings for some
//! families and measured on the data for others (everything but the release
//! is labelled). Each family says which in its declaration ([`RunLength`]).

use crate::algo::family::RunLength;
use crate::algo::registry;
use crate::config::AlgorithmKind;

/// Whether a run of `kind` has a length — its steps, its gradient evaluations, so its step
/// counter and the extent of its ε-spent curve — that is not fixed by the settings (see
/// [`RunLength`]). Such readouts are NOT PRIVATE and the page labels them so.
///
/// `false` means the counter advances by the same amount on every dataset and every noise draw
/// of the settings, which tests/playground/data_dependent_readouts.rs checks for every family it names.
pub fn length_depends_on_data(kind: AlgorithmKind) -> bool {
    registry::family(kind).length == RunLength::DataDependent
}
