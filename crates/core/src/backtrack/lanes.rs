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
    use std::arch::x86_64::{
        __m256i, __m512i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_blendv_epi8, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
        _mm256_loadu_si256, _mm256_maskload_epi32, _mm256_movemask_ps, _mm256_or_si256,
        _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256,
        _mm256_slli_epi32, _mm256_sllv_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
        _mm256_sub_epi32, _mm256_testz_si256, _mm256_xor_si256, _mm512_and_si512,
        _mm512_andnot_si512, _mm512_cmpeq_epi32_mask, _mm512_mask_add_epi32, _mm512_mask_mov_epi32,
        _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi32, _mm512_maskz_mov_epi32,
        _mm512_or_si512, _mm512_reduce_add_epi32, _mm512_set1_epi32, _mm512_setzero_si512,
        _mm512_slli_epi32, _mm512_sllv_epi32, _mm512_srli_epi32, _mm512_storeu_si512,
        _mm512_sub_epi32, _mm512_test_epi32_mask, _mm512_xor_si512,
    };

    use super::{LaneKernel, LaneRules, MAX_LANE_N, Tally};

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
            ($search:ident) => {
                // SAFETY: the kernel's token proves that the processor has the features
                // `$search` is compiled for.
                unsafe {
                    match (has_ties, count_nodes) {
                        (false, false) => $search::<false, false>(rules, row, start),
                        (false, true) => $search::<false, true>(rules, row, start),
                        (true, false) => $search::<true, false>(rules, row, start),
                        (true, true) => $search::<true, true>(rules, row, start),
                    }
                }
            };
        }
        match kernel {
            LaneKernel::Avx512(_) => dispatch!(search_avx512),
            LaneKernel::Avx2(_) => dispatch!(search_avx2),
        }
    }

    #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
    fn search_avx512<const TIES: bool, const NODES: bool>(
        rules: &LaneRules,
        start: usize,
        masks: (u32, u32, u32),
    ) -> Tally {
        // SAFETY: this function is compiled for AVX-512F, which `Zmm` needs.
        unsafe { search::<Zmm, TIES, NODES>(rules, start, masks) }
    }

    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    fn search_avx2<const TIES: bool, const NODES: bool>(
        rules: &LaneRules,
        start: usize,
        masks: (u32, u32, u32),
    ) -> Tally {
        // SAFETY: this function is compiled for AVX2, which `Ymm` needs.
        unsafe { search::<Ymm, TIES, NODES>(rules, start, masks) }
    }

    /// One register of `u32` masks and the lane operations the search needs. Every method
    /// is inlined into a function compiled for the register's instruction set, and may
    /// only be called from one: that is the safety condition of each.
    trait Register: Copy {
        /// A set of lanes.
        type Lanes: Copy;
        const WIDTH: usize;

        unsafe fn splat(value: u32) -> Self;
        /// The lanes below `count`.
        unsafe fn first(count: usize) -> Self::Lanes;
        /// Reads the lanes of `lanes` (the first few) from `at`, zero elsewhere.
        unsafe fn load(at: *const u32, lanes: Self::Lanes) -> Self;
        /// Writes the lanes of `keep`, in order, to `at`; may write [`Register::WIDTH`]
        /// values.
        unsafe fn store_kept(self, keep: Self::Lanes, at: *mut u32);
        unsafe fn and(self, other: Self) -> Self;
        unsafe fn or(self, other: Self) -> Self;
        unsafe fn xor(self, other: Self) -> Self;
        /// `self & !other`.
        unsafe fn without(self, other: Self) -> Self;
        /// `x & -x` in each lane.
        unsafe fn lowest(self) -> Self;
        /// `self << 1`, the diagonals' step from one row to the next.
        unsafe fn left_one(self) -> Self;
        /// `self >> 1`.
        unsafe fn right_one(self) -> Self;
        /// `self << 3`, a tie count as a byte's bit offset.
        unsafe fn times_eight(self) -> Self;
        /// `self >> 8`, the next byte of pending counts.
        unsafe fn next_byte(self) -> Self;
        /// The tie counter of a `down` mask.
        unsafe fn tie_count(self) -> Self;
        /// `1 << shift` lane by lane.
        unsafe fn one_shifted(shift: Self) -> Self;
        unsafe fn nonzero(self) -> Self::Lanes;
        unsafe fn equal(self, other: Self) -> Self::Lanes;
        /// `self` in the lanes of `lanes`, zero elsewhere.
        unsafe fn keep(self, lanes: Self::Lanes) -> Self;
        /// `self` in the lanes of `lanes`, `other` elsewhere.
        unsafe fn select(self, lanes: Self::Lanes, other: Self) -> Self;
        /// `self + other` in the lanes of `lanes`, `self` elsewhere.
        unsafe fn add_where(self, lanes: Self::Lanes, other: Self) -> Self;
        unsafe fn sum(self) -> u32;
        unsafe fn both(a: Self::Lanes, b: Self::Lanes) -> Self::Lanes;
        unsafe fn count(lanes: Self::Lanes) -> u32;
        unsafe fn none(lanes: Self::Lanes) -> bool;
    }

    /// Sixteen lanes of AVX-512; lane sets are mask registers.
    #[derive(Clone, Copy)]
    struct Zmm(__m512i);

    impl Register for Zmm {
        // SAFETY (every block below): the trait's contract is that the caller is compiled
        // for AVX-512F, and the pointers are the caller's to read or write.
        type Lanes = u16;
        const WIDTH: usize = 16;

        #[inline(always)]
        unsafe fn splat(value: u32) -> Zmm {
            unsafe { Zmm(_mm512_set1_epi32(value as i32)) }
        }
        #[inline(always)]
        unsafe fn first(count: usize) -> u16 {
            (u32::MAX >> (32 - count)) as u16
        }
        #[inline(always)]
        unsafe fn load(at: *const u32, lanes: u16) -> Zmm {
            unsafe { Zmm(_mm512_maskz_loadu_epi32(lanes, at as *const i32)) }
        }
        #[inline(always)]
        unsafe fn store_kept(self, keep: u16, at: *mut u32) {
            unsafe {
                // A compress into a register and a plain store: a compressing store to memory
                // is microcoded and slow on some processors.
                let kept = _mm512_maskz_compress_epi32(keep, self.0);
                _mm512_storeu_si512(at as *mut __m512i, kept)
            }
        }
        #[inline(always)]
        unsafe fn and(self, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_and_si512(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn or(self, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_or_si512(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn xor(self, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_xor_si512(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn without(self, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_andnot_si512(other.0, self.0)) }
        }
        #[inline(always)]
        unsafe fn lowest(self) -> Zmm {
            unsafe {
                Zmm(_mm512_and_si512(self.0, _mm512_sub_epi32(_mm512_setzero_si512(), self.0)))
            }
        }
        #[inline(always)]
        unsafe fn left_one(self) -> Zmm {
            unsafe { Zmm(_mm512_slli_epi32::<1>(self.0)) }
        }
        #[inline(always)]
        unsafe fn right_one(self) -> Zmm {
            unsafe { Zmm(_mm512_srli_epi32::<1>(self.0)) }
        }
        #[inline(always)]
        unsafe fn times_eight(self) -> Zmm {
            unsafe { Zmm(_mm512_slli_epi32::<3>(self.0)) }
        }
        #[inline(always)]
        unsafe fn next_byte(self) -> Zmm {
            unsafe { Zmm(_mm512_srli_epi32::<8>(self.0)) }
        }
        #[inline(always)]
        unsafe fn tie_count(self) -> Zmm {
            unsafe { Zmm(_mm512_srli_epi32::<TIE_SHIFT>(self.0)) }
        }
        #[inline(always)]
        unsafe fn one_shifted(shift: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_sllv_epi32(_mm512_set1_epi32(1), shift.0)) }
        }
        #[inline(always)]
        unsafe fn nonzero(self) -> u16 {
            unsafe { _mm512_test_epi32_mask(self.0, self.0) }
        }
        #[inline(always)]
        unsafe fn equal(self, other: Zmm) -> u16 {
            unsafe { _mm512_cmpeq_epi32_mask(self.0, other.0) }
        }
        #[inline(always)]
        unsafe fn keep(self, lanes: u16) -> Zmm {
            unsafe { Zmm(_mm512_maskz_mov_epi32(lanes, self.0)) }
        }
        #[inline(always)]
        unsafe fn select(self, lanes: u16, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_mask_mov_epi32(other.0, lanes, self.0)) }
        }
        #[inline(always)]
        unsafe fn add_where(self, lanes: u16, other: Zmm) -> Zmm {
            unsafe { Zmm(_mm512_mask_add_epi32(self.0, lanes, self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn sum(self) -> u32 {
            unsafe { _mm512_reduce_add_epi32(self.0) as u32 }
        }
        #[inline(always)]
        unsafe fn both(a: u16, b: u16) -> u16 {
            a & b
        }
        #[inline(always)]
        unsafe fn count(lanes: u16) -> u32 {
            lanes.count_ones()
        }
        #[inline(always)]
        unsafe fn none(lanes: u16) -> bool {
            lanes == 0
        }
    }

    /// Eight lanes of AVX2; lane sets are registers with every bit of a lane set or clear.
    #[derive(Clone, Copy)]
    struct Ymm(__m256i);

    /// For each set of eight lanes, the permutation that moves its lanes to the front, in
    /// order: AVX2 has no compress instruction.
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

    impl Ymm {
        #[inline(always)]
        unsafe fn bits(lanes: __m256i) -> usize {
            unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(lanes)) as usize }
        }
    }

    impl Register for Ymm {
        // SAFETY (every block below): the trait's contract is that the caller is compiled
        // for AVX2, and the pointers are the caller's to read or write.
        type Lanes = __m256i;
        const WIDTH: usize = 8;

        #[inline(always)]
        unsafe fn splat(value: u32) -> Ymm {
            unsafe { Ymm(_mm256_set1_epi32(value as i32)) }
        }
        #[inline(always)]
        unsafe fn first(count: usize) -> __m256i {
            unsafe {
                _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(count as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                )
            }
        }
        #[inline(always)]
        unsafe fn load(at: *const u32, lanes: __m256i) -> Ymm {
            unsafe { Ymm(_mm256_maskload_epi32(at as *const i32, lanes)) }
        }
        #[inline(always)]
        unsafe fn store_kept(self, keep: __m256i, at: *mut u32) {
            // `FRONT` has an entry for every set of eight lanes.
            unsafe {
                let order = _mm256_loadu_si256(FRONT[Ymm::bits(keep)].as_ptr() as *const __m256i);
                let kept = _mm256_permutevar8x32_epi32(self.0, order);
                _mm256_storeu_si256(at as *mut __m256i, kept);
            }
        }
        #[inline(always)]
        unsafe fn and(self, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_and_si256(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn or(self, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_or_si256(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn xor(self, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_xor_si256(self.0, other.0)) }
        }
        #[inline(always)]
        unsafe fn without(self, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_andnot_si256(other.0, self.0)) }
        }
        #[inline(always)]
        unsafe fn lowest(self) -> Ymm {
            unsafe {
                Ymm(_mm256_and_si256(self.0, _mm256_sub_epi32(_mm256_setzero_si256(), self.0)))
            }
        }
        #[inline(always)]
        unsafe fn left_one(self) -> Ymm {
            unsafe { Ymm(_mm256_slli_epi32::<1>(self.0)) }
        }
        #[inline(always)]
        unsafe fn right_one(self) -> Ymm {
            unsafe { Ymm(_mm256_srli_epi32::<1>(self.0)) }
        }
        #[inline(always)]
        unsafe fn times_eight(self) -> Ymm {
            unsafe { Ymm(_mm256_slli_epi32::<3>(self.0)) }
        }
        #[inline(always)]
        unsafe fn next_byte(self) -> Ymm {
            unsafe { Ymm(_mm256_srli_epi32::<8>(self.0)) }
        }
        #[inline(always)]
        unsafe fn tie_count(self) -> Ymm {
            unsafe { Ymm(_mm256_srli_epi32::<{ TIE_SHIFT as i32 }>(self.0)) }
        }
        #[inline(always)]
        unsafe fn one_shifted(shift: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_sllv_epi32(_mm256_set1_epi32(1), shift.0)) }
        }
        #[inline(always)]
        unsafe fn nonzero(self) -> __m256i {
            unsafe {
                let zero = _mm256_cmpeq_epi32(self.0, _mm256_setzero_si256());
                _mm256_xor_si256(zero, _mm256_set1_epi32(-1))
            }
        }
        #[inline(always)]
        unsafe fn equal(self, other: Ymm) -> __m256i {
            unsafe { _mm256_cmpeq_epi32(self.0, other.0) }
        }
        #[inline(always)]
        unsafe fn keep(self, lanes: __m256i) -> Ymm {
            unsafe { Ymm(_mm256_and_si256(self.0, lanes)) }
        }
        #[inline(always)]
        unsafe fn select(self, lanes: __m256i, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_blendv_epi8(other.0, self.0, lanes)) }
        }
        #[inline(always)]
        unsafe fn add_where(self, lanes: __m256i, other: Ymm) -> Ymm {
            unsafe { Ymm(_mm256_add_epi32(self.0, _mm256_and_si256(other.0, lanes))) }
        }
        #[inline(always)]
        unsafe fn sum(self) -> u32 {
            unsafe {
                let mut lanes = [0u32; 8];
                _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, self.0);
                lanes.iter().sum()
            }
        }
        #[inline(always)]
        unsafe fn both(a: __m256i, b: __m256i) -> __m256i {
            unsafe { _mm256_and_si256(a, b) }
        }
        #[inline(always)]
        unsafe fn count(lanes: __m256i) -> u32 {
            unsafe { Ymm::bits(lanes).count_ones() }
        }
        #[inline(always)]
        unsafe fn none(lanes: __m256i) -> bool {
            unsafe { _mm256_testz_si256(lanes, lanes) != 0 }
        }
    }

    /// Room in one row's buffer: fewer than a register's worth of boards wait when a
    /// register's children arrive, at most one register's worth per column, and a full
    /// register may be stored past the end.
    const CAPACITY: usize = 16 + 16 * MAX_LANE_N + 16;

    /// The boards waiting to enter each row, as three arrays of masks per row.
    struct Buffers {
        masks: Vec<u32>,
        len: [usize; MAX_LANE_N],
    }

    impl Buffers {
        fn new(n: usize) -> Buffers {
            Buffers { masks: vec![0; n * 3 * CAPACITY], len: [0; MAX_LANE_N] }
        }

        fn at(&mut self, row: usize, which: usize) -> *mut u32 {
            self.masks[(row * 3 + which) * CAPACITY..].as_mut_ptr()
        }
    }

    struct Search<'r, R, const TIES: bool, const NODES: bool> {
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
    ///
    /// SAFETY: the caller is compiled for `R`'s instruction set.
    #[inline(always)]
    unsafe fn search<R: Register, const TIES: bool, const NODES: bool>(
        rules: &LaneRules,
        start: usize,
        (left, down, right): (u32, u32, u32),
    ) -> Tally {
        let deepest = rules.n - 3;
        let mut buffers = Buffers::new(rules.n);
        for (which, mask) in [left, down, right].into_iter().enumerate() {
            // SAFETY: every row's buffer holds at least one mask.
            unsafe { *buffers.at(start, which) = mask };
        }
        buffers.len[start] = 1;
        // SAFETY (this and every call below): the caller is compiled for `R`.
        let pending = unsafe { R::splat(0) };
        let mut search =
            Search::<R, TIES, NODES> { rules, pending, pending_closes: 0, tally: Tally::default() };
        let mut row = start;
        loop {
            if buffers.len[row] >= R::WIDTH {
                unsafe { search.expand(&mut buffers, row, R::WIDTH) };
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
                    unsafe { search.expand(&mut buffers, r, len) };
                    row = (r + 1).min(deepest);
                }
                None => break,
            }
        }
        unsafe { search.flush() };
        search.tally
    }

    // SAFETY (every method): the caller is compiled for `R`'s instruction set.
    impl<R: Register, const TIES: bool, const NODES: bool> Search<'_, R, TIES, NODES> {
        /// The columns open to `row` in each lane of `lanes`.
        #[inline(always)]
        unsafe fn candidates(&self, row: usize, lanes: R::Lanes, l: R, d: R, r: R) -> R {
            unsafe {
                let free = R::splat(self.rules.allowed[row]).without(l.or(d).or(r));
                let outer = match self.rules.outer_due {
                    Some((due, outer)) if due == row => R::splat(outer),
                    _ => return free.keep(lanes),
                };
                // One outer column taken: the row must take the other; none: the board is
                // dead, since the outer columns are closed below this row.
                let taken = d.and(outer);
                let restricted = free.select(taken.equal(outer), free.and(outer));
                restricted.keep(R::both(lanes, taken.nonzero()))
            }
        }

        /// Takes the last `k` (up to a register's worth) boards waiting to enter `row` and
        /// places every queen they allow in that row.
        #[inline(always)]
        unsafe fn expand(&mut self, buffers: &mut Buffers, row: usize, k: usize) {
            let base = buffers.len[row] - k;
            buffers.len[row] = base;
            unsafe {
                let lanes = R::first(k);
                // The first `k` lanes read the `k` boards stored from `base`.
                let l = R::load(buffers.at(row, 0).add(base), lanes);
                let d = R::load(buffers.at(row, 1).add(base), lanes);
                let r = R::load(buffers.at(row, 2).add(base), lanes);
                let mut avail = self.candidates(row, lanes, l, d, r);
                let ties = R::splat(self.rules.ties[row]);
                let tie_one = R::splat(1 << TIE_SHIFT);
                let closes = row + 3 == self.rules.n;
                let child_allowed = R::splat(self.rules.allowed[(row + 1).min(self.rules.n - 1)]);
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
                    // `at` + a register's worth is within the buffer (see `CAPACITY`).
                    let at = buffers.len[row + 1];
                    cl.store_kept(keep, buffers.at(row + 1, 0).add(at));
                    cd.store_kept(keep, buffers.at(row + 1, 1).add(at));
                    cr.store_kept(keep, buffers.at(row + 1, 2).add(at));
                    buffers.len[row + 1] = at + R::count(keep) as usize;
                }
            }
        }

        /// Scores the boards in `lanes` entering the second-to-last row. Two columns are
        /// left; each of the two rows may take either, the last the other one if the
        /// diagonals allow.
        #[inline(always)]
        unsafe fn close(&mut self, lanes: R::Lanes, l: R, d: R, r: R) {
            let n = self.rules.n;
            unsafe {
                let open = R::splat((1 << n) - 1).without(d);
                let first = open.lowest();
                let second = open.xor(first);
                let candidates = self.candidates(n - 2, lanes, l, d, r);
                let last_allowed = R::splat(self.rules.allowed[n - 1]);
                let one = R::splat(1);
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
                        let mine_ties = R::splat(self.rules.ties[n - 2]);
                        let other_ties = R::splat(self.rules.ties[n - 1]);
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
        }

        /// Moves the pending per-lane counts into the tally.
        #[inline(always)]
        unsafe fn flush(&mut self) {
            unsafe {
                if TIES {
                    let byte = R::splat(0xff);
                    let mut shifted = self.pending;
                    for leaves in &mut self.tally.leaves {
                        *leaves += u64::from(shifted.and(byte).sum());
                        shifted = shifted.next_byte();
                    }
                } else {
                    self.tally.leaves[0] += u64::from(self.pending.sum());
                }
                self.pending = R::splat(0);
            }
            self.pending_closes = 0;
        }
    }
}
