//! Room for the walk's large lists that keeps its pages when a list is freed.
//!
//! From N = 24 a row set's lists outgrow a thread's budget, and the walk frees the lists
//! below a cut fill so that each piece can fill them again; lists also grow past their
//! room and are taken anew. The allocator maps each large list afresh and hands its pages
//! back when it is freed, so the kernel zeroes every page again on first touch: at N = 26
//! that was a quarter of the checked row sets' time (docs/measurements/join.md). A large
//! [`Room`] is a stretch of pages its thread keeps when the list is freed, while the walk
//! allows it ([`keep_freed`]), and hands out again: the best fitting stretch, cut to size,
//! or the largest moved and grown (`mremap`, which keeps the pages it had). A stretch
//! freed beside the rest it was cut from joins it again.

use std::alloc::{Layout, handle_alloc_error};
use std::cell::RefCell;
use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// Lists below this many bytes come from the allocator: a handful of pages, which its own
/// heap reuses.
const PAGED_BYTES: usize = 1 << 20;

/// The freed stretches a thread keeps at most, so that looking for one stays short: a
/// list's room cut from a larger stretch leaves its rest apart until the list is freed.
const KEPT_STRETCHES: usize = 64;

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

/// A stretch of whole pages, mapped for the process's use: all or part of the mapping
/// `mapping` (a number no other mapping of the process has).
#[derive(Clone, Copy, Debug)]
struct Stretch {
    start: NonNull<u8>,
    bytes: usize,
    mapping: u64,
}

impl Stretch {
    fn end(&self) -> *const u8 {
        self.start.as_ptr().wrapping_add(self.bytes)
    }

    /// Whether `other` starts where this ends or ends where it starts, in the same mapping.
    fn beside(&self, other: &Stretch) -> bool {
        self.mapping == other.mapping
            && (self.end() == other.start.as_ptr().cast_const()
                || other.end() == self.start.as_ptr().cast_const())
    }

    /// The first `bytes` of the stretch, a multiple of the page size, and the rest if any.
    fn cut(self, bytes: usize) -> (Stretch, Option<Stretch>) {
        let head = Stretch { bytes, ..self };
        let rest = (self.bytes > bytes).then(|| Stretch {
            // SAFETY: `bytes` is within the stretch.
            start: unsafe { self.start.add(bytes) },
            bytes: self.bytes - bytes,
            mapping: self.mapping,
        });
        (head, rest)
    }

    /// A new mapping's number.
    fn new_mapping() -> u64 {
        static MAPPINGS: AtomicU64 = AtomicU64::new(0);
        MAPPINGS.fetch_add(1, Ordering::Relaxed)
    }
}

/// The stretches of pages a thread's rooms hold and have freed, and the bytes of both it
/// may keep mapped.
#[derive(Debug, Default)]
struct Stretches {
    freed: Vec<Stretch>,
    freed_bytes: usize,
    held_bytes: usize,
    keep: usize,
    /// The start the thread's next large room takes within its first page, in cache lines.
    next_offset: usize,
}

thread_local! {
    static STRETCHES: RefCell<Stretches> = RefCell::default();
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

    /// A stretch of at least `bytes`: the smallest freed one that holds them, cut to size;
    /// else the largest freed one moved and grown; else a new one.
    fn take(&mut self, bytes: usize) -> Option<Stretch> {
        let bytes = bytes.checked_next_multiple_of(pages::size())?;
        let fits = self.freed.iter().enumerate().filter(|(_, freed)| freed.bytes >= bytes);
        let best = fits.min_by_key(|(_, freed)| freed.bytes).map(|(at, _)| at);
        let largest = || {
            let largest = self.freed.iter().enumerate().max_by_key(|(_, freed)| freed.bytes);
            largest.map(|(at, _)| at)
        };
        let taken = match best.or_else(largest) {
            Some(at) => {
                let freed = self.freed.swap_remove(at);
                self.freed_bytes -= freed.bytes;
                if freed.bytes >= bytes {
                    let (taken, rest) = freed.cut(bytes);
                    if let Some(rest) = rest {
                        self.freed.push(rest);
                        self.freed_bytes += rest.bytes;
                    }
                    taken
                } else {
                    // SAFETY: the stretch is freed, so nothing refers to it.
                    unsafe { pages::grow(freed, bytes) }?
                }
            }
            None => pages::map(bytes)?,
        };
        self.held_bytes += bytes;
        self.trim();
        Some(taken)
    }

    /// Takes back `stretch`, freed by its room, joined with the freed stretches beside it
    /// in its mapping: cut from one by [`Stretches::take`], they are one again.
    fn give(&mut self, mut stretch: Stretch) {
        self.held_bytes = self.held_bytes.saturating_sub(stretch.bytes);
        self.freed_bytes += stretch.bytes;
        while let Some(at) = self.freed.iter().position(|freed| freed.beside(&stretch)) {
            let freed = self.freed.swap_remove(at);
            stretch.start = stretch.start.min(freed.start);
            stretch.bytes += freed.bytes;
        }
        self.freed.push(stretch);
        self.trim();
    }

    /// Hands back to the system the freed pages past what the thread may keep, the smallest
    /// stretches first (the cheapest to map again), and past [`KEPT_STRETCHES`] stretches.
    fn trim(&mut self) {
        loop {
            let over = (self.held_bytes + self.freed_bytes).saturating_sub(self.keep);
            if over == 0 && self.freed.len() <= KEPT_STRETCHES {
                return;
            }
            let smallest = self.freed.iter().enumerate().min_by_key(|(_, freed)| freed.bytes);
            let Some((at, &freed)) = smallest else { return };
            let kept = freed.bytes.saturating_sub(over) / pages::size() * pages::size();
            if over > 0 && kept > 0 {
                let (kept, tail) = freed.cut(kept);
                let tail = tail.expect("less kept than the stretch, since some is over");
                self.freed[at] = kept;
                self.freed_bytes -= tail.bytes;
                // SAFETY: the stretch is freed, so nothing refers to its tail.
                unsafe { pages::unmap(tail) };
            } else {
                self.freed.swap_remove(at);
                self.freed_bytes -= freed.bytes;
                // SAFETY: the stretch is freed, so nothing refers to it.
                unsafe { pages::unmap(freed) };
            }
        }
    }
}

/// Lets the thread keep up to `bytes` of the pages of its large rooms, held and freed
/// together, until it is told otherwise or ends. A walk keeps its lists' budget, so that a
/// thread holds no more than it would with every freed page handed back, and the next
/// task's lists find the pages of the last one's: each task's walk starts its lists anew.
pub(super) fn keep_freed(bytes: usize) {
    with_stretches(|stretches| {
        stretches.keep = bytes;
        stretches.trim();
    });
}

impl Drop for Stretches {
    fn drop(&mut self) {
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
        let protection = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: an anonymous mapping at an address of the system's choosing touches no
        // memory the program holds.
        let start = unsafe { libc::mmap(std::ptr::null_mut(), bytes, protection, flags, -1, 0) };
        if start == libc::MAP_FAILED {
            return None;
        }
        let start = NonNull::new(start.cast())?;
        Some(Stretch { start, bytes, mapping: Stretch::new_mapping() })
    }

    /// `stretch` moved where it can grow to `bytes`, keeping its pages, a mapping of its
    /// own; `None` if the system has no room for it, the stretch then handed back.
    ///
    /// # Safety
    ///
    /// Nothing refers to the stretch.
    pub(super) unsafe fn grow(stretch: Stretch, bytes: usize) -> Option<Stretch> {
        // SAFETY: the stretch is a mapping of its own pages, which the caller no longer
        // refers to; the system moves it whole.
        let start = unsafe {
            libc::mremap(stretch.start.as_ptr().cast(), stretch.bytes, bytes, libc::MREMAP_MAYMOVE)
        };
        if start == libc::MAP_FAILED {
            // SAFETY: the caller no longer refers to the stretch.
            unsafe { unmap(stretch) };
            return None;
        }
        let start = NonNull::new(start.cast())?;
        Some(Stretch { start, bytes, mapping: Stretch::new_mapping() })
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

    /// Whether this system keeps freed pages for the thread's next lists: only Linux's
    /// `mremap` moves a stretch without copying it, so elsewhere every room comes from the
    /// allocator.
    pub(super) const KEPT: bool = false;

    pub(super) fn size() -> usize {
        4096
    }

    pub(super) fn map(_: usize) -> Option<Stretch> {
        None
    }

    /// # Safety
    ///
    /// Never called: no stretch is mapped.
    pub(super) unsafe fn grow(_: Stretch, _: usize) -> Option<Stretch> {
        None
    }

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

    fn freed() -> (usize, usize) {
        STRETCHES.with(|s| {
            let s = s.borrow();
            (s.freed.len(), s.freed_bytes)
        })
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
    fn freed_pages_are_taken_again_while_kept() {
        keep_freed(64 * PAGED_BYTES);
        let stretch = |room: &Room<u64>| room.stretch.expect("a large room is a stretch of pages");
        let mut room = Room::<u64>::new();
        room.fill(4 * PAGED, 1);
        let first = stretch(&room);
        room.release();
        assert_eq!(freed(), (1, first.bytes));
        // A smaller list takes the front of the freed stretch and leaves the rest.
        room.fill(PAGED, 2);
        let front = stretch(&room);
        assert_eq!(front.start, first.start);
        assert_eq!(freed(), (1, first.bytes - front.bytes));
        let mut other = Room::<u64>::new();
        other.fill(2 * PAGED, 3);
        let next = stretch(&other);
        assert_eq!(next.start.as_ptr(), first.start.as_ptr().wrapping_add(front.bytes));
        assert_eq!(freed(), (1, first.bytes - front.bytes - next.bytes));
        // Rooms taken one after another start at different places within their pages.
        let within_page = |room: &Room<u64>| room.as_ptr() as usize % pages::size();
        assert_ne!(within_page(&room), within_page(&other));
        // Freed beside the rest of its stretch, a list joins it again.
        other.release();
        assert_eq!(freed(), (1, first.bytes - front.bytes));
        // A list larger than any freed stretch grows the largest, moved whole.
        let mut large = Room::<u64>::new();
        large.fill(8 * PAGED, 4);
        assert!(large.iter().all(|&item| item == 4));
        assert!(room.iter().all(|&item| item == 2));
        assert_eq!(freed(), (0, 0));
        let moved = stretch(&large);
        large.release();
        room.release();
        assert_eq!(
            freed(),
            (2, moved.bytes + front.bytes),
            "a moved stretch is a mapping of its own"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_keeps_no_more_than_it_is_allowed() {
        let mut rooms: Vec<Room<u64>> = (0..4).map(|_| Room::new()).collect();
        for room in &mut rooms {
            room.fill(PAGED, 0);
        }
        let bytes: Vec<usize> = rooms.iter().map(|room| room.stretch.unwrap().bytes).collect();
        keep_freed(bytes[1..].iter().sum());
        // Held past what may be kept: freed pages go back at once.
        rooms[0].release();
        assert_eq!(freed(), (0, 0));
        rooms[1].release();
        assert_eq!(freed(), (1, bytes[1]));
        rooms[2].release();
        assert_eq!(freed(), (2, bytes[1] + bytes[2]));
        rooms[3].release();
        assert_eq!(freed(), (3, bytes[1] + bytes[2] + bytes[3]));
        // Less allowed: the smallest stretches go first, then a cut of the next.
        keep_freed(PAGED_BYTES + PAGED_BYTES / 2);
        assert_eq!(freed(), (2, PAGED_BYTES + PAGED_BYTES / 2));
        keep_freed(0);
        assert_eq!(freed(), (0, 0));
    }
}
