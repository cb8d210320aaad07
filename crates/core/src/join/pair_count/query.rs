//! The query loop: for every query, the AND of one table entry per chunk and the popcount
//! of the lanes left, for each lane width in the instructions that run it fastest.
//!
//! These loops are where the join spends most of its time; each width's is a function
//! compiled for its instruction set, entered only with the token that proves the
//! processor has it. The word-wise operations that build the tables ([`Lanewise`]) are
//! written the same way.

use crate::simd::{Avx2, Avx512Popcnt};

/// The most table entries per chunk: chunks are at most 8 bits.
pub(super) const ENTRIES: usize = 256;

/// Lanes of one group, as words.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(super) struct Lanes<const W: usize>(pub(super) [u64; W]);

/// The word-wise operations that build a group's tables, in the instructions whose proof
/// `Token` is. Written with explicit vector instructions: the compiler vectorised the loops
/// that call them across entries and rows instead, with gathers and scatters, which took
/// a seventh more of the whole count with AVX-512.
pub(super) trait Lanewise<Token: Copy>: Copy {
    /// The lanes both hold.
    fn and(self, other: Self, token: Token) -> Self;

    /// In every word, swaps the bits of `low` in `lower` with those `width` places above
    /// them in `self`: one step of a bit matrix's transpose.
    fn swap_blocks(&mut self, lower: &mut Self, width: u32, low: u64, token: Token);
}

impl Lanewise<()> for Lanes<1> {
    #[inline(always)]
    fn and(self, other: Self, (): ()) -> Self {
        Lanes([self.0[0] & other.0[0]])
    }

    #[inline(always)]
    fn swap_blocks(&mut self, lower: &mut Self, width: u32, low: u64, (): ()) {
        let (a, b) = (&mut self.0[0], &mut lower.0[0]);
        let swapped = ((*a >> width) ^ *b) & low;
        *a ^= swapped << width;
        *b ^= swapped;
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanewise<Avx512Popcnt> for Lanes<8> {
    #[inline(always)]
    fn and(self, other: Self, avx512: Avx512Popcnt) -> Self {
        // SAFETY: `avx512` proves that the processor has AVX-512F.
        unsafe { and_512(avx512, self, other) }
    }

    #[inline(always)]
    fn swap_blocks(&mut self, lower: &mut Self, width: u32, low: u64, avx512: Avx512Popcnt) {
        // SAFETY: `avx512` proves that the processor has AVX-512F.
        unsafe { swap_blocks_512(avx512, self, lower, width, low) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanewise<Avx2> for Lanes<4> {
    #[inline(always)]
    fn and(self, other: Self, avx2: Avx2) -> Self {
        // SAFETY: `avx2` proves that the processor has AVX2.
        unsafe { and_256(avx2, self, other) }
    }

    #[inline(always)]
    fn swap_blocks(&mut self, lower: &mut Self, width: u32, low: u64, avx2: Avx2) {
        // SAFETY: `avx2` proves that the processor has AVX2.
        unsafe { swap_blocks_256(avx2, self, lower, width, low) }
    }
}

/// 256 lanes on a processor with AVX-512, which has AVX2's instructions too.
#[cfg(target_arch = "x86_64")]
impl Lanewise<Avx512Popcnt> for Lanes<4> {
    #[inline(always)]
    fn and(self, other: Self, avx512: Avx512Popcnt) -> Self {
        self.and(other, avx512.avx2())
    }

    #[inline(always)]
    fn swap_blocks(&mut self, lower: &mut Self, width: u32, low: u64, avx512: Avx512Popcnt) {
        self.swap_blocks(lower, width, low, avx512.avx2());
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn and_512(_: Avx512Popcnt, a: Lanes<8>, b: Lanes<8>) -> Lanes<8> {
    use std::arch::x86_64::*;
    let mut both = Lanes([0; 8]);
    // SAFETY: `Lanes<8>` is 64 bytes, one whole vector; loads and stores need no alignment.
    unsafe {
        let a = _mm512_loadu_si512((&raw const a.0).cast());
        let b = _mm512_loadu_si512((&raw const b.0).cast());
        _mm512_storeu_si512((&raw mut both.0).cast(), _mm512_and_si512(a, b));
    }
    both
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn swap_blocks_512(
    _: Avx512Popcnt,
    upper: &mut Lanes<8>,
    lower: &mut Lanes<8>,
    width: u32,
    low: u64,
) {
    use std::arch::x86_64::*;
    // SAFETY: `Lanes<8>` is 64 bytes, one whole vector; loads and stores need no alignment.
    unsafe {
        let (a_at, b_at) = ((&raw mut upper.0).cast(), (&raw mut lower.0).cast());
        let (a, b) = (_mm512_loadu_si512(a_at), _mm512_loadu_si512(b_at));
        let count = _mm_cvtsi64_si128(i64::from(width));
        let low = _mm512_set1_epi64(low as i64);
        let swapped = _mm512_and_si512(_mm512_xor_si512(_mm512_srl_epi64(a, count), b), low);
        _mm512_storeu_si512(a_at, _mm512_xor_si512(a, _mm512_sll_epi64(swapped, count)));
        _mm512_storeu_si512(b_at, _mm512_xor_si512(b, swapped));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn and_256(_: Avx2, a: Lanes<4>, b: Lanes<4>) -> Lanes<4> {
    use std::arch::x86_64::*;
    let mut both = Lanes([0; 4]);
    // SAFETY: `Lanes<4>` is 32 bytes, one whole vector; loads and stores need no alignment.
    unsafe {
        let a = _mm256_loadu_si256((&raw const a.0).cast());
        let b = _mm256_loadu_si256((&raw const b.0).cast());
        _mm256_storeu_si256((&raw mut both.0).cast(), _mm256_and_si256(a, b));
    }
    both
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn swap_blocks_256(_: Avx2, upper: &mut Lanes<4>, lower: &mut Lanes<4>, width: u32, low: u64) {
    use std::arch::x86_64::*;
    // SAFETY: `Lanes<4>` is 32 bytes, one whole vector; loads and stores need no alignment.
    unsafe {
        let (a_at, b_at) = ((&raw mut upper.0).cast(), (&raw mut lower.0).cast());
        let (a, b) = (_mm256_loadu_si256(a_at), _mm256_loadu_si256(b_at));
        let count = _mm_cvtsi64_si128(i64::from(width));
        let low = _mm256_set1_epi64x(low as i64);
        let swapped = _mm256_and_si256(_mm256_xor_si256(_mm256_srl_epi64(a, count), b), low);
        _mm256_storeu_si256(a_at, _mm256_xor_si256(a, _mm256_sll_epi64(swapped, count)));
        _mm256_storeu_si256(b_at, _mm256_xor_si256(b, swapped));
    }
}

/// One chunk's table: for every value of the chunk, the lanes that hold none of its bits.
/// Aligned to a cache line, so that no entry of a vector's width straddles two, while the
/// narrow tables stay a word per entry and so in the first-level cache. The loads do not
/// rely on it: any `Lanes` may be loaded.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Table<const W: usize>(pub(super) [Lanes<W>; ENTRIES]);

/// The query loop for one lane width, in the instructions whose proof `Token` is: for
/// every query, the AND of one table entry per chunk, and the popcount of the lanes left.
/// Written with explicit vector instructions, since the compiler would vectorise across
/// queries with slow gathers instead.
pub(super) trait Query<Token: Copy>: Sized {
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        token: Token,
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64;
}

/// Plain `u64` arithmetic, which every processor has.
impl Query<()> for Table<1> {
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
impl Query<Avx512Popcnt> for Table<8> {
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
impl Query<Avx2> for Table<4> {
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

/// 256 lanes on a processor with AVX-512, whose vector popcount also works on 256 bits.
#[cfg(target_arch = "x86_64")]
impl Query<Avx512Popcnt> for Table<4> {
    #[inline(always)]
    fn count_free<const CHUNK: u32, const CHUNKS: usize>(
        avx512: Avx512Popcnt,
        tables: &[Self; CHUNKS],
        queries: &[u64],
    ) -> u64 {
        // SAFETY: `avx512` proves that the processor has every feature
        // `count_free_avx512_256` is compiled for.
        unsafe { count_free_avx512_256::<CHUNK, CHUNKS>(avx512, tables, queries) }
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
    // SAFETY: `Lanes<8>` is 64 bytes, one whole vector; the load needs no alignment.
    let load = |lanes: &Lanes<8>| unsafe { _mm512_loadu_si512((&raw const lanes.0).cast()) };
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

/// The query loop of 256 lanes with AVX-512's vector popcount: AVX2's count by nibbles,
/// a query at a time as it then was, took a third more instructions per query.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512vpopcntdq")]
fn count_free_avx512_256<const CHUNK: u32, const CHUNKS: usize>(
    _: Avx512Popcnt,
    tables: &[Table<4>; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: `Lanes<4>` is 32 bytes, one whole vector; the load needs no alignment.
    let load = |lanes: &Lanes<4>| unsafe { _mm256_loadu_si256((&raw const lanes.0).cast()) };
    let mut found = _mm256_setzero_si256();
    for &query in queries {
        let mut free = load(&tables[0].0[(query & mask) as usize]);
        for (chunk, table) in tables.iter().enumerate().skip(1) {
            let entry = load(&table.0[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
            free = _mm256_and_si256(free, entry);
        }
        found = _mm256_add_epi64(found, _mm256_popcnt_epi64(free));
    }
    let mut words = [0u64; 4];
    // SAFETY: `words` is 32 bytes, one whole vector; the store needs no alignment.
    unsafe { _mm256_storeu_si256((&raw mut words).cast(), found) };
    words.iter().sum()
}

/// The query loop of 256 lanes, a function of its own as [`count_free_avx512`] is.
///
/// AVX2 has no vector popcount: a byte's is looked up by nibbles with two byte shuffles,
/// which took more instructions per query than its lookups. So four queries' lanes are
/// first added in carry-save adders, bit-sliced (a vector of ones, one of twos, and the
/// fours that carry out), and only the fours are counted by nibbles, once per four
/// queries; the ones and twos left are counted at the end.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn count_free_avx2<const CHUNK: u32, const CHUNKS: usize>(
    _: Avx2,
    tables: &[Table<4>; CHUNKS],
    queries: &[u64],
) -> u64 {
    use std::arch::x86_64::*;
    let mask = (1u64 << CHUNK) - 1;
    // SAFETY: `Lanes<4>` is 32 bytes, one whole vector; the load needs no alignment.
    let load = |lanes: &Lanes<4>| unsafe { _mm256_loadu_si256((&raw const lanes.0).cast()) };
    let free = |query: u64| {
        let mut free = load(&tables[0].0[(query & mask) as usize]);
        for (chunk, table) in tables.iter().enumerate().skip(1) {
            let entry = load(&table.0[((query >> (CHUNK as usize * chunk)) & mask) as usize]);
            free = _mm256_and_si256(free, entry);
        }
        free
    };
    let nibble = _mm256_set1_epi8(0x0f);
    let ones_in_nibble = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3,
        3, 4,
    );
    // Each byte's set bits, 0 to 8.
    let ones_in_bytes = |lanes: __m256i| {
        let low = _mm256_shuffle_epi8(ones_in_nibble, _mm256_and_si256(lanes, nibble));
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(lanes), nibble);
        _mm256_add_epi8(low, _mm256_shuffle_epi8(ones_in_nibble, high))
    };
    // The sum of three bit-sliced digits: (carry, sum).
    let add = |a: __m256i, b: __m256i, c: __m256i| {
        let odd = _mm256_xor_si256(a, b);
        let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(odd, c));
        (carry, _mm256_xor_si256(odd, c))
    };
    let zero = _mm256_setzero_si256();
    let (mut ones, mut twos) = (zero, zero);
    let (mut fours, mut rest) = (zero, zero);
    // 31 fours of queries per block, so that a byte's count of fours (8 at most each)
    // stays below 256 before it is widened.
    for block in queries.chunks(4 * 31) {
        let mut bytes = zero;
        let mut quads = block.chunks_exact(4);
        for quad in &mut quads {
            let (twos_a, ones_a) = add(ones, free(quad[0]), free(quad[1]));
            let (twos_b, ones_b) = add(ones_a, free(quad[2]), free(quad[3]));
            let (four, twos_c) = add(twos, twos_a, twos_b);
            (ones, twos) = (ones_b, twos_c);
            bytes = _mm256_add_epi8(bytes, ones_in_bytes(four));
        }
        fours = _mm256_add_epi64(fours, _mm256_sad_epu8(bytes, zero));
        let left = quads
            .remainder()
            .iter()
            .fold(zero, |left, &query| _mm256_add_epi8(left, ones_in_bytes(free(query))));
        rest = _mm256_add_epi64(rest, _mm256_sad_epu8(left, zero));
    }
    let twice = _mm256_add_epi8(ones_in_bytes(twos), ones_in_bytes(twos));
    let last = _mm256_add_epi8(twice, ones_in_bytes(ones));
    rest = _mm256_add_epi64(rest, _mm256_sad_epu8(last, zero));
    let found = _mm256_add_epi64(_mm256_slli_epi64::<2>(fours), rest);
    let mut words = [0u64; 4];
    // SAFETY: `words` is 32 bytes, one whole vector; the store needs no alignment.
    unsafe { _mm256_storeu_si256((&raw mut words).cast(), found) };
    words.iter().sum()
}
