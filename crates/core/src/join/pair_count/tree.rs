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

use super::tables;

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
    pub(super) key_bits: u32,
    /// The bits below the key's, which every node's tables cover.
    pub(super) rest_bits: u32,
    /// The stored items one group of lanes holds.
    pub(super) lanes: usize,
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

    /// The nodes to count whole, which together hold once every stored item that meets a
    /// query: a node is split where its children cost less than it, each counted the
    /// cheaper way.
    pub(super) fn leaves(&self, leaves: &mut Vec<Node>, runs: &mut Vec<Range<usize>>) {
        leaves.clear();
        self.plan(Node::ROOT, leaves, runs);
    }

    /// Appends to `leaves` the cheapest way to count `node` and returns its cost, in
    /// table lookups.
    fn plan(&self, node: Node, leaves: &mut Vec<Node>, runs: &mut Vec<Range<usize>>) -> f64 {
        let stored = self.stored(node).len();
        if stored == 0 {
            return 0.0;
        }
        self.queries(node, runs);
        let queried: usize = runs.iter().map(ExactSizeIterator::len).sum();
        if queried == 0 {
            return 0.0;
        }
        let buckets = 1usize << (node.depth - (node.prefix.count_ones()));
        let bits = self.bits(node);
        let chunk = tables::chunk_of(self.lanes, stored, bits, queried);
        let lookups_per_query = f64::from(bits.div_ceil(chunk) + 1);
        let groups = stored.div_ceil(self.lanes) as f64;
        let whole = lookups_per_query
            * (groups * (TABLES_IN_QUERIES + queried as f64) + buckets as f64 * BUCKET_IN_QUERIES);
        if node.depth == self.key_bits || stored <= self.lanes / 2 {
            leaves.push(node);
            return whole;
        }
        let planned = leaves.len();
        let [without, with] = node.children();
        let split = self.plan(without, leaves, runs) + self.plan(with, leaves, runs);
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

    #[test]
    fn the_leaves_hold_every_stored_bucket_once_and_meet_only_disjoint_prefixes() {
        // Two key bits: buckets 0b00, 0b01, 0b10, 0b11.
        let stored = starts(&[4000, 3000, 300, 20]);
        let queries = starts(&[5000, 4000, 3000, 1000]);
        let tree = Tree {
            stored_starts: &stored,
            query_starts: &queries,
            key_bits: 2,
            rest_bits: 30,
            lanes: 512,
        };
        let (mut leaves, mut runs) = (Vec::new(), Vec::new());
        tree.leaves(&mut leaves, &mut runs);
        let mut held: Vec<usize> = leaves.iter().flat_map(|&leaf| tree.stored(leaf)).collect();
        held.sort_unstable();
        assert_eq!(held, (0..7320).collect::<Vec<_>>(), "{leaves:?}");
        // The large buckets split; the two small ones, which meet few queries, do not
        // pay for a group each.
        assert!(leaves.contains(&Node { depth: 2, prefix: 0b00 }), "{leaves:?}");
        assert!(leaves.contains(&Node { depth: 1, prefix: 0b1 }), "{leaves:?}");
        tree.queries(Node { depth: 1, prefix: 0b1 }, &mut runs);
        assert_eq!(runs, vec![(0..9000)], "prefix 1 meets the queries of prefix 0");
        tree.queries(Node { depth: 2, prefix: 0b01 }, &mut runs);
        assert_eq!(runs, [9000..12000, 0..5000], "0b01 meets 0b10 and 0b00");
        assert_eq!(tree.bits(Node { depth: 2, prefix: 0b01 }), 30);
        assert_eq!(tree.bits(Node::ROOT), 32);
    }
}
