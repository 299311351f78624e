//! The one random-number generator type of the crate, and how seeds are split into streams.
//!
//! A seeded run is reproducible bit for bit on every target (ChaCha12 is portable), which is what a
//! teaching link needs, and exactly why a seeded run is a demonstration of the mechanism, not a
//! private release: anyone holding the seed can subtract the noise.

use rand::SeedableRng;
use rand::rngs::StdRng;

/// The generator every sampler in the crate draws from.
pub type DpRng = StdRng;

/// Independent purposes that draw randomness in one run. Each gets its own stream so that, for
/// example, moving the ε slider changes the noise but never the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Synthetic data generation.
    Data = 1,
    /// Privacy noise of the algorithm.
    Noise = 2,
}

/// A generator for `stream` of the run seeded by `seed`.
pub fn seeded(seed: u32, stream: Stream) -> DpRng {
    // Distinct (seed, stream) pairs give distinct 64-bit seeds; seed_from_u64 then scrambles them.
    StdRng::seed_from_u64(u64::from(seed) | ((stream as u64) << 32))
}
