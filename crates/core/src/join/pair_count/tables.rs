//! The bit-sliced tables of one group of stored lanes, and the entry points that build
//! them and run the query loop in one function compiled for each instruction set.
//!
//! For a group, bit `j` of `occupied[k]` says that lane `j`'s bitset holds bit `k`; a table
//! per chunk of a few bits gives, for every value of the chunk, the lanes that hold none of
//! its bits.

use std::ops::Range;

use super::query::{ENTRIES, Lanes, Query, Table};
use crate::simd::{Avx2, Avx512Popcnt, Bmi, l1_data_bytes};

/// Bits of the query a table covers, per lane width: the tables of a group should stay in
/// the first-level cache, so wider lanes take smaller chunks.
pub(super) const NARROW_CHUNK: u32 = 8;
pub(super) const WIDE_CHUNK: u32 = 6;

/// The chunk of vector lanes where the tables it needs fit in the first-level cache and
/// enough queries share them: a chunk fewer per query (at N = 20, 5 of 7 bits for 6 of 6)
/// took 8% off the count with AVX-512 on a 48 KiB cache, where the 40 KiB of tables would
/// crowd out the queries on a 32 KiB one.
const WIDEST_CHUNK: u32 = 7;

/// The chunk for a group's tables of `W` words per entry covering `bits` bits, met by
/// `queries` queries: the widest whose tables take at most 7/8 of the first-level data
/// cache, leaving room for the queries, if the lookups its fewer chunks save outweigh the
/// entries its wider tables add (each about as costly as one lookup).
fn vector_chunk<const W: usize>(bits: u32, queries: usize) -> u32 {
    let chunks = |chunk: u32| bits.div_ceil(chunk).max(1) as usize;
    let entries = |chunk: u32| chunks(chunk) << chunk;
    let tables = entries(WIDEST_CHUNK) * size_of::<Lanes<W>>();
    let saved = queries * (chunks(WIDE_CHUNK) - chunks(WIDEST_CHUNK));
    let fits = tables <= l1_data_bytes() / 8 * 7;
    if fits && saved > entries(WIDEST_CHUNK) - entries(WIDE_CHUNK) {
        WIDEST_CHUNK
    } else {
        WIDE_CHUNK
    }
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
/// query loop inlined into it use its instructions. A group too small to fill a vector is
/// tested in a narrower one: wider vectors would test nothing more.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1,bmi2")]
pub(super) fn count_avx512(
    avx512: Avx512Popcnt,
    lists: Lists<'_>,
    scratch: &mut TableScratch,
) -> u64 {
    match (lists.stored.len(), vector_chunk::<8>(lists.bits, lists.queries())) {
        (0..=64, _) => by_chunks::<1, WIDE_CHUNK>((), lists, &mut scratch.narrow),
        (65..=256, _) => count_avx2(avx512.avx2(), lists, scratch),
        (_, WIDEST_CHUNK) => by_chunks::<8, WIDEST_CHUNK>(avx512, lists, &mut scratch.avx512),
        _ => by_chunks::<8, WIDE_CHUNK>(avx512, lists, &mut scratch.avx512),
    }
}

/// [`super::PairKernel::count_group`] compiled for AVX2, as [`count_avx512`] is for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
pub(super) fn count_avx2(avx2: Avx2, lists: Lists<'_>, scratch: &mut TableScratch) -> u64 {
    match (lists.stored.len(), vector_chunk::<4>(lists.bits, lists.queries())) {
        (0..=64, _) => by_chunks::<1, WIDE_CHUNK>((), lists, &mut scratch.narrow),
        (_, WIDEST_CHUNK) => by_chunks::<4, WIDEST_CHUNK>(avx2, lists, &mut scratch.avx2),
        _ => by_chunks::<4, WIDE_CHUNK>(avx2, lists, &mut scratch.avx2),
    }
}

/// [`super::PairKernel::count_group`] in plain `u64`s, compiled with the popcount instruction,
/// which the scalar backtracking kernel uses as well.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
pub(super) fn count_popcnt(_: Bmi, lists: Lists<'_>, scratch: &mut TableScratch) -> u64 {
    by_chunks::<1, NARROW_CHUNK>((), lists, &mut scratch.narrow)
}

/// Picks the copy of the loop with the right number of chunks unrolled.
#[inline(always)]
pub(super) fn by_chunks<const W: usize, const CHUNK: u32>(
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
