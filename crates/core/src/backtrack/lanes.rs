//! Lane-parallel backtracking: sixteen partial boards (AVX-512) or eight (AVX2) advance
//! together in the lanes of one register.
//!
//! The scalar search spends most of its time on branches that no predictor can learn
//! (whether a row has another free column, whether a column completes the board). Here the
//! branches become lane masks. The partial boards entering each row wait in that row's
//! buffer; a register's worth at a time is taken from the deepest row that holds that
//! many, every lane places its next queen in step until all its free columns are spent,
//! and the children that still have a free column are compressed into the next row's
//! buffer. The last two rows are closed in registers, as the scalar search closes them.
//! Only when no row holds a register's worth (at the start and the end of a task) is a
//! part-filled register taken, from the deepest row that holds any.
//!
//! The rules' restrictions become per-row tables of allowed columns; a queen on a *tie*
//! cell adds one to a small counter kept above the board's columns in the `down` mask, and
//! completed boards are tallied by that counter (see `super::eightfold::Border`).

use super::rules::{LaneRules, Tally};
use crate::kernel::{Kernel, MAX_LANE_N};
use crate::simd::{Avx2, Avx512, Bmi};

/// A lane kernel this processor runs, with the proof that it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LaneKernel {
    /// Sixteen boards per AVX-512 register.
    Avx512(Avx512),
    /// Eight boards per AVX2 register.
    Avx2(Avx2),
}

impl LaneKernel {
    /// The lane kernel `kernel` names, if it is one and this processor has it.
    pub(super) fn new(kernel: Kernel) -> Option<LaneKernel> {
        match kernel {
            Kernel::Avx512 => Avx512::new().map(LaneKernel::Avx512),
            Kernel::Avx2 => Avx2::new().map(LaneKernel::Avx2),
            Kernel::Auto | Kernel::Scalar => None,
        }
    }

    /// The widest lane kernel this processor has.
    pub(super) fn widest() -> Option<LaneKernel> {
        LaneKernel::new(Kernel::Avx512).or_else(|| LaneKernel::new(Kernel::Avx2))
    }

    /// The kernel's name.
    pub(super) fn kernel(self) -> Kernel {
        match self {
            LaneKernel::Avx512(_) => Kernel::Avx512,
            LaneKernel::Avx2(_) => Kernel::Avx2,
        }
    }

    /// The proof of the scalar kernel's instructions that this one contains.
    pub(super) fn bmi(self) -> Bmi {
        match self {
            LaneKernel::Avx512(avx512) => avx512.avx2().bmi(),
            LaneKernel::Avx2(avx2) => avx2.bmi(),
        }
    }

    /// Counts the completions of `prefix` (a column per row) under `rules`, which must
    /// [`fit`] the prefix.
    pub(super) fn count(self, rules: &LaneRules, prefix: &[u8], count_nodes: bool) -> Tally {
        assert!(fit(rules.n, prefix.len()));
        let (mut left, mut down, mut right, mut ties) = (0u32, 0u32, 0u32, 0u32);
        for (row, &column) in prefix.iter().enumerate() {
            let bit = 1 << column;
            ties += u32::from(bit & rules.ties[row] != 0);
            left = (left | bit) << 1;
            down |= bit;
            right = (right | bit) >> 1;
        }
        #[cfg(target_arch = "x86_64")]
        return x86::count(self, rules, prefix.len(), (left, down, right), ties, count_nodes);
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lane kernel's token can be made off x86-64: {left} {down} {right}")
    }
}

/// Whether a lane kernel can count the completions of an `n`-board below a `depth`-row
/// prefix: at most [`MAX_LANE_N`] rows and three open rows.
pub(super) fn fit(n: usize, depth: usize) -> bool {
    n <= MAX_LANE_N && depth + 3 <= n
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use self::registers::{Register, Ymm, Zmm};
    use super::{LaneKernel, LaneRules, MAX_LANE_N, Tally};
    use crate::simd::{Avx2, Avx512};

    const TIE_SHIFT: u32 = 28;

    pub(super) fn count(
        kernel: LaneKernel,
        rules: &LaneRules,
        row: usize,
        (left, down, right): (u32, u32, u32),
        ties: u32,
        count_nodes: bool,
    ) -> Tally {
        let start = (left, down | (ties << TIE_SHIFT), right);
        let has_ties = rules.ties.iter().any(|&t| t != 0);
        macro_rules! dispatch {
            ($search:ident, $token:ident) => {
                // SAFETY: `$token` proves that the processor has the features `$search` is
                // compiled for.
                unsafe {
                    match (has_ties, count_nodes) {
                        (false, false) => $search::<false, false>($token, rules, row, start),
                        (false, true) => $search::<false, true>($token, rules, row, start),
                        (true, false) => $search::<true, false>($token, rules, row, start),
                        (true, true) => $search::<true, true>($token, rules, row, start),
                    }
                }
            };
        }
        match kernel {
            LaneKernel::Avx512(avx512) => dispatch!(search_avx512, avx512),
            LaneKernel::Avx2(avx2) => dispatch!(search_avx2, avx2),
        }
    }

    /// The search compiled for AVX-512F, so that the register operations inlined into it
    /// become single instructions.
    #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
    fn search_avx512<const TIES: bool, const NODES: bool>(
        avx512: Avx512,
        rules: &LaneRules,
        start: usize,
        masks: (u32, u32, u32),
    ) -> Tally {
        search::<Zmm, TIES, NODES>(avx512, rules, start, masks)
    }

    /// The search compiled for AVX2, so that the register operations inlined into it
    /// become single instructions.
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    fn search_avx2<const TIES: bool, const NODES: bool>(
        avx2: Avx2,
        rules: &LaneRules,
        start: usize,
        masks: (u32, u32, u32),
    ) -> Tally {
        search::<Ymm, TIES, NODES>(avx2, rules, start, masks)
    }

    /// The registers, in a module of their own so that only their methods make register
    /// and lane-set values: each carries the token of its instruction set, and an AVX2 lane
    /// set has every bit of a lane set or clear.
    mod registers {
        use std::arch::x86_64::{
            __m256i, __m512i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256,
            _mm256_blendv_epi8, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
            _mm256_loadu_si256, _mm256_maskload_epi32, _mm256_movemask_ps, _mm256_or_si256,
            _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi32,
            _mm256_setzero_si256, _mm256_slli_epi32, _mm256_sllv_epi32, _mm256_srli_epi32,
            _mm256_storeu_si256, _mm256_sub_epi32, _mm256_testz_si256, _mm256_xor_si256,
            _mm512_and_si512, _mm512_andnot_si512, _mm512_cmpeq_epi32_mask, _mm512_mask_add_epi32,
            _mm512_mask_mov_epi32, _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi32,
            _mm512_maskz_mov_epi32, _mm512_or_si512, _mm512_reduce_add_epi32, _mm512_set1_epi32,
            _mm512_setzero_si512, _mm512_slli_epi32, _mm512_sllv_epi32, _mm512_srli_epi32,
            _mm512_storeu_si512, _mm512_sub_epi32, _mm512_test_epi32_mask, _mm512_xor_si512,
        };

        use super::TIE_SHIFT;
        use crate::simd::{Avx2, Avx512};

        /// One register of `u32` masks and the lane operations the search needs.
        ///
        /// A register, and a lane set that is a vector, carries the token of its
        /// instruction set, and only a token makes one, so every method is safe: wherever
        /// such a value exists, detection has proved the instructions its methods run. The
        /// methods are inlined into a search compiled for those instructions, where each
        /// becomes one or a few of them.
        pub(super) trait Register: Copy {
            /// The proof that the processor has the register's instructions.
            type Token: Copy;
            /// A set of lanes.
            type Lanes: Copy;
            const WIDTH: usize;

            fn splat(token: Self::Token, value: u32) -> Self;
            /// The lanes below `count`, which is at most [`Register::WIDTH`].
            fn first(token: Self::Token, count: usize) -> Self::Lanes;
            /// Reads `from` into the first lanes, zero elsewhere; panics if `from` holds
            /// more than [`Register::WIDTH`] values.
            fn load(token: Self::Token, from: &[u32]) -> Self;
            /// Writes the lanes of `keep`, in order, to the front of `to`, and may overwrite
            /// the rest of its first [`Register::WIDTH`] values; panics if `to` is shorter.
            fn store_kept(self, keep: Self::Lanes, to: &mut [u32]);
            fn and(self, other: Self) -> Self;
            fn or(self, other: Self) -> Self;
            fn xor(self, other: Self) -> Self;
            /// `self & !other`.
            fn without(self, other: Self) -> Self;
            /// `x & -x` in each lane.
            fn lowest(self) -> Self;
            /// `self << 1`, the diagonals' step from one row to the next.
            fn left_one(self) -> Self;
            /// `self >> 1`.
            fn right_one(self) -> Self;
            /// `self << 3`, a tie count as a byte's bit offset.
            fn times_eight(self) -> Self;
            /// `self >> 8`, the next byte of pending counts.
            fn next_byte(self) -> Self;
            /// The tie counter of a `down` mask.
            fn tie_count(self) -> Self;
            /// `1 << shift` lane by lane.
            fn one_shifted(shift: Self) -> Self;
            fn nonzero(self) -> Self::Lanes;
            fn equal(self, other: Self) -> Self::Lanes;
            /// `self` in the lanes of `lanes`, zero elsewhere.
            fn keep(self, lanes: Self::Lanes) -> Self;
            /// `self` in the lanes of `lanes`, `other` elsewhere.
            fn select(self, lanes: Self::Lanes, other: Self) -> Self;
            /// `self + other` in the lanes of `lanes`, `self` elsewhere.
            fn add_where(self, lanes: Self::Lanes, other: Self) -> Self;
            fn sum(self) -> u32;
            fn both(a: Self::Lanes, b: Self::Lanes) -> Self::Lanes;
            fn count(lanes: Self::Lanes) -> u32;
            fn none(lanes: Self::Lanes) -> bool;
        }

        /// Sixteen lanes of AVX-512, with the proof that the processor has AVX-512F; lane
        /// sets are mask registers.
        #[derive(Clone, Copy)]
        pub(super) struct Zmm(__m512i, Avx512);

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
                let lowest = unsafe {
                    _mm512_and_si512(self.0, _mm512_sub_epi32(_mm512_setzero_si512(), self.0))
                };
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

        /// Eight lanes of AVX2, with the proof that the processor has it.
        #[derive(Clone, Copy)]
        pub(super) struct Ymm(__m256i, Avx2);

        /// A set of eight lanes: a register with every bit of a lane set or clear, with the
        /// proof that the processor has AVX2.
        #[derive(Clone, Copy)]
        pub(super) struct YmmLanes(__m256i, Avx2);

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
                let lowest = unsafe {
                    _mm256_and_si256(self.0, _mm256_sub_epi32(_mm256_setzero_si256(), self.0))
                };
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
    }

    /// Room in one row's buffer: fewer than a register's worth of boards wait when a
    /// register's children arrive, at most one register's worth per column, and a full
    /// register may be stored past the end.
    const CAPACITY: usize = 16 + 16 * MAX_LANE_N + 16;

    /// The boards waiting to enter each row: per row, their `left`, `down` and `right`
    /// masks.
    struct Buffers {
        rows: Vec<[[u32; CAPACITY]; 3]>,
        len: [usize; MAX_LANE_N],
    }

    impl Buffers {
        fn new(n: usize) -> Buffers {
            Buffers { rows: vec![[[0; CAPACITY]; 3]; n], len: [0; MAX_LANE_N] }
        }
    }

    struct Search<'r, R: Register, const TIES: bool, const NODES: bool> {
        /// The proof that the processor has `R`'s instructions, for the registers made here.
        token: R::Token,
        rules: &'r LaneRules,
        /// Completed boards per lane since the last flush; with ties, one byte per tie count.
        pending: R,
        pending_closes: u32,
        tally: Tally,
    }

    /// How many register closes fit in the pending bytes: each adds at most 2 per lane.
    const CLOSES_PER_FLUSH: u32 = 120;
    const _: () = assert!(2 * CLOSES_PER_FLUSH <= 255);

    /// Counts the completions of one board whose rows above `start` are filled.
    #[inline(always)]
    fn search<R: Register, const TIES: bool, const NODES: bool>(
        token: R::Token,
        rules: &LaneRules,
        start: usize,
        (left, down, right): (u32, u32, u32),
    ) -> Tally {
        let deepest = rules.n - 3;
        let mut buffers = Buffers::new(rules.n);
        for (masks, mask) in buffers.rows[start].iter_mut().zip([left, down, right]) {
            masks[0] = mask;
        }
        buffers.len[start] = 1;
        let pending = R::splat(token, 0);
        let mut search = Search::<R, TIES, NODES> {
            token,
            rules,
            pending,
            pending_closes: 0,
            tally: Tally::default(),
        };
        let mut row = start;
        loop {
            if buffers.len[row] >= R::WIDTH {
                search.expand(&mut buffers, row, R::WIDTH);
                if row < deepest && buffers.len[row + 1] >= R::WIDTH {
                    row += 1;
                }
                continue;
            }
            // Every row below holds less than a register's worth: look for one above.
            if row > start {
                row -= 1;
                continue;
            }
            match (start..=deepest).rev().find(|&r| buffers.len[r] > 0) {
                Some(r) => {
                    let len = buffers.len[r];
                    search.expand(&mut buffers, r, len);
                    row = (r + 1).min(deepest);
                }
                None => break,
            }
        }
        search.flush();
        search.tally
    }

    impl<R: Register, const TIES: bool, const NODES: bool> Search<'_, R, TIES, NODES> {
        /// The columns open to `row` in each lane of `lanes`.
        #[inline(always)]
        fn candidates(&self, row: usize, lanes: R::Lanes, l: R, d: R, r: R) -> R {
            let free = R::splat(self.token, self.rules.allowed[row]).without(l.or(d).or(r));
            let outer = match self.rules.outer_due {
                Some((due, outer)) if due == row => R::splat(self.token, outer),
                _ => return free.keep(lanes),
            };
            // One outer column taken: the row must take the other; none: the board is
            // dead, since the outer columns are closed below this row.
            let taken = d.and(outer);
            let restricted = free.select(taken.equal(outer), free.and(outer));
            restricted.keep(R::both(lanes, taken.nonzero()))
        }

        /// Takes the last `k` (up to a register's worth) boards waiting to enter `row` and
        /// places every queen they allow in that row.
        #[inline(always)]
        fn expand(&mut self, buffers: &mut Buffers, row: usize, k: usize) {
            let token = self.token;
            let base = buffers.len[row] - k;
            buffers.len[row] = base;
            let lanes = R::first(token, k);
            // The first `k` lanes read the `k` boards stored from `base`.
            let boards = &buffers.rows[row];
            let l = R::load(token, &boards[0][base..base + k]);
            let d = R::load(token, &boards[1][base..base + k]);
            let r = R::load(token, &boards[2][base..base + k]);
            let mut avail = self.candidates(row, lanes, l, d, r);
            let ties = R::splat(token, self.rules.ties[row]);
            let tie_one = R::splat(token, 1 << TIE_SHIFT);
            let closes = row + 3 == self.rules.n;
            let child_allowed =
                R::splat(token, self.rules.allowed[(row + 1).min(self.rules.n - 1)]);
            loop {
                let placing = avail.nonzero();
                if R::none(placing) {
                    break;
                }
                let bit = avail.lowest();
                avail = avail.xor(bit);
                let cl = l.or(bit).left_one();
                let mut cd = d.or(bit);
                if TIES {
                    cd = cd.add_where(bit.and(ties).nonzero(), tie_one);
                }
                let cr = r.or(bit).right_one();
                if NODES {
                    self.tally.nodes += u64::from(R::count(placing));
                }
                if closes {
                    self.close(placing, cl, cd, cr);
                    continue;
                }
                let open = child_allowed.without(cl.or(cd).or(cr));
                let keep = R::both(placing, open.nonzero());
                // The stores check that a register's worth fits from `at`, which it always
                // does (see `CAPACITY`).
                let at = buffers.len[row + 1];
                let children = &mut buffers.rows[row + 1];
                cl.store_kept(keep, &mut children[0][at..]);
                cd.store_kept(keep, &mut children[1][at..]);
                cr.store_kept(keep, &mut children[2][at..]);
                buffers.len[row + 1] = at + R::count(keep) as usize;
            }
        }

        /// Scores the boards in `lanes` entering the second-to-last row. Two columns are
        /// left; each of the two rows may take either, the last the other one if the
        /// diagonals allow.
        #[inline(always)]
        fn close(&mut self, lanes: R::Lanes, l: R, d: R, r: R) {
            let n = self.rules.n;
            let token = self.token;
            let open = R::splat(token, (1 << n) - 1).without(d);
            let first = open.lowest();
            let second = open.xor(first);
            let candidates = self.candidates(n - 2, lanes, l, d, r);
            let last_allowed = R::splat(token, self.rules.allowed[n - 1]);
            let one = R::splat(token, 1);
            for (mine, other) in [(first, second), (second, first)] {
                let placing = candidates.and(mine).nonzero();
                let attacked = l.or(mine).left_one().or(r.or(mine).right_one());
                let last = other.without(attacked);
                let complete = R::both(placing, last.and(last_allowed).nonzero());
                if NODES {
                    // As the scalar kernel counts: the last queen is placed, then the
                    // rules decide whether its column counts.
                    let placed_last = R::both(placing, last.nonzero());
                    self.tally.nodes += u64::from(R::count(placing) + R::count(placed_last));
                }
                let weight = if TIES {
                    let mine_ties = R::splat(token, self.rules.ties[n - 2]);
                    let other_ties = R::splat(token, self.rules.ties[n - 1]);
                    let ties = d
                        .tie_count()
                        .add_where(mine.and(mine_ties).nonzero(), one)
                        .add_where(other.and(other_ties).nonzero(), one);
                    R::one_shifted(ties.times_eight())
                } else {
                    one
                };
                self.pending = self.pending.add_where(complete, weight);
            }
            self.pending_closes += 1;
            if self.pending_closes == CLOSES_PER_FLUSH {
                self.flush();
            }
        }

        /// Moves the pending per-lane counts into the tally.
        #[inline(always)]
        fn flush(&mut self) {
            if TIES {
                let byte = R::splat(self.token, 0xff);
                let mut shifted = self.pending;
                for leaves in &mut self.tally.leaves {
                    *leaves += u64::from(shifted.and(byte).sum());
                    shifted = shifted.next_byte();
                }
            } else {
                self.tally.leaves[0] += u64::from(self.pending.sum());
            }
            self.pending = R::splat(self.token, 0);
            self.pending_closes = 0;
        }
    }

    #[cfg(test)]
    mod tests {
        use std::panic::{AssertUnwindSafe, catch_unwind};

        use super::registers::{Register, Ymm, Zmm};
        use crate::simd::{Avx2, Avx512};

        /// Loads read exactly their slice, whatever its length, and a load or store that
        /// would leave its slice panics instead.
        fn loads_and_stores_stay_in_their_slices<R: Register>(token: R::Token) {
            let values: Vec<u32> = (1..=R::WIDTH as u32).collect();
            for len in 0..=R::WIDTH {
                let register = R::load(token, &values[..len]);
                assert_eq!(register.sum(), values[..len].iter().sum::<u32>());
                let mut to = vec![0; R::WIDTH];
                register.store_kept(register.nonzero(), &mut to);
                assert_eq!(to[..len], values[..len]);
            }
            let too_long = vec![0; R::WIDTH + 1];
            assert!(catch_unwind(AssertUnwindSafe(|| R::load(token, &too_long))).is_err());
            let register = R::splat(token, 1);
            let mut too_short = vec![0; R::WIDTH - 1];
            let store = || register.store_kept(register.nonzero(), &mut too_short);
            assert!(catch_unwind(AssertUnwindSafe(store)).is_err());
        }

        #[test]
        fn avx512_loads_and_stores_stay_in_their_slices() {
            if let Some(avx512) = Avx512::new() {
                loads_and_stores_stay_in_their_slices::<Zmm>(avx512);
            }
        }

        #[test]
        fn avx2_loads_and_stores_stay_in_their_slices() {
            if let Some(avx2) = Avx2::new() {
                loads_and_stores_stay_in_their_slices::<Ymm>(avx2);
            }
        }
    }
}
