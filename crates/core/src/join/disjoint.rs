//! Counting the pairs of two lists of bitsets that have no bit in common, many pairs per
//! instruction.
//!
//! The stored list is cut into groups of lanes (64 per `u64`, and 256 or 512 per group
//! when the processor has AVX2 or AVX-512). For a group, bit `j` of `occupied[k]` says that
//! lane `j`'s bitset holds bit `k`; a table per chunk of a few bits gives, for every value of
//! the chunk, the lanes that hold none of its bits. A query's compatible lanes are then the
//! AND of one table entry per chunk, and their number one popcount.

use crate::kernel::Kernel;
use crate::simd::{Avx2, Avx512Popcnt};

/// Lanes of one group, as words; aligned so that a group is one vector load.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Lanes<const W: usize>([u64; W]);

/// The most table entries per chunk: chunks are at most 8 bits.
const ENTRIES: usize = 256;

/// Bits of the query a table covers, per lane width: the tables of a group should stay in
/// the first-level cache, so wider lanes take smaller chunks.
const NARROW_CHUNK: u32 = 8;
const WIDE_CHUNK: u32 = 6;

/// The most bytes the tables of one lane width take: 11 chunks (62 bits in 6-bit chunks)
/// of 256 entries of 64 bytes.
pub(super) const MOST_TABLE_BYTES: usize = 11 * ENTRIES * size_of::<Lanes<8>>();

/// Tables reused from call to call.
#[derive(Default)]
pub(super) struct Scratch {
    narrow: Vec<[Lanes<1>; ENTRIES]>,
    avx2: Vec<[Lanes<4>; ENTRIES]>,
    avx512: Vec<[Lanes<8>; ENTRIES]>,
}

impl Scratch {
    pub(super) fn held_bytes(&self) -> usize {
        self.narrow.capacity() * size_of::<[Lanes<1>; ENTRIES]>()
            + self.avx2.capacity() * size_of::<[Lanes<4>; ENTRIES]>()
            + self.avx512.capacity() * size_of::<[Lanes<8>; ENTRIES]>()
    }
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

    /// The number of pairs `(s, q)` of `stored` and `queries` with `s & q == 0`, for
    /// bitsets below bit `bits`.
    pub(super) fn count(
        self,
        stored: &[u64],
        queries: &[u64],
        bits: u32,
        scratch: &mut Scratch,
    ) -> u64 {
        // A group of fewer than 64 lanes fills one word: wider vectors would test nothing more.
        let kernel = if stored.len() > 64 { self } else { PairKernel::Scalar };
        match kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx512` proves that the processor has every feature `count_avx512`
            // is compiled for.
            PairKernel::Avx512(avx512) => unsafe {
                count_avx512(avx512, stored, queries, bits, &mut scratch.avx512)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx2` proves that the processor has every feature `count_avx2` is
            // compiled for.
            PairKernel::Avx2(avx2) => unsafe {
                count_avx2(avx2, stored, queries, bits, &mut scratch.avx2)
            },
            _ => by_chunks::<1, NARROW_CHUNK>((), stored, queries, bits, &mut scratch.narrow),
        }
    }
}

/// [`PairKernel::count`] compiled for AVX-512, so that the table building and the query
/// loop inlined into it use its instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt,bmi1")]
fn count_avx512(
    avx512: Avx512Popcnt,
    stored: &[u64],
    queries: &[u64],
    bits: u32,
    tables: &mut Vec<[Lanes<8>; ENTRIES]>,
) -> u64 {
    by_chunks::<8, WIDE_CHUNK>(avx512, stored, queries, bits, tables)
}

/// [`PairKernel::count`] compiled for AVX2, so that the table building and the query loop
/// inlined into it use its instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn count_avx2(
    avx2: Avx2,
    stored: &[u64],
    queries: &[u64],
    bits: u32,
    tables: &mut Vec<[Lanes<4>; ENTRIES]>,
) -> u64 {
    by_chunks::<4, WIDE_CHUNK>(avx2, stored, queries, bits, tables)
}

/// Picks the copy of the loop with the right number of chunks unrolled.
#[inline(always)]
fn by_chunks<const W: usize, const CHUNK: u32>(
    token: <Lanes<W> as Query>::Token,
    stored: &[u64],
    queries: &[u64],
    bits: u32,
    tables: &mut Vec<[Lanes<W>; ENTRIES]>,
) -> u64
where
    Lanes<W>: Query,
{
    macro_rules! unrolled {
        ($($chunks:literal)*) => {
            match bits.div_ceil(CHUNK).max(1) {
                $($chunks => in_groups::<W, CHUNK, $chunks>(token, stored, queries, tables),)*
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
    token: <Lanes<W> as Query>::Token,
    stored: &[u64],
    queries: &[u64],
    tables: &mut Vec<[Lanes<W>; ENTRIES]>,
) -> u64
where
    Lanes<W>: Query,
{
    let entries = 1usize << CHUNK;
    if tables.len() < CHUNKS {
        tables.resize(CHUNKS, [Lanes([0; W]); ENTRIES]);
    }
    let mut found = 0u64;
    for group in stored.chunks(64 * W) {
        // Chunks may run past the last bit, so there is room for a chunk's worth more.
        let mut occupied = [Lanes([0u64; W]); 64 + 8];
        let mut valid = Lanes([0u64; W]);
        for (lane, &bitset) in group.iter().enumerate() {
            let (word, bit) = (lane / 64, 1u64 << (lane % 64));
            valid.0[word] |= bit;
            let mut rest = bitset;
            while rest != 0 {
                occupied[rest.trailing_zeros() as usize].0[word] |= bit;
                rest &= rest - 1;
            }
        }
        for (chunk, table) in tables.iter_mut().take(CHUNKS).enumerate() {
            table[0] = if chunk == 0 { valid } else { Lanes([!0; W]) };
            for value in 1..entries {
                let bit = CHUNK as usize * chunk + value.trailing_zeros() as usize;
                let mut lanes = table[value & (value - 1)];
                for (lane, taken) in lanes.0.iter_mut().zip(occupied[bit].0) {
                    *lane &= !taken;
                }
                table[value] = lanes;
            }
        }
        let tables: &[_; CHUNKS] = tables[..CHUNKS].try_into().expect("CHUNKS tables");
        found += Lanes::<W>::count_free::<CHUNK, CHUNKS>(token, tables, queries);
    }
    found
}

/// The query loop for one lane width: for every query, the AND of one table entry per
/// chunk, and the popcount of the lanes left. Written with explicit vector instructions,
/// since the compiler would vectorise across queries with slow gathers instead.
trait Query: Sized {
    /// The proof that the processor has the loop's instructions.
    type Token: Copy;

    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        token: Self::Token,
        tables: &[[Self; ENTRIES]; CHUNKS],
        queries: &[u64],
    ) -> u64;
}

impl Query for Lanes<1> {
    /// Plain `u64` arithmetic, which every processor has.
    type Token = ();

    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        (): (),
        tables: &[[Self; ENTRIES]; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        let mask = (1u64 << CHUNK) - 1;
        let mut found = 0u64;
        for &query in queries {
            let mut free = !0u64;
            for (chunk, table) in tables.iter().enumerate() {
                free &= table[((query >> (CHUNK as usize * chunk)) & mask) as usize].0[0];
            }
            found += u64::from(free.count_ones());
        }
        found
    }
}

#[cfg(target_arch = "x86_64")]
impl Query for Lanes<8> {
    type Token = Avx512Popcnt;

    #[inline(always)]
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        avx512: Avx512Popcnt,
        tables: &[[Self; ENTRIES]; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        // SAFETY: `avx512` proves that the processor has every feature `count_free_avx512`
        // is compiled for.
        unsafe { count_free_avx512::<CHUNK, CHUNKS>(avx512, tables, queries) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Query for Lanes<4> {
    type Token = Avx2;

    #[inline(always)]
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        avx2: Avx2,
        tables: &[[Self; ENTRIES]; CHUNKS],
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
    tables: &[[Lanes<8>; ENTRIES]; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: `Lanes<8>` is 64 bytes aligned to 64, one whole vector.
    let load = |lanes: &Lanes<8>| unsafe { _mm512_load_si512((&raw const lanes.0).cast()) };
    let mut found = _mm512_setzero_si512();
    for &query in queries {
        let mut free = load(&tables[0][(query & mask) as usize]);
        for (chunk, table) in tables.iter().enumerate().skip(1) {
            let entry = load(&table[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
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
    tables: &[[Lanes<4>; ENTRIES]; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: `Lanes<4>` is 32 bytes aligned to 64, one whole vector.
    let load = |lanes: &Lanes<4>| unsafe { _mm256_load_si256((&raw const lanes.0).cast()) };
    let mut found = 0u64;
    for &query in queries {
        let mut free = load(&tables[0][(query & mask) as usize]);
        for (chunk, table) in tables.iter().enumerate().skip(1) {
            let entry = load(&table[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
            free = _mm256_and_si256(free, entry);
        }
        // AVX2 has no vector popcount; four scalar ones keep up with the loads.
        found += u64::from((_mm256_extract_epi64::<0>(free) as u64).count_ones())
            + u64::from((_mm256_extract_epi64::<1>(free) as u64).count_ones())
            + u64::from((_mm256_extract_epi64::<2>(free) as u64).count_ones())
            + u64::from((_mm256_extract_epi64::<3>(free) as u64).count_ones());
    }
    found
}
