//! The bucket sort: both lists rewritten through a permutation that moves the key's bits
//! to the top, and sorted by key in two passes, so that each bucket is one run.
//!
//! The permutation is one `pext` per part where the processor runs it in hardware, else
//! a table lookup per byte; the sort interleaves runs of items so that writes to one
//! bucket do not chain on each other.

use crate::simd::FastPext;

/// The runs of items that [`Permutation::sort_by`] sorts in turns.
const SORT_STREAMS: usize = 4;

/// The permutation of the bits of a `u64` that moves a key's bits to the top and the other
/// bits below them, each in their order: one `pext` per part where the processor runs it
/// in hardware, else a table lookup per byte.
#[derive(Default)]
pub(super) struct Permutation {
    key: u64,
    rest: u64,
    pub(super) rest_bits: u32,
    pext: Option<FastPext>,
    tables: Vec<[u64; 256]>,
}

impl Permutation {
    /// The permutation of the `bits` bits that moves the bits of `key` to the top, through
    /// `pext` if given.
    pub(super) fn build(&mut self, bits: u32, key: u64, pext: Option<FastPext>) {
        let every = u64::MAX >> (64 - bits);
        (self.key, self.rest, self.pext) = (key, every & !key, pext);
        self.rest_bits = self.rest.count_ones();
        if pext.is_some() {
            return;
        }
        let mut target = [0u32; 64];
        let (mut next_rest, mut next_key) = (0, self.rest_bits);
        for (bit, target) in target.iter_mut().enumerate().take(bits as usize) {
            let next = if key >> bit & 1 == 1 { &mut next_key } else { &mut next_rest };
            (*target, *next) = (*next, *next + 1);
        }
        let bytes = bits.div_ceil(8) as usize;
        self.tables.resize(bytes, [0; 256]);
        for (byte, table) in self.tables.iter_mut().enumerate() {
            for value in 1..256usize {
                let bit = byte * 8 + value.trailing_zeros() as usize;
                let moved = if bit < bits as usize { 1u64 << target[bit] } else { 0 };
                table[value] = table[value & (value - 1)] | moved;
            }
        }
    }

    /// Rewrites `items` through the permutation and sorts them by key, with the key bits
    /// cleared, into `spare`, which it returns; `starts[key]..starts[key + 1]` is then the
    /// bucket of `key`, the bits of `self.key` gathered, in order, at the bottom.
    pub(super) fn sort<'s>(
        &self,
        items: &mut [u64],
        spare: &'s mut Vec<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pext` proves that the processor has BMI2.
            Some(pext) => unsafe { sort_through_pext(pext, self, items, spare, starts, next) },
            _ => self.sort_by(|item| self.through_tables(item), items, spare, starts, next),
        }
    }

    fn through_tables(&self, bitset: u64) -> u64 {
        let mut moved = 0;
        for (byte, table) in self.tables.iter().enumerate() {
            moved |= table[(bitset >> (8 * byte)) as u8 as usize];
        }
        moved
    }

    /// [`Permutation::sort`] with the permutation `permute`. Both passes go through the items
    /// in order: sorting in place chained every move on the one before. The items are cut
    /// into [`SORT_STREAMS`] runs, each with its own counts and write positions, and the
    /// runs are taken in turns: neighbouring items often share a key (a third of them at
    /// N = 18), and one write position per key chained every write to a bucket on the one
    /// before it.
    #[inline(always)]
    fn sort_by<'s>(
        &self,
        permute: impl Fn(u64) -> u64,
        items: &mut [u64],
        spare: &'s mut Vec<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        let keys = 1usize << self.key.count_ones();
        let rest_bits = self.rest_bits;
        let run = items.len() / SORT_STREAMS;
        // The items past the whole runs join the last one.
        let last = (SORT_STREAMS - 1) * keys;
        next.clear();
        next.resize(SORT_STREAMS * keys, 0);
        for at in 0..run {
            for stream in 0..SORT_STREAMS {
                let item = &mut items[stream * run + at];
                *item = permute(*item);
                next[stream * keys + (*item >> rest_bits) as usize] += 1;
            }
        }
        for item in &mut items[SORT_STREAMS * run..] {
            *item = permute(*item);
            next[last + (*item >> rest_bits) as usize] += 1;
        }
        starts.clear();
        let mut written = 0;
        for key in 0..keys {
            starts.push(written);
            for stream in 0..SORT_STREAMS {
                let count = next[stream * keys + key];
                next[stream * keys + key] = written;
                written += count;
            }
        }
        starts.push(written);
        if spare.len() < items.len() {
            spare.reserve_exact(items.len() - spare.len());
            spare.resize(items.len(), 0);
        }
        let mask = (1u64 << rest_bits) - 1;
        let mut write = |slot: usize, item: u64| {
            let position = &mut next[slot + (item >> rest_bits) as usize];
            spare[*position] = item & mask;
            *position += 1;
        };
        for at in 0..run {
            for stream in 0..SORT_STREAMS {
                write(stream * keys, items[stream * run + at]);
            }
        }
        for &item in &items[SORT_STREAMS * run..] {
            write(last, item);
        }
        &spare[..items.len()]
    }

    /// The bytes of the lookup tables, for a caller that counts what it holds.
    #[cfg(test)]
    pub(super) fn table_bytes(&self) -> usize {
        self.tables.capacity() * size_of::<[u64; 256]>()
    }

    #[cfg(test)]
    fn apply(&self, bitset: u64) -> u64 {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pext` proves that the processor has BMI2.
            Some(pext) => unsafe { through_pext(pext, self, bitset) },
            _ => self.through_tables(bitset),
        }
    }
}

/// [`Permutation`] through `pext`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn through_pext(_: FastPext, permutation: &Permutation, bitset: u64) -> u64 {
    use std::arch::x86_64::_pext_u64;
    let Permutation { key, rest, rest_bits, .. } = *permutation;
    _pext_u64(bitset, rest) | _pext_u64(bitset, key) << rest_bits
}

/// [`Permutation::sort`] compiled with BMI2, so that its permutation is two `pext`s inlined
/// into the loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn sort_through_pext<'s>(
    pext: FastPext,
    permutation: &Permutation,
    items: &mut [u64],
    spare: &'s mut Vec<u64>,
    starts: &mut Vec<usize>,
    next: &mut Vec<usize>,
) -> &'s [u64] {
    let permute = |item| through_pext(pext, permutation, item);
    permutation.sort_by(permute, items, spare, starts, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::pair_count::tests::bitsets;

    #[test]
    fn the_bucket_sort_keeps_every_item_and_groups_them_by_key() {
        // The bits of `bits` within `mask`, packed from bit 0 up in their order.
        let gather = |bits: u64, mask: u64| {
            let mut packed = 0;
            for (place, bit) in (0..64).filter(|&bit| mask >> bit & 1 == 1).enumerate() {
                packed |= (bits >> bit & 1) << place;
            }
            packed
        };
        for pext in std::iter::once(None).chain(FastPext::new().map(Some)) {
            let mut permutation = Permutation::default();
            permutation.build(20, 1 << 3 | 1 << 17 | 1 << 0, pext);
            assert_eq!(permutation.apply(1 << 0), 1 << 17, "{pext:?}");
            assert_eq!(permutation.apply(1 << 3), 1 << 18, "{pext:?}");
            assert_eq!(permutation.apply(1 << 17), 1 << 19, "{pext:?}");
            assert_eq!(permutation.apply(1 << 1), 1 << 0, "{pext:?}");
            assert_eq!(permutation.apply(1 << 19), 1 << 16, "{pext:?}");
            // Lengths that fill the sort's runs, leave items past them, or fill none.
            let lengths = [1000, 1003, SORT_STREAMS - 1, 0];
            let keys = [0b1001_0010_0100u64, 0b1111_0101_1111];
            for (len, key) in lengths.into_iter().flat_map(|len| keys.map(|key| (len, key))) {
                let original = bitsets(len, 12, 300, 9);
                let key_bits = key.count_ones();
                let (mut starts, mut next) = (Vec::new(), Vec::new());
                let mut items = original.clone();
                let mut spare = vec![u64::MAX; 1200];
                permutation.build(12, key, pext);
                let sorted =
                    permutation.sort(&mut items, &mut spare, &mut starts, &mut next).to_vec();
                assert_eq!((sorted.len(), starts[1 << key_bits]), (len, len));
                for bucket_key in 0..1u64 << key_bits {
                    let mut bucket: Vec<u64> = original
                        .iter()
                        .filter(|&&x| gather(x, key) == bucket_key)
                        .map(|&x| gather(x, !key))
                        .collect();
                    let bucket_key = bucket_key as usize;
                    let mut sorted = sorted[starts[bucket_key]..starts[bucket_key + 1]].to_vec();
                    bucket.sort_unstable();
                    sorted.sort_unstable();
                    assert_eq!(bucket, sorted, "{pext:?}, {len} items, key {key:b}, {bucket_key}");
                }
            }
        }
    }
}
