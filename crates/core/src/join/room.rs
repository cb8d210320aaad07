//! Room for the walk's large lists that keeps its pages when a list is freed.
//!
//! From N = 24 a row set's lists outgrow a thread's budget, and the walk frees the lists
//! below a cut fill so that each piece can fill them again; lists also grow past their
//! room and are taken anew. The allocator maps each large list afresh and hands its pages
//! back when it is freed, so the kernel zeroes every page again on first touch: at N = 26
//! that was a quarter of the checked row sets' time (docs/measurements/join.md). A large
//! [`Room`] is a stretch cut from its thread's arena, a span of address space reserved
//! once: each list takes the first freed stretch from the arena's front that holds it,
//! and a freed stretch joins its neighbours again, so that every task's lists, whatever
//! their sizes, lie in the pages the thread's earlier tasks used. Within what the walk lets
//! the thread keep ([`keep_freed`]), a page gets its memory when a list first reaches it,
//! whether the list writes it or not ([`pages::populate`]), and keeps it: lists write only
//! part of their room, and pages that one task left untouched, the next one touched first.
//! Past that, pages get memory when written and give it back when freed, and a list taken
//! there takes as much memory back from the freed pages kept below, so that the thread
//! holds no more than it may keep besides its lists.

use std::alloc::{Layout, handle_alloc_error};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::time::{Duration, Instant};

/// Lists below this many bytes come from the allocator: a handful of pages, which its own
/// heap reuses.
const PAGED_BYTES: usize = 1 << 20;

/// The bytes of a cache line, the steps in which a room's start is set within its pages.
const CACHE_LINE: usize = 64;

/// The starts a thread's successive large rooms take in turn within their first page, a
/// cache line apart: lists that all start at a page's start, read and written side by
/// side, have the same low twelve address bits at each index, and the processor holds a
/// load back behind a store whose address agrees in those bits. Page-aligned lists took
/// the avx2 pair count at N = 26 from 0.94 to 1.03 core-ns per solution
/// (docs/measurements/join.md).
const OFFSETS: usize = 32;

/// A list of `T` in room of its own: the few operations the walk's lists need, over pages
/// its thread keeps when it is freed if it is large.
pub(super) struct Room<T: Copy> {
    start: NonNull<T>,
    len: usize,
    capacity: usize,
    /// The stretch of pages it holds, or `None` where its room came from the allocator.
    stretch: Option<Stretch>,
}

// SAFETY: a room owns its items as a `Vec` does, and its stretch of pages is the process's,
// not its thread's: freed on another thread, it joins that thread's stretches.
unsafe impl<T: Copy + Send> Send for Room<T> {}
// SAFETY: shared, a room only reads its items.
unsafe impl<T: Copy + Sync> Sync for Room<T> {}

impl<T: Copy> Room<T> {
    pub(super) const fn new() -> Room<T> {
        const { assert!(size_of::<T>() > 0, "a room holds items that take room") };
        const { assert!(align_of::<T>() <= CACHE_LINE, "a room's start is a cache line's") };
        Room { start: NonNull::dangling(), len: 0, capacity: 0, stretch: None }
    }

    pub(super) fn from_slice(items: &[T]) -> Room<T> {
        let mut room = Room::new();
        room.empty_with_room(items.len());
        room.spare_capacity_mut()[..items.len()]
            .iter_mut()
            .zip(items)
            .for_each(|(slot, &item)| *slot = MaybeUninit::new(item));
        // SAFETY: the first `items.len()` slots were just written.
        unsafe { room.set_len(items.len()) };
        room
    }

    pub(super) fn capacity(&self) -> usize {
        self.capacity
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// Empties the list, with room for at least `items`: the room it holds if that is
    /// enough, else new room, taken after the old is freed so that the two are never held
    /// at once.
    pub(super) fn empty_with_room(&mut self, items: usize) {
        self.len = 0;
        if items <= self.capacity {
            return;
        }
        self.release();
        let layout = Layout::array::<T>(items).expect("room within the address space");
        if layout.size() >= PAGED_BYTES
            && let Some((stretch, offset)) = with_stretches(|stretches| {
                let offset = stretches.next_offset();
                Some((stretches.take(layout.size() + offset)?, offset))
            })
            .flatten()
        {
            // SAFETY: the stretch holds the list's bytes past the offset.
            self.start = unsafe { stretch.start.add(offset) }.cast();
            self.capacity = (stretch.bytes - offset) / size_of::<T>();
            self.stretch = Some(stretch);
            return;
        }
        // SAFETY: `layout` is not zero-sized: `items` exceeds the capacity, so it is at
        // least 1, and `T` has a size ([`Room::new`]).
        let start = unsafe { std::alloc::alloc(layout) };
        self.start = NonNull::new(start.cast()).unwrap_or_else(|| handle_alloc_error(layout));
        self.capacity = items;
    }

    /// Empties the list and makes it `len` copies of `item`.
    pub(super) fn fill(&mut self, len: usize, item: T) {
        self.empty_with_room(len);
        self.spare_capacity_mut()[..len].fill(MaybeUninit::new(item));
        // SAFETY: the first `len` slots were just written.
        unsafe { self.set_len(len) };
    }

    /// Writes `item` after the others, in room the list holds already: a push past its
    /// capacity panics.
    pub(super) fn push(&mut self, item: T) {
        assert!(self.len < self.capacity, "a push past the room of {} items", self.capacity);
        // SAFETY: `len` is within the capacity, so the slot is in the list's room.
        unsafe { self.start.add(self.len).write(item) };
        self.len += 1;
    }

    /// The room past the items, to write before [`Room::set_len`] takes them in.
    pub(super) fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<T>] {
        // SAFETY: the room holds `capacity` slots from `start`, the first `len` of them
        // items; the rest are handed out as uninitialised, borrowed with the room.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.start.add(self.len).cast().as_ptr(),
                self.capacity - self.len,
            )
        }
    }

    /// Takes the first `len` slots of the room as the list's items.
    ///
    /// # Safety
    ///
    /// `len` is at most the capacity, and every slot below it holds an item written since
    /// the room was last emptied or filled.
    pub(super) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity);
        self.len = len;
    }

    /// Frees the room, keeping its pages for the thread's next lists where it may.
    pub(super) fn release(&mut self) {
        let (start, capacity, stretch) = (self.start, self.capacity, self.stretch);
        // Field by field: assigning a whole room would drop this one, which releases it.
        (self.start, self.len, self.capacity, self.stretch) = (NonNull::dangling(), 0, 0, None);
        if capacity == 0 {
            return;
        }
        if let Some(stretch) = stretch {
            if with_stretches(|stretches| stretches.give(stretch)).is_none() {
                // SAFETY: the stretch was mapped for this room, which no longer refers to
                // it, and the thread's stretches are gone with the thread.
                unsafe { pages::unmap(stretch) };
            }
        } else {
            let layout = Layout::array::<T>(capacity).expect("the layout it was allocated with");
            // SAFETY: the room was allocated with this layout and nothing refers to it now.
            unsafe { std::alloc::dealloc(start.as_ptr().cast(), layout) };
        }
    }
}

impl<T: Copy> Deref for Room<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` slots from `start` hold items (`start` is dangling, and
        // suitably aligned, only where `len` is 0).
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl<T: Copy> DerefMut for Room<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed mutably with the room.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for Room<T> {
    fn drop(&mut self) {
        self.release();
    }
}

impl<T: Copy> Default for Room<T> {
    fn default() -> Room<T> {
        Room::new()
    }
}

impl<T: Copy> Clone for Room<T> {
    fn clone(&self) -> Room<T> {
        Room::from_slice(self)
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for Room<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A stretch of whole pages, mapped for the process's use: a mapping of its own, or part of
/// a thread's arena.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    start: NonNull<u8>,
    bytes: usize,
}

impl Stretch {
    fn end(&self) -> *const u8 {
        self.start.as_ptr().wrapping_add(self.bytes)
    }

    /// The first `bytes` of the stretch, a multiple of the page size, and the rest if any.
    fn cut(self, bytes: usize) -> (Stretch, Option<Stretch>) {
        let head = Stretch { bytes, ..self };
        let rest = (self.bytes > bytes).then(|| Stretch {
            // SAFETY: `bytes` is within the stretch.
            start: unsafe { self.start.add(bytes) },
            bytes: self.bytes - bytes,
        });
        (head, rest)
    }

    /// The bytes from `arena`'s start to the stretch's start, if the stretch lies within it.
    fn offset_in(&self, arena: &Stretch) -> Option<usize> {
        let offset = (self.start.as_ptr() as usize).checked_sub(arena.start.as_ptr() as usize)?;
        (offset + self.bytes <= arena.bytes).then_some(offset)
    }

    /// The part of the stretch, which lies within `arena`, from `from` bytes past the
    /// arena's start to `to`, if any.
    fn within(&self, arena: &Stretch, from: usize, to: usize) -> Option<Stretch> {
        let offset = self.offset_in(arena)?;
        let (start, end) = (offset.max(from), (offset + self.bytes).min(to));
        (start < end).then(|| Stretch {
            // SAFETY: `start` lies within the stretch, which lies within the arena.
            start: unsafe { arena.start.add(start) },
            bytes: end - start,
        })
    }
}

/// How many times the bytes a thread may keep its arena spans: room for lists that
/// outgrow their stretch and for the gaps their freed stretches leave, in address space
/// that holds no memory until it is touched.
const ARENA_SPAN: usize = 4;

/// The stretches of pages a thread's large rooms are cut from: one span of address space
/// reserved for the thread (its arena), whose freed stretches join their neighbours again,
/// so that each task's lists, whatever their sizes, are cut from the front of the pages
/// the last tasks touched. Stretches mapped apart (with no arena, or none left in it)
/// are handed back when freed.
#[derive(Debug, Default)]
struct Stretches {
    arena: Option<Stretch>,
    /// The arena's freed stretches, by address, none beside another.
    freed: Vec<Stretch>,
    /// The bytes from the arena's start past which no page holds memory.
    touched: usize,
    /// The bytes from the arena's start below which every page holds memory: the pages
    /// within what the thread may keep get theirs at once, the rest when written. Freed
    /// pages past it are handed back, so that every freed page that holds memory lies
    /// below it, where a room taken past what may be kept finds them
    /// ([`Stretches::forget_kept`]): kept past it once a hand-back had lowered it, they
    /// took N = 28's threads up to 31 MiB past their lists' budget
    /// (docs/measurements/memory.md).
    populated: usize,
    /// The bytes from the arena's start below which freed pages are kept, unless a room
    /// taken past them needs their memory ([`Stretches::forget_kept`]).
    keep: usize,
    /// The start the thread's next large room takes within its first page, in cache lines.
    next_offset: usize,
}

thread_local! {
    static STRETCHES: RefCell<Stretches> = RefCell::default();
    /// The time the thread has spent giving its arena's new pages their memory.
    static POPULATING: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// A clock for a task's work that leaves out the time its thread spent giving its arena's
/// new pages their memory ([`pages::populate`]): a thread pays that once, for the largest
/// lists it meets, however many tasks it counts. A piece of N = 27 timed first on a fresh
/// thread paid it in full, and the checked pieces predicted up to 2.6 times their counts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stopwatch {
    started: Instant,
    populating: Duration,
}

impl Stopwatch {
    pub(super) fn start() -> Stopwatch {
        Stopwatch { started: Instant::now(), populating: populating() }
    }

    pub(super) fn elapsed(&self) -> Duration {
        self.started.elapsed().saturating_sub(populating().saturating_sub(self.populating))
    }
}

fn populating() -> Duration {
    POPULATING.try_with(Cell::get).unwrap_or_default()
}

/// `action` on the thread's stretches; `None` while the thread is being torn down, or on a
/// system with no pages to keep.
fn with_stretches<R>(action: impl FnOnce(&mut Stretches) -> R) -> Option<R> {
    if !pages::KEPT {
        return None;
    }
    STRETCHES.try_with(|stretches| action(&mut stretches.borrow_mut())).ok()
}

impl Stretches {
    /// The bytes past its stretch's start that the next large room starts at
    /// ([`OFFSETS`]): five lines on from the last, so that rooms taken one after another
    /// are spread over the page.
    fn next_offset(&mut self) -> usize {
        let offset = self.next_offset;
        self.next_offset = (offset + 5) % OFFSETS;
        offset * CACHE_LINE
    }

    /// A stretch of at least `bytes`: the first freed one of the arena that holds them,
    /// cut to size, else one mapped apart.
    fn take(&mut self, bytes: usize) -> Option<Stretch> {
        let bytes = bytes.checked_next_multiple_of(pages::size())?;
        let (Some(arena), Some(at)) =
            (self.arena, self.freed.iter().position(|freed| freed.bytes >= bytes))
        else {
            return pages::map(bytes);
        };
        let (taken, rest) = self.freed[at].cut(bytes);
        match rest {
            Some(rest) => self.freed[at] = rest,
            None => _ = self.freed.remove(at),
        }
        let offset = taken.offset_in(&arena).expect("cut from the arena");
        let end = offset + taken.bytes;
        // From the mark on, the freed pages below the room included, so that the mark keeps
        // up with the rooms: left behind by a room taken past a gap, it had that room's
        // pages handed back when freed ([`Stretches::forget_unkept`]) and given memory
        // again when next taken.
        if let Some(fresh) = arena.within(&arena, self.populated, end.min(self.keep)) {
            let started = Instant::now();
            pages::populate(fresh);
            _ = POPULATING.try_with(|spent| spent.set(spent.get() + started.elapsed()));
            self.populated = end.min(self.keep);
        }
        self.touched = self.touched.max(end);
        self.forget_kept(&arena, end.saturating_sub(offset.max(self.keep)));
        Some(taken)
    }

    /// Hands back the memory of up to `bytes` of the freed pages the thread keeps, the
    /// last ones first, for a room taken that far past what it may keep: that room's pages
    /// get memory as it writes them, while the gaps freed lists left below would keep
    /// theirs. Once the walk freed levels between lists it still held, N = 26's estimate at
    /// 512 MiB a thread peaked 58 MiB higher without this (docs/measurements/memory.md).
    fn forget_kept(&mut self, arena: &Stretch, mut bytes: usize) {
        for freed in self.freed.iter().rev() {
            if bytes == 0 {
                break;
            }
            let Some(kept) = freed.within(arena, 0, self.populated) else {
                continue;
            };
            let forgotten = kept.bytes.min(bytes);
            let last = kept.cut(kept.bytes - forgotten).1.expect("a page or more to forget");
            // SAFETY: the stretch is freed, so nothing refers to its pages.
            unsafe { pages::forget(last) };
            self.populated = last.offset_in(arena).expect("within the arena");
            bytes -= forgotten;
        }
    }

    /// Takes back `stretch`, freed by its room: into the arena, joined with the freed
    /// stretches beside it, its pages past what the thread may keep handed back; a
    /// stretch mapped apart (or another thread's) is unmapped.
    fn give(&mut self, stretch: Stretch) {
        let Some(arena) = self.arena.filter(|arena| stretch.offset_in(arena).is_some()) else {
            // SAFETY: the stretch was freed by its room, so nothing refers to it, and it is
            // none of this thread's arena.
            unsafe { pages::unmap(stretch) };
            return;
        };
        let mut at = self.freed.partition_point(|freed| freed.start < stretch.start);
        let mut joined = stretch;
        if self.freed.get(at).is_some_and(|after| joined.end() == after.start.as_ptr()) {
            joined.bytes += self.freed.remove(at).bytes;
        }
        if at > 0 && self.freed[at - 1].end() == joined.start.as_ptr() {
            at -= 1;
            let before = self.freed.remove(at);
            joined = Stretch { bytes: before.bytes + joined.bytes, ..before };
        }
        self.freed.insert(at, joined);
        self.forget_unkept(&arena, &joined);
        self.lower_touched(&arena);
    }

    /// Hands back the memory of the pages of `freed`, a freed stretch of `arena`, that the
    /// thread does not keep: those past the mark below which every page holds memory,
    /// which is never past what it may keep.
    fn forget_unkept(&self, arena: &Stretch, freed: &Stretch) {
        if let Some(over) = freed.within(arena, self.populated, self.touched) {
            // SAFETY: the stretch is freed, so nothing refers to its pages.
            unsafe { pages::forget(over) };
        }
    }

    /// Past the last stretch the rooms hold, and past what the thread may keep, no page
    /// holds memory: every freed page there was handed back when it was freed.
    fn lower_touched(&mut self, arena: &Stretch) {
        if let Some(last) = self.freed.last().filter(|last| last.end() == arena.end()) {
            let held_end = last.offset_in(arena).expect("freed in the arena");
            self.touched = self.touched.min(held_end.max(self.keep));
        }
    }

    /// Keeps the pages of up to `bytes` from the arena's start, handing back the freed
    /// pages past them; reserves the arena, or a wider one while it holds no rooms.
    fn keep(&mut self, bytes: usize) {
        self.keep = bytes.next_multiple_of(pages::size());
        self.populated = self.populated.min(self.keep);
        let wanted = self.keep.saturating_mul(ARENA_SPAN);
        let unused = match (&self.arena, self.freed.as_slice()) {
            (None, _) => true,
            (Some(arena), [whole]) => whole.bytes == arena.bytes,
            (Some(_), _) => false,
        };
        if unused && self.arena.is_none_or(|arena| arena.bytes < wanted) {
            self.unmap_arena();
            if wanted > 0 {
                self.arena = pages::reserve(wanted);
                self.freed.extend(self.arena);
            }
            return;
        }
        if let Some(arena) = self.arena {
            for freed in &self.freed {
                self.forget_unkept(&arena, freed);
            }
            self.lower_touched(&arena);
        }
    }

    /// Hands the arena back, which no room holds.
    fn unmap_arena(&mut self) {
        if let Some(arena) = self.arena.take() {
            // SAFETY: every stretch of the arena is freed, so nothing refers to it.
            unsafe { pages::unmap(arena) };
        }
        (self.freed, self.touched, self.populated) = (Vec::new(), 0, 0);
    }
}

/// Lets the thread keep the pages of its large rooms, held and freed together, up to
/// `bytes`, until it is told otherwise or ends. A walk keeps its lists' budget, so that a
/// thread holds no more than it would with every freed page handed back, and the next
/// task's lists find the pages of the last one's: each task's walk starts its lists anew.
pub(super) fn keep_freed(bytes: usize) {
    with_stretches(|stretches| stretches.keep(bytes));
}

/// The bytes of this thread's arena that hold memory.
#[cfg(all(test, target_os = "linux"))]
pub(super) fn arena_resident_bytes() -> usize {
    let arena = STRETCHES.with(|stretches| stretches.borrow().arena);
    arena.map_or(0, |arena| tests::resident(arena.start, arena.bytes) * pages::size())
}

impl Drop for Stretches {
    fn drop(&mut self) {
        // A room still held past its thread's end keeps its stretch, which its release
        // then unmaps.
        for &freed in &self.freed {
            // SAFETY: the stretch is freed, so nothing refers to it.
            unsafe { pages::unmap(freed) };
        }
    }
}

#[cfg(target_os = "linux")]
mod pages {
    use std::ptr::NonNull;
    use std::sync::OnceLock;

    use super::Stretch;

    /// Whether this system keeps freed pages for the thread's next lists.
    pub(super) const KEPT: bool = true;

    pub(super) fn size() -> usize {
        static SIZE: OnceLock<usize> = OnceLock::new();
        // SAFETY: `sysconf` only reads a system constant.
        *SIZE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            size if size > 0 => size as usize,
            _ => 4096,
        })
    }

    /// A new stretch of `bytes`, a multiple of the page size; `None` if the system has no
    /// room for it.
    pub(super) fn map(bytes: usize) -> Option<Stretch> {
        mapped(bytes, 0)
    }

    /// A new stretch of `bytes` of address space, whose pages take memory only once they
    /// are touched; `None` if the system will not reserve it.
    pub(super) fn reserve(bytes: usize) -> Option<Stretch> {
        mapped(bytes, libc::MAP_NORESERVE)
    }

    fn mapped(bytes: usize, flags: libc::c_int) -> Option<Stretch> {
        let protection = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags;
        // SAFETY: an anonymous mapping at an address of the system's choosing touches no
        // memory the program holds.
        let start = unsafe { libc::mmap(std::ptr::null_mut(), bytes, protection, flags, -1, 0) };
        if start == libc::MAP_FAILED {
            return None;
        }
        // The arena gives and takes back memory page by page. A system that hands out
        // larger blocks of pages on a fault (transparent huge pages, or Linux 6.8's
        // smaller "mTHP" blocks, such as 16 KiB set to `always`) fills pages past the
        // faulting room's stretch, in freed gaps whose memory was handed back: on a Zen 5
        // machine with 16 KiB blocks, a thread kept pages it was told to hand back. A
        // system without the advice refuses it and gives pages one by one anyway.
        // SAFETY: advice on the mapping just made, which nothing else refers to.
        unsafe { libc::madvise(start, bytes, libc::MADV_NOHUGEPAGE) };
        Some(Stretch { start: NonNull::new(start.cast())?, bytes })
    }

    /// Gives every page of `stretch` its memory at once, where the system can: a list
    /// writes only part of its room, so pages left untouched by one task would be first
    /// touched by the next, whose lists lie differently (at N = 27, 70,000 faults in a
    /// piece's first walk of 0.8 s after a larger piece, none in its second).
    pub(super) fn populate(stretch: Stretch) {
        // SAFETY: the stretch is whole pages of a private anonymous mapping, which this
        // only fills with zeroed memory where none is; a system without the advice
        // refuses it, and the pages then get their memory when first touched.
        unsafe {
            libc::madvise(stretch.start.as_ptr().cast(), stretch.bytes, libc::MADV_POPULATE_WRITE)
        };
    }

    /// Hands the memory of `stretch`'s pages back to the system, keeping them mapped: they
    /// read as zeros until written again.
    ///
    /// # Safety
    ///
    /// Nothing refers to the stretch.
    pub(super) unsafe fn forget(stretch: Stretch) {
        // SAFETY: the caller no longer refers to the stretch, whole pages of a private
        // anonymous mapping.
        let result = unsafe {
            libc::madvise(stretch.start.as_ptr().cast(), stretch.bytes, libc::MADV_DONTNEED)
        };
        debug_assert_eq!(result, 0, "forgetting {stretch:?}");
    }

    /// Hands `stretch` back to the system.
    ///
    /// # Safety
    ///
    /// Nothing refers to the stretch.
    pub(super) unsafe fn unmap(stretch: Stretch) {
        // SAFETY: the caller no longer refers to the stretch, a mapping of whole pages.
        let result = unsafe { libc::munmap(stretch.start.as_ptr().cast(), stretch.bytes) };
        debug_assert_eq!(result, 0, "unmapping {stretch:?}");
    }
}

#[cfg(not(target_os = "linux"))]
mod pages {
    use super::Stretch;

    /// Whether this system keeps freed pages for the thread's next lists: every room comes
    /// from the allocator elsewhere.
    pub(super) const KEPT: bool = false;

    pub(super) fn size() -> usize {
        4096
    }

    pub(super) fn map(_: usize) -> Option<Stretch> {
        None
    }

    pub(super) fn reserve(_: usize) -> Option<Stretch> {
        None
    }

    pub(super) fn populate(_: Stretch) {}

    /// # Safety
    ///
    /// Never called: no stretch is mapped.
    pub(super) unsafe fn forget(_: Stretch) {}

    /// # Safety
    ///
    /// Never called: no stretch is mapped.
    pub(super) unsafe fn unmap(_: Stretch) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items enough for a room of pages.
    const PAGED: usize = PAGED_BYTES / size_of::<u64>();

    fn stretch(room: &Room<u64>) -> Stretch {
        room.stretch.expect("a large room is a stretch of pages")
    }

    fn freed() -> Vec<(usize, usize)> {
        STRETCHES.with(|s| {
            let s = s.borrow();
            let arena = s.arena.expect("an arena");
            s.freed.iter().map(|f| (f.offset_in(&arena).expect("in the arena"), f.bytes)).collect()
        })
    }

    /// The pages from `start` on, over `bytes`, that hold memory.
    #[cfg(target_os = "linux")]
    pub(super) fn resident(start: NonNull<u8>, bytes: usize) -> usize {
        let mut pages = vec![0u8; bytes.div_ceil(pages::size())];
        // SAFETY: the stretch is mapped, and `pages` has a byte for each of its pages.
        let result = unsafe { libc::mincore(start.as_ptr().cast(), bytes, pages.as_mut_ptr()) };
        assert_eq!(result, 0);
        pages.iter().filter(|&&page| page & 1 == 1).count()
    }

    #[test]
    fn a_room_holds_what_is_written() {
        for items in [5, PAGED + 5] {
            let mut room = Room::<u64>::new();
            room.fill(items, 7);
            assert_eq!(room.len(), items);
            assert!(room.iter().all(|&item| item == 7));
            room.empty_with_room(items);
            assert!(room.is_empty());
            for item in 0..items as u64 {
                room.push(item);
            }
            assert!(room.iter().copied().eq(0..items as u64));
            assert_eq!(Room::from_slice(&room[..4]).to_vec(), [0, 1, 2, 3]);
            assert_eq!(room.clone().len(), items);
        }
    }

    #[test]
    #[should_panic(expected = "a push past the room")]
    fn a_push_past_the_room_panics() {
        let mut room = Room::<u64>::new();
        room.empty_with_room(2);
        for item in 0..=room.capacity() as u64 {
            room.push(item);
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn lists_of_new_sizes_take_the_pages_the_last_ones_freed() {
        keep_freed(64 * PAGED_BYTES);
        let arena = STRETCHES.with(|s| s.borrow().arena.expect("an arena"));
        assert_eq!(arena.bytes, ARENA_SPAN * 64 * PAGED_BYTES);
        let mut first = Room::<u64>::new();
        first.fill(4 * PAGED, 1);
        let whole = stretch(&first);
        assert_eq!(whole.start, arena.start, "the first room is cut from the arena's front");
        first.release();
        assert_eq!(freed(), [(0, arena.bytes)], "freed, it joins the rest again");
        assert_eq!(resident(whole.start, whole.bytes), whole.bytes / pages::size());
        // Two lists of other sizes are cut from the same pages, one after the other.
        let (mut small, mut other) = (Room::<u64>::new(), Room::<u64>::new());
        small.fill(PAGED, 2);
        other.fill(2 * PAGED, 3);
        let (front, next) = (stretch(&small), stretch(&other));
        assert_eq!(front.start, whole.start);
        assert_eq!(next.start.as_ptr().cast_const(), front.end());
        assert!(next.end() <= whole.end(), "both within the pages the first room touched");
        // Rooms taken one after another start at different places within their pages.
        let within_page = |room: &Room<u64>| room.as_ptr() as usize % pages::size();
        assert_ne!(within_page(&small), within_page(&other));
        // A list freed between two others leaves a gap that a list as large takes again.
        small.release();
        assert_eq!(
            freed(),
            [(0, front.bytes), (front.bytes + next.bytes, arena.bytes - front.bytes - next.bytes)]
        );
        small.fill(PAGED, 4);
        assert_eq!(stretch(&small).start, front.start);
        assert!(small.iter().all(|&item| item == 4) && other.iter().all(|&item| item == 3));
        small.release();
        other.release();
        assert_eq!(freed(), [(0, arena.bytes)]);
    }

    /// A room taken past what the thread may keep, because the gap a freed list left
    /// below is too small for it, takes the gap's memory back, and the gap's pages serve
    /// the next room as before.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_room_past_the_kept_pages_hands_back_the_gaps_below() {
        keep_freed(4 * PAGED_BYTES);
        let arena = STRETCHES.with(|s| s.borrow().arena.expect("an arena"));
        let (mut gap, mut held) = (Room::<u64>::new(), Room::<u64>::new());
        gap.fill(2 * PAGED, 1);
        held.fill(2 * PAGED, 2);
        gap.release();
        let gap_bytes = stretch(&held).offset_in(&arena).unwrap();
        assert!(resident(arena.start, gap_bytes) > 0, "the freed gap keeps its memory");
        let mut past = Room::<u64>::new();
        past.fill(3 * PAGED, 3);
        assert!(stretch(&past).end() > stretch(&held).end(), "too large for the gap");
        assert_eq!(resident(arena.start, gap_bytes), 0, "the gap's memory is handed back");
        let rooms_pages = (stretch(&held).bytes + stretch(&past).bytes) / pages::size();
        assert_eq!(resident(arena.start, arena.bytes), rooms_pages);
        assert!(held.iter().all(|&item| item == 2) && past.iter().all(|&item| item == 3));
        // The gap, its memory handed back, is taken again and written as any page.
        gap.fill(PAGED, 4);
        assert_eq!(stretch(&gap).start, arena.start);
        assert!(gap.iter().all(|&item| item == 4));
        for room in [&mut gap, &mut held, &mut past] {
            room.release();
        }
        keep_freed(0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn pages_freed_after_a_hand_back_are_not_kept_past_the_allowance() {
        keep_freed(4 * PAGED_BYTES);
        let arena = STRETCHES.with(|s| s.borrow().arena.expect("an arena"));
        let (mut gap, mut held, mut past) = (Room::<u64>::new(), Room::new(), Room::new());
        gap.fill(2 * PAGED, 1);
        held.fill(2 * PAGED, 2);
        gap.release();
        // Too large for the gap, so taken past the kept pages: the gap's memory goes back.
        past.fill(3 * PAGED, 3);
        assert!(stretch(&past).start > stretch(&held).start, "too large for the gap");
        held.release();
        let kept_pages = 4 * PAGED_BYTES / pages::size();
        let resident_pages = resident(arena.start, arena.bytes);
        assert!(resident_pages <= kept_pages, "{resident_pages} pages for {kept_pages} kept");
        assert!(past.iter().all(|&item| item == 3));
        // Taken again, the pages handed back are written as any page.
        held.fill(4 * PAGED, 5);
        assert!(held.iter().all(|&item| item == 5));
        for room in [&mut held, &mut past] {
            room.release();
        }
        keep_freed(0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_keeps_no_more_than_it_is_allowed() {
        keep_freed(2 * PAGED_BYTES);
        let mut unwritten = Room::<u64>::new();
        unwritten.empty_with_room(3 * PAGED);
        let three = stretch(&unwritten);
        let kept_pages = 2 * PAGED_BYTES / pages::size();
        assert_eq!(resident(three.start, three.bytes), kept_pages, "given memory before written");
        unwritten.release();
        assert_eq!(resident(three.start, three.bytes), kept_pages);
        let mut rooms: Vec<Room<u64>> = (0..4).map(|_| Room::new()).collect();
        for room in &mut rooms {
            room.fill(PAGED, 1);
        }
        let stretches: Vec<Stretch> = rooms.iter().map(stretch).collect();
        let (start, bytes) = (stretches[0].start, stretches.iter().map(|s| s.bytes).sum());
        assert!(stretches.windows(2).all(|two| two[0].end() == two[1].start.as_ptr()));
        assert_eq!(resident(start, bytes), bytes / pages::size());
        // Freed past what may be kept, pages go back at once; below it they stay.
        for room in &mut rooms {
            room.release();
        }
        assert_eq!(resident(start, bytes), 2 * PAGED_BYTES / pages::size());
        // Less allowed: the freed pages past it go back too.
        keep_freed(PAGED_BYTES / 2);
        assert_eq!(resident(start, bytes), PAGED_BYTES / 2 / pages::size());
        // A room past the arena's span is mapped apart, and unmapped when freed.
        let mut wide = Room::<u64>::new();
        wide.fill(2 * ARENA_SPAN * PAGED, 5);
        let arena = STRETCHES.with(|s| s.borrow().arena.expect("an arena"));
        assert!(stretch(&wide).offset_in(&arena).is_none());
        wide.release();
        keep_freed(0);
        assert_eq!(resident(start, bytes), 0);
    }
}
