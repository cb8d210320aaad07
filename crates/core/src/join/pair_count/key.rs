//! Choosing the bucket key: the signature bits that sort both lists into buckets before
//! the pair count, so that only buckets whose keys share no bit meet.
//!
//! The choice is a cost model of its own (tables built, queries skipped, buckets looked
//! at), tuned apart from the loops that count, so it is a file of its own.

use super::tables::WIDE_CHUNK;

/// The most bits of the signatures that sort both lists into buckets. The buckets that can
/// hold disjoint pairs are the pairs of keys with no bit in common, 3^k of the 4^k.
const MOST_KEY_BITS: u32 = 10;

/// What building a group's tables costs, in queries tested against the group: a key bit
/// that splits groups pays only if the queries it skips outweigh the tables it adds.
const TABLES_IN_QUERIES: f64 = 48.0;

/// What sorting one bitset into its bucket costs, in queries tested against a group.
const SORT_IN_QUERIES: f64 = 1.0;

/// What looking at one pair of buckets costs, in queries tested against a group: with `k`
/// key bits, each of the 2^k stored buckets looks at the 2^(k - ones) query buckets its key
/// leaves free, 3^k in all.
const BUCKET_PAIR_IN_QUERIES: f64 = 0.25;

/// The bitsets of each list whose bits choose the key.
const CROWDING_SAMPLE: usize = 256;

/// The fewest queries times groups of stored lanes for which a key is worth choosing.
const FEWEST_GROUP_QUERIES: usize = 1 << 14;

/// The bits that sort both lists into buckets, the most crowded first: the bits that
/// the most pairs of a stored and a query bitset both hold, judged from an even sample
/// of each list (counting every bitset's bits would cost more than the better choice
/// saves), as many as pay for themselves. Each bit halves the buckets and skips the
/// pairs that both hold it, a share the sample tells; once buckets are smaller than a
/// group of lanes, each bit also doubles the groups whose tables are built.
pub(super) fn choose(lanes: usize, stored: &[u64], queries: &[u64], bits: u32) -> u64 {
    // One group's worth split into buckets is as many groups as buckets, each tested
    // against the queries of the buckets it meets: what the key skips, the extra
    // groups spend again.
    if stored.len() <= lanes {
        return 0;
    }
    // Choosing looks at up to twice CROWDING_SAMPLE bitsets, bit by bit: lists with few
    // groups' worth of queries (the many small row sets of odd boards) cannot win it back.
    let groups = stored.len().div_ceil(lanes);
    if groups * queries.len() < FEWEST_GROUP_QUERIES {
        return 0;
    }
    let share_holding = |list: &[u64]| {
        let mut held = [0u32; 64];
        let mut sampled = 0u32;
        for &bitset in list.iter().step_by((list.len() / CROWDING_SAMPLE).max(1)) {
            sampled += 1;
            let mut rest = bitset;
            while rest != 0 {
                held[rest.trailing_zeros() as usize] += 1;
                rest &= rest - 1;
            }
        }
        held.map(|held| f64::from(held) / f64::from(sampled.max(1)))
    };
    let (stored_share, query_share) = (share_holding(stored), share_holding(queries));
    let clashing = |bit: u32| stored_share[bit as usize] * query_share[bit as usize];
    let mut order: Vec<u32> = (0..bits).collect();
    order.sort_by(|&a, &b| clashing(b).total_cmp(&clashing(a)));
    let whole = groups as f64;
    let sorted = (stored.len() + queries.len()) as f64 * SORT_IN_QUERIES;
    let cost = |key_bits: u32, compatible: f64| {
        let groups = whole.max(f64::from(1u32 << key_bits));
        let bucket_pairs = f64::from(3u32.pow(key_bits)) * BUCKET_PAIR_IN_QUERIES;
        groups * (TABLES_IN_QUERIES + compatible * queries.len() as f64)
            + bucket_pairs
            + if key_bits > 0 { sorted } else { 0.0 }
    };
    let (mut best, mut best_cost) = (0, cost(0, 1.0));
    let mut compatible = 1.0;
    let most = MOST_KEY_BITS.min(bits.saturating_sub(WIDE_CHUNK));
    for (key_bits, &bit) in (1..=most).zip(&order) {
        compatible *= 1.0 - clashing(bit);
        let cost = cost(key_bits, compatible);
        if cost < best_cost {
            (best, best_cost) = (key_bits as usize, cost);
        }
    }
    order[..best].iter().fold(0, |key, &bit| key | 1 << bit)
}
