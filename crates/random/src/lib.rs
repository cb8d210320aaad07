//! SplitMix64 (Sebastiano Vigna's), the one seedable generator of the workspace: random
//! solutions, the order a sample or a check draws tasks in, and the tasks an audit keeps.
//! One addition and two multiplications a number, and every seed, zero included, starts a
//! good stream. The streams are part of what users record (a seed reproduces a random
//! solution, a plan's sample, an audit's share), so they must never change.
//!
//! A crate of its own because the engines and the scheduler both draw from it and neither
//! may depend on the other.

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The stream of `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next number of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`, by Lemire's multiply-and-shift; its bias, at most
    /// `bound / 2^64`, does not matter to a search or a sample.
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }

    /// Fisher-Yates, with a bias below 2^-40 for lists shorter than 2^24.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// The first number of the stream of `x`: a hash under which neighbouring inputs get
/// unrelated outputs, for draws keyed by an index or chained from one another.
pub fn mix(x: u64) -> u64 {
    SplitMix64::new(x).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_vignas_splitmix64() {
        // The first outputs of seed 1234567, as Vigna's reference code gives them.
        let mut stream = SplitMix64::new(1234567);
        assert_eq!(stream.next_u64(), 6457827717110365317);
        assert_eq!(stream.next_u64(), 3203168211198807973);
        assert_eq!(mix(1234567), 6457827717110365317);
    }

    #[test]
    fn below_stays_below_and_reaches_every_value() {
        let mut stream = SplitMix64::new(0);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let value = stream.below(7);
            assert!(value < 7);
            seen[value] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn a_shuffle_is_a_permutation_that_moves_items() {
        let mut items: Vec<u32> = (0..100).collect();
        SplitMix64::new(42).shuffle(&mut items);
        assert_ne!(items, (0..100).collect::<Vec<_>>());
        items.sort_unstable();
        assert_eq!(items, (0..100).collect::<Vec<_>>());
    }
}
