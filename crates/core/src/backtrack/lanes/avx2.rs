//! The AVX2 lane kernel: [`Ymm`], eight lanes of `u32` masks, its lane sets
//! ([`YmmLanes`]), and the search compiled for AVX2.
//!
//! A file of its own so that only the methods here make a `Ymm` or a `YmmLanes`: their
//! fields are private to this file, so every value carries the token that proves AVX2, each
//! `unsafe` block below rests on that token alone, and a lane set always has every bit of
//! a lane set or clear, as the blends and the sign-bit masks here expect. AVX2 has neither
//! mask registers nor a compress instruction, so its lane sets are registers too and its
//! compress is a permutation looked up in [`FRONT`].

use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32, _mm256_loadu_si256,
    _mm256_maskload_epi32, _mm256_movemask_ps, _mm256_or_si256, _mm256_permutevar8x32_epi32,
    _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_slli_epi32,
    _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi32,
    _mm256_testz_si256, _mm256_xor_si256,
};

use super::search::{Register, TIE_SHIFT, search};
use crate::backtrack::rules::{LaneRules, SearchCount};
use crate::simd::Avx2;

/// The search compiled for AVX2, so that the register operations inlined into it
/// become single instructions.
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
pub(super) fn search_avx2<const TIES: bool, const NODES: bool>(
    avx2: Avx2,
    rules: &LaneRules,
    start: usize,
    masks: (u32, u32, u32),
) -> SearchCount {
    search::<Ymm, TIES, NODES>(avx2, rules, start, masks)
}

/// Eight lanes of AVX2, with the proof that the processor has it.
#[derive(Clone, Copy)]
struct Ymm(__m256i, Avx2);

/// A set of eight lanes: a register with every bit of a lane set or clear, with the
/// proof that the processor has AVX2.
#[derive(Clone, Copy)]
struct YmmLanes(__m256i, Avx2);

/// For each set of eight lanes, the permutation that moves its lanes to the front,
/// in order: AVX2 has no compress instruction.
static FRONT: [[u32; 8]; 256] = {
    let mut table = [[0; 8]; 256];
    let mut set = 0;
    while set < 256 {
        let (mut lane, mut filled) = (0, 0);
        while lane < 8 {
            if set & (1 << lane) != 0 {
                table[set][filled] = lane as u32;
                filled += 1;
            }
            lane += 1;
        }
        set += 1;
    }
    table
};

impl YmmLanes {
    /// The lanes as the low eight bits of an index.
    #[inline(always)]
    fn bits(self) -> usize {
        // SAFETY: `self.1` proves AVX2.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(self.0)) as usize }
    }
}

impl Register for Ymm {
    type Token = Avx2;
    type Lanes = YmmLanes;
    const WIDTH: usize = 8;

    #[inline(always)]
    fn splat(avx2: Avx2, value: u32) -> Ymm {
        // SAFETY: `avx2` proves AVX2.
        Ymm(unsafe { _mm256_set1_epi32(value as i32) }, avx2)
    }
    #[inline(always)]
    fn first(avx2: Avx2, count: usize) -> YmmLanes {
        // SAFETY: `avx2` proves AVX2.
        let lanes = unsafe {
            _mm256_cmpgt_epi32(
                _mm256_set1_epi32(count as i32),
                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
            )
        };
        YmmLanes(lanes, avx2)
    }
    #[inline(always)]
    fn load(avx2: Avx2, from: &[u32]) -> Ymm {
        assert!(from.len() <= Ymm::WIDTH);
        let lanes = Ymm::first(avx2, from.len());
        // SAFETY: `avx2` proves AVX2. The load reads only the lanes of `lanes`,
        // which lie in `from`; the others are not read and cannot fault.
        Ymm(unsafe { _mm256_maskload_epi32(from.as_ptr().cast(), lanes.0) }, avx2)
    }
    #[inline(always)]
    fn store_kept(self, keep: YmmLanes, to: &mut [u32]) {
        let to = &mut to[..Ymm::WIDTH];
        // `FRONT` has an entry for every set of eight lanes.
        let order = &FRONT[keep.bits()];
        // SAFETY: `self.1` proves AVX2; `order` holds the eight values the load
        // reads, and `to` the eight the store writes.
        unsafe {
            let order = _mm256_loadu_si256(order.as_ptr().cast());
            let kept = _mm256_permutevar8x32_epi32(self.0, order);
            _mm256_storeu_si256(to.as_mut_ptr().cast(), kept);
        }
    }
    #[inline(always)]
    fn and(self, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_and_si256(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn or(self, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_or_si256(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn xor(self, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_xor_si256(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn without(self, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_andnot_si256(other.0, self.0) }, self.1)
    }
    #[inline(always)]
    fn lowest(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        let lowest =
            unsafe { _mm256_and_si256(self.0, _mm256_sub_epi32(_mm256_setzero_si256(), self.0)) };
        Ymm(lowest, self.1)
    }
    #[inline(always)]
    fn left_one(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_slli_epi32::<1>(self.0) }, self.1)
    }
    #[inline(always)]
    fn right_one(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_srli_epi32::<1>(self.0) }, self.1)
    }
    #[inline(always)]
    fn times_eight(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_slli_epi32::<3>(self.0) }, self.1)
    }
    #[inline(always)]
    fn next_byte(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_srli_epi32::<8>(self.0) }, self.1)
    }
    #[inline(always)]
    fn tie_count(self) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_srli_epi32::<{ TIE_SHIFT as i32 }>(self.0) }, self.1)
    }
    #[inline(always)]
    fn one_shifted(shift: Ymm) -> Ymm {
        // SAFETY: `shift.1` proves AVX2.
        Ymm(unsafe { _mm256_sllv_epi32(_mm256_set1_epi32(1), shift.0) }, shift.1)
    }
    #[inline(always)]
    fn nonzero(self) -> YmmLanes {
        // SAFETY: `self.1` proves AVX2.
        let lanes = unsafe {
            let zero = _mm256_cmpeq_epi32(self.0, _mm256_setzero_si256());
            _mm256_xor_si256(zero, _mm256_set1_epi32(-1))
        };
        YmmLanes(lanes, self.1)
    }
    #[inline(always)]
    fn equal(self, other: Ymm) -> YmmLanes {
        // SAFETY: `self.1` proves AVX2.
        YmmLanes(unsafe { _mm256_cmpeq_epi32(self.0, other.0) }, self.1)
    }
    #[inline(always)]
    fn keep(self, lanes: YmmLanes) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_and_si256(self.0, lanes.0) }, self.1)
    }
    #[inline(always)]
    fn select(self, lanes: YmmLanes, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        Ymm(unsafe { _mm256_blendv_epi8(other.0, self.0, lanes.0) }, self.1)
    }
    #[inline(always)]
    fn add_where(self, lanes: YmmLanes, other: Ymm) -> Ymm {
        // SAFETY: `self.1` proves AVX2.
        let sum = unsafe { _mm256_add_epi32(self.0, _mm256_and_si256(other.0, lanes.0)) };
        Ymm(sum, self.1)
    }
    #[inline(always)]
    fn sum(self) -> u32 {
        let mut lanes = [0u32; 8];
        // SAFETY: `self.1` proves AVX2, and `lanes` holds the eight values the store
        // writes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), self.0) };
        lanes.iter().sum()
    }
    #[inline(always)]
    fn both(a: YmmLanes, b: YmmLanes) -> YmmLanes {
        // SAFETY: `a.1` proves AVX2.
        YmmLanes(unsafe { _mm256_and_si256(a.0, b.0) }, a.1)
    }
    #[inline(always)]
    fn count(lanes: YmmLanes) -> u32 {
        lanes.bits().count_ones()
    }
    #[inline(always)]
    fn none(lanes: YmmLanes) -> bool {
        // SAFETY: `lanes.1` proves AVX2.
        unsafe { _mm256_testz_si256(lanes.0, lanes.0) != 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::Ymm;
    use crate::backtrack::lanes::search::loads_and_stores_stay_in_their_slices;
    use crate::simd::Avx2;

    #[test]
    fn avx2_loads_and_stores_stay_in_their_slices() {
        match Avx2::new() {
            Some(avx2) => loads_and_stores_stay_in_their_slices::<Ymm>(avx2),
            None => eprintln!("skipped: this processor has no AVX2"),
        }
    }
}
