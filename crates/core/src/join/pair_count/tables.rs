//! The bit-sliced tables of one group of stored lanes, and the entry points that build
//! them and run the query loop in one function compiled for each instruction set.
//!
//! For a group, bit `j` of `occupied[k]` says that lane `j`'s bitset holds bit `k`; a table
//! per chunk of a few bits gives, for every value of the chunk, the lanes that hold none of
//! its bits.

use std::ops::Range;

use super::query::{ENTRIES, Lanes, Lanewise, Query, Table};
use crate::simd::{Avx2, Avx512Popcnt, Bmi, l1_data_bytes, prefetch};

/// Bits of the query a table covers: 8 for groups of 64 lanes, whose entries are words,
/// and for vectors at least 6, whose wide entries would crowd the first-level cache at 8
/// ([`vector_chunk`] widens them where they fit).
pub(super) const NARROW_CHUNK: u32 = 8;
pub(super) const WIDE_CHUNK: u32 = 6;

/// The chunk of vector lanes where the tables it needs fit in the first-level cache and
/// enough queries share them: a chunk fewer per query (at N = 20, 5 of 7 bits for 6 of 6)
/// took 8% off the count with AVX-512 on a 48 KiB cache, where the 40 KiB of tables would
/// crowd out the queries on a 32 KiB one.
const WIDER_CHUNK: u32 = 7;

/// A chunk wider still, where it saves a chunk more. Its tables of 512 lanes (64 to 80 KiB)
/// pass a first-level cache of 48 KiB, and still took 2 to 3% off N = 22 on Zen 4 (1 MiB
/// second-level cache): the values a chunk of the queries takes are few, so the entries
/// they look up stay in the first-level cache.
const WIDEST_CHUNK: u32 = 8;

/// The chunk for a group's tables of `W` words per entry covering `bits` bits, met by
/// `queries` queries, on a first-level data cache of `cache` bytes: where the tables of
/// [`WIDER_CHUNK`] take at most 7/8 of it, leaving room for the queries, the one of the
/// three that costs the fewest lookups and table entries (each about as costly as a
/// lookup); else [`WIDE_CHUNK`].
fn vector_chunk<const W: usize>(bits: u32, queries: usize, cache: usize) -> u32 {
    let chunks = |chunk: u32| bits.div_ceil(chunk).max(1) as usize;
    let entries = |chunk: u32| chunks(chunk) << chunk;
    if entries(WIDER_CHUNK) * size_of::<Lanes<W>>() > cache / 8 * 7 {
        return WIDE_CHUNK;
    }
    let cost = |chunk: u32| queries * chunks(chunk) + entries(chunk);
    [WIDE_CHUNK, WIDER_CHUNK, WIDEST_CHUNK].into_iter().min_by_key(|&chunk| cost(chunk)).unwrap()
}

/// The words per table entry (64 lanes each) that a stored list of `stored` bitsets is
/// counted in, by a pair count whose widest group holds `lanes`: a list too small to fill
/// a vector takes a narrower one, since wider vectors would test nothing more.
fn entry_words(lanes: usize, stored: usize) -> usize {
    let words = match stored {
        0..=64 => 1,
        65..=256 => 4,
        _ => 8,
    };
    words.min(lanes / 64)
}

/// A run of a stored list counted in groups of one width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part {
    /// The words per table entry, 64 lanes each.
    pub(super) words: usize,
    pub(super) stored: usize,
}

/// How a stored list of `stored` bitsets is cut into groups, by a pair count whose widest
/// group holds `lanes`: as many full groups of the widest width as it fills, and what is
/// left in the narrowest width that holds it ([`entry_words`]), so that a list of 600
/// bitsets takes a group of 512 lanes and one of 256 rather than two of 512. Only parts
/// that hold some bitsets are given.
pub(super) fn parts(lanes: usize, stored: usize) -> impl Iterator<Item = Part> {
    let widest = lanes / 64;
    let rest = stored % lanes;
    let rest_words = entry_words(lanes, rest);
    let cut = if rest == 0 || rest == stored || rest_words == widest {
        [Part { words: entry_words(lanes, stored), stored }, Part { words: widest, stored: 0 }]
    } else {
        [Part { words: widest, stored: stored - rest }, Part { words: rest_words, stored: rest }]
    };
    cut.into_iter().filter(|part| part.stored > 0)
}

/// The chunk the tables of a group of `words` words per entry take, met by `queries`
/// queries, for a pair count whose widest group holds `lanes`: what [`count_avx512`],
/// [`count_avx2`] and [`count_popcnt`] choose, for the bucket tree's cost model.
pub(super) fn chunk_of(lanes: usize, words: usize, bits: u32, queries: usize) -> u32 {
    match (lanes, words) {
        (64, _) => NARROW_CHUNK,
        (_, 1) => WIDE_CHUNK,
        (_, 4) => vector_chunk::<4>(bits, queries, l1_data_bytes()),
        _ => vector_chunk::<8>(bits, queries, l1_data_bytes()),
    }
}

/// The work of a pair count, counted from the lengths of its lists rather than by the
/// processor's counters (which not every machine lets a program read), for a profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Work {
    /// Groups of stored lanes, one set of tables built for each.
    pub(crate) groups: u64,
    /// Queries tested against a group: a lookup per chunk, an AND and a popcount each.
    pub(crate) group_tests: u64,
    pub(crate) lookups: u64,
    /// The bytes of the groups' tables written, and of the queries read.
    pub(crate) table_bytes: u64,
    pub(crate) query_bytes: u64,
}

impl std::ops::AddAssign for Work {
    fn add_assign(&mut self, other: Work) {
        self.groups += other.groups;
        self.group_tests += other.group_tests;
        self.lookups += other.lookups;
        self.table_bytes += other.table_bytes;
        self.query_bytes += other.query_bytes;
    }
}

/// The work of counting `stored` lanes against `queries` queries of `bits` bits, in the
/// groups and chunks that [`count_avx512`], [`count_avx2`] and [`count_popcnt`] choose for
/// a pair count whose widest group holds `lanes` ([`parts`]).
pub(super) fn work_of(lanes: usize, stored: usize, bits: u32, queries: usize) -> Work {
    let mut work = Work::default();
    if queries == 0 {
        return work;
    }
    for Part { words, stored } in parts(lanes, stored) {
        let chunk = chunk_of(lanes, words, bits, queries);
        let chunks = u64::from(bits.div_ceil(chunk).max(1));
        let groups = stored.div_ceil(64 * words) as u64;
        let group_tests = groups * queries as u64;
        work += Work {
            groups,
            group_tests,
            lookups: group_tests * chunks,
            table_bytes: groups * (chunks << chunk) * (words * size_of::<u64>()) as u64,
            query_bytes: group_tests * size_of::<u64>() as u64,
        };
    }
    work
}

/// The most bytes the tables of one lane width take: 11 chunks (62 bits in 6-bit chunks)
/// of 256 entries of 64 bytes.
pub(crate) const MOST_TABLE_BYTES: usize = 11 * size_of::<Table<8>>();

/// The stored side of one group, and the runs of queries it meets.
#[derive(Clone, Copy)]
pub(super) struct Lists<'a> {
    pub(super) stored: &'a [u64],
    pub(super) queries: &'a [u64],
    pub(super) runs: &'a [Range<usize>],
    pub(super) bits: u32,
}

impl Lists<'_> {
    /// The queries the runs hold.
    fn queries(&self) -> usize {
        self.runs.iter().map(ExactSizeIterator::len).sum()
    }
}

/// The tables of each lane width, reused from group to group and call to call.
#[derive(Default)]
pub(super) struct TableScratch {
    pub(super) narrow: Vec<Table<1>>,
    avx2: Vec<Table<4>>,
    avx512: Vec<Table<8>>,
}

impl TableScratch {
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.narrow.capacity() * size_of::<Table<1>>()
            + self.avx2.capacity() * size_of::<Table<4>>()
            + self.avx512.capacity() * size_of::<Table<8>>()
    }
}

/// [`super::PairKernel::count_group`] compiled for AVX-512, so that the table building and the
/// query loop inlined into it use its instructions, in the width [`entry_words`] gives.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
pub(super) fn count_avx512(
    avx512: Avx512Popcnt,
    lists: Lists<'_>,
    scratch: &mut TableScratch,
) -> u64 {
    match entry_words(512, lists.stored.len()) {
        1 => by_chunks::<1, WIDE_CHUNK, _>((), lists, &mut scratch.narrow),
        4 => in_vectors::<4, _>(avx512, lists, &mut scratch.avx2),
        _ => in_vectors::<8, _>(avx512, lists, &mut scratch.avx512),
    }
}

/// [`super::PairKernel::count_group`] compiled for AVX2, as [`count_avx512`] is for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
pub(super) fn count_avx2(avx2: Avx2, lists: Lists<'_>, scratch: &mut TableScratch) -> u64 {
    match entry_words(256, lists.stored.len()) {
        1 => by_chunks::<1, WIDE_CHUNK, _>((), lists, &mut scratch.narrow),
        _ => in_vectors::<4, _>(avx2, lists, &mut scratch.avx2),
    }
}

/// Counts in vectors of `W` words, in the chunk [`vector_chunk`] chooses.
#[inline(always)]
fn in_vectors<const W: usize, Token: Copy>(
    token: Token,
    lists: Lists<'_>,
    tables: &mut Vec<Table<W>>,
) -> u64
where
    Table<W>: Query<Token>,
    Lanes<W>: Lanewise<Token>,
{
    match vector_chunk::<W>(lists.bits, lists.queries(), l1_data_bytes()) {
        WIDEST_CHUNK => by_chunks::<W, WIDEST_CHUNK, _>(token, lists, tables),
        WIDER_CHUNK => by_chunks::<W, WIDER_CHUNK, _>(token, lists, tables),
        _ => by_chunks::<W, WIDE_CHUNK, _>(token, lists, tables),
    }
}

/// [`super::PairKernel::count_group`] in plain `u64`s, compiled with the popcount instruction,
/// which the scalar backtracking kernel uses as well.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
pub(super) fn count_popcnt(_: Bmi, lists: Lists<'_>, scratch: &mut TableScratch) -> u64 {
    by_chunks::<1, NARROW_CHUNK, _>((), lists, &mut scratch.narrow)
}

/// Picks the copy of the loop with the right number of chunks unrolled.
#[inline(always)]
pub(super) fn by_chunks<const W: usize, const CHUNK: u32, Token: Copy>(
    token: Token,
    lists: Lists<'_>,
    tables: &mut Vec<Table<W>>,
) -> u64
where
    Table<W>: Query<Token>,
    Lanes<W>: Lanewise<Token>,
{
    macro_rules! unrolled {
        ($($chunks:literal)*) => {
            match lists.bits.div_ceil(CHUNK).max(1) {
                $($chunks => in_groups::<W, CHUNK, $chunks, Token>(token, lists, tables),)*
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
fn in_groups<const W: usize, const CHUNK: u32, const CHUNKS: usize, Token: Copy>(
    token: Token,
    lists: Lists<'_>,
    tables: &mut Vec<Table<W>>,
) -> u64
where
    Table<W>: Query<Token>,
    Lanes<W>: Lanewise<Token>,
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
        transpose(&mut occupied[..64], token);
        // Each entry is the AND of the entries of its low and high halves, one instruction
        // a vector: building it from the entry without its lowest bit, just stored, took
        // ten, and the tables took a seventh of a count at N = 22 with AVX2.
        for (chunk, table) in tables.iter_mut().take(CHUNKS).enumerate() {
            let first = CHUNK as usize * chunk;
            let all = if chunk == 0 { valid } else { Lanes([!0; W]) };
            let (low_bits, high_bits) = (CHUNK / 2, CHUNK - CHUNK / 2);
            let low = free_lanes(all, &occupied[first..], low_bits);
            let high =
                free_lanes(Lanes([!0; W]), &occupied[first + low_bits as usize..], high_bits);
            let rows = table.0[..entries].chunks_exact_mut(1 << low_bits);
            for (entries, high) in rows.zip(&high[..1 << high_bits]) {
                for (entry, &low) in entries.iter_mut().zip(&low[..1 << low_bits]) {
                    *entry = low.and(*high, token);
                }
            }
        }
        let tables: &[_; CHUNKS] = tables[..CHUNKS].try_into().expect("CHUNKS tables");
        for (at, run) in lists.runs.iter().enumerate() {
            if let Some(next) = lists.runs.get(at + 1) {
                for line in next.clone().step_by(QUERIES_A_LINE).take(LINES_AHEAD) {
                    prefetch(&lists.queries[line]);
                }
            }
            let queries = &lists.queries[run.clone()];
            found +=
                <Table<W> as Query<Token>>::count_free::<CHUNK, CHUNKS>(token, tables, queries);
        }
    }
    found
}

/// The cache lines of the next run of queries the loop asks for while it counts a run. A
/// whole row set of N = 28 holds lists of gigabytes, most runs a group meets are shorter
/// than 64 queries and start anywhere in them, and the processor's prefetchers, which
/// follow a stream once they have seen it, miss each run's start: asked for one run ahead,
/// its pair count took 0.90 to 0.94 of the time on two Zen 3 hosts with avx2.
const LINES_AHEAD: usize = 16;

/// Queries in a cache line.
const QUERIES_A_LINE: usize = 64 / size_of::<u64>();

/// The most bits of half a chunk.
const MOST_HALF_CHUNK_BITS: u32 = WIDEST_CHUNK.div_ceil(2);

/// For every value of `bits` bits, the lanes of `all` that hold none of its bits, bit `k`
/// of the value standing for the lanes `occupied[k]`: each from the value without its
/// lowest bit. Only the first `1 << bits` entries are written.
#[inline(always)]
fn free_lanes<const W: usize>(
    all: Lanes<W>,
    occupied: &[Lanes<W>],
    bits: u32,
) -> [Lanes<W>; 1 << MOST_HALF_CHUNK_BITS] {
    let mut free = [all; 1 << MOST_HALF_CHUNK_BITS];
    for value in 1..1usize << bits {
        let taken = occupied[value.trailing_zeros() as usize];
        let mut lanes = free[value & (value - 1)];
        for (lane, taken) in lanes.0.iter_mut().zip(taken.0) {
            *lane &= !taken;
        }
        free[value] = lanes;
    }
    free
}

/// Transposes, in every word, the 64 x 64 bit matrix whose rows are `rows`: afterwards bit
/// `lane` of row `bit` is bit `bit` of what row `lane` held. Swapping the two off-diagonal
/// blocks of halving size, six times, costs a few word operations per bitset, where setting
/// each bit on its own chained an update of memory on the one before.
#[inline(always)]
fn transpose<const W: usize, Token: Copy>(rows: &mut [Lanes<W>], token: Token)
where
    Lanes<W>: Lanewise<Token>,
{
    let mut width = 32;
    let mut low = u64::MAX >> 32;
    while width != 0 {
        for block in rows.chunks_exact_mut(2 * width as usize) {
            let (upper, lower) = block.split_at_mut(width as usize);
            for (a, b) in upper.iter_mut().zip(lower) {
                a.swap_blocks(b, width, low, token);
            }
        }
        width /= 2;
        low ^= low << width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::pair_count::tests::{bitsets, disjoint_in_runs};

    // Which chunk the count takes depends on the first-level cache and the queries, so
    // each chunk of each vector width is tested here on its own, whatever the processor.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
    fn avx512_in_chunks_of<const CHUNK: u32>(avx512: Avx512Popcnt, lists: Lists<'_>) -> u64 {
        by_chunks::<8, CHUNK, _>(avx512, lists, &mut Vec::new())
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
    fn avx512_256_in_chunks_of<const CHUNK: u32>(avx512: Avx512Popcnt, lists: Lists<'_>) -> u64 {
        by_chunks::<4, CHUNK, _>(avx512, lists, &mut Vec::new())
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    fn avx2_in_chunks_of<const CHUNK: u32>(avx2: Avx2, lists: Lists<'_>) -> u64 {
        by_chunks::<4, CHUNK, _>(avx2, lists, &mut Vec::new())
    }

    #[test]
    fn a_list_takes_full_groups_of_the_widest_width_and_its_rest_in_the_narrowest() {
        let part = |words, stored| Part { words, stored };
        let parts = |lanes, stored| parts(lanes, stored).collect::<Vec<_>>();
        assert_eq!(parts(512, 600), [part(8, 512), part(4, 88)]);
        assert_eq!(parts(512, 1030), [part(8, 1024), part(1, 6)]);
        assert_eq!(parts(512, 900), [part(8, 900)], "a rest past 256 fills half");
        assert_eq!(parts(512, 200), [part(4, 200)]);
        assert_eq!(parts(512, 1024), [part(8, 1024)]);
        assert_eq!(parts(256, 300), [part(4, 256), part(1, 44)]);
        assert_eq!(parts(256, 400), [part(4, 400)]);
        assert_eq!(parts(64, 130), [part(1, 130)]);
        assert_eq!(parts(512, 0), []);
        let work = work_of(512, 600, 30, 10);
        assert_eq!((work.groups, work.group_tests), (2, 20), "{work:?}");
        let wide = work_of(512, 512, 30, 10);
        let narrow = work_of(512, 88, 30, 10);
        assert_eq!(work.table_bytes, wide.table_bytes + narrow.table_bytes);
        assert!(narrow.table_bytes < wide.table_bytes, "{narrow:?}, {wide:?}");
    }

    #[test]
    fn vector_tables_take_wider_chunks_only_where_they_fit_and_pay() {
        const KIB: usize = 1 << 10;
        // 8 bits where they save a chunk over 7 (32 bits in 4 chunks, not 5).
        assert_eq!(vector_chunk::<8>(32, 5000, 48 * KIB), WIDEST_CHUNK);
        assert_eq!(vector_chunk::<4>(32, 5000, 32 * KIB), WIDEST_CHUNK);
        for bits in 33..=35 {
            // 5 chunks of 7 bits or of 8: the smaller tables.
            assert_eq!(vector_chunk::<8>(bits, 5000, 48 * KIB), WIDER_CHUNK, "{bits} bits");
            assert_eq!(vector_chunk::<4>(bits, 5000, 32 * KIB), WIDER_CHUNK, "{bits} bits");
            // 5 tables of 7 bits and 512 lanes pass 7/8 of 32 KiB.
            assert_eq!(vector_chunk::<8>(bits, 5000, 32 * KIB), WIDE_CHUNK, "{bits} bits");
        }
        // Too few queries to pay for the wider tables' entries.
        assert_eq!(vector_chunk::<8>(34, 100, 48 * KIB), WIDE_CHUNK);
        // 62 bits in 9 tables of 8 KiB fit no cache of 48 KiB.
        assert_eq!(vector_chunk::<8>(62, 5000, 48 * KIB), WIDE_CHUNK);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn every_vector_width_counts_in_every_chunk_it_may_take() {
        let (avx512, avx2) = (Avx512Popcnt::new(), Avx2::new());
        if avx512.is_none() {
            eprintln!("skipped: this processor has no AVX-512 with VPOPCNTDQ");
        }
        if avx2.is_none() {
            eprintln!("skipped: this processor has no AVX2");
        }
        for (stored_len, query_len, bits, per_mille) in
            [(300, 400, 9, 300), (1100, 700, 34, 200), (600, 500, 62, 150)]
        {
            let stored = bitsets(stored_len, bits, per_mille, 13);
            let queries = bitsets(query_len, bits, per_mille, 17);
            // Two runs, so that a group meets queries on either side of a gap.
            let runs = [0..query_len / 3, query_len / 2..query_len];
            let in_runs = disjoint_in_runs(&stored, &queries, &runs);
            assert!(in_runs > 0, "the lists should have some disjoint pairs");
            let lists = Lists { stored: &stored, queries: &queries, runs: &runs, bits };
            let mut counted = Vec::new();
            if let Some(avx512) = avx512 {
                // SAFETY: `avx512` proves the features the functions are compiled for.
                unsafe {
                    counted.push(("avx512, 6 bits", avx512_in_chunks_of::<6>(avx512, lists)));
                    counted.push(("avx512, 7 bits", avx512_in_chunks_of::<7>(avx512, lists)));
                    counted.push(("avx512, 8 bits", avx512_in_chunks_of::<8>(avx512, lists)));
                    let narrow = avx512_256_in_chunks_of::<6>(avx512, lists);
                    counted.push(("avx512 on 256 lanes, 6 bits", narrow));
                    let narrow = avx512_256_in_chunks_of::<7>(avx512, lists);
                    counted.push(("avx512 on 256 lanes, 7 bits", narrow));
                    let narrow = avx512_256_in_chunks_of::<8>(avx512, lists);
                    counted.push(("avx512 on 256 lanes, 8 bits", narrow));
                }
            }
            if let Some(avx2) = avx2 {
                // SAFETY: `avx2` proves the features the functions are compiled for.
                unsafe {
                    counted.push(("avx2, 6 bits", avx2_in_chunks_of::<6>(avx2, lists)));
                    counted.push(("avx2, 7 bits", avx2_in_chunks_of::<7>(avx2, lists)));
                    counted.push(("avx2, 8 bits", avx2_in_chunks_of::<8>(avx2, lists)));
                }
            }
            for (kernel, count) in counted {
                assert_eq!(count, in_runs, "{kernel}, {stored_len} x {query_len}, {bits} bits");
            }
        }
    }
}
