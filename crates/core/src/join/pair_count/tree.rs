//! The bucket tree: which runs of buckets are counted as one stored list, against which
//! queries.
//!
//! Both lists are sorted by the key's index, its first (most crowded) bit highest, so
//! the items whose index starts with a prefix `p` of `d` bits are one run of each list: a
//! node of a binary tree. A node's stored items can only meet the queries whose prefix has
//! no bit in common with `p`. Splitting a node on its next key bit skips the pairs that
//! both hold that bit and drops it from both children's tables (one child's stored items
//! lack it, the other's queries do), but cuts the node's groups of lanes in two, which
//! fills them less. So each node is split only where its two children, each counted the
//! cheaper way, cost less than the node counted whole, from the exact lengths of its runs:
//! a list splits deep where its buckets are large and not at all where they are small,
//! where one key for the whole list had to choose one depth for every bucket.

use std::ops::Range;

use super::tables::{self, Part};

/// What a query's test against a group of 512 lanes costs, against one of 256 or fewer.
/// More than one: the wider entries take more of the loads a cycle allows (on Zen 4, a
/// 512-bit load takes both halves of the path), and their tables take narrower chunks in
/// a small first-level cache. Far less than two: a test is mostly its scalar steps, the
/// chunks' offsets and the popcount's sum. With 1.2 a node of 257 to 512 signatures splits
/// into two groups of 256 where the half holding the key bit meets few queries: N = 26's
/// checked row sets whole took 0.95 of the time; 1.3 to 2.0 split further, to fewer pairs
/// and no less time (docs/measurements/join.md).
const WIDEST_TEST_COST: f64 = 1.2;

/// What a query's test against a group of `words` words per entry costs, in tests
/// against a group of 256 lanes.
fn test_cost(words: usize) -> f64 {
    if words == 8 { WIDEST_TEST_COST } else { 1.0 }
}

/// What building a group's tables costs, in queries tested against the group.
const TABLES_IN_QUERIES: f64 = 48.0;

/// What looking at one bucket of queries costs, in queries tested against a group.
const BUCKET_IN_QUERIES: f64 = 0.25;

/// A node of the tree: the items whose key index starts with the `depth` bits `prefix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Node {
    depth: u32,
    prefix: usize,
}

impl Node {
    const ROOT: Node = Node { depth: 0, prefix: 0 };

    fn children(self) -> [Node; 2] {
        let depth = self.depth + 1;
        [Node { depth, prefix: self.prefix << 1 }, Node { depth, prefix: self.prefix << 1 | 1 }]
    }
}

/// Both lists sorted into the buckets of a key, and what a test of a group costs.
pub(super) struct Tree<'a> {
    /// `stored_starts[index]..stored_starts[index + 1]` holds the stored items of the key's
    /// `index`; likewise for the queries.
    pub(super) stored_starts: &'a [usize],
    pub(super) query_starts: &'a [usize],
    /// Per key index, the queries whose index holds no bit outside it: [`queries_within`].
    pub(super) queries_within: &'a [usize],
    pub(super) key_bits: u32,
    /// The bits below the key's, which every node's tables cover.
    pub(super) rest_bits: u32,
    /// The stored items one group of lanes holds.
    pub(super) lanes: usize,
}

/// Writes into `within`, for every key index `m` of `key_bits` bits, the queries whose
/// index is a subset of `m` (summed over subsets one bit at a time), so that the plan finds
/// the queries a node meets in one lookup: enumerating their buckets node by node cost
/// 3^12 steps per row set with 12 key bits, 4% of a count at N = 22 with AVX2.
pub(super) fn queries_within(query_starts: &[usize], key_bits: u32, within: &mut Vec<usize>) {
    within.clear();
    within.extend(query_starts.windows(2).map(|bucket| bucket[1] - bucket[0]));
    for bit in 0..key_bits {
        for index in 0..within.len() {
            if index >> bit & 1 == 1 {
                within[index] += within[index ^ 1 << bit];
            }
        }
    }
}

impl Tree<'_> {
    /// The stored items of `node`.
    pub(super) fn stored(&self, node: Node) -> Range<usize> {
        let shift = self.key_bits - node.depth;
        self.stored_starts[node.prefix << shift]..self.stored_starts[(node.prefix + 1) << shift]
    }

    /// The bits the tables of `node` cover: the rest and the key's bits below its prefix.
    /// Its stored items hold the bits of its prefix above them, and the queries it meets
    /// hold none of those, so the tables need not cover them.
    pub(super) fn bits(&self, node: Node) -> u32 {
        self.rest_bits + self.key_bits - node.depth
    }

    /// Writes into `runs` the queries `node` meets, those whose prefix has no bit in common
    /// with its own, from the largest prefix down, so that neighbouring buckets merge into
    /// one run.
    pub(super) fn queries(&self, node: Node, runs: &mut Vec<Range<usize>>) {
        runs.clear();
        let shift = self.key_bits - node.depth;
        let free = !node.prefix & ((1 << node.depth) - 1);
        let mut prefix = free;
        loop {
            let bucket =
                self.query_starts[prefix << shift]..self.query_starts[(prefix + 1) << shift];
            match runs.last_mut() {
                Some(run) if run.start == bucket.end => run.start = bucket.start,
                _ if !bucket.is_empty() => runs.push(bucket),
                _ => {}
            }
            if prefix == 0 {
                break;
            }
            prefix = (prefix - 1) & free;
        }
    }

    /// How many queries `node` meets: those whose index has no bit of its prefix, all of
    /// whose indices lie within the complement of the prefix followed by every bit below.
    fn queried(&self, node: Node) -> usize {
        let shift = self.key_bits - node.depth;
        let free = !node.prefix & ((1 << node.depth) - 1);
        self.queries_within[free << shift | ((1 << shift) - 1)]
    }

    /// The nodes to count whole, which together hold once every stored item that meets a
    /// query: a node is split where its children cost less than it, each counted the
    /// cheaper way.
    pub(super) fn leaves(&self, leaves: &mut Vec<Node>) {
        leaves.clear();
        self.plan(Node::ROOT, leaves);
    }

    /// Appends to `leaves` the cheapest way to count `node` and returns its cost, in
    /// table lookups.
    fn plan(&self, node: Node, leaves: &mut Vec<Node>) -> f64 {
        let stored = self.stored(node).len();
        if stored == 0 {
            return 0.0;
        }
        let queried = self.queried(node);
        if queried == 0 {
            return 0.0;
        }
        let buckets = 1usize << (node.depth - (node.prefix.count_ones()));
        let bits = self.bits(node);
        let mut whole = 0.0;
        let mut lookups_per_query = 0.0;
        for Part { words, stored } in tables::parts(self.lanes, stored) {
            let chunk = tables::chunk_of(self.lanes, words, bits, queried);
            lookups_per_query = f64::from(bits.div_ceil(chunk) + 1);
            let groups = stored.div_ceil(64 * words) as f64;
            whole += lookups_per_query
                * groups
                * (TABLES_IN_QUERIES + queried as f64)
                * test_cost(words);
        }
        whole += lookups_per_query * buckets as f64 * BUCKET_IN_QUERIES;
        // A node of at most half the narrowest vector group meets its queries in one
        // group however it splits.
        if node.depth == self.key_bits || stored <= self.lanes.min(256) / 2 {
            leaves.push(node);
            return whole;
        }
        let planned = leaves.len();
        let [without, with] = node.children();
        let split = self.plan(without, leaves) + self.plan(with, leaves);
        if split < whole {
            split
        } else {
            leaves.truncate(planned);
            leaves.push(node);
            whole
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts of buckets of the given lengths.
    fn starts(lengths: &[usize]) -> Vec<usize> {
        let mut starts = vec![0];
        for length in lengths {
            starts.push(starts.last().unwrap() + length);
        }
        starts
    }

    /// A node of one group of 512 lanes splits into two of 256 where the half that
    /// holds the key bit meets few queries: two narrow groups cost less than one wide
    /// one there, not where both halves meet about as many.
    #[test]
    fn a_wide_group_splits_into_narrow_ones_where_one_half_meets_few_queries() {
        let stored = starts(&[200, 200]);
        let plan = |query_lengths: &[usize]| {
            let queries = starts(query_lengths);
            let mut within = Vec::new();
            queries_within(&queries, 1, &mut within);
            let tree = Tree {
                stored_starts: &stored,
                query_starts: &queries,
                queries_within: &within,
                key_bits: 1,
                rest_bits: 12,
                lanes: 512,
            };
            let mut leaves = Vec::new();
            tree.leaves(&mut leaves);
            leaves
        };
        let halves = [Node { depth: 1, prefix: 0 }, Node { depth: 1, prefix: 1 }];
        assert_eq!(plan(&[100, 10_000]), halves);
        assert_eq!(plan(&[5_000, 5_000]), [Node::ROOT]);
    }

    #[test]
    fn the_leaves_hold_every_stored_bucket_once_and_meet_only_disjoint_prefixes() {
        // Two key bits: buckets 0b00, 0b01, 0b10, 0b11.
        let stored = starts(&[4000, 3000, 300, 20]);
        let queries = starts(&[5000, 4000, 3000, 1000]);
        let mut within = Vec::new();
        queries_within(&queries, 2, &mut within);
        assert_eq!(within, [5000, 9000, 8000, 13000]);
        let tree = Tree {
            stored_starts: &stored,
            query_starts: &queries,
            queries_within: &within,
            key_bits: 2,
            rest_bits: 30,
            lanes: 512,
        };
        let (mut leaves, mut runs) = (Vec::new(), Vec::new());
        tree.leaves(&mut leaves);
        let mut held: Vec<usize> = leaves.iter().flat_map(|&leaf| tree.stored(leaf)).collect();
        held.sort_unstable();
        assert_eq!(held, (0..7320).collect::<Vec<_>>(), "{leaves:?}");
        // The large buckets split; the two small ones, which meet few queries, do not
        // pay for a group each.
        assert!(leaves.contains(&Node { depth: 2, prefix: 0b00 }), "{leaves:?}");
        assert!(leaves.contains(&Node { depth: 1, prefix: 0b1 }), "{leaves:?}");
        for depth in 0..=2 {
            for prefix in 0..1 << depth {
                let node = Node { depth, prefix };
                tree.queries(node, &mut runs);
                let met: usize = runs.iter().map(ExactSizeIterator::len).sum();
                assert_eq!(tree.queried(node), met, "{node:?}");
            }
        }
        tree.queries(Node { depth: 1, prefix: 0b1 }, &mut runs);
        assert_eq!(runs, vec![(0..9000)], "prefix 1 meets the queries of prefix 0");
        tree.queries(Node { depth: 2, prefix: 0b01 }, &mut runs);
        assert_eq!(runs, [9000..12000, 0..5000], "0b01 meets 0b10 and 0b00");
        assert_eq!(tree.bits(Node { depth: 2, prefix: 0b01 }), 30);
        assert_eq!(tree.bits(Node::ROOT), 32);
    }
}
