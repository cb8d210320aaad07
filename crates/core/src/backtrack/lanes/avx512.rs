//! The AVX-512 lane kernel: [`Zmm`], sixteen lanes of `u32` masks whose lane sets are mask
//! registers, and the search compiled for AVX-512F.
//!
//! A file of its own so that only the methods here make a `Zmm`: its fields are private to
//! this file, so every register carries the token that proves AVX-512F, each `unsafe` block
//! below rests on that token alone, and all of them can be checked here without reading the
//! search or the other instruction sets.

use std::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_andnot_si512, _mm512_cmpeq_epi32_mask, _mm512_mask_add_epi32,
    _mm512_mask_mov_epi32, _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi32,
    _mm512_maskz_mov_epi32, _mm512_or_si512, _mm512_reduce_add_epi32, _mm512_set1_epi32,
    _mm512_setzero_si512, _mm512_slli_epi32, _mm512_sllv_epi32, _mm512_srli_epi32,
    _mm512_storeu_si512, _mm512_sub_epi32, _mm512_test_epi32_mask, _mm512_xor_si512,
};

use super::search::{Register, TIE_SHIFT, search};
use crate::backtrack::rules::{LaneRules, SearchCount};
use crate::simd::Avx512;

/// The search compiled for AVX-512F, so that the register operations inlined into it
/// become single instructions.
#[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
pub(super) fn search_avx512<const TIES: bool, const NODES: bool>(
    avx512: Avx512,
    rules: &LaneRules,
    start: usize,
    masks: (u32, u32, u32),
) -> SearchCount {
    search::<Zmm, TIES, NODES>(avx512, rules, start, masks)
}

/// Sixteen lanes of AVX-512, with the proof that the processor has AVX-512F; lane
/// sets are mask registers.
#[derive(Clone, Copy)]
struct Zmm(__m512i, Avx512);

impl Register for Zmm {
    type Token = Avx512;
    type Lanes = u16;
    const WIDTH: usize = 16;

    #[inline(always)]
    fn splat(avx512: Avx512, value: u32) -> Zmm {
        // SAFETY: `avx512` proves AVX-512F.
        Zmm(unsafe { _mm512_set1_epi32(value as i32) }, avx512)
    }
    #[inline(always)]
    fn first(_: Avx512, count: usize) -> u16 {
        ((1u32 << count) - 1) as u16
    }
    #[inline(always)]
    fn load(avx512: Avx512, from: &[u32]) -> Zmm {
        assert!(from.len() <= Zmm::WIDTH);
        let lanes = Zmm::first(avx512, from.len());
        // SAFETY: `avx512` proves AVX-512F. The load reads only the lanes of
        // `lanes`, which lie in `from`; the others are not read and cannot fault.
        Zmm(unsafe { _mm512_maskz_loadu_epi32(lanes, from.as_ptr().cast()) }, avx512)
    }
    #[inline(always)]
    fn store_kept(self, keep: u16, to: &mut [u32]) {
        let to = &mut to[..Zmm::WIDTH];
        // SAFETY: `self.1` proves AVX-512F, and `to` holds the sixteen values the
        // store writes.
        unsafe {
            // A compress into a register and a plain store: a compressing store to
            // memory is microcoded and slow on some processors.
            let kept = _mm512_maskz_compress_epi32(keep, self.0);
            _mm512_storeu_si512(to.as_mut_ptr().cast(), kept);
        }
    }
    #[inline(always)]
    fn and(self, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_and_si512(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn or(self, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_or_si512(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn xor(self, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_xor_si512(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn without(self, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_andnot_si512(other.0, self.0) }, self.1)
    }
    #[inline(always)]
    fn lowest(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        let lowest =
            unsafe { _mm512_and_si512(self.0, _mm512_sub_epi32(_mm512_setzero_si512(), self.0)) };
        Zmm(lowest, self.1)
    }
    #[inline(always)]
    fn left_one(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_slli_epi32::<1>(self.0) }, self.1)
    }
    #[inline(always)]
    fn right_one(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_srli_epi32::<1>(self.0) }, self.1)
    }
    #[inline(always)]
    fn times_eight(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_slli_epi32::<3>(self.0) }, self.1)
    }
    #[inline(always)]
    fn next_byte(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_srli_epi32::<8>(self.0) }, self.1)
    }
    #[inline(always)]
    fn tie_count(self) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_srli_epi32::<TIE_SHIFT>(self.0) }, self.1)
    }
    #[inline(always)]
    fn one_shifted(shift: Zmm) -> Zmm {
        // SAFETY: `shift.1` proves AVX-512F.
        Zmm(unsafe { _mm512_sllv_epi32(_mm512_set1_epi32(1), shift.0) }, shift.1)
    }
    #[inline(always)]
    fn nonzero(self) -> u16 {
        // SAFETY: `self.1` proves AVX-512F.
        unsafe { _mm512_test_epi32_mask(self.0, self.0) }
    }
    #[inline(always)]
    fn equal(self, other: Zmm) -> u16 {
        // SAFETY: `self.1` proves AVX-512F.
        unsafe { _mm512_cmpeq_epi32_mask(self.0, other.0) }
    }
    #[inline(always)]
    fn keep(self, lanes: u16) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_maskz_mov_epi32(lanes, self.0) }, self.1)
    }
    #[inline(always)]
    fn select(self, lanes: u16, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_mask_mov_epi32(other.0, lanes, self.0) }, self.1)
    }
    #[inline(always)]
    fn add_where(self, lanes: u16, other: Zmm) -> Zmm {
        // SAFETY: `self.1` proves AVX-512F.
        Zmm(unsafe { _mm512_mask_add_epi32(self.0, lanes, self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn sum(self) -> u32 {
        // SAFETY: `self.1` proves AVX-512F.
        unsafe { _mm512_reduce_add_epi32(self.0) as u32 }
    }
    #[inline(always)]
    fn both(a: u16, b: u16) -> u16 {
        a & b
    }
    #[inline(always)]
    fn count(lanes: u16) -> u32 {
        lanes.count_ones()
    }
    #[inline(always)]
    fn none(lanes: u16) -> bool {
        lanes == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Zmm;
    use crate::backtrack::lanes::search::loads_and_stores_stay_in_their_slices;
    use crate::simd::Avx512;

    #[test]
    fn avx512_loads_and_stores_stay_in_their_slices() {
        match Avx512::new() {
            Some(avx512) => loads_and_stores_stay_in_their_slices::<Zmm>(avx512),
            None => eprintln!("skipped: this processor has no AVX-512"),
        }
    }
}
