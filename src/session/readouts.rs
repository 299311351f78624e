//! Which of a run's readouts are public: the step counter (gradient evaluations in passes), the
//! ε-spent plot's extent and the phase rows' progress are fixed by the settings for some
//! families and measured on the data for others (everything but the release
//! is labelled).

use crate::config::AlgorithmKind;

/// Whether a run of `kind` has a length — its steps, its gradient evaluations, so its step
/// counter and the extent of its ε-spent curve — that is not fixed by the settings: a solver run
/// until its certificate holds (output perturbation's base solvers, BYOA, Zhang et al.'s
/// minimax algorithms, Lowy & Razaviyayn's Algorithm 8, the heavy-tail families' certified
/// solvers), a privacy filter or a gradient budget that stops the run (González et al.'s
/// Algorithms 3 and 4), or minibatches drawn by Poisson subsampling (DP-SGD: the gradient count
/// is the batch sizes' sum, which the accountant keeps secret and which counts the records under
/// add/remove). Such readouts are NOT PRIVATE and the page labels them so.
///
/// `false` means the counter advances by the same amount on every dataset and every noise draw
/// of the settings, which tests/playground/data_dependent_readouts.rs checks for every family it names.
pub fn length_depends_on_data(kind: AlgorithmKind) -> bool {
    use AlgorithmKind::*;
    match kind {
        NoisyGd | DpSvrg | DpSvrgPlusPlus | DpAccmd | ExponentialGrid | PrivateSmd
        | SmdBaseline | PrivateSco | PureClippedGd | EmPgm => false,
        DpSgd
        | ObjectivePerturbation
        | OutputPerturbation
        | RegularisedOutputPerturbation
        | Byoa
        | ByoaPhased
        | BiasReducedSmd
        | BoostedSmd
        | LocalizedDoubleOutputPerturbation
        | LocalizedOutputPerturbation
        | OutputPerturbationLipschitzExtension
        | LocalizedApproxEm
        | DeterministicDoubleOutputPerturbation
        | ByoaMinimax
        | ByoaMinimaxPhased
        | ByoaMinimaxCsc
        | AdversarialTraining => true,
    }
}
