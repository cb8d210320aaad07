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
//!
//! This file is what the rest of the engine sees: [`LaneKernel`], [`fit`], and the
//! `unsafe` call that enters a search compiled for an instruction set. The search itself is
//! written once, for any register, in `search.rs`, which names no instruction. Each
//! instruction set's register type and the entry point compiled for it are a file of their
//! own (`avx512.rs`, `avx2.rs`), so that one instruction set's `unsafe` code can be checked
//! without reading the other's or the search, and another would be one more file.

use super::rules::{LaneRules, SearchCount};
use crate::kernel::{Kernel, MAX_LANE_N};
use crate::simd::{Avx2, Avx512, Bmi};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod search;

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
    pub(super) fn count(self, rules: &LaneRules, prefix: &[u8], count_nodes: bool) -> SearchCount {
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
        return dispatch(self, rules, prefix.len(), (left, down, right), ties, count_nodes);
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lane kernel's token can be made off x86-64: {left} {down} {right}")
    }
}

/// Whether a lane kernel can count the completions of an `n`-board below a `depth`-row
/// prefix: at most [`MAX_LANE_N`] rows and three open rows.
pub(super) fn fit(n: usize, depth: usize) -> bool {
    n <= MAX_LANE_N && depth + 3 <= n
}

/// Enters the search compiled for `kernel`'s instruction set. Whether the rules have ties
/// and whether nodes are counted are settled here, once per task, as const generics, so
/// that the inner loop does not test them.
#[cfg(target_arch = "x86_64")]
fn dispatch(
    kernel: LaneKernel,
    rules: &LaneRules,
    row: usize,
    (left, down, right): (u32, u32, u32),
    ties: u32,
    count_nodes: bool,
) -> SearchCount {
    use self::{avx2::search_avx2, avx512::search_avx512};

    let start = (left, down | (ties << search::TIE_SHIFT), right);
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
