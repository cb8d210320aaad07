//! Lane-parallel backtracking: sixteen partial boards advance together in the lanes of an
//! AVX-512 register.
//!
//! The scalar search spends most of its time on branches that no predictor can learn
//! (whether a row has another free column, whether a column completes the board). Here the
//! branches become lane masks. The partial boards entering each row wait in that row's
//! buffer; sixteen at a time are taken from the deepest row that holds sixteen, every lane
//! places its next queen in step until all its free columns are spent, and the children
//! that still have a free column are compressed into the next row's buffer. The last two
//! rows are closed in registers, as the scalar search closes them. Only when no row holds
//! sixteen (at the start and the end of a task) is a part-filled register taken, from the
//! deepest row that holds any.
//!
//! The rules' restrictions become per-row tables of allowed columns; a queen on a *tie*
//! cell adds one to a small counter kept above the board's columns in the `down` mask, and
//! completed boards are tallied by that counter (see `backtrack::Border`).

use crate::backtrack::Tally;

/// The largest board the lanes hold: the tie counter lives in bits 28 and 29 of `down`.
pub(crate) const MAX_LANE_N: usize = 28;

/// A rule set in table form, row by row.
#[derive(Clone, Debug)]
pub(crate) struct LaneRules {
    n: usize,
    /// The columns each row may take at most.
    pub(crate) allowed: [u32; MAX_LANE_N],
    /// The cells of each row that count as a tie.
    pub(crate) ties: [u32; MAX_LANE_N],
    /// A row by which both of two outer columns must be taken, and those columns: that row
    /// may take only an outer column while one is free, and nothing while both are.
    pub(crate) outer_due: Option<(usize, u32)>,
}

impl LaneRules {
    /// Rules for an `n`-board whose rows may take the columns in `allowed` and know no ties;
    /// `n` must not exceed [`MAX_LANE_N`].
    pub(crate) fn new(n: usize, allowed: &[u32]) -> LaneRules {
        let mut rules =
            LaneRules { n, allowed: [0; MAX_LANE_N], ties: [0; MAX_LANE_N], outer_due: None };
        rules.allowed[..n].copy_from_slice(&allowed[..n]);
        rules
    }
}

/// Whether the lanes can count the completions of an `n`-board below a `depth`-row prefix on
/// this processor: it needs AVX-512F (and POPCNT, BMI1, BMI2), at most [`MAX_LANE_N`] rows and three open rows.
pub(crate) fn fit(n: usize, depth: usize) -> bool {
    available() && n <= MAX_LANE_N && depth + 3 <= n
}

#[cfg(target_arch = "x86_64")]
fn available() -> bool {
    // POPCNT and BMI come with every AVX-512 processor; asking costs nothing and lets the
    // lane counts and masks use their instructions.
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
}

#[cfg(not(target_arch = "x86_64"))]
fn available() -> bool {
    false
}

/// Counts the completions of `prefix` (a column per row) under `rules`; the lanes must
/// [`fit`] the board and prefix.
pub(crate) fn count(rules: &LaneRules, prefix: &[u8], count_nodes: bool) -> Tally {
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
    {
        avx512::count(rules, prefix.len(), (left, down, right), ties, count_nodes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("no lanes on this architecture: {left} {down} {right} {ties} {count_nodes}")
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm512_and_si512, _mm512_andnot_si512, _mm512_cmpeq_epi32_mask,
        _mm512_mask_add_epi32, _mm512_mask_and_epi32, _mm512_maskz_compress_epi32,
        _mm512_maskz_loadu_epi32, _mm512_maskz_mov_epi32, _mm512_or_si512, _mm512_reduce_add_epi32,
        _mm512_set1_epi32, _mm512_setzero_si512, _mm512_slli_epi32, _mm512_sllv_epi32,
        _mm512_srli_epi32, _mm512_storeu_si512, _mm512_sub_epi32, _mm512_test_epi32_mask,
        _mm512_xor_si512,
    };

    use super::{LaneRules, MAX_LANE_N, Tally};

    const LANES: usize = 16;
    const TIE_SHIFT: u32 = 28;

    pub(super) fn count(
        rules: &LaneRules,
        row: usize,
        start: (u32, u32, u32),
        ties: u32,
        count_nodes: bool,
    ) -> Tally {
        let (left, down, right) = start;
        let start = (left, down | (ties << TIE_SHIFT), right);
        let has_ties = rules.ties.iter().any(|&t| t != 0);
        // SAFETY: `super::count` asserted that the processor has every feature `search` uses.
        unsafe {
            match (has_ties, count_nodes) {
                (false, false) => search::<false, false>(rules, row, start),
                (false, true) => search::<false, true>(rules, row, start),
                (true, false) => search::<true, false>(rules, row, start),
                (true, true) => search::<true, true>(rules, row, start),
            }
        }
    }

    /// Room in one row's buffer: fewer than sixteen boards wait when a register's children
    /// arrive, at most sixteen per column, and a full register may be stored past the end.
    const CAPACITY: usize = LANES + LANES * MAX_LANE_N + LANES;

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

    struct Kernel<'r, const TIES: bool, const NODES: bool> {
        rules: &'r LaneRules,
        /// Completed boards per lane since the last flush; with ties, one byte per tie count.
        pending: __m512i,
        pending_closes: u32,
        tally: Tally,
    }

    /// How many register closes fit in the pending bytes: each adds at most 2 per lane.
    const CLOSES_PER_FLUSH: u32 = 120;

    #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
    fn search<const TIES: bool, const NODES: bool>(
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
        let mut kernel = Kernel::<TIES, NODES> {
            rules,
            pending: _mm512_setzero_si512(),
            pending_closes: 0,
            tally: Tally::default(),
        };
        let mut row = start;
        loop {
            if buffers.len[row] >= LANES {
                kernel.expand(&mut buffers, row, LANES);
                if row < deepest && buffers.len[row + 1] >= LANES {
                    row += 1;
                }
                continue;
            }
            // Every row below holds fewer than sixteen: look for a full register above.
            if row > start {
                row -= 1;
                continue;
            }
            match (start..=deepest).rev().find(|&r| buffers.len[r] > 0) {
                Some(r) => {
                    let len = buffers.len[r];
                    kernel.expand(&mut buffers, r, len);
                    row = (r + 1).min(deepest);
                }
                None => break,
            }
        }
        kernel.flush();
        kernel.tally
    }

    impl<const TIES: bool, const NODES: bool> Kernel<'_, TIES, NODES> {
        /// The columns open to `row` in each lane of `lanes`.
        #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
        fn candidates(
            &self,
            row: usize,
            lanes: u16,
            l: __m512i,
            d: __m512i,
            r: __m512i,
        ) -> __m512i {
            let allowed = _mm512_set1_epi32(self.rules.allowed[row] as i32);
            let free = _mm512_andnot_si512(_mm512_or_si512(_mm512_or_si512(l, d), r), allowed);
            let outer = match self.rules.outer_due {
                Some((due, outer)) if due == row => _mm512_set1_epi32(outer as i32),
                _ => return _mm512_maskz_mov_epi32(lanes, free),
            };
            let taken = _mm512_and_si512(d, outer);
            let none_taken = _mm512_test_epi32_mask(taken, taken) ^ u16::MAX;
            let one_taken = _mm512_cmpeq_epi32_mask(taken, outer) ^ u16::MAX;
            let free = _mm512_mask_and_epi32(free, one_taken, free, outer);
            _mm512_maskz_mov_epi32(lanes & !none_taken, free)
        }

        /// Takes the last `k` (1 to 16) boards waiting to enter `row` and places every queen
        /// they allow in that row.
        #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
        fn expand(&mut self, buffers: &mut Buffers, row: usize, k: usize) {
            let base = buffers.len[row] - k;
            buffers.len[row] = base;
            let lanes = (u32::MAX >> (32 - k)) as u16;
            // SAFETY: lanes below `k` read the `k` boards stored from `base`; the rest are masked.
            let (l, d, r) = unsafe {
                (
                    _mm512_maskz_loadu_epi32(lanes, buffers.at(row, 0).add(base) as *const i32),
                    _mm512_maskz_loadu_epi32(lanes, buffers.at(row, 1).add(base) as *const i32),
                    _mm512_maskz_loadu_epi32(lanes, buffers.at(row, 2).add(base) as *const i32),
                )
            };
            let mut avail = self.candidates(row, lanes, l, d, r);
            let ties = _mm512_set1_epi32(self.rules.ties[row] as i32);
            let tie_one = _mm512_set1_epi32(1 << TIE_SHIFT);
            let closes = row + 3 == self.rules.n;
            let child_allowed =
                _mm512_set1_epi32(self.rules.allowed[(row + 1).min(self.rules.n - 1)] as i32);
            loop {
                let placing = _mm512_test_epi32_mask(avail, avail);
                if placing == 0 {
                    break;
                }
                let bit = _mm512_and_si512(avail, _mm512_sub_epi32(_mm512_setzero_si512(), avail));
                avail = _mm512_xor_si512(avail, bit);
                let cl = _mm512_slli_epi32::<1>(_mm512_or_si512(l, bit));
                let mut cd = _mm512_or_si512(d, bit);
                if TIES {
                    let tied = _mm512_test_epi32_mask(bit, ties);
                    cd = _mm512_mask_add_epi32(cd, tied, cd, tie_one);
                }
                let cr = _mm512_srli_epi32::<1>(_mm512_or_si512(r, bit));
                if NODES {
                    self.tally.nodes += u64::from(placing.count_ones());
                }
                if closes {
                    self.close(placing, cl, cd, cr);
                    continue;
                }
                let open = _mm512_andnot_si512(
                    _mm512_or_si512(_mm512_or_si512(cl, cd), cr),
                    child_allowed,
                );
                let keep = placing & _mm512_test_epi32_mask(open, open);
                let at = buffers.len[row + 1];
                // SAFETY: `at` + 16 is within the buffer (see `CAPACITY`).
                unsafe {
                    _mm512_storeu_si512(
                        buffers.at(row + 1, 0).add(at) as *mut __m512i,
                        _mm512_maskz_compress_epi32(keep, cl),
                    );
                    _mm512_storeu_si512(
                        buffers.at(row + 1, 1).add(at) as *mut __m512i,
                        _mm512_maskz_compress_epi32(keep, cd),
                    );
                    _mm512_storeu_si512(
                        buffers.at(row + 1, 2).add(at) as *mut __m512i,
                        _mm512_maskz_compress_epi32(keep, cr),
                    );
                }
                buffers.len[row + 1] = at + keep.count_ones() as usize;
            }
        }

        /// Scores the boards in `lanes` entering the second-to-last row. Two columns are left;
        /// each of the two rows may take either, the last the other one if the diagonals allow.
        #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
        fn close(&mut self, lanes: u16, l: __m512i, d: __m512i, r: __m512i) {
            let n = self.rules.n;
            let full = _mm512_set1_epi32(((1u64 << n) - 1) as i32);
            let open = _mm512_andnot_si512(d, full);
            let first = _mm512_and_si512(open, _mm512_sub_epi32(_mm512_setzero_si512(), open));
            let second = _mm512_xor_si512(open, first);
            let candidates = self.candidates(n - 2, lanes, l, d, r);
            let last_allowed = _mm512_set1_epi32(self.rules.allowed[n - 1] as i32);
            for (mine, other) in [(first, second), (second, first)] {
                let placed = _mm512_and_si512(candidates, mine);
                let placing = _mm512_test_epi32_mask(placed, placed);
                let attacked = _mm512_or_si512(
                    _mm512_slli_epi32::<1>(_mm512_or_si512(l, mine)),
                    _mm512_srli_epi32::<1>(_mm512_or_si512(r, mine)),
                );
                let last = _mm512_andnot_si512(attacked, other);
                let complete = placing & _mm512_test_epi32_mask(last, last_allowed);
                if NODES {
                    // As the scalar kernel counts: the last queen is placed, then the rules
                    // decide whether its column counts.
                    let placed_last = placing & _mm512_test_epi32_mask(last, last);
                    self.tally.nodes += u64::from(placing.count_ones() + placed_last.count_ones());
                }
                let one = _mm512_set1_epi32(1);
                let weight = if TIES {
                    let mut ties = _mm512_srli_epi32::<TIE_SHIFT>(d);
                    let mine_ties = _mm512_set1_epi32(self.rules.ties[n - 2] as i32);
                    let other_ties = _mm512_set1_epi32(self.rules.ties[n - 1] as i32);
                    ties = _mm512_mask_add_epi32(
                        ties,
                        _mm512_test_epi32_mask(mine, mine_ties),
                        ties,
                        one,
                    );
                    ties = _mm512_mask_add_epi32(
                        ties,
                        _mm512_test_epi32_mask(other, other_ties),
                        ties,
                        one,
                    );
                    _mm512_sllv_epi32(one, _mm512_slli_epi32::<3>(ties))
                } else {
                    one
                };
                self.pending = _mm512_mask_add_epi32(self.pending, complete, self.pending, weight);
            }
            self.pending_closes += 1;
            if self.pending_closes == CLOSES_PER_FLUSH {
                self.flush();
            }
        }

        /// Moves the pending per-lane counts into the tally.
        #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
        fn flush(&mut self) {
            if TIES {
                let byte = _mm512_set1_epi32(0xff);
                let mut shifted = self.pending;
                for leaves in &mut self.tally.leaves {
                    let sum = _mm512_reduce_add_epi32(_mm512_and_si512(shifted, byte));
                    *leaves += u64::from(sum as u32);
                    shifted = _mm512_srli_epi32::<8>(shifted);
                }
            } else {
                self.tally.leaves[0] += u64::from(_mm512_reduce_add_epi32(self.pending) as u32);
            }
            self.pending = _mm512_setzero_si512();
            self.pending_closes = 0;
        }
    }
}
