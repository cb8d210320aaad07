//! Writing a row set's signatures: every north board joined with the tail boards on the
//! columns it leaves free, kept where their diagonals miss each other.
//!
//! Most row sets' tail groups hold a few to a few dozen boards, and each pair of a north
//! and a tail board is one OR, one AND and a test; written one pair at a time, this took a
//! quarter of the join's time at N = 18. The vector loops test a vector's worth of a
//! group against one north board at once and keep the good lanes, packed, in one store,
//! on the instruction set the pair count runs on.

use super::pair_count::PairKernel;
use super::refill::Writer;
use super::tail::{TailBoard, TailGroup};
#[cfg(target_arch = "x86_64")]
use crate::simd::{Avx2, Avx512Popcnt};

/// Writes the signature of every complete half-board that a north board of `boards` and a
/// tail board of `group` (the tail boards on its free columns) make, where their diagonals
/// do not meet, in the widest vectors `kernel` has.
pub(super) fn write<'w>(
    kernel: PairKernel,
    boards: &[TailBoard],
    group: TailGroup<'_>,
    to: Writer<'w, u64>,
) -> Writer<'w, u64> {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx512` proves that the processor has every feature `write_avx512` is
        // compiled for.
        PairKernel::Avx512(avx512) => unsafe { write_avx512(avx512, boards, group, to) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx2` proves that the processor has every feature `write_avx2` is
        // compiled for.
        PairKernel::Avx2(avx2) => unsafe { write_avx2(avx2, boards, group, to) },
        _ => write_scalar(boards, group, to),
    }
}

/// How many signatures [`write`] writes for `boards` and `group`, without writing them, in
/// the widest vectors `kernel` has: a row set over the budget is cut into pieces by it.
pub(super) fn count(kernel: PairKernel, boards: &[TailBoard], group: TailGroup<'_>) -> usize {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx512` proves that the processor has every feature `count_avx512` is
        // compiled for.
        PairKernel::Avx512(avx512) => unsafe { count_avx512(avx512, boards, group) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx2` proves that the processor has every feature `count_avx2` is
        // compiled for.
        PairKernel::Avx2(avx2) => unsafe { count_avx2(avx2, boards, group) },
        _ => count_scalar(boards, group),
    }
}

fn count_scalar(boards: &[TailBoard], group: TailGroup<'_>) -> usize {
    let clear = |board: &TailBoard| group.meets.iter().filter(|&&m| board.meets & m == 0).count();
    boards.iter().map(clear).sum()
}

/// Eight tail boards at a time, as [`write_avx512`] tests them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
fn count_avx512(_: Avx512Popcnt, boards: &[TailBoard], group: TailGroup<'_>) -> usize {
    use std::arch::x86_64::*;
    let mut count = 0;
    for start in (0..group.len()).step_by(8) {
        let lanes = (group.len() - start).min(8);
        let valid = ((1u16 << lanes) - 1) as __mmask8;
        // SAFETY: the lanes `valid` loads are boards `start..start + lanes` of the group;
        // the others are neither read nor able to fault.
        let meets =
            unsafe { _mm512_maskz_loadu_epi64(valid, group.meets.as_ptr().add(start).cast()) };
        for board in boards {
            let clear =
                _mm512_mask_testn_epi64_mask(valid, meets, _mm512_set1_epi64(board.meets as i64));
            count += clear.count_ones() as usize;
        }
    }
    count
}

/// Four tail boards at a time, as [`write_avx2`] tests them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn count_avx2(_: Avx2, boards: &[TailBoard], group: TailGroup<'_>) -> usize {
    use std::arch::x86_64::*;
    let mut count = 0;
    for start in (0..group.len()).step_by(4) {
        let lanes = (group.len() - start).min(4);
        let valid = (1 << lanes) - 1;
        let loaded =
            _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        // SAFETY: the lanes `loaded` marks are boards `start..start + lanes` of the group;
        // the others are neither read nor able to fault.
        let meets =
            unsafe { _mm256_maskload_epi64(group.meets.as_ptr().add(start).cast(), loaded) };
        for board in boards {
            let clash = _mm256_and_si256(meets, _mm256_set1_epi64x(board.meets as i64));
            let clear = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
            let clear = _mm256_movemask_pd(_mm256_castsi256_pd(clear)) as u32 & valid;
            count += clear.count_ones() as usize;
        }
    }
    count
}

/// One pair at a time; like the walk's other fills, it writes every pair it tests and
/// keeps the good ones, so that the loop has no unpredictable branch.
fn write_scalar<'w>(
    boards: &[TailBoard],
    group: TailGroup<'_>,
    mut to: Writer<'w, u64>,
) -> Writer<'w, u64> {
    for board in boards {
        for (&meets, &signature) in group.meets.iter().zip(group.signatures) {
            to.push(board.signature | signature, board.meets & meets == 0);
        }
    }
    to
}

/// Eight tail boards at a time, loaded once for all of `boards`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
fn write_avx512<'w>(
    avx512: Avx512Popcnt,
    boards: &[TailBoard],
    group: TailGroup<'_>,
    mut to: Writer<'w, u64>,
) -> Writer<'w, u64> {
    use std::arch::x86_64::*;
    for start in (0..group.len()).step_by(8) {
        let lanes = (group.len() - start).min(8);
        let valid = ((1u16 << lanes) - 1) as __mmask8;
        // SAFETY: the lanes `valid` loads are boards `start..start + lanes` of the group;
        // the others are neither read nor able to fault.
        let (meets, signatures) = unsafe {
            (
                _mm512_maskz_loadu_epi64(valid, group.meets.as_ptr().add(start).cast()),
                _mm512_maskz_loadu_epi64(valid, group.signatures.as_ptr().add(start).cast()),
            )
        };
        for board in boards {
            let clear =
                _mm512_mask_testn_epi64_mask(valid, meets, _mm512_set1_epi64(board.meets as i64));
            let complete = _mm512_or_si512(signatures, _mm512_set1_epi64(board.signature as i64));
            to.push_lanes_avx512(avx512, complete, clear);
        }
    }
    to
}

/// Four tail boards at a time, loaded once for all of `boards`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn write_avx2<'w>(
    avx2: Avx2,
    boards: &[TailBoard],
    group: TailGroup<'_>,
    mut to: Writer<'w, u64>,
) -> Writer<'w, u64> {
    use std::arch::x86_64::*;
    for start in (0..group.len()).step_by(4) {
        let lanes = (group.len() - start).min(4);
        let valid = (1 << lanes) - 1;
        let loaded =
            _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        // SAFETY: the lanes `loaded` marks are boards `start..start + lanes` of the group;
        // the others are neither read nor able to fault.
        let (meets, signatures) = unsafe {
            (
                _mm256_maskload_epi64(group.meets.as_ptr().add(start).cast(), loaded),
                _mm256_maskload_epi64(group.signatures.as_ptr().add(start).cast(), loaded),
            )
        };
        for board in boards {
            let clash = _mm256_and_si256(meets, _mm256_set1_epi64x(board.meets as i64));
            let clear = _mm256_cmpeq_epi64(clash, _mm256_setzero_si256());
            let clear = _mm256_movemask_pd(_mm256_castsi256_pd(clear)) as u32 & valid;
            let complete = _mm256_or_si256(signatures, _mm256_set1_epi64x(board.signature as i64));
            to.push_lanes_avx2(avx2, complete, clear);
        }
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kernel;
    use crate::join::refill::Refill;

    /// Writing agrees with joining one pair at a time (in order where a group fits one
    /// vector), and counting with writing, on every kernel this processor has: for groups
    /// of every length around the vectors' widths, runs of one to forty north boards, and
    /// boards whose meeting bits clash with some of the group's.
    #[test]
    fn writing_the_signatures_agrees_with_joining_each_pair_and_with_counting() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let kernels = [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar];
        for kernel in kernels.into_iter().filter_map(PairKernel::new) {
            for group_len in [0, 1, 2, 3, 4, 5, 8, 9, 17, 31] {
                for boards_len in [1, 2, 3, 5, 7, 40] {
                    let meets: Vec<u64> = (0..group_len).map(|_| next() & next() & 0xff).collect();
                    let tail: Vec<u64> = (0..group_len).map(|_| next()).collect();
                    let group = TailGroup { meets: &meets, signatures: &tail };
                    let boards: Vec<TailBoard> = (0..boards_len)
                        .map(|rank| TailBoard::north(next() & next() & 0xff, next(), rank))
                        .collect();
                    let counted = count(kernel, &boards, group);
                    let mut written = Refill::<u64>::default();
                    written.refill(counted + 1, usize::MAX, |to| write(kernel, &boards, group, to));
                    let expected: Vec<u64> = boards
                        .iter()
                        .flat_map(|board| {
                            let clear = meets.iter().map(move |&m| board.meets & m == 0);
                            let joined = tail.iter().map(move |&t| board.signature | t);
                            joined.zip(clear).filter(|&(_, clear)| clear).map(|(s, _)| s)
                        })
                        .collect();
                    let case = format!("{kernel:?}, group of {group_len}, {boards_len} boards");
                    // A group of more than a vector's boards (four under AVX2) is written a
                    // vector's worth of them at a time for all the north boards.
                    let (mut written, mut expected) = (written.as_slice().to_vec(), expected);
                    if group_len > 4 {
                        written.sort_unstable();
                        expected.sort_unstable();
                    }
                    assert_eq!(written, expected, "{case}");
                    assert_eq!(counted, expected.len(), "{case}");
                }
            }
        }
    }
}
