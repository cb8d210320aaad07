//! Counting the pairs of two lists of bitsets that have no bit in common, many pairs per
//! instruction.
//!
//! The stored list is cut into groups of lanes (64 per `u64`, and 256 or 512 per group
//! when the processor has AVX2 or AVX-512). For a group, bit `j` of `occupied[k]` says that
//! lane `j`'s bitset holds bit `k`; a table per chunk of a few bits gives, for every value of
//! the chunk, the lanes that hold none of its bits. A query's compatible lanes are then the
//! AND of one table entry per chunk, and their number one popcount.

use std::ops::Range;

use crate::kernel::Kernel;
use crate::simd::{Avx2, Avx512Popcnt, Bmi, FastPext};

/// Lanes of one group, as words.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Lanes<const W: usize>([u64; W]);

/// One chunk's table: for every value of the chunk, the lanes that hold none of its bits.
/// Aligned so that every entry of a vector's width is one aligned load, while the narrow
/// tables stay a word per entry and so in the first-level cache.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Table<const W: usize>([Lanes<W>; ENTRIES]);

/// The most table entries per chunk: chunks are at most 8 bits.
const ENTRIES: usize = 256;

/// Bits of the query a table covers, per lane width: the tables of a group should stay in
/// the first-level cache, so wider lanes take smaller chunks.
const NARROW_CHUNK: u32 = 8;
const WIDE_CHUNK: u32 = 6;

/// The most bytes the tables of one lane width take: 11 chunks (62 bits in 6-bit chunks)
/// of 256 entries of 64 bytes.
pub(super) const MOST_TABLE_BYTES: usize = 11 * size_of::<Table<8>>();

/// The most bits of the signatures that sort both lists into buckets. The buckets that can
/// hold disjoint pairs are the pairs of keys with no bit in common, 3^k of the 4^k.
const MOST_KEY_BITS: u32 = 10;

/// What building a group's tables costs, in queries tested against the group: a key bit
/// that splits groups pays only if the queries it skips outweigh the tables it adds.
const TABLES_IN_QUERIES: f64 = 48.0;

/// The runs of items that [`Permutation::sort_by`] sorts in turns.
const SORT_STREAMS: usize = 4;

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

/// Tables and buckets reused from call to call.
#[derive(Default)]
pub(super) struct Scratch {
    narrow: Vec<Table<1>>,
    avx2: Vec<Table<4>>,
    avx512: Vec<Table<8>>,
    permutation: Permutation,
    stored_starts: Vec<usize>,
    query_starts: Vec<usize>,
    next: Vec<usize>,
    compatible: Vec<Range<usize>>,
    /// Both lists sorted into their buckets: at most as many bitsets as the two lists.
    sorted_stored: Vec<u64>,
    sorted_queries: Vec<u64>,
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
        self.sorted_stored = Vec::new();
        self.sorted_queries = Vec::new();
    }

    /// The bytes of everything else, which do not grow with the lists.
    #[cfg(test)]
    pub(super) fn held_bytes(&self) -> usize {
        self.narrow.capacity() * size_of::<Table<1>>()
            + self.avx2.capacity() * size_of::<Table<4>>()
            + self.avx512.capacity() * size_of::<Table<8>>()
            + self.permutation.tables.capacity() * size_of::<[u64; 256]>()
            + (self.stored_starts.capacity() + self.query_starts.capacity() + self.next.capacity())
                * size_of::<usize>()
            + self.compatible.capacity() * size_of::<Range<usize>>()
    }
}

/// What one call counted: the disjoint pairs, and the pairs its groups of lanes tested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PairCount {
    pub(super) disjoint: u64,
    pub(super) tested: u64,
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

    /// The bits that sort both lists into buckets, the most crowded first: the bits that
    /// the most pairs of a stored and a query bitset both hold, judged from an even sample
    /// of each list (counting every bitset's bits would cost more than the better choice
    /// saves), as many as pay for themselves. Each bit halves the buckets and skips the
    /// pairs that both hold it, a share the sample tells; once buckets are smaller than a
    /// group of lanes, each bit also doubles the groups whose tables are built.
    fn key(self, stored: &[u64], queries: &[u64], bits: u32) -> u64 {
        // One group's worth split into buckets is as many groups as buckets, each tested
        // against the queries of the buckets it meets: what the key skips, the extra
        // groups spend again.
        if stored.len() <= self.lanes() {
            return 0;
        }
        // Choosing looks at up to twice CROWDING_SAMPLE bitsets, bit by bit: lists with few
        // groups' worth of queries (the many small row sets of odd boards) cannot win it back.
        let groups = stored.len().div_ceil(self.lanes());
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

    /// The number of pairs `(s, q)` of `stored` and `queries` with `s & q == 0`, for
    /// bitsets below bit `bits`. Both lists are rewritten in the count.
    ///
    /// Large lists are first sorted into buckets by the `k` bits that the most pairs hold
    /// on both sides, and only the buckets whose keys have no bit in common meet: with
    /// the bits the signatures crowd most, that skips most pairs (at N = 12 and 14, ten
    /// bits leave 3 to 4 pairs in a hundred to test).
    pub(super) fn count(
        self,
        stored: &mut [u64],
        queries: &mut [u64],
        bits: u32,
        scratch: &mut Scratch,
    ) -> PairCount {
        let key = self.key(stored, queries, bits);
        if key == 0 {
            let every_query = 0..queries.len();
            let runs = std::slice::from_ref(&every_query);
            let disjoint = self.count_group(stored, queries, runs, bits, scratch);
            return PairCount { disjoint, tested: (stored.len() * queries.len()) as u64 };
        }
        scratch.permutation.build(bits, key, FastPext::new());
        let rest = scratch.permutation.rest_bits;
        // Out of `scratch` for the loop, since counting a group borrows the rest of it.
        let mut sorted_stored = std::mem::take(&mut scratch.sorted_stored);
        let mut sorted_queries = std::mem::take(&mut scratch.sorted_queries);
        let by_key = &scratch.permutation;
        let stored =
            by_key.sort(stored, &mut sorted_stored, &mut scratch.stored_starts, &mut scratch.next);
        let queries =
            by_key.sort(queries, &mut sorted_queries, &mut scratch.query_starts, &mut scratch.next);
        let mut count = PairCount::default();
        let keys = 1usize << key.count_ones();
        let mut compatible = std::mem::take(&mut scratch.compatible);
        for stored_key in 0..keys {
            let group = scratch.stored_starts[stored_key]..scratch.stored_starts[stored_key + 1];
            if group.is_empty() {
                continue;
            }
            compatible.clear();
            let free = !stored_key & (keys - 1);
            // Every key within `free`, from the largest down, so that neighbouring buckets
            // merge into one run of queries.
            let mut query_key = free;
            loop {
                let bucket = scratch.query_starts[query_key]..scratch.query_starts[query_key + 1];
                match compatible.last_mut() {
                    Some(run) if run.start == bucket.end => run.start = bucket.start,
                    _ if !bucket.is_empty() => compatible.push(bucket),
                    _ => {}
                }
                if query_key == 0 {
                    break;
                }
                query_key = (query_key - 1) & free;
            }
            let queried: usize = compatible.iter().map(ExactSizeIterator::len).sum();
            if queried > 0 {
                let group = &stored[group];
                count.disjoint += self.count_group(group, queries, &compatible, rest, scratch);
                count.tested += (group.len() * queried) as u64;
            }
        }
        scratch.compatible = compatible;
        scratch.sorted_stored = sorted_stored;
        scratch.sorted_queries = sorted_queries;
        count
    }

    /// The disjoint pairs of `stored` and the queries in `runs`, all below bit `bits`.
    fn count_group(
        self,
        stored: &[u64],
        queries: &[u64],
        runs: &[Range<usize>],
        bits: u32,
        scratch: &mut Scratch,
    ) -> u64 {
        let lists = Lists { stored, queries, runs, bits };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx512` proves that the processor has every feature `count_avx512`
            // is compiled for.
            PairKernel::Avx512(avx512) => unsafe { count_avx512(avx512, lists, scratch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx2` proves that the processor has every feature `count_avx2` is
            // compiled for.
            PairKernel::Avx2(avx2) => unsafe { count_avx2(avx2, lists, scratch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `bmi` proves that the processor has every feature `count_popcnt` is
            // compiled for.
            _ if let Some(bmi) = Bmi::new() => unsafe { count_popcnt(bmi, lists, scratch) },
            _ => by_chunks::<1, NARROW_CHUNK>((), lists, &mut scratch.narrow),
        }
    }
}

/// The stored side of one group, and the runs of queries it meets.
#[derive(Clone, Copy)]
struct Lists<'a> {
    stored: &'a [u64],
    queries: &'a [u64],
    runs: &'a [Range<usize>],
    bits: u32,
}

/// The permutation of the bits of a `u64` that moves a key's bits to the top and the other
/// bits below them, each in their order: one `pext` per part where the processor runs it
/// in hardware, else a table lookup per byte.
#[derive(Default)]
struct Permutation {
    key: u64,
    rest: u64,
    rest_bits: u32,
    pext: Option<FastPext>,
    tables: Vec<[u64; 256]>,
}

impl Permutation {
    /// The permutation of the `bits` bits that moves the bits of `key` to the top, through
    /// `pext` if given.
    fn build(&mut self, bits: u32, key: u64, pext: Option<FastPext>) {
        let every = u64::MAX >> (64 - bits);
        (self.key, self.rest, self.pext) = (key, every & !key, pext);
        self.rest_bits = self.rest.count_ones();
        if pext.is_some() {
            return;
        }
        let mut target = [0u32; 64];
        let (mut next_rest, mut next_key) = (0, self.rest_bits);
        for (bit, target) in target.iter_mut().enumerate().take(bits as usize) {
            let next = if key >> bit & 1 == 1 { &mut next_key } else { &mut next_rest };
            (*target, *next) = (*next, *next + 1);
        }
        let bytes = bits.div_ceil(8) as usize;
        self.tables.resize(bytes, [0; 256]);
        for (byte, table) in self.tables.iter_mut().enumerate() {
            for value in 1..256usize {
                let bit = byte * 8 + value.trailing_zeros() as usize;
                let moved = if bit < bits as usize { 1u64 << target[bit] } else { 0 };
                table[value] = table[value & (value - 1)] | moved;
            }
        }
    }

    /// Rewrites `items` through the permutation and sorts them by key, with the key bits
    /// cleared, into `spare`, which it returns; `starts[key]..starts[key + 1]` is then the
    /// bucket of `key`, the bits of `self.key` gathered, in order, at the bottom.
    fn sort<'s>(
        &self,
        items: &mut [u64],
        spare: &'s mut Vec<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pext` proves that the processor has BMI2.
            Some(pext) => unsafe { sort_through_pext(pext, self, items, spare, starts, next) },
            _ => self.sort_by(|item| self.through_tables(item), items, spare, starts, next),
        }
    }

    fn through_tables(&self, bitset: u64) -> u64 {
        let mut moved = 0;
        for (byte, table) in self.tables.iter().enumerate() {
            moved |= table[(bitset >> (8 * byte)) as u8 as usize];
        }
        moved
    }

    /// [`Permutation::sort`] with the permutation `permute`. Both passes go through the items
    /// in order: sorting in place chained every move on the one before. The items are cut
    /// into [`SORT_STREAMS`] runs, each with its own counts and write positions, and the
    /// runs are taken in turns: neighbouring items often share a key (a third of them at
    /// N = 18), and one write position per key chained every write to a bucket on the one
    /// before it.
    #[inline(always)]
    fn sort_by<'s>(
        &self,
        permute: impl Fn(u64) -> u64,
        items: &mut [u64],
        spare: &'s mut Vec<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        let keys = 1usize << self.key.count_ones();
        let rest_bits = self.rest_bits;
        let run = items.len() / SORT_STREAMS;
        // The items past the whole runs join the last one.
        let last = (SORT_STREAMS - 1) * keys;
        next.clear();
        next.resize(SORT_STREAMS * keys, 0);
        for at in 0..run {
            for stream in 0..SORT_STREAMS {
                let item = &mut items[stream * run + at];
                *item = permute(*item);
                next[stream * keys + (*item >> rest_bits) as usize] += 1;
            }
        }
        for item in &mut items[SORT_STREAMS * run..] {
            *item = permute(*item);
            next[last + (*item >> rest_bits) as usize] += 1;
        }
        starts.clear();
        let mut written = 0;
        for key in 0..keys {
            starts.push(written);
            for stream in 0..SORT_STREAMS {
                let count = next[stream * keys + key];
                next[stream * keys + key] = written;
                written += count;
            }
        }
        starts.push(written);
        if spare.len() < items.len() {
            spare.reserve_exact(items.len() - spare.len());
            spare.resize(items.len(), 0);
        }
        let mask = (1u64 << rest_bits) - 1;
        let mut write = |slot: usize, item: u64| {
            let position = &mut next[slot + (item >> rest_bits) as usize];
            spare[*position] = item & mask;
            *position += 1;
        };
        for at in 0..run {
            for stream in 0..SORT_STREAMS {
                write(stream * keys, items[stream * run + at]);
            }
        }
        for &item in &items[SORT_STREAMS * run..] {
            write(last, item);
        }
        &spare[..items.len()]
    }

    #[cfg(test)]
    fn apply(&self, bitset: u64) -> u64 {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pext` proves that the processor has BMI2.
            Some(pext) => unsafe { through_pext(pext, self, bitset) },
            _ => self.through_tables(bitset),
        }
    }
}

/// [`Permutation`] through `pext`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn through_pext(_: FastPext, permutation: &Permutation, bitset: u64) -> u64 {
    use std::arch::x86_64::_pext_u64;
    let Permutation { key, rest, rest_bits, .. } = *permutation;
    _pext_u64(bitset, rest) | _pext_u64(bitset, key) << rest_bits
}

/// [`Permutation::sort`] compiled with BMI2, so that its permutation is two `pext`s inlined
/// into the loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn sort_through_pext<'s>(
    pext: FastPext,
    permutation: &Permutation,
    items: &mut [u64],
    spare: &'s mut Vec<u64>,
    starts: &mut Vec<usize>,
    next: &mut Vec<usize>,
) -> &'s [u64] {
    let permute = |item| through_pext(pext, permutation, item);
    permutation.sort_by(permute, items, spare, starts, next)
}

/// [`PairKernel::count_group`] compiled for AVX-512, so that the table building and the
/// query loop inlined into it use its instructions. A group too small to fill a vector is
/// tested in a narrower one: wider vectors would test nothing more.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1")]
fn count_avx512(avx512: Avx512Popcnt, lists: Lists<'_>, scratch: &mut Scratch) -> u64 {
    match lists.stored.len() {
        0..=64 => by_chunks::<1, WIDE_CHUNK>((), lists, &mut scratch.narrow),
        65..=256 => by_chunks::<4, WIDE_CHUNK>(avx512.avx2(), lists, &mut scratch.avx2),
        _ => by_chunks::<8, WIDE_CHUNK>(avx512, lists, &mut scratch.avx512),
    }
}

/// [`PairKernel::count_group`] compiled for AVX2, as [`count_avx512`] is for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn count_avx2(avx2: Avx2, lists: Lists<'_>, scratch: &mut Scratch) -> u64 {
    match lists.stored.len() {
        0..=64 => by_chunks::<1, WIDE_CHUNK>((), lists, &mut scratch.narrow),
        _ => by_chunks::<4, WIDE_CHUNK>(avx2, lists, &mut scratch.avx2),
    }
}

/// [`PairKernel::count_group`] in plain `u64`s, compiled with the popcount instruction,
/// which the scalar backtracking kernel uses as well.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn count_popcnt(_: Bmi, lists: Lists<'_>, scratch: &mut Scratch) -> u64 {
    by_chunks::<1, NARROW_CHUNK>((), lists, &mut scratch.narrow)
}

/// Picks the copy of the loop with the right number of chunks unrolled.
#[inline(always)]
fn by_chunks<const W: usize, const CHUNK: u32>(
    token: <Table<W> as Query>::Token,
    lists: Lists<'_>,
    tables: &mut Vec<Table<W>>,
) -> u64
where
    Table<W>: Query,
{
    macro_rules! unrolled {
        ($($chunks:literal)*) => {
            match lists.bits.div_ceil(CHUNK).max(1) {
                $($chunks => in_groups::<W, CHUNK, $chunks>(token, lists, tables),)*
                _ => unreachable!("signatures have at most 62 bits"),
            }
        };
    }
    unrolled!(1 2 3 4 5 6 7 8 9 10 11)
}

/// Counts the pairs a group of stored lanes at a time. `token` proves that the processor
/// has the instructions of the lane width's query loop, so that this function is safe for
/// every width.
#[inline(always)]
fn in_groups<const W: usize, const CHUNK: u32, const CHUNKS: usize>(
    token: <Table<W> as Query>::Token,
    lists: Lists<'_>,
    tables: &mut Vec<Table<W>>,
) -> u64
where
    Table<W>: Query,
{
    let entries = 1usize << CHUNK;
    if tables.len() < CHUNKS {
        tables.resize(CHUNKS, Table([Lanes([0; W]); ENTRIES]));
    }
    let mut found = 0u64;
    for group in lists.stored.chunks(64 * W) {
        // Chunks may run past the last bit, so there is room for a chunk's worth more.
        let mut occupied = [Lanes([0u64; W]); 64 + 8];
        let mut valid = Lanes([0u64; W]);
        for (lane, &bitset) in group.iter().enumerate() {
            let (word, lane) = (lane / 64, lane % 64);
            valid.0[word] |= 1 << lane;
            occupied[lane].0[word] = bitset;
        }
        transpose(&mut occupied[..64]);
        for (chunk, table) in tables.iter_mut().take(CHUNKS).enumerate() {
            table.0[0] = if chunk == 0 { valid } else { Lanes([!0; W]) };
            for value in 1..entries {
                let bit = CHUNK as usize * chunk + value.trailing_zeros() as usize;
                let mut lanes = table.0[value & (value - 1)];
                for (lane, taken) in lanes.0.iter_mut().zip(occupied[bit].0) {
                    *lane &= !taken;
                }
                table.0[value] = lanes;
            }
        }
        let tables: &[_; CHUNKS] = tables[..CHUNKS].try_into().expect("CHUNKS tables");
        for run in lists.runs {
            let queries = &lists.queries[run.clone()];
            found += Table::<W>::count_free::<CHUNK, CHUNKS>(token, tables, queries);
        }
    }
    found
}

/// Transposes, in every word, the 64 x 64 bit matrix whose rows are `rows`: afterwards bit
/// `lane` of row `bit` is bit `bit` of what row `lane` held. Swapping the two off-diagonal
/// blocks of halving size, six times, costs a few word operations per bitset, where setting
/// each bit on its own chained an update of memory on the one before.
#[inline(always)]
fn transpose<const W: usize>(rows: &mut [Lanes<W>]) {
    let mut width = 32;
    let mut low = u64::MAX >> 32;
    while width != 0 {
        for block in rows.chunks_exact_mut(2 * width) {
            let (upper, lower) = block.split_at_mut(width);
            for (a, b) in upper.iter_mut().zip(lower) {
                for (a, b) in a.0.iter_mut().zip(&mut b.0) {
                    let swapped = ((*a >> width) ^ *b) & low;
                    *a ^= swapped << width;
                    *b ^= swapped;
                }
            }
        }
        width /= 2;
        low ^= low << width;
    }
}

/// The query loop for one lane width: for every query, the AND of one table entry per
/// chunk, and the popcount of the lanes left. Written with explicit vector instructions,
/// since the compiler would vectorise across queries with slow gathers instead.
trait Query: Sized {
    /// The proof that the processor has the loop's instructions.
    type Token: Copy;

    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        token: Self::Token,
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64;
}

impl Query for Table<1> {
    /// Plain `u64` arithmetic, which every processor has.
    type Token = ();

    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        (): (),
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        let mask = (1u64 << CHUNK) - 1;
        let mut found = 0u64;
        for &query in queries {
            let mut free = !0u64;
            for (chunk, table) in tables.iter().enumerate() {
                free &= table.0[((query >> (CHUNK as usize * chunk)) & mask) as usize].0[0];
            }
            found += u64::from(free.count_ones());
        }
        found
    }
}

#[cfg(target_arch = "x86_64")]
impl Query for Table<8> {
    type Token = Avx512Popcnt;

    #[inline(always)]
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        avx512: Avx512Popcnt,
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        // SAFETY: `avx512` proves that the processor has every feature `count_free_avx512`
        // is compiled for.
        unsafe { count_free_avx512::<CHUNK, CHUNKS>(avx512, tables, queries) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Query for Table<4> {
    type Token = Avx2;

    #[inline(always)]
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        avx2: Avx2,
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        // SAFETY: `avx2` proves that the processor has every feature `count_free_avx2` is
        // compiled for.
        unsafe { count_free_avx2::<CHUNK, CHUNKS>(avx2, tables, queries) }
    }
}

/// The query loop of 512 lanes. A trait method cannot be compiled for extra instructions
/// and stay safe to call, so the loop is a function of its own, which only the token's
/// holder enters.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn count_free_avx512<const CHUNK: u32, const CHUNKS: usize>(
    _: Avx512Popcnt,
    tables: &[Table<8>; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: an entry of a `Table<8>` is 64 bytes aligned to 64, one whole vector.
    let load = |lanes: &Lanes<8>| unsafe { _mm512_load_si512((&raw const lanes.0).cast()) };
    let mut found = _mm512_setzero_si512();
    for &query in queries {
        let mut free = load(&tables[0].0[(query & mask) as usize]);
        for (chunk, table) in tables.iter().enumerate().skip(1) {
            let entry = load(&table.0[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
            free = _mm512_and_si512(free, entry);
        }
        found = _mm512_add_epi64(found, _mm512_popcnt_epi64(free));
    }
    _mm512_reduce_add_epi64(found) as u64
}

/// The query loop of 256 lanes, a function of its own as [`count_free_avx512`] is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn count_free_avx2<const CHUNK: u32, const CHUNKS: usize>(
    _: Avx2,
    tables: &[Table<4>; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: an entry of a `Table<4>` is 32 bytes aligned to 32, one whole vector.
    let load = |lanes: &Lanes<4>| unsafe { _mm256_load_si256((&raw const lanes.0).cast()) };
    // AVX2 has no vector popcount: each byte's is looked up by nibbles with a byte
    // shuffle, and the bytes' counts summed in place for as many queries as a byte can
    // hold (8 each) before they are widened.
    let nibble = _mm256_set1_epi8(0x0f);
    let ones = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    let mut found = _mm256_setzero_si256();
    for block in queries.chunks(31) {
        let mut bytes = _mm256_setzero_si256();
        for &query in block {
            let mut free = load(&tables[0].0[(query & mask) as usize]);
            for (chunk, table) in tables.iter().enumerate().skip(1) {
                let entry = load(&table.0[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
                free = _mm256_and_si256(free, entry);
            }
            let low = _mm256_shuffle_epi8(ones, _mm256_and_si256(free, nibble));
            let high =
                _mm256_shuffle_epi8(ones, _mm256_and_si256(_mm256_srli_epi16::<4>(free), nibble));
            bytes = _mm256_add_epi8(bytes, _mm256_add_epi8(low, high));
        }
        found = _mm256_add_epi64(found, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    let mut words = [0u64; 4];
    // SAFETY: `words` is 32 bytes, one whole vector; the store needs no alignment.
    unsafe { _mm256_storeu_si256((&raw mut words).cast(), found) };
    words.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bitsets of `bits` bits, each bit set with a probability of `per_mille` / 1000 and
    /// the lower bits more crowded, as the central diagonals are, from a fixed seed.
    fn bitsets(len: usize, bits: u32, per_mille: u64, seed: u64) -> Vec<u64> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..len)
            .map(|_| {
                (0..bits)
                    .filter(|&bit| next() % 1000 < per_mille + u64::from(bits - bit) * 8)
                    .fold(0u64, |set, bit| set | 1 << bit)
            })
            .collect()
    }

    fn kernels() -> Vec<PairKernel> {
        [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar]
            .into_iter()
            .filter_map(PairKernel::new)
            .collect()
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
                let (mut s, mut q) = (stored.clone(), queries.clone());
                let count = kernel.count(&mut s, &mut q, bits, &mut scratch);
                assert_eq!(count.disjoint, expected, "{kernel:?}, {stored_len} x {query_len}");
                assert!(count.tested <= (stored_len * query_len) as u64);
            }
        }
    }

    #[test]
    fn large_lists_are_bucketed_and_skip_most_pairs() {
        let mut stored = bitsets(5000, 30, 150, 3);
        let mut queries = bitsets(3000, 30, 150, 5);
        let count =
            PairKernel::Scalar.count(&mut stored, &mut queries, 30, &mut Scratch::default());
        assert!(count.tested < 5000 * 3000 / 2, "{count:?}");
    }

    #[test]
    fn the_bucket_sort_keeps_every_item_and_groups_them_by_key() {
        // The bits of `bits` within `mask`, packed from bit 0 up in their order.
        let gather = |bits: u64, mask: u64| {
            let mut packed = 0;
            for (place, bit) in (0..64).filter(|&bit| mask >> bit & 1 == 1).enumerate() {
                packed |= (bits >> bit & 1) << place;
            }
            packed
        };
        for pext in std::iter::once(None).chain(FastPext::new().map(Some)) {
            let mut permutation = Permutation::default();
            permutation.build(20, 1 << 3 | 1 << 17 | 1 << 0, pext);
            assert_eq!(permutation.apply(1 << 0), 1 << 17, "{pext:?}");
            assert_eq!(permutation.apply(1 << 3), 1 << 18, "{pext:?}");
            assert_eq!(permutation.apply(1 << 17), 1 << 19, "{pext:?}");
            assert_eq!(permutation.apply(1 << 1), 1 << 0, "{pext:?}");
            assert_eq!(permutation.apply(1 << 19), 1 << 16, "{pext:?}");
            // Lengths that fill the sort's runs, leave items past them, or fill none.
            let lengths = [1000, 1003, SORT_STREAMS - 1, 0];
            let keys = [0b1001_0010_0100u64, 0b1111_0101_1111];
            for (len, key) in lengths.into_iter().flat_map(|len| keys.map(|key| (len, key))) {
                let original = bitsets(len, 12, 300, 9);
                let key_bits = key.count_ones();
                let (mut starts, mut next) = (Vec::new(), Vec::new());
                let mut items = original.clone();
                let mut spare = vec![u64::MAX; 1200];
                permutation.build(12, key, pext);
                let sorted =
                    permutation.sort(&mut items, &mut spare, &mut starts, &mut next).to_vec();
                assert_eq!((sorted.len(), starts[1 << key_bits]), (len, len));
                for bucket_key in 0..1u64 << key_bits {
                    let mut bucket: Vec<u64> = original
                        .iter()
                        .filter(|&&x| gather(x, key) == bucket_key)
                        .map(|&x| gather(x, !key))
                        .collect();
                    let bucket_key = bucket_key as usize;
                    let mut sorted = sorted[starts[bucket_key]..starts[bucket_key + 1]].to_vec();
                    bucket.sort_unstable();
                    sorted.sort_unstable();
                    assert_eq!(bucket, sorted, "{pext:?}, {len} items, key {key:b}, {bucket_key}");
                }
            }
        }
    }
}
