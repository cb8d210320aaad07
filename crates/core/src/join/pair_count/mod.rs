//! Counting the pairs of two lists of bitsets that have no bit in common, many pairs per
//! instruction.
//!
//! The stored list is cut into groups of lanes (64 per `u64`, and 256 or 512 per group
//! when the processor has AVX2 or AVX-512). For a group, bit `j` of `occupied[k]` says that
//! lane `j`'s bitset holds bit `k`; a table per chunk of a few bits gives, for every value of
//! the chunk, the lanes that hold none of its bits. A query's compatible lanes are then the
//! AND of one table entry per chunk, and their number one popcount.

//!
//! The work is cut by concern: [`key`] chooses the signature bits that sort both lists
//! into buckets, [`bucket`] sorts them, [`tree`] chooses which runs of buckets meet,
//! [`tables`] builds a group's tables and [`query`] runs the loop that tests the queries
//! against them.

mod bucket;
mod key;
mod query;
mod tables;
mod tree;

use std::ops::Range;
use std::time::Duration;

use self::bucket::Permutation;
pub(super) use self::tables::MOST_TABLE_BYTES;
pub(super) use self::tables::Work;
use self::tables::{Lists, NARROW_CHUNK, TableScratch};
use self::tree::{Node, Tree};
use super::room::{Room, Stopwatch};
use crate::kernel::Kernel;
use crate::simd::{Avx2, Avx512Popcnt, Bmi, FastPext};

/// Tables and buckets reused from call to call.
#[derive(Default)]
pub(super) struct Scratch {
    tables: TableScratch,
    permutation: Permutation,
    stored_starts: Vec<usize>,
    query_starts: Vec<usize>,
    queries_within: Vec<usize>,
    next: Vec<usize>,
    leaves: Vec<Node>,
    runs: Vec<Range<usize>>,
    /// Both lists sorted into their buckets: at most as many bitsets as the two lists.
    sorted_stored: Room<u64>,
    sorted_queries: Room<u64>,
    /// Whether the counts add up their [`Work`], for a profile: a few operations a group
    /// of queries that a count does not need.
    pub(super) counts_work: bool,
}

impl Scratch {
    /// The bytes of the sorted lists, which the caller counts with its own lists: never
    /// more than the two lists of the largest count so far.
    #[cfg(test)]
    pub(super) fn sorted_bytes(&self) -> usize {
        (self.sorted_stored.capacity() + self.sorted_queries.capacity()) * size_of::<u64>()
    }

    /// Frees the sorted lists, for a caller that needs the room.
    pub(super) fn release_sorted(&mut self) {
        self.sorted_stored.release();
        self.sorted_queries.release();
    }

    /// The bytes of everything else: the tables, at most [`MOST_TABLE_BYTES`] per lane
    /// width, and the bounds of buckets, at most [`BOUND_BYTES_PER_SIGNATURE`] per stored
    /// signature.
    #[cfg(test)]
    pub(super) fn held_bytes(&self) -> usize {
        self.tables.bytes()
            + self.permutation.table_bytes()
            + (self.stored_starts.capacity()
                + self.query_starts.capacity()
                + self.queries_within.capacity()
                + self.next.capacity())
                * size_of::<usize>()
            + self.runs.capacity() * size_of::<Range<usize>>()
            + self.leaves.capacity() * size_of::<Node>()
    }
}

/// The most bytes of a [`Scratch`]'s bounds of buckets per stored signature. A key gets a
/// bit per doubling of the stored list past [`key::ITEMS_PER_BUCKET`] signatures a bucket,
/// and a bucket holds at most two words per run of the sort (its count and its write
/// position), its start in both lists, the queries within it, a leaf of the tree and a run
/// of queries: 120 bytes a bucket, two a signature. At N = 28 with its row sets whole (20
/// key bits) that is about 60 MiB a thread; at N = 22 (at most 12 bits) 300 KiB.
pub(super) const BOUND_BYTES_PER_SIGNATURE: usize =
    (2 * bucket::MOST_SORT_STREAMS * size_of::<usize>()
        + 3 * size_of::<usize>()
        + size_of::<Node>()
        + size_of::<Range<usize>>())
    .div_ceil(key::ITEMS_PER_BUCKET);

/// Makes the choices the pair count makes once a process (how many runs the sort takes in
/// turns, by a trial of a few milliseconds: [`bucket::sort_runs`]), so that they fall
/// in no task's time.
pub(super) fn ready() {
    bucket::sort_runs();
}

/// Two lists, the shorter first: the one stored unless both are long
/// ([`stored_and_queried`]), and always where they are counted without buckets.
pub(super) fn shorter_first<L: AsRef<[u64]>>(a: L, b: L) -> (L, L) {
    if a.as_ref().len() <= b.as_ref().len() { (a, b) } else { (b, a) }
}

/// The length from which even the shorter of two lists is queried: the longer is stored.
const QUERIED_FROM: usize = 1 << 15;

/// Which of two lists is stored and which is queried. The shorter is stored, for its
/// tables are built once per group of lanes, unless both are long: the bucket tree can
/// only split the stored list as deep as its groups stay full, so a longer stored list
/// splits deeper and skips more pairs, and from about this length each of its groups
/// still meets enough queries to pay for its tables (docs/measurements/pair-count.md, twelfth
/// session: a quarter fewer pairs tested at N = 22).
pub(super) fn stored_and_queried<'a>(a: &'a [u64], b: &'a [u64]) -> (&'a [u64], &'a [u64]) {
    let (shorter, longer) = shorter_first(a, b);
    if shorter.len() >= QUERIED_FROM { (longer, shorter) } else { (shorter, longer) }
}

/// Which of a pair count's groups of stored lanes a count takes: all of them, or for a
/// piece of a row set, which only an estimate times, those whose run of neighbours
/// ([`Slice::holds_group`]) has a position in the count's order that is `from..to` modulo
/// `of`. The slices of a count partition its pairs, and each sorts both lists as the whole
/// does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slice {
    from: usize,
    to: usize,
    of: usize,
}

/// The most neighbouring groups dealt to a slice in one run ([`Slice::holds_group`]).
const GROUPS_PER_RUN: usize = 32;

/// The fewest runs a slice takes where a count has groups enough ([`Slice::holds_group`]).
const RUNS_PER_SLICE: usize = 8;

impl Slice {
    pub(super) const WHOLE: Slice = Slice { from: 0, to: 1, of: 1 };

    /// The `index`-th of `of` slices.
    pub(super) fn nth(index: usize, of: usize) -> Slice {
        assert!(index < of, "slice {index} of {of}");
        Slice { from: index, to: index + 1, of }
    }

    /// Whether the slice holds the `position`-th of what a count deals out in turn: runs of
    /// groups ([`Slice::holds_group`]).
    pub(super) fn holds(self, position: usize) -> bool {
        (self.from..self.to).contains(&(position % self.of))
    }

    /// Whether the slice holds the group at `position` of a count's `groups`. Groups are
    /// dealt in runs of up to [`GROUPS_PER_RUN`] neighbours, at least [`RUNS_PER_SLICE`]
    /// runs to a slice where there are groups enough: neighbours meet nearly the same
    /// queries, which the whole count finds in the caches. Dealt one by one, the sixteen
    /// slices of an N = 27 row set added up to 1.08 to 1.11 times its count, in runs of 32
    /// to 0.995 to 1.017 times; longer runs spread the slices' costs more, as costs change
    /// along the order (0.28 of their mean against 0.22; docs/measurements/estimator.md).
    pub(super) fn holds_group(self, position: usize, groups: usize) -> bool {
        self.holds(position / self.groups_per_run(groups))
    }

    /// How many neighbouring groups of a count's `groups` one run deals to a slice.
    fn groups_per_run(self, groups: usize) -> usize {
        (groups / (self.of * RUNS_PER_SLICE)).clamp(1, GROUPS_PER_RUN)
    }

    /// Its share of a `list` counted without buckets: the groups of `lanes` that the list
    /// fills, neighbours together, from `from` to `to` of `of` parts of them. Counted
    /// whole by the first slice of each meeting, these pairs made N = 28's first slices
    /// cost 1.6 to 3.5 times the others per solution, and held most of a sample's spread
    /// (docs/measurements/plans.md).
    fn of_lanes(self, list: &[u64], lanes: usize) -> &[u64] {
        let groups = list.len().div_ceil(lanes);
        let at = |part: usize| (part * groups / self.of * lanes).min(list.len());
        &list[at(self.from)..at(self.to)]
    }

    /// The share of the groups it holds.
    pub(super) fn share(self) -> f64 {
        (self.to - self.from) as f64 / self.of as f64
    }

    /// What this slice takes of the `at`-th of `later` counts that its slices deal out
    /// between them: each cut in `of` slices, laid end to end, and dealt in runs of
    /// `later` of them, so that every slice takes the same share however few counts there
    /// are; `None` if none of that count.
    pub(super) fn of_later(self, later: usize, at: usize) -> Option<Slice> {
        let of = self.of;
        let start = (self.from * later).saturating_sub(at * of).min(of);
        let end = (self.to * later).saturating_sub(at * of).min(of);
        (start < end).then_some(Slice { from: start, to: end, of })
    }
}

/// What one call counted: the disjoint pairs, the pairs its groups of lanes tested, and
/// the work that took, for a profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PairCount {
    pub(super) disjoint: u64,
    pub(super) tested: u64,
    pub(super) work: tables::Work,
}

/// What counts the pairs: the widest vectors this processor has, with the proof that it
/// has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PairKernel {
    /// 512 pairs per table entry, with AVX-512's vector popcount.
    Avx512(Avx512Popcnt),
    /// 256 pairs per table entry.
    Avx2(Avx2),
    /// 64 pairs per table entry, in plain `u64`s.
    Scalar,
}

impl PairKernel {
    /// The pair test `kernel` names, if this processor runs it: for [`Kernel::Auto`], the
    /// widest it has. AVX-512 here needs the vector popcount too.
    pub(super) fn new(kernel: Kernel) -> Option<PairKernel> {
        match kernel {
            Kernel::Auto => Some(
                PairKernel::new(Kernel::Avx512)
                    .or_else(|| PairKernel::new(Kernel::Avx2))
                    .unwrap_or(PairKernel::Scalar),
            ),
            Kernel::Avx512 => Avx512Popcnt::new().map(PairKernel::Avx512),
            Kernel::Avx2 => Avx2::new().map(PairKernel::Avx2),
            Kernel::Scalar => Some(PairKernel::Scalar),
        }
    }

    /// The kernel's name.
    pub(super) fn kernel(self) -> Kernel {
        match self {
            PairKernel::Avx512(_) => Kernel::Avx512,
            PairKernel::Avx2(_) => Kernel::Avx2,
            PairKernel::Scalar => Kernel::Scalar,
        }
    }

    /// The stored bitsets one group of lanes holds.
    fn lanes(self) -> usize {
        match self {
            PairKernel::Avx512(_) => 512,
            PairKernel::Avx2(_) => 256,
            PairKernel::Scalar => 64,
        }
    }

    /// The number of pairs `(s, q)` of `stored` and `queries` with `s & q == 0`, for
    /// bitsets below bit `bits`.
    ///
    /// Large lists are sorted into buckets by the bits that the most pairs hold on both
    /// sides ([`key`]), and the buckets of a [`tree`] of their prefixes meet only where
    /// they have no bit in common, which skips most pairs; the bits that only one list
    /// holds, which cannot clash, are dropped on the way. Lists too short for a key are
    /// counted whole ([`PairKernel::count_every`]).
    ///
    /// Only the groups of `slice` are counted. Where `sorting` is given, the time spent
    /// before the groups (choosing the key, sorting, building the tree), which every slice
    /// spends alike, is added to it.
    pub(super) fn count(
        self,
        stored: &[u64],
        queries: &[u64],
        bits: u32,
        slice: Slice,
        scratch: &mut Scratch,
        sorting: Option<&mut Duration>,
    ) -> PairCount {
        let started = sorting.is_some().then(Stopwatch::start);
        let held = |list: &[u64]| list.iter().fold(0, |held, &bitset| held | bitset);
        let live = held(stored) & held(queries) & u64::MAX.checked_shr(64 - bits).unwrap_or(0);
        let key = key::choose(self.lanes(), stored, queries, live);
        if key.bits().is_empty() {
            return self.count_every(stored, queries, bits, slice, scratch);
        }
        scratch.permutation.build(live, &key, FastPext::new());
        // Out of `scratch` for the loop, since counting a group borrows the rest of it.
        let mut sorted_stored = std::mem::take(&mut scratch.sorted_stored);
        let mut sorted_queries = std::mem::take(&mut scratch.sorted_queries);
        let mut stored_starts = std::mem::take(&mut scratch.stored_starts);
        let mut query_starts = std::mem::take(&mut scratch.query_starts);
        let mut leaves = std::mem::take(&mut scratch.leaves);
        let mut runs = std::mem::take(&mut scratch.runs);
        let mut queries_within = std::mem::take(&mut scratch.queries_within);
        let by_key = &scratch.permutation;
        let stored = by_key.sort(stored, &mut sorted_stored, &mut stored_starts, &mut scratch.next);
        let queries =
            by_key.sort(queries, &mut sorted_queries, &mut query_starts, &mut scratch.next);
        tree::queries_within(&query_starts, by_key.key_bits, &mut queries_within);
        let tree = Tree {
            stored_starts: &stored_starts,
            query_starts: &query_starts,
            queries_within: &queries_within,
            key_bits: by_key.key_bits,
            rest_bits: by_key.rest_bits,
            lanes: self.lanes(),
        };
        tree.leaves(&mut leaves);
        if let (Some(started), Some(sorting)) = (started, sorting) {
            *sorting += started.elapsed();
        }
        let mut count = PairCount::default();
        let groups = leaves.len();
        let sliced = (leaves.iter().enumerate())
            .filter(|&(position, _)| slice.holds_group(position, groups));
        for (_, &leaf) in sliced {
            tree.queries(leaf, &mut runs);
            let queried: usize = runs.iter().map(ExactSizeIterator::len).sum();
            let group = &stored[tree.stored(leaf)];
            let bits = tree.bits(leaf);
            count.disjoint += self.count_group(group, queries, &runs, bits, scratch);
            count.tested += (group.len() * queried) as u64;
            if scratch.counts_work {
                count.work += tables::work_of(self.lanes(), group.len(), bits, queried);
            }
        }
        scratch.runs = runs;
        scratch.queries_within = queries_within;
        scratch.leaves = leaves;
        scratch.stored_starts = stored_starts;
        scratch.query_starts = query_starts;
        scratch.sorted_stored = sorted_stored;
        scratch.sorted_queries = sorted_queries;
        count
    }

    /// [`PairKernel::count`] without buckets: every pair is tested.
    pub(super) fn count_every(
        self,
        stored: &[u64],
        queries: &[u64],
        bits: u32,
        slice: Slice,
        scratch: &mut Scratch,
    ) -> PairCount {
        let stored = slice.of_lanes(stored, self.lanes());
        if stored.is_empty() {
            return PairCount::default();
        }
        let every_query = 0..queries.len();
        let runs = std::slice::from_ref(&every_query);
        let disjoint = self.count_group(stored, queries, runs, bits, scratch);
        let tested = (stored.len() * queries.len()) as u64;
        let work = if scratch.counts_work {
            tables::work_of(self.lanes(), stored.len(), bits, queries.len())
        } else {
            Work::default()
        };
        PairCount { disjoint, tested, work }
    }

    /// The disjoint pairs of `stored` and the queries in `runs`, all below bit `bits`, in
    /// full groups of the widest width and the rest narrower ([`tables::parts`]): each
    /// part is counted in the width its length takes. (Cut inside the kernels' functions,
    /// the query loop kept a pointer on the stack and N = 20 took 1.05 times as long.)
    fn count_group(
        self,
        stored: &[u64],
        queries: &[u64],
        runs: &[Range<usize>],
        bits: u32,
        scratch: &mut Scratch,
    ) -> u64 {
        let mut found = 0;
        let mut from = 0;
        for part in tables::parts(self.lanes(), stored.len()) {
            let stored = &stored[from..from + part.stored];
            found += self.count_in_one_width(Lists { stored, queries, runs, bits }, scratch);
            from += part.stored;
        }
        found
    }

    /// The disjoint pairs of `lists`, in the width the stored list's length takes.
    fn count_in_one_width(self, lists: Lists<'_>, scratch: &mut Scratch) -> u64 {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx512` proves that the processor has every feature `count_avx512`
            // is compiled for.
            PairKernel::Avx512(avx512) => unsafe {
                tables::count_avx512(avx512, lists, &mut scratch.tables)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx2` proves that the processor has every feature `count_avx2` is
            // compiled for.
            PairKernel::Avx2(avx2) => unsafe {
                tables::count_avx2(avx2, lists, &mut scratch.tables)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `bmi` proves that the processor has every feature `count_popcnt` is
            // compiled for.
            _ if let Some(bmi) = Bmi::new() => unsafe {
                tables::count_popcnt(bmi, lists, &mut scratch.tables)
            },
            _ => tables::by_chunks::<1, NARROW_CHUNK, _>((), lists, &mut scratch.tables.narrow),
        }
    }
}

#[cfg(test)]
mod tests {
    use nqueens_test_support::XorShift;

    use super::*;

    /// Bitsets of `bits` bits, each bit set with a probability of `per_mille` / 1000 and
    /// the lower bits more crowded, as the central diagonals are, from a fixed seed.
    pub(super) fn bitsets(len: usize, bits: u32, per_mille: u64, seed: u64) -> Vec<u64> {
        let mut random = XorShift::new(seed);
        (0..len)
            .map(|_| {
                (0..bits)
                    .filter(|&bit| random.next_u64() % 1000 < per_mille + u64::from(bits - bit) * 8)
                    .fold(0u64, |set, bit| set | 1 << bit)
            })
            .collect()
    }

    /// The disjoint pairs of `stored` and the queries in `runs`, one pair at a time.
    pub(super) fn disjoint_in_runs(stored: &[u64], queries: &[u64], runs: &[Range<usize>]) -> u64 {
        let queried = || runs.iter().flat_map(|run| &queries[run.clone()]);
        stored.iter().map(|&s| queried().filter(|&&q| s & q == 0).count() as u64).sum()
    }

    fn kernels() -> Vec<PairKernel> {
        [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar]
            .into_iter()
            .filter_map(PairKernel::new)
            .collect()
    }

    #[test]
    fn the_shorter_list_is_stored_unless_both_are_long() {
        let lengths = |a: usize, b: usize| {
            let (a, b) = (vec![0u64; a], vec![1u64; b]);
            let (stored, queried) = stored_and_queried(&a, &b);
            (stored.len(), queried.len())
        };
        assert_eq!(lengths(10, 20), (10, 20));
        assert_eq!(lengths(20, 10), (10, 20));
        assert_eq!(
            lengths(QUERIED_FROM - 1, 5 * QUERIED_FROM),
            (QUERIED_FROM - 1, 5 * QUERIED_FROM)
        );
        assert_eq!(lengths(QUERIED_FROM, 5 * QUERIED_FROM), (5 * QUERIED_FROM, QUERIED_FROM));
        assert_eq!(lengths(5 * QUERIED_FROM, QUERIED_FROM), (5 * QUERIED_FROM, QUERIED_FROM));
    }

    #[test]
    fn every_kernel_counts_the_disjoint_pairs_with_and_without_buckets() {
        for (stored_len, query_len, bits, per_mille) in
            [(3, 5, 4, 300), (70, 900, 20, 250), (600, 2000, 38, 200), (5000, 3000, 30, 150)]
        {
            let stored = bitsets(stored_len, bits, per_mille, 7);
            let queries = bitsets(query_len, bits, per_mille, 11);
            let expected = stored
                .iter()
                .map(|&s| queries.iter().filter(|&&q| s & q == 0).count() as u64)
                .sum::<u64>();
            assert!(expected > 0, "the lists should have some disjoint pairs");
            for kernel in kernels() {
                let mut scratch = Scratch::default();
                let count = kernel.count(&stored, &queries, bits, Slice::WHOLE, &mut scratch, None);
                assert_eq!(count.disjoint, expected, "{kernel:?}, {stored_len} x {query_len}");
                assert!(count.tested <= (stored_len * query_len) as u64);
            }
        }
    }

    /// Lists of a full group and a rest narrower than it, and of half a group, on every
    /// kernel this processor has.
    #[test]
    fn every_kernel_counts_a_rest_in_a_narrower_width() {
        for (stored_len, bits) in [(600, 24), (1030, 30), (300, 20)] {
            let stored = bitsets(stored_len, bits, 250, 19);
            let queries = bitsets(900, bits, 250, 23);
            let runs = [0..400, 500..900];
            let expected = disjoint_in_runs(&stored, &queries, &runs);
            assert!(expected > 0, "the lists should have some disjoint pairs");
            for kernel in kernels() {
                let mut scratch = Scratch::default();
                let count = kernel.count_group(&stored, &queries, &runs, bits, &mut scratch);
                assert_eq!(count, expected, "{kernel:?}, {stored_len} stored");
            }
        }
    }

    #[test]
    fn bits_that_only_one_list_holds_are_dropped_without_losing_pairs() {
        // Bits 20 to 29 only in the stored list and 30 to 37 only in the queries: they
        // can never clash, and with them dropped the rest take fewer chunks.
        let stored: Vec<u64> = bitsets(3000, 30, 200, 7);
        let queries: Vec<u64> =
            bitsets(4000, 38, 200, 11).into_iter().map(|q| q & !(((1 << 10) - 1) << 20)).collect();
        let expected = stored
            .iter()
            .map(|&s| queries.iter().filter(|&&q| s & q == 0).count() as u64)
            .sum::<u64>();
        for kernel in kernels() {
            let mut scratch = Scratch::default();
            let count = kernel.count(&stored, &queries, 38, Slice::WHOLE, &mut scratch, None);
            assert_eq!(count.disjoint, expected, "{kernel:?}");
            let kept = scratch.permutation.key_bits + scratch.permutation.rest_bits;
            assert_eq!(kept, 20, "{kernel:?}: only bits 0 to 19 can clash");
        }
        // No bit held by both: every pair is disjoint.
        let (low, high) = (vec![0b0101u64; 2000], vec![0b1010u64; 3000]);
        let mut scratch = Scratch::default();
        let count = PairKernel::Scalar.count(&low, &high, 4, Slice::WHOLE, &mut scratch, None);
        assert_eq!(count.disjoint, 2000 * 3000);
    }

    #[test]
    fn large_lists_are_bucketed_and_skip_most_pairs() {
        let (stored, queries) = (bitsets(5000, 30, 150, 3), bitsets(3000, 30, 150, 5));
        let mut scratch = Scratch::default();
        let count =
            PairKernel::Scalar.count(&stored, &queries, 30, Slice::WHOLE, &mut scratch, None);
        assert!(count.tested < 5000 * 3000 / 2, "{count:?}");
    }

    /// However many counts the slices deal out, each of a count's groups is one slice's,
    /// and every slice takes the same share of them all.
    #[test]
    fn slices_deal_later_counts_evenly_and_wholly() {
        for of in [1, 5, 16] {
            for later in 1..40 {
                let mut shares = vec![0.0; of];
                for at in 0..later {
                    for position in 0..2 * of {
                        let holders = (0..of)
                            .filter(|&index| {
                                let part = Slice::nth(index, of).of_later(later, at);
                                part.is_some_and(|part| part.holds(position))
                            })
                            .count();
                        assert_eq!(holders, 1, "{later} counts in {of}: {at}, {position}");
                    }
                    for (index, share) in shares.iter_mut().enumerate() {
                        *share +=
                            Slice::nth(index, of).of_later(later, at).map_or(0.0, Slice::share);
                    }
                }
                for share in shares {
                    let even = later as f64 / of as f64;
                    assert!((share - even).abs() < 1e-9, "{later} counts in {of}: {share}");
                }
                assert_eq!(Slice::WHOLE.of_later(later, later - 1), Some(Slice::WHOLE));
            }
        }
    }

    /// Every group is one slice's, dealt in runs of neighbours as long as the count's
    /// groups allow while every slice takes at least its share of runs, and the slices'
    /// shares of the groups differ by at most a run.
    #[test]
    fn slices_take_groups_in_runs_of_neighbours() {
        for of in [1, 5, 16] {
            for groups in [1, 7, of * RUNS_PER_SLICE * 3, 34_010] {
                let holder = |position| {
                    let holders: Vec<usize> = (0..of)
                        .filter(|&index| Slice::nth(index, of).holds_group(position, groups))
                        .collect();
                    assert_eq!(holders.len(), 1, "{groups} groups in {of}: {position}");
                    holders[0]
                };
                let holders: Vec<usize> = (0..groups).map(holder).collect();
                let run = Slice::nth(0, of).groups_per_run(groups);
                assert!((1..=GROUPS_PER_RUN).contains(&run), "{groups} groups: runs of {run}");
                assert!(run == 1 || groups / run >= of * RUNS_PER_SLICE, "{groups}: {run}");
                for (position, pair) in holders.windows(2).enumerate() {
                    let run_ends = (position + 1) % run == 0;
                    assert_eq!(pair[0] == pair[1], !run_ends || of == 1, "{groups}: {position}");
                }
                let taken = |index| holders.iter().filter(|&&holder| holder == index).count();
                let (least, most) = (0..of)
                    .map(taken)
                    .fold((groups, 0), |(least, most), t| (least.min(t), most.max(t)));
                assert!(most - least <= run, "{groups} groups in {of}: {least} to {most}");
            }
        }
    }

    /// The slices of a count partition its pairs and the pairs it tests, and each slice
    /// times the sorting that all of them repeat.
    #[test]
    fn slices_partition_the_pairs() {
        let (stored, queries) = (bitsets(6000, 30, 150, 3), bitsets(4000, 30, 150, 5));
        for kernel in kernels() {
            let mut scratch = Scratch { counts_work: true, ..Scratch::default() };
            let whole = kernel.count(&stored, &queries, 30, Slice::WHOLE, &mut scratch, None);
            let mut sum = PairCount::default();
            let mut counted_slices = 0;
            for index in 0..5 {
                let mut sorting = Duration::ZERO;
                let slice = Slice::nth(index, 5);
                let count =
                    kernel.count(&stored, &queries, 30, slice, &mut scratch, Some(&mut sorting));
                assert!(sorting > Duration::ZERO, "{kernel:?}");
                counted_slices += usize::from(count.tested > 0);
                sum.disjoint += count.disjoint;
                sum.tested += count.tested;
                sum.work += count.work;
            }
            assert_eq!(sum, whole, "{kernel:?}");
            assert!(counted_slices > 1, "{kernel:?}: one slice took every group");
        }
    }

    /// The pairs counted without buckets are shared by the slices too, in whole groups of
    /// lanes: at N = 28 the first slice had counted them all, at up to 3.5 times the
    /// others' cost per solution.
    #[test]
    fn slices_share_the_pairs_counted_without_buckets() {
        let (stored, queries) = (bitsets(3000, 30, 150, 7), bitsets(900, 30, 150, 11));
        for kernel in kernels() {
            let mut scratch = Scratch::default();
            let whole = kernel.count_every(&stored, &queries, 30, Slice::WHOLE, &mut scratch);
            assert_eq!(whole.tested, (stored.len() * queries.len()) as u64);
            let mut sum = PairCount::default();
            let mut taking = 0;
            for index in 0..16 {
                let slice = Slice::nth(index, 16);
                let count = kernel.count_every(&stored, &queries, 30, slice, &mut scratch);
                let share = count.tested as usize / queries.len();
                let last = index == 15;
                assert!(last || share.is_multiple_of(kernel.lanes()), "{kernel:?}: {share} stored");
                taking += usize::from(share > 0);
                sum.disjoint += count.disjoint;
                sum.tested += count.tested;
            }
            assert_eq!((sum.disjoint, sum.tested), (whole.disjoint, whole.tested), "{kernel:?}");
            assert!(taking > 1, "{kernel:?}: one slice took every pair");
        }
    }
}
