//! Choosing the bucket key: the signature bits that sort both lists into buckets before
//! the pair count, the most crowded first, so that the bucket tree ([`super::tree`]) can
//! split on them in that order.

/// The most bits of the signatures that sort both lists into buckets, for every lane
/// width. A list gets a bit per doubling of its length ([`ITEMS_PER_BUCKET`]), so this
/// only limits lists of more than 64 million signatures: N = 28's largest row sets counted
/// whole. There 20 bits tested 153 pairs per solution where 16 tested 197, and took 0.89
/// of the time; at N = 26 (lists of 12 to 25 million) 18 bits tested 82 pairs per solution
/// to 16's 85 and took no less time (docs/measurements/join.md).
pub(super) const MOST_KEY_BITS: usize = 20;

// The permutation maps the key's bits to its index in a `u32`, through two tables of at
// most 16 gathered bits each.
const _: () = assert!(MOST_KEY_BITS <= 32);

/// The bitsets of each list whose bits order the key.
const CROWDING_SAMPLE: usize = 256;

/// The fewest queries times groups of stored lanes for which a key is worth choosing.
const FEWEST_GROUP_QUERIES: usize = 1 << 14;

/// The bitsets per bucket, on average, below which a list gets no more key bits: the
/// tree splits uneven buckets deeper than even ones, and buckets this small on average
/// leave it room for that without sorting into buckets it never splits.
pub(super) const ITEMS_PER_BUCKET: usize = 64;

/// The bits of a key, the most crowded first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Key {
    bits: [u8; MOST_KEY_BITS],
    len: usize,
}

impl Key {
    /// The key's bits, the most crowded first.
    pub(super) fn bits(&self) -> &[u8] {
        &self.bits[..self.len]
    }

    /// The key's bits as a mask.
    pub(super) fn mask(&self) -> u64 {
        self.bits().iter().fold(0, |mask, &bit| mask | 1 << bit)
    }

    /// The key of `bits`, the most crowded first: for a trial or a test, whose lists are
    /// made up.
    pub(super) fn of(bits: &[u8]) -> Key {
        let mut key = Key { len: bits.len(), ..Key::default() };
        key.bits[..bits.len()].copy_from_slice(bits);
        key
    }
}

/// The bits among `live` that sort both lists into buckets, the most crowded first: the
/// bits that the most pairs of a stored and a query bitset both hold, judged from an even
/// sample of each list (counting every bitset's bits would cost more than the better
/// order saves). A bit that no pair of the sample both holds is left out, and a list
/// gets about one bit per doubling of its length.
pub(super) fn choose(lanes: usize, stored: &[u64], queries: &[u64], live: u64) -> Key {
    // One group's worth split into buckets is as many groups as buckets, each tested
    // against the queries of the buckets it meets: what the key skips, the extra
    // groups spend again.
    if stored.len() <= lanes {
        return Key::default();
    }
    // Choosing looks at up to twice CROWDING_SAMPLE bitsets, bit by bit: lists with few
    // groups' worth of queries (the many small row sets of odd boards) cannot win it back.
    let groups = stored.len().div_ceil(lanes);
    if groups * queries.len() < FEWEST_GROUP_QUERIES {
        return Key::default();
    }
    let share_holding = |list: &[u64]| {
        let sample = list.iter().step_by((list.len() / CROWDING_SAMPLE).max(1));
        let sampled = sample.len() as f64;
        holding_each_bit(sample.map(|&bitset| bitset & live))
            .map(|held| f64::from(held) / sampled.max(1.0))
    };
    let (stored_share, query_share) = (share_holding(stored), share_holding(queries));
    let clashing = |bit: u8| stored_share[usize::from(bit)] * query_share[usize::from(bit)];
    let mut order: Vec<u8> = (0..64).filter(|&bit| clashing(bit) > 0.0).collect();
    order.sort_by(|&a, &b| clashing(b).total_cmp(&clashing(a)));
    let len = bits_for_length(stored.len()).min(order.len());
    let mut key = Key { len, ..Key::default() };
    key.bits[..len].copy_from_slice(&order[..len]);
    key
}

/// How many of `bitsets` hold each bit. Each bit has a counter of a byte, eight of them to
/// a word, so that a bitset is added in a few word operations whatever bits it holds: bit
/// by bit, with a branch per bit, this took about 2% of N = 21's count.
fn holding_each_bit(bitsets: impl Iterator<Item = u64>) -> [u32; 64] {
    const LOW_BIT_OF_EACH_BYTE: u64 = 0x0101_0101_0101_0101;
    let mut held = [0u32; 64];
    // Byte `j` of `bytes[b]` counts bit `8 j + b`; no byte passes 255 between flushes.
    let mut bytes = [0u64; 8];
    let flush = |bytes: &mut [u64; 8], held: &mut [u32; 64]| {
        for (low, counters) in bytes.iter_mut().enumerate() {
            for byte in 0..8 {
                held[8 * byte + low] += (*counters >> (8 * byte) & 0xff) as u32;
            }
            *counters = 0;
        }
    };
    let mut unflushed = 0;
    for bitset in bitsets {
        for (low, counters) in bytes.iter_mut().enumerate() {
            *counters += bitset >> low & LOW_BIT_OF_EACH_BYTE;
        }
        unflushed += 1;
        if unflushed == usize::from(u8::MAX) {
            flush(&mut bytes, &mut held);
            unflushed = 0;
        }
    }
    flush(&mut bytes, &mut held);
    held
}

/// The key bits a stored list of `len` bitsets gets: one per doubling past
/// [`ITEMS_PER_BUCKET`], up to [`MOST_KEY_BITS`].
fn bits_for_length(len: usize) -> usize {
    ((len / ITEMS_PER_BUCKET).max(1).ilog2() as usize).min(MOST_KEY_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::pair_count::tests::bitsets;

    #[test]
    fn each_bit_is_counted_in_every_bitset_that_holds_it() {
        for len in [0, 1, 254, 255, 256, 600] {
            let list = bitsets(len, 64, 150, 7);
            let held = holding_each_bit(list.iter().copied());
            for (bit, &held) in held.iter().enumerate() {
                let expected = list.iter().filter(|&&bitset| bitset >> bit & 1 == 1).count();
                assert_eq!(held as usize, expected, "bit {bit} of {len} bitsets");
            }
        }
        let all = holding_each_bit(std::iter::repeat_n(!0, 1000));
        assert_eq!(all, [1000; 64], "every bit of every bitset, past several flushes");
    }

    #[test]
    fn the_key_takes_live_bits_the_most_crowded_first_and_more_of_them_for_longer_lists() {
        // The lower bits are the more crowded (`bitsets`); bit 1 is left out as dead.
        let live = !(1u64 << 1) & ((1 << 30) - 1);
        let stored = bitsets(5000, 30, 150, 3);
        let queries = bitsets(3000, 30, 150, 5);
        let key = choose(512, &stored, &queries, live);
        assert_eq!(key.bits().len(), 6, "5000 bitsets in buckets of about 64: {key:?}");
        assert!(key.bits().iter().all(|&bit| live >> bit & 1 == 1), "{key:?}");
        assert!(key.bits().iter().all(|&bit| bit < 12), "the crowded bits: {key:?}");
        let longer = bitsets(300_000, 30, 150, 3);
        let bits_for = |lanes| choose(lanes, &longer, &queries, live).bits().len();
        assert_eq!(bits_for(512), 12, "300,000 bitsets in buckets of about 64, 512 lanes");
        assert_eq!(bits_for(256), 12, "256 lanes");
        let long = bitsets(1 << 22, 30, 150, 3);
        let bits = choose(512, &long, &queries, live).bits().len();
        assert_eq!(bits, 16, "2^22 bitsets in buckets of about 64");
        let at_the_limit = ITEMS_PER_BUCKET << MOST_KEY_BITS;
        assert_eq!(bits_for_length(at_the_limit), MOST_KEY_BITS, "at the limit");
        assert_eq!(bits_for_length(2 * at_the_limit), MOST_KEY_BITS, "past it");
        assert_eq!(bits_for_length(at_the_limit - 1), MOST_KEY_BITS - 1, "below it");
        assert_eq!(choose(512, &stored[..512], &queries, live), Key::default(), "one group");
        assert_eq!(choose(512, &stored, &queries[..2], live), Key::default(), "few queries");
    }
}
