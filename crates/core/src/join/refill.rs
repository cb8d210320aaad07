//! Lists the walk refills in place, written without a branch per candidate.
//!
//! A fill writes every candidate and keeps only the good ones, so that its loop has no
//! unpredictable branch; the room is left uninitialised, since zeroing a bound that is
//! many times the list it holds cost a fifth of the join's time at N = 20. The `unsafe`
//! steps, the vector stores into the room and taking the written items as the list, live
//! here beside the writer that makes them sound, so that no fill can claim items it did not
//! write.

use std::mem::MaybeUninit;

use super::room::Room;

#[cfg(target_arch = "x86_64")]
use crate::simd::{Avx2, Avx512Popcnt};

/// A list refilled in place, its room kept from fill to fill.
#[derive(Clone, Debug, Default)]
pub(super) struct Refill<T: Copy> {
    items: Room<T>,
}

/// What a fill writes through: room for a bounded number of candidates and the number
/// kept so far. Only [`Writer::push`] and the vector pushes advance that number, and only
/// over items they have just written, so every kept item is initialised. A fill takes it
/// by value and hands it back, so that it lives in registers: behind a reference, each
/// store through the room might have changed the count, which the loop would then read
/// again from memory.
pub(super) struct Writer<'a, T> {
    room: &'a mut [MaybeUninit<T>],
    kept: usize,
}

impl<T> Writer<'_, T> {
    /// Writes `item` after the kept ones, and keeps it if `keep`; an item not kept is
    /// overwritten by the next. Writing past the room the refill promised panics.
    #[inline(always)]
    pub(super) fn push(&mut self, item: T, keep: bool) {
        self.room[self.kept] = MaybeUninit::new(item);
        self.kept += usize::from(keep);
    }

    /// The items kept so far.
    pub(super) fn kept(&self) -> usize {
        self.kept
    }
}

#[cfg(target_arch = "x86_64")]
impl Writer<'_, u64> {
    /// Writes the lanes of `items` that `keep` marks after the kept items, in order, and
    /// keeps them: packed into the vector's low lanes and stored together. Writing past
    /// the room the refill promised panics.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn push_lanes_avx512(
        &mut self,
        _: Avx512Popcnt,
        items: std::arch::x86_64::__m512i,
        keep: u8,
    ) {
        use std::arch::x86_64::*;
        let count = keep.count_ones() as usize;
        let room = &mut self.room[self.kept..self.kept + count];
        let packed = _mm512_maskz_compress_epi64(keep, items);
        let written = ((1u16 << count) - 1) as __mmask8;
        // SAFETY: the store writes the `count` lanes `written` marks, which `room` holds.
        unsafe { _mm512_mask_storeu_epi64(room.as_mut_ptr().cast(), written, packed) };
        self.kept += count;
    }

    /// Writes the lanes of `items` whose bits are set in the low four bits of `keep` after
    /// the kept items, in order, and keeps them, as [`Writer::push_lanes_avx512`] does:
    /// AVX2 has no packing instruction, so a permutation for each of the 16 masks packs
    /// them.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn push_lanes_avx2(
        &mut self,
        _: Avx2,
        items: std::arch::x86_64::__m256i,
        keep: u32,
    ) {
        use std::arch::x86_64::*;
        /// For each mask of four lanes, the 32-bit words that move its lanes to the lowest.
        static PACK: [[i32; 8]; 16] = {
            let mut pack = [[0; 8]; 16];
            let mut keep = 0;
            while keep < 16 {
                let (mut lane, mut to) = (0, 0);
                while lane < 4 {
                    if keep & 1 << lane != 0 {
                        pack[keep][2 * to] = 2 * lane;
                        pack[keep][2 * to + 1] = 2 * lane + 1;
                        to += 1;
                    }
                    lane += 1;
                }
                keep += 1;
            }
            pack
        };
        // Four lanes: a bit above them would keep an item no lane wrote.
        let keep = keep as usize & 0b1111;
        let count = keep.count_ones() as usize;
        // SAFETY: each entry of `PACK` is 32 bytes, one whole vector; the load needs no
        // alignment.
        let order = unsafe { _mm256_loadu_si256(PACK[keep].as_ptr().cast()) };
        let packed = _mm256_permutevar8x32_epi32(items, order);
        let kept = self.kept;
        if self.room.len() - kept >= 4 {
            // SAFETY: the room holds four items from `kept`; those past the `count` kept
            // are overwritten by the next push or left out of the list.
            unsafe { _mm256_storeu_si256(self.room[kept..kept + 4].as_mut_ptr().cast(), packed) };
        } else {
            let mut lanes = [0u64; 4];
            // SAFETY: `lanes` is 32 bytes, one whole vector; the store needs no alignment.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), packed) };
            for (slot, &item) in self.room[kept..kept + count].iter_mut().zip(&lanes) {
                *slot = MaybeUninit::new(item);
            }
        }
        self.kept += count;
    }
}

impl<T: Copy> Refill<T> {
    pub(super) fn of(items: &[T]) -> Refill<T> {
        Refill { items: Room::from_slice(items) }
    }

    pub(super) fn as_slice(&self) -> &[T] {
        &self.items
    }

    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// The bytes of room a refill of at most `bound` items leaves: the room grows at
    /// least twofold, so that slowly growing fills do not move the list every time, but
    /// not past `most` items unless `bound` needs more.
    pub(super) fn room_after(&self, bound: usize, most: usize) -> usize {
        let capacity = self.items.capacity();
        let items = if bound <= capacity { capacity } else { bound.max(most.min(2 * capacity)) };
        items * size_of::<T>()
    }

    /// Empties the list and lets `fill` write at most `bound` candidates through a
    /// [`Writer`], in room for at most `most` items unless `bound` needs more; the list
    /// then holds the candidates kept in the writer `fill` returns.
    pub(super) fn refill(
        &mut self,
        bound: usize,
        most: usize,
        fill: impl FnOnce(Writer<'_, T>) -> Writer<'_, T>,
    ) {
        self.items.empty_with_room(self.room_after(bound, most) / size_of::<T>());
        let writer = Writer { room: &mut self.items.spare_capacity_mut()[..bound], kept: 0 };
        let kept = fill(writer).kept;
        // SAFETY: the writer advanced `kept` only over items it had written, from the start
        // of the spare room of the emptied list, and within its capacity.
        unsafe { self.items.set_len(kept) };
    }

    pub(super) fn held_bytes(&self) -> usize {
        self.items.capacity() * size_of::<T>()
    }

    pub(super) fn release(&mut self) {
        self.items.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refill_holds_exactly_the_items_kept() {
        let mut list = Refill::of(&[9u64; 3]);
        list.refill(10, usize::MAX, |mut to| {
            for item in 0..10 {
                to.push(item, item % 3 == 0);
            }
            to
        });
        assert_eq!(list.as_slice(), [0, 3, 6, 9]);
        list.refill(2, usize::MAX, |mut to| {
            to.push(7, false);
            to
        });
        assert_eq!(list.as_slice(), [] as [u64; 0]);
    }

    /// Every mask of `lanes` lanes holding 10, 11, ..., pushed after a few items into room
    /// for just the items it keeps, so that the pushes take the path near the end of the
    /// room.
    #[cfg(target_arch = "x86_64")]
    fn each_mask_keeps_its_lanes(push: impl Fn(&mut Writer<'_, u64>, u32), lanes: u32) {
        for keep in 0..1u32 << lanes {
            let marked = (0..u64::from(lanes)).filter(|&lane| keep >> lane & 1 == 1);
            let marked: Vec<u64> = marked.map(|lane| 10 + lane).collect();
            for before in [0u64, 1, 3] {
                let mut list = Refill::<u64>::default();
                list.refill(before as usize + marked.len(), usize::MAX, |mut to| {
                    for item in 0..before {
                        to.push(item, true);
                    }
                    push(&mut to, keep);
                    to
                });
                let kept: Vec<u64> = (0..before).chain(marked.iter().copied()).collect();
                assert_eq!(list.as_slice(), kept, "mask {keep:b} after {before} items");
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_vector_pushes_keep_exactly_the_lanes_marked() {
        use std::arch::x86_64::*;
        if let Some(avx2) = Avx2::new() {
            // SAFETY: `avx2` proves that the processor has AVX2.
            let push = |to: &mut Writer<'_, u64>, keep| unsafe {
                to.push_lanes_avx2(avx2, _mm256_setr_epi64x(10, 11, 12, 13), keep);
            };
            each_mask_keeps_its_lanes(push, 4);
        } else {
            eprintln!("skipped: this processor has no AVX2");
        }
        if let Some(avx512) = Avx512Popcnt::new() {
            // SAFETY: `avx512` proves that the processor has AVX-512.
            let push = |to: &mut Writer<'_, u64>, keep: u32| unsafe {
                let items = _mm512_setr_epi64(10, 11, 12, 13, 14, 15, 16, 17);
                to.push_lanes_avx512(avx512, items, keep as u8);
            };
            each_mask_keeps_its_lanes(push, 8);
        } else {
            eprintln!("skipped: this processor has no AVX-512 with VPOPCNTDQ");
        }
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_fill_cannot_write_past_its_bound() {
        let mut list = Refill::<u64>::default();
        list.refill(1, usize::MAX, |mut to| {
            to.push(1, true);
            to.push(2, true);
            to
        });
    }
}
