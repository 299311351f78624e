//! The one random-number generator type of the crate, and how seeds are split into streams.
//!
//! A seeded run is reproducible bit for bit on every target (ChaCha12 is portable), which is what a
//! teaching link needs, and exactly why a seeded run is a demonstration of the mechanism, not a
//! private release: anyone holding the seed can subtract the noise. The unseeded mode
//! ([`from_os`]) keys the *same* generator type from the operating system's entropy source, so
//! every sampler has one code path whichever mode a run uses.

use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::error::{Error, Result};

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
    /// The empirical privacy audit (its own stream, so auditing never shifts a run's noise).
    Audit = 3,
    /// The fresh sample that estimates a synthetic problem's population risk.
    Population = 4,
}

/// A generator for `stream` of the run seeded by `seed`.
pub fn seeded(seed: u32, stream: Stream) -> DpRng {
    // Distinct (seed, stream) pairs give distinct 64-bit seeds; seed_from_u64 then scrambles them.
    StdRng::seed_from_u64(u64::from(seed) | ((stream as u64) << 32))
}

/// The stream of repeat `repeat` of a seeded run: repeat 0 is [`seeded`]'s stream, and every
/// repeat draws independent noise.
pub fn seeded_repeat(seed: u32, stream: Stream, repeat: u32) -> DpRng {
    StdRng::seed_from_u64(
        u64::from(seed) | ((stream as u64) << 32) | (u64::from(repeat & 0xFF_FFFF) << 40),
    )
}

/// The stream of repeat `repeat` of noise draw `draw` of a seeded run: draw 0 is
/// [`seeded_repeat`]'s stream (so every run made before draws existed keeps its bits), and each
/// later draw is keyed with all 256 bits of the generator's seed from (seed, stream, repeat,
/// draw), a key [`seeded_repeat`]'s 64-bit expansion is not built from.
pub fn seeded_draw(seed: u32, stream: Stream, repeat: u32, draw: u32) -> DpRng {
    if draw == 0 {
        return seeded_repeat(seed, stream, repeat);
    }
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&seed.to_le_bytes());
    key[4..12].copy_from_slice(&(stream as u64).to_le_bytes());
    key[12..16].copy_from_slice(&repeat.to_le_bytes());
    key[16..20].copy_from_slice(&draw.to_le_bytes());
    // A tag, so that no other keyed use of the generator can coincide with a draw's key.
    key[20..30].copy_from_slice(b"noise-draw");
    StdRng::from_seed(key)
}

/// The noise stream of a *compared* algorithm of a seeded run: repeat `repeat`, noise draw
/// `draw`, keyed with all 256 bits of the generator's seed from (seed, stream, the algorithm's
/// stable `key`, repeat, draw). The main algorithm keeps [`seeded_draw`]'s stream, so a run alone
/// keeps its bits; every compared algorithm draws from its own key (its name, never its place
/// in the compare list), a key neither [`seeded_repeat`]'s 64-bit expansion nor [`seeded_draw`]'s
/// tag can produce. Without it, the lanes of one seeded run drew the same Gaussian vectors
/// scaled by each algorithm's σ: proportional noise that a linear combination of two releases
/// cancels.
pub fn seeded_algorithm(seed: u32, stream: Stream, key: &str, repeat: u32, draw: u32) -> DpRng {
    let mut bytes = [0u8; 32];
    bytes[..4].copy_from_slice(&seed.to_le_bytes());
    bytes[4..8].copy_from_slice(&(stream as u32).to_le_bytes());
    bytes[8..12].copy_from_slice(&repeat.to_le_bytes());
    bytes[12..16].copy_from_slice(&draw.to_le_bytes());
    bytes[16..24].copy_from_slice(&fnv1a(key.as_bytes()).to_le_bytes());
    // A tag that no other keyed use of the generator writes at these bytes.
    bytes[24..32].copy_from_slice(b"compared");
    StdRng::from_seed(bytes)
}

/// 64-bit FNV-1a: a fixed, portable hash of an algorithm's key (tests/algorithms/noise_streams.rs
/// checks that the menu's keys draw distinct streams, so none collide).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A generator keyed with 256 bits from the operating system (getrandom: `getrandom(2)` natively,
/// `crypto.getRandomValues` in the browser). This is the unseeded mode of docs/PRIVACY.md rule 6.
///
/// Fails (rather than falling back to a weak seed) if the OS has no entropy source to offer.
pub fn from_os() -> Result<DpRng> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key)
        .map_err(|e| Error::invalid("rng", "an OS entropy source", e.to_string()))?;
    Ok(StdRng::from_seed(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn noise_draw_zero_is_the_repeat_stream_and_later_draws_differ() {
        let first = |draw| seeded_draw(7, Stream::Noise, 2, draw).next_u64();
        assert_eq!(first(0), seeded_repeat(7, Stream::Noise, 2).next_u64());
        assert_ne!(first(1), first(0));
        assert_ne!(first(2), first(1));
        // The same draw of the same run is the same stream (a link reproduces it).
        assert_eq!(first(1), first(1));
        // Another repeat's draw is another stream.
        assert_ne!(seeded_draw(7, Stream::Noise, 3, 1).next_u64(), first(1));
    }

    /// The keys here are a few of the menu's (this crate knows no algorithm); every key of the
    /// menu is checked in tests/algorithms/noise_streams.rs.
    #[test]
    fn compared_algorithms_draw_from_their_own_streams() {
        let first = |key: &str, repeat, draw| {
            seeded_algorithm(7, Stream::Noise, key, repeat, draw).next_u64()
        };
        let keys: Vec<String> = [
            "dp_sgd",
            "noisy_gd",
            "output_perturbation",
            "byoa",
            "dp_svrg",
        ]
        .map(String::from)
        .to_vec();
        let mut hashes: Vec<u64> = keys.iter().map(|k| fnv1a(k.as_bytes())).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), keys.len(), "two algorithm keys hash alike");
        let firsts: Vec<u64> = keys.iter().map(|k| first(k, 0, 0)).collect();
        for (i, a) in firsts.iter().enumerate() {
            assert!(!firsts[..i].contains(a), "{}", keys[i]);
            // Never the main algorithm's stream, at draw 0 or later.
            assert_ne!(*a, seeded_draw(7, Stream::Noise, 0, 0).next_u64());
            assert_ne!(*a, seeded_draw(7, Stream::Noise, 0, 1).next_u64());
        }
        // Repeats and draws are streams of their own; the same key repeats (a link reproduces it).
        assert_ne!(first("dp_sgd", 1, 0), first("dp_sgd", 0, 0));
        assert_ne!(first("dp_sgd", 0, 1), first("dp_sgd", 0, 0));
        assert_eq!(first("dp_sgd", 0, 1), first("dp_sgd", 0, 1));
    }

    #[test]
    fn os_generators_differ_and_seeded_ones_repeat() {
        // Two 64-bit outputs of independently keyed generators coincide with probability 2^-64.
        let (mut a, mut b) = (from_os().unwrap(), from_os().unwrap());
        assert_ne!(a.next_u64(), b.next_u64());
        let (mut c, mut d) = (seeded(4, Stream::Noise), seeded(4, Stream::Noise));
        assert_eq!(c.next_u64(), d.next_u64());
        assert_ne!(
            seeded(4, Stream::Noise).next_u64(),
            seeded(4, Stream::Audit).next_u64()
        );
    }
}
