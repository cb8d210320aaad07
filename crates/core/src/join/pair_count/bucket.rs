//! The bucket sort: both lists copied through a permutation that moves the key's bits
//! to the top, the most crowded highest, and drops the bits no pair can share, and sorted
//! by key in two passes, so that each bucket is one run and each node of the bucket tree
//! a run of buckets.
//!
//! The permutation is one `pext` per part where the processor runs it in hardware (the
//! key's bits then reordered by one lookup), else a table lookup per byte. The sort deals
//! its items to runs in turn, so that writes to one bucket do not chain on each other, in
//! the way a trial finds fastest on the processor.

use std::hint::black_box;
use std::ops::{BitOr, Shl};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nqueens_random::SplitMix64;

use super::key::{Key, MOST_KEY_BITS};
use crate::join::room::Room;
use crate::simd::FastPext;

/// The most runs that [`Permutation::sort_by`] deals its items to, which the budget counts
/// the sort's bounds by.
pub(super) const MOST_SORT_STREAMS: usize = 4;

/// The most key bits for which the sort deals its items to two runs where it works out
/// each key as it writes the item ([`SortRuns::AsWritten`]): two runs' counts and write
/// positions for 256 buckets (8 KiB) stay in the first-level cache. On a Zen 4 two runs
/// sorted lists of 7 and 8 key bits in 0.90 to 0.93 of one run's time, and lists of 12
/// bits in 1.07 to 1.11 times it (docs/measurements/join.md).
const TWO_RUN_KEY_BITS: u32 = 8;

/// How the sort deals its items to runs on this processor. Neighbouring items often share
/// a key, and in one run each write to a bucket waits for the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SortRuns {
    /// Each item's key worked out as the item is written, in two runs for keys of at most
    /// [`TWO_RUN_KEY_BITS`] and one for longer keys: a Zen 4's choice.
    AsWritten,
    /// [`MOST_SORT_STREAMS`] runs, the keys of a block of items worked out before any of
    /// them is written ([`scatter`]): four runs took N = 18's count on a Zen 3 to 0.93 of
    /// its time, and N = 21's sorting on an Intel Xeon to 0.62 of one run's.
    KeysAhead,
}

/// How the sort deals its items to runs on this processor: whichever way sorted a list
/// like N = 21's faster in a trial when first asked ([`runs_by_trial`]). No model name
/// says which: a Zen 4 chooses the first, and the second was the faster on a Zen 3 and an
/// Intel Xeon when it was measured against one run (docs/measurements/join.md).
pub(super) fn sort_runs() -> SortRuns {
    static RUNS: OnceLock<SortRuns> = OnceLock::new();
    *RUNS.get_or_init(runs_by_trial)
}

/// The items of the trial's list, as many as N = 21's longer lists, whose 7 key bits the
/// trial's key has: with a quarter as many, the fastest sorts in one run and in four on a
/// Zen 4 were within 5% of each other, and a trial between them chose four runs 2 times
/// in 12. Two runs sort such a list there in about 0.8 of four runs' time.
const TRIAL_ITEMS: usize = 1 << 16;

/// The times each way sorts the trial's list, in turns; the fastest of each is compared.
const TRIAL_ROUNDS: usize = 15;

/// The way the sort deals its items to runs on this processor ([`sort_runs`]): whichever
/// sorts a list of [`TRIAL_ITEMS`] random signatures of 40 bits, a third of which share
/// the key of the one before (as at N = 18), faster in [`TRIAL_ROUNDS`] turns, about 5 ms
/// in all. Where the two are close it may choose either, and then either costs about as
/// much.
fn runs_by_trial() -> SortRuns {
    const LIVE_BITS: u64 = (1 << 40) - 1;
    let key = Key::of(&[21, 19, 23, 17, 25, 15, 27]);
    let key_mask = key.mask();
    let mut permutation = Permutation::default();
    permutation.build(LIVE_BITS, &key, FastPext::new());
    let mut stream = SplitMix64::new(1);
    let mut items = Vec::with_capacity(TRIAL_ITEMS);
    for at in 0..TRIAL_ITEMS {
        let random = stream.next_u64() & LIVE_BITS;
        let item = match items.last() {
            Some(&before) if at % 3 == 0 => random & !key_mask | before & key_mask,
            _ => random,
        };
        items.push(item);
    }
    let (mut spare, mut starts, mut next) = (Room::new(), Vec::new(), Vec::new());
    let mut fastest = [Duration::MAX; 2];
    // The first round only readies the room, whose pages the later rounds reuse.
    permutation.sort_in::<2>(&items, &mut spare, &mut starts, &mut next);
    for _ in 0..TRIAL_ROUNDS {
        let started = Instant::now();
        black_box(permutation.sort_in::<2>(&items, &mut spare, &mut starts, &mut next));
        fastest[0] = fastest[0].min(started.elapsed());
        let started = Instant::now();
        black_box(permutation.sort_in::<MOST_SORT_STREAMS>(
            &items,
            &mut spare,
            &mut starts,
            &mut next,
        ));
        fastest[1] = fastest[1].min(started.elapsed());
    }
    if fastest[0] < fastest[1] { SortRuns::AsWritten } else { SortRuns::KeysAhead }
}

/// The most key bits sorted in one pass. A scatter into more buckets than this, four runs
/// each, writes to more cache lines and pages at once than the caches hold, and a list
/// long enough to get more bits lies beyond the second-level cache: from 13 bits the sort
/// goes in two passes ([`Permutation::sort_by`]).
const ONE_PASS_KEY_BITS: u32 = 12;

/// The most key bits the first of two passes sorts by: 128 buckets, four runs each, keep
/// their write positions' lines and pages cached.
const FIRST_PASS_KEY_BITS: u32 = 7;

/// The most key bits whose index one table maps from the gathered bits: 65,536 `u16`s,
/// 128 KiB. Longer keys go through two tables of `u32`s ([`Permutation::split_index`]): one
/// such table for every gathered value of a 20-bit key would take 4 MiB, and splitting
/// every key made N = 20's count 1.05 times slower (two lookups where one small table
/// served; docs/measurements/join.md).
const ONE_TABLE_KEY_BITS: u32 = 16;

/// The gathered bits of a long key that the lower of its two index tables maps.
const SPLIT_INDEX_LOW_BITS: u32 = MOST_KEY_BITS.div_ceil(2) as u32;

/// The permutation of the bits of a `u64` that moves a key's bits to the top, the first
/// of the key highest, and the other live bits below them in their order, dropping the
/// rest: one `pext` per part where the processor runs it in hardware, else a table lookup
/// per byte.
#[derive(Default)]
pub(super) struct Permutation {
    key: u64,
    rest: u64,
    pub(super) key_bits: u32,
    pub(super) rest_bits: u32,
    pext: Option<FastPext>,
    /// For `pext`: the key's bits gathered in the order of their places, to the key's
    /// index, its first bit highest, for keys of at most [`ONE_TABLE_KEY_BITS`].
    key_index: Vec<u16>,
    /// For longer keys, the same in two tables whose indices are ORed: that of the lower
    /// [`SPLIT_INDEX_LOW_BITS`] gathered bits, and that of the others.
    split_index: [Vec<u32>; 2],
    /// Otherwise: per byte of the bitset, its bits moved to their places.
    tables: Vec<[u64; 256]>,
}

impl Permutation {
    /// The permutation that moves the bits of `key` to the top, the first highest, and
    /// keeps the other bits of `live` below them, through `pext` if given.
    pub(super) fn build(&mut self, live: u64, key: &Key, pext: Option<FastPext>) {
        (self.key, self.pext) = (key.mask(), pext);
        self.rest = live & !self.key;
        self.key_bits = self.key.count_ones();
        self.rest_bits = self.rest.count_ones();
        let mut target = [None; 64];
        for (place, bit) in (0..64).filter(|&bit| self.rest >> bit & 1 == 1).enumerate() {
            target[bit] = Some(place as u32);
        }
        for (order, &bit) in key.bits().iter().enumerate() {
            target[usize::from(bit)] = Some(self.rest_bits + self.key_bits - 1 - order as u32);
        }
        if pext.is_some() {
            // `pext` gathers the key's bits in the order of their places; bit `i` of what
            // it gathers goes to bit `index_bit[i]` of the key's index.
            let index_bit: Vec<u32> = (0..64)
                .filter(|&bit| self.key >> bit & 1 == 1)
                .filter_map(|bit| target[bit])
                .map(|place| place - self.rest_bits)
                .collect();
            if self.key_bits <= ONE_TABLE_KEY_BITS {
                fill_index(&mut self.key_index, &index_bit);
            } else {
                let (low, high) = index_bit.split_at(SPLIT_INDEX_LOW_BITS as usize);
                fill_index(&mut self.split_index[0], low);
                fill_index(&mut self.split_index[1], high);
            }
            return;
        }
        let bytes = (64 - live.leading_zeros()).div_ceil(8) as usize;
        self.tables.resize(bytes, [0; 256]);
        for (byte, table) in self.tables.iter_mut().enumerate() {
            for value in 1..256usize {
                let bit = byte * 8 + value.trailing_zeros() as usize;
                let moved = target[bit].map_or(0, |place| 1u64 << place);
                table[value] = table[value & (value - 1)] | moved;
            }
        }
    }

    /// Rewrites `items` through the permutation and sorts them by key into `spare`, which
    /// it returns; `starts[index]..starts[index + 1]` is then the bucket of the key's
    /// `index`, the bits above `rest_bits`, the key's first bit highest.
    pub(super) fn sort<'s>(
        &self,
        items: &[u64],
        spare: &'s mut Room<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        match sort_runs() {
            SortRuns::KeysAhead => self.sort_in::<MOST_SORT_STREAMS>(items, spare, starts, next),
            SortRuns::AsWritten if self.key_bits <= TWO_RUN_KEY_BITS => {
                self.sort_in::<2>(items, spare, starts, next)
            }
            SortRuns::AsWritten => self.sort_in::<1>(items, spare, starts, next),
        }
    }

    /// [`Permutation::sort`] in `STREAMS` runs, the keys worked out ahead if they are
    /// [`MOST_SORT_STREAMS`].
    fn sort_in<'s, const STREAMS: usize>(
        &self,
        items: &[u64],
        spare: &'s mut Room<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            Some(pext) => {
                let passes = ThroughPext { pext, permutation: self };
                self.sort_by::<STREAMS>(&passes, items, spare, starts, next)
            }
            _ => self.sort_by::<STREAMS>(&ThroughTables(self), items, spare, starts, next),
        }
    }

    fn through_tables(&self, bitset: u64) -> u64 {
        let mut moved = 0;
        for (byte, table) in self.tables.iter().enumerate() {
            moved |= table[(bitset >> (8 * byte)) as u8 as usize];
        }
        moved
    }

    /// [`Permutation::sort`], its keys worked out and its items permuted by `passes`.
    /// The first pass only reads the items, counting their keys, and the second writes each
    /// permuted to its place: the lists lie beyond the second-level cache, the sort's time
    /// is the bytes it moves, and permuting in place in the first pass made N = 22's
    /// sorting a fifth dearer. Both passes go through the items in order: sorting in place
    /// chained every move on the one before. The items are dealt in turn to `STREAMS`
    /// runs, each with its own counts and write positions ([`in_turns`]): neighbouring
    /// items often share a key (a third of them at N = 18), and one write position per key
    /// chained every write to a bucket on the one before.
    ///
    /// Keys of more than [`ONE_PASS_KEY_BITS`] are written by their highest bits (at most
    /// [`FIRST_PASS_KEY_BITS`]) to the run of buckets that share them, and each such run,
    /// now small enough to be cached, is sorted by the key's other bits into room past the
    /// list and copied back ([`Permutation::sort_by_low_bits`]). At N = 26, where a list
    /// holds 12 to 25 million signatures and gets 16 bits, a scatter into 65,536 buckets
    /// took twice the time of the two passes (docs/measurements/join.md). The room past
    /// the list is the largest run of buckets: about a fiftieth of the list at N = 26.
    fn sort_by<'s, const STREAMS: usize>(
        &self,
        passes: &impl Passes<STREAMS>,
        items: &[u64],
        spare: &'s mut Room<u64>,
        starts: &mut Vec<usize>,
        next: &mut Vec<usize>,
    ) -> &'s [u64] {
        let keys = 1usize << self.key_bits;
        let high_bits = if self.key_bits > ONE_PASS_KEY_BITS {
            self.key_bits.div_ceil(2).min(FIRST_PASS_KEY_BITS)
        } else {
            self.key_bits
        };
        let low_bits = self.key_bits - high_bits;
        let (highs, lows) = (1usize << high_bits, 1usize << low_bits);
        next.clear();
        next.resize(STREAMS * (keys + highs), 0);
        let (counts, positions) = next.split_at_mut(STREAMS * keys);
        passes.count(items, counts, keys);
        starts.clear();
        // Exactly, as the budget counts it (`super::BOUND_BYTES_PER_SIGNATURE`).
        starts.reserve_exact(keys + 1);
        let mut written = 0;
        for key in 0..keys {
            starts.push(written);
            written += (0..STREAMS).map(|stream| counts[stream * keys + key]).sum::<usize>();
        }
        starts.push(written);
        let mut written = 0;
        for high in 0..highs {
            for stream in 0..STREAMS {
                positions[stream * highs + high] = written;
                written +=
                    counts[stream * keys + (high << low_bits)..][..lows].iter().sum::<usize>();
            }
        }
        let largest_run = if low_bits == 0 {
            0
        } else {
            (0..highs)
                .map(|high| starts[(high + 1) << low_bits] - starts[high << low_bits])
                .max()
                .unwrap_or(0)
        };
        if spare.len() < items.len() + largest_run {
            spare.fill(items.len() + largest_run, 0);
        }
        passes.scatter(items, spare, positions, low_bits);
        let (sorted, past) = spare.split_at_mut(items.len());
        if low_bits > 0 {
            self.sort_by_low_bits(low_bits, sorted, past, starts, &mut counts[..lows]);
        }
        sorted
    }

    /// The second of [`Permutation::sort_by`]'s passes: each run of buckets that share the
    /// key's highest bits, sorted by its `low_bits` other bits into `past` and copied back,
    /// with `low_next` for room.
    fn sort_by_low_bits(
        &self,
        low_bits: u32,
        sorted: &mut [u64],
        past: &mut [u64],
        starts: &[usize],
        low_next: &mut [usize],
    ) {
        let lows = 1usize << low_bits;
        for first_key in (0..starts.len() - 1).step_by(lows) {
            let bucket_run = starts[first_key]..starts[first_key + lows];
            for (low, position) in low_next.iter_mut().enumerate() {
                *position = starts[first_key + low] - bucket_run.start;
            }
            for &item in &sorted[bucket_run.clone()] {
                let position = &mut low_next[(item >> self.rest_bits) as usize & (lows - 1)];
                past[*position] = item;
                *position += 1;
            }
            sorted[bucket_run.clone()].copy_from_slice(&past[..bucket_run.len()]);
        }
    }

    /// The bytes of the lookup tables, for a caller that counts what it holds.
    #[cfg(test)]
    pub(super) fn table_bytes(&self) -> usize {
        self.tables.capacity() * size_of::<[u64; 256]>()
            + self.key_index.capacity() * size_of::<u16>()
            + self.split_index.iter().map(Vec::capacity).sum::<usize>() * size_of::<u32>()
    }

    #[cfg(test)]
    fn apply(&self, bitset: u64) -> u64 {
        match self.pext {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `pext` proves that the processor has BMI2.
            Some(pext) => unsafe {
                let index = if self.key_bits <= ONE_TABLE_KEY_BITS {
                    key_through_pext(pext, self, bitset)
                } else {
                    long_key_through_pext(pext, self, bitset)
                };
                through_pext(pext, self, bitset, index)
            },
            _ => self.through_tables(bitset),
        }
    }
}

/// Calls `visit(run, item)` for each of `items`, dealt to `STREAMS` runs in turn: item `i`
/// is run `i % STREAMS`'s.
#[inline(always)]
fn in_turns<const STREAMS: usize>(items: &[u64], mut visit: impl FnMut(usize, u64)) {
    let turns = items.chunks_exact(STREAMS);
    let rest = turns.remainder();
    for turn in turns {
        for (stream, &item) in turn.iter().enumerate() {
            visit(stream, item);
        }
    }
    for (stream, &item) in rest.iter().enumerate() {
        visit(stream, item);
    }
}

/// [`Passes::count`] with the key `key_of` of an item.
#[inline(always)]
fn count_keys<const STREAMS: usize>(
    items: &[u64],
    counts: &mut [usize],
    keys: usize,
    key_of: impl Fn(u64) -> usize,
) {
    in_turns::<STREAMS>(items, |stream, item| counts[stream * keys + key_of(item)] += 1);
}

/// [`Passes::scatter`] with the key `key_of` of an item and the permutation `permute` of
/// an item and its key.
#[inline(always)]
fn scatter_by_high_bits<const STREAMS: usize>(
    items: &[u64],
    spare: &mut [u64],
    positions: &mut [usize],
    low_bits: u32,
    key_of: impl Fn(u64) -> usize,
    permute: impl Fn(u64, usize) -> u64,
) {
    let highs = positions.len() / STREAMS;
    // One pass leaves the key whole, so that its loop shifts nothing.
    if low_bits == 0 {
        scatter::<STREAMS>(items, spare, positions, highs, key_of, permute, |key| key);
    } else {
        let high_of = |key| key >> low_bits;
        scatter::<STREAMS>(items, spare, positions, highs, key_of, permute, high_of);
    }
}

/// The turns of items whose keys the scatter of [`Permutation::sort_by`] works out before
/// it writes any of them, in [`MOST_SORT_STREAMS`] runs.
const KEYED_AHEAD: usize = 64;

/// The scatter of [`Permutation::sort_by`]: each of `items`, permuted, written to the
/// next place of its run's bucket `high_of(key)`, `highs` buckets a run, the items dealt to
/// `STREAMS` runs as [`in_turns`] deals them. In [`MOST_SORT_STREAMS`] runs the keys of
/// [`KEYED_AHEAD`] turns are worked out first ([`SortRuns::KeysAhead`]), so that a write
/// waits on the load of its key alone, not on the `pext` and the table lookup before it:
/// on a Zen 3 at N = 20 the sort took 0.91 of the time of keys worked out as each item
/// was written, and a shard's count on one thread 0.95; keys worked out ahead in the
/// counting pass too, or all kept from it, were slower (docs/measurements/join.md).
#[inline(always)]
fn scatter<const STREAMS: usize>(
    items: &[u64],
    spare: &mut [u64],
    positions: &mut [usize],
    highs: usize,
    key_of: impl Fn(u64) -> usize,
    permute: impl Fn(u64, usize) -> u64,
    high_of: impl Fn(usize) -> usize,
) {
    if STREAMS < MOST_SORT_STREAMS {
        in_turns::<STREAMS>(items, |stream, item| {
            let key = key_of(item);
            place(spare, &mut positions[stream * highs + high_of(key)], permute(item, key));
        });
        return;
    }
    let whole_turns = items.len() / STREAMS * STREAMS;
    let mut keys = [0u32; MOST_SORT_STREAMS * KEYED_AHEAD];
    for block in items[..whole_turns].chunks(STREAMS * KEYED_AHEAD) {
        for (key, &item) in keys.iter_mut().zip(block) {
            *key = key_of(item) as u32;
        }
        for (at, (&item, &key)) in block.iter().zip(&keys).enumerate() {
            let key = key as usize;
            let position = &mut positions[at % STREAMS * highs + high_of(key)];
            place(spare, position, permute(item, key));
        }
    }
    for (stream, &item) in items[whole_turns..].iter().enumerate() {
        let key = key_of(item);
        place(spare, &mut positions[stream * highs + high_of(key)], permute(item, key));
    }
}

/// Writes `item` to `spare` at `position`, and moves the position on.
#[inline(always)]
fn place(spare: &mut [u64], position: &mut usize, item: u64) {
    spare[*position] = item;
    *position += 1;
}

/// `table` made the index of every value of gathered bits whose bit `i` is bit
/// `index_bit[i]` of the index.
fn fill_index<T>(table: &mut Vec<T>, index_bit: &[u32])
where
    T: Copy + From<u8> + Shl<u32, Output = T> + BitOr<Output = T>,
{
    table.clear();
    table.push(T::from(0));
    for gathered in 1..1usize << index_bit.len() {
        let lowest = index_bit[gathered.trailing_zeros() as usize];
        table.push(table[gathered & (gathered - 1)] | T::from(1) << lowest);
    }
}

/// The key's index of `bitset`, through `pext`, for a key of at most
/// [`ONE_TABLE_KEY_BITS`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn key_through_pext(_: FastPext, permutation: &Permutation, bitset: u64) -> usize {
    use std::arch::x86_64::_pext_u64;
    usize::from(permutation.key_index[_pext_u64(bitset, permutation.key) as usize])
}

/// The key's index of `bitset`, through `pext`, for a longer key.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn long_key_through_pext(_: FastPext, permutation: &Permutation, bitset: u64) -> usize {
    use std::arch::x86_64::_pext_u64;
    let gathered = _pext_u64(bitset, permutation.key) as usize;
    let [low, high] = &permutation.split_index;
    (low[gathered & ((1 << SPLIT_INDEX_LOW_BITS) - 1)] | high[gathered >> SPLIT_INDEX_LOW_BITS])
        as usize
}

/// [`Permutation`] through `pext`, of a bitset whose key index is `index`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
fn through_pext(_: FastPext, permutation: &Permutation, bitset: u64, index: usize) -> u64 {
    use std::arch::x86_64::_pext_u64;
    _pext_u64(bitset, permutation.rest) | (index as u64) << permutation.rest_bits
}

/// The two passes of the bucket sort for one way of working out keys and permuting: each
/// its own function, so that its loop keeps its addresses in registers. Inlined into the
/// rest of the sort, the scatter's loop loaded its list's and its room's addresses and its
/// length from the stack for every item (`perf annotate` on a Zen 4); with the passes
/// apart, N = 21's and 22's shard counts took about 0.99 of the time there
/// (docs/measurements/join.md).
trait Passes<const STREAMS: usize> {
    /// Adds one to `counts[run * keys + key]` for the key of each of `items`, dealt to
    /// `STREAMS` runs ([`in_turns`]).
    fn count(&self, items: &[u64], counts: &mut [usize], keys: usize);

    /// The scatter ([`scatter`]) by the key's bits above its `low_bits` lowest.
    fn scatter(&self, items: &[u64], spare: &mut [u64], positions: &mut [usize], low_bits: u32);
}

/// The passes of a processor without a fast `pext`: a table lookup per byte.
struct ThroughTables<'p>(&'p Permutation);

impl ThroughTables<'_> {
    /// The key's index of `item`: the bits of its permutation above the rest.
    fn key_of(&self, item: u64) -> usize {
        (self.0.through_tables(item) >> self.0.rest_bits) as usize
    }
}

impl<const STREAMS: usize> Passes<STREAMS> for ThroughTables<'_> {
    fn count(&self, items: &[u64], counts: &mut [usize], keys: usize) {
        count_keys::<STREAMS>(items, counts, keys, |item| self.key_of(item));
    }

    fn scatter(&self, items: &[u64], spare: &mut [u64], positions: &mut [usize], low_bits: u32) {
        let (key_of, permute) = (|item| self.key_of(item), |item, _| self.0.through_tables(item));
        scatter_by_high_bits::<STREAMS>(items, spare, positions, low_bits, key_of, permute);
    }
}

/// The passes through `pext`, compiled with BMI2 so that the permutation (two `pext`s and
/// the lookup of the key's index) is inlined into their loops.
#[cfg(target_arch = "x86_64")]
struct ThroughPext<'p> {
    pext: FastPext,
    permutation: &'p Permutation,
}

#[cfg(target_arch = "x86_64")]
impl<const STREAMS: usize> Passes<STREAMS> for ThroughPext<'_> {
    fn count(&self, items: &[u64], counts: &mut [usize], keys: usize) {
        // SAFETY: `pext` proves that the processor has BMI2.
        unsafe { count_through_pext::<STREAMS>(self.pext, self.permutation, items, counts, keys) }
    }

    fn scatter(&self, items: &[u64], spare: &mut [u64], positions: &mut [usize], low_bits: u32) {
        let (pext, permutation) = (self.pext, self.permutation);
        // SAFETY: `pext` proves that the processor has BMI2.
        unsafe {
            scatter_through_pext::<STREAMS>(pext, permutation, items, spare, positions, low_bits)
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn count_through_pext<const STREAMS: usize>(
    pext: FastPext,
    permutation: &Permutation,
    items: &[u64],
    counts: &mut [usize],
    keys: usize,
) {
    if permutation.key_bits <= ONE_TABLE_KEY_BITS {
        let key_of = |item| key_through_pext(pext, permutation, item);
        count_keys::<STREAMS>(items, counts, keys, key_of);
    } else {
        let key_of = |item| long_key_through_pext(pext, permutation, item);
        count_keys::<STREAMS>(items, counts, keys, key_of);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn scatter_through_pext<const STREAMS: usize>(
    pext: FastPext,
    permutation: &Permutation,
    items: &[u64],
    spare: &mut [u64],
    positions: &mut [usize],
    low_bits: u32,
) {
    let permute = |item, index| through_pext(pext, permutation, item, index);
    if permutation.key_bits <= ONE_TABLE_KEY_BITS {
        let key_of = |item| key_through_pext(pext, permutation, item);
        scatter_by_high_bits::<STREAMS>(items, spare, positions, low_bits, key_of, permute);
    } else {
        let key_of = |item| long_key_through_pext(pext, permutation, item);
        scatter_by_high_bits::<STREAMS>(items, spare, positions, low_bits, key_of, permute);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::pair_count::tests::bitsets;

    #[test]
    fn the_permutation_puts_the_first_key_bit_highest_and_drops_dead_bits() {
        let live = ((1 << 20) - 1) & !(1 << 5);
        for pext in std::iter::once(None).chain(FastPext::new().map(Some)) {
            let mut permutation = Permutation::default();
            permutation.build(live, &Key::of(&[17, 3, 0]), pext);
            assert_eq!((permutation.key_bits, permutation.rest_bits), (3, 16), "{pext:?}");
            assert_eq!(permutation.apply(1 << 17), 1 << 18, "{pext:?}");
            assert_eq!(permutation.apply(1 << 3), 1 << 17, "{pext:?}");
            assert_eq!(permutation.apply(1 << 0), 1 << 16, "{pext:?}");
            assert_eq!(permutation.apply(1 << 1), 1 << 0, "{pext:?}");
            assert_eq!(permutation.apply(1 << 5), 0, "{pext:?}");
            assert_eq!(permutation.apply(1 << 19), 1 << 15, "{pext:?}");
            assert_eq!(permutation.apply(1 << 40), 0, "{pext:?}: past every live bit");
        }
    }

    #[test]
    fn the_bucket_sort_keeps_every_item_and_groups_them_by_key() {
        for pext in std::iter::once(None).chain(FastPext::new().map(Some)) {
            let mut permutation = Permutation::default();
            // Lengths that fill the sort's runs, leave items past them, or fill none.
            let lengths = [1000, 1003, MOST_SORT_STREAMS - 1, 0];
            // A key as long as the longest a list gets, too.
            let widest: Vec<u8> = (0..MOST_KEY_BITS as u8).map(|bit| 19 - bit).collect();
            // Keys sorted in one pass, and in two: the shortest and the longest that are,
            // and the longest whose index one table maps.
            let two_passes: Vec<u8> = (0..=ONE_PASS_KEY_BITS as u8).map(|bit| bit + 1).collect();
            let one_table: Vec<u8> = (2..2 + ONE_TABLE_KEY_BITS as u8).rev().collect();
            let keys = [
                Key::of(&[2, 5, 8, 11]),
                Key::of(&[11, 0, 1, 2, 3, 6, 8, 9]),
                Key::of(&two_passes),
                Key::of(&one_table),
                Key::of(&widest),
            ];
            for (len, key) in lengths.into_iter().flat_map(|len| keys.map(|key| (len, key))) {
                let original = bitsets(len, 20, 300, 9);
                let (mut starts, mut next) = (Vec::new(), Vec::new());
                let mut spare = Room::new();
                spare.fill(1200, u64::MAX);
                permutation.build((1 << 20) - 1, &key, pext);
                // Every number of runs the processor may take (0: the one it takes).
                for runs in [1, 2, MOST_SORT_STREAMS, 0] {
                    let (items, spare) = (&original, &mut spare);
                    let sorted = match runs {
                        1 => permutation.sort_in::<1>(items, spare, &mut starts, &mut next),
                        2 => permutation.sort_in::<2>(items, spare, &mut starts, &mut next),
                        MOST_SORT_STREAMS => permutation.sort_in::<MOST_SORT_STREAMS>(
                            items,
                            spare,
                            &mut starts,
                            &mut next,
                        ),
                        _ => permutation.sort(items, spare, &mut starts, &mut next),
                    }
                    .to_vec();
                    let indices = 1 << key.bits().len();
                    assert_eq!((sorted.len(), starts[indices]), (len, len), "{runs} runs");
                    let rest_bits = permutation.rest_bits;
                    let mut buckets = vec![Vec::new(); indices];
                    for &item in &original {
                        let moved = permutation.apply(item);
                        buckets[(moved >> rest_bits) as usize].push(moved);
                    }
                    for (index, bucket) in buckets.iter_mut().enumerate() {
                        let mut sorted = sorted[starts[index]..starts[index + 1]].to_vec();
                        bucket.sort_unstable();
                        sorted.sort_unstable();
                        let case = format!("{pext:?}, {len} items, key {key:?}, {runs} runs");
                        assert_eq!(*bucket, sorted, "{case}, {index}");
                    }
                }
            }
        }
    }
}
