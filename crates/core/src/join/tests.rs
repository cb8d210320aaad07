//! The join against backtracking and against itself: every row set, pieces, slices and
//! budgets.

use nqueens_test_support::{row_set_weight, transposed_weight, weigh_solutions_within};

use super::*;
use crate::engine::DEFAULT_MEMORY_PER_THREAD;

/// The columns a key allows each row: the half it puts the row in, or the middle column
/// for the row of the middle column's queen.
fn allowed_columns(n: usize, key: &[u8]) -> Vec<u64> {
    let half = n / 2;
    let west = (1u64 << half) - 1;
    let east = ((1u64 << n) - 1) & !((1u64 << (n - half)) - 1);
    // A row the key leaves undecided may take either half.
    let mut allowed = vec![west | east; n];
    let (order, decided) = order_and_sides(n, key);
    if let Some(row) = middle_queen(n, key) {
        allowed[row] = 1 << half;
    }
    for (&row, &goes_west) in order.iter().zip(decided) {
        allowed[row] = if goes_west == 1 { west } else { east };
    }
    allowed
}

/// The row of the middle column's queen that an odd board's key names.
fn middle_queen(n: usize, key: &[u8]) -> Option<usize> {
    (!n.is_multiple_of(2)).then(|| usize::from(key[0]))
}

/// The rows a key's sides are for, in order, and its sides' bytes.
fn order_and_sides(n: usize, key: &[u8]) -> (Vec<usize>, &[u8]) {
    match middle_queen(n, key) {
        Some(row) => ((0..n).filter(|&r| r != row).collect(), &key[1..]),
        None => ((0..n).collect(), key),
    }
}

/// How many row sets a complete key stands for: the size of its orbit under the
/// reflections, worked out from the sets themselves, or 0 if another member of the orbit
/// is the one counted.
fn weight(n: usize, key: &[u8]) -> u128 {
    let (order, sides) = order_and_sides(n, key);
    let set: u32 = (order.iter().zip(sides))
        .filter(|&(_, &west)| west == 1)
        .fold(0, |set, (&row, _)| set | 1 << row);
    row_set_weight(n, middle_queen(n, key), set)
}

#[test]
fn every_row_set_agrees_with_backtracking() {
    for n in 4..=14 {
        let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        let mut total = 0u128;
        for key in join.geometry.keys(join.geometry.most_decided()) {
            let counted = join.solve_key(&key).unwrap().total;
            let allowed = allowed_columns(n, &key);
            let found = weigh_solutions_within(&allowed, transposed_weight);
            assert_eq!(counted, weight(n, &key) * found, "N = {n}, key {key:?}");
            total += counted;
        }
        let expected = crate::count(n, crate::Method::Plain).unwrap().total;
        assert_eq!(total, expected, "N = {n}");
    }
}

/// The finest tasks below `task`, and their pieces.
fn leaves(join: &Join, task: &Task) -> Vec<Task> {
    let mut finer = join.children(task).unwrap();
    if finer.is_empty() {
        finer = join.pieces(task).unwrap();
    }
    if finer.is_empty() {
        return vec![task.clone()];
    }
    finer.iter().flat_map(|part| leaves(join, part)).collect()
}

/// Every task's children end in row sets, and its row sets' slices partition its
/// solutions; a piece's work is charged to the tasks between its list's task and
/// itself.
#[test]
fn pieces_partition_a_task_and_charge_its_work() {
    for n in 6..=13 {
        let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        let mut cut = 0;
        for task in join.tasks(join.max_depth()) {
            let finest = leaves(&join, &task);
            // A descent never ends above a row set, where it would time work that
            // counts nothing.
            let row_set = |leaf: &Task| join.geometry.key(leaf.key()).unwrap().is_row_set();
            assert!(finest.iter().all(row_set), "N = {n}, {task:?}");
            let total: u128 =
                finest.iter().map(|leaf| join.solve(leaf, false).unwrap().total).sum();
            assert_eq!(total, join.solve(&task, false).unwrap().total, "N = {n}, {task:?}");
            let head = if n.is_multiple_of(2) { 0 } else { 1 };
            for leaf in &finest {
                let measured = join.measure(leaf).unwrap();
                for charge in measured.charges {
                    assert!((head + 1..=leaf.key().len()).contains(&charge.owner), "N = {n}");
                    assert!(charge.seconds > 0.0, "N = {n}");
                }
                assert_eq!(measured.solutions, join.solve(leaf, false).unwrap().total, "N = {n}");
            }
            cut += usize::from(finest.len() > 1);
        }
        assert!(cut > 0, "N = {n}: no row set has pieces");
    }
}

#[test]
fn the_parts_of_a_prefix_are_the_next_split() {
    for n in [8, 9, 12, 13] {
        let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        for depth in 0..join.max_depth() {
            let deeper: Vec<Task> = join.tasks(depth + 1);
            let parts: Vec<Task> =
                join.tasks(depth).iter().flat_map(|task| join.children(task).unwrap()).collect();
            // Parts leave out only the prefixes that put more rows in a half than it
            // has columns, which hold no solution.
            assert!(parts.iter().all(|part| deeper.contains(part)), "N = {n}");
            let dropped: u128 = deeper
                .iter()
                .filter(|task| !parts.contains(task))
                .map(|task| join.solve(task, false).unwrap().total)
                .sum();
            assert_eq!(dropped, 0, "N = {n}, depth {depth}");
        }
    }
}

#[test]
fn row_sets_over_the_budget_count_exactly_in_pieces() {
    let kernels = [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar];
    let kernels = kernels.into_iter().filter(|&kernel| PairKernel::new(kernel).is_some());
    for (n, kernel) in
        [9, 10, 11, 12, 13, 14].into_iter().flat_map(|n| kernels.clone().map(move |k| (n, k)))
    {
        let whole = Join::new(n, kernel, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        let mut total = 0;
        let mut split = false;
        for bytes in whole.geometry.keys(2) {
            let key = whole.geometry.key(&bytes).unwrap();
            let tails = whole.tails_of(&key.split);
            let count = || Count::new(&whole.pair_kernel, Slice::WHOLE);
            let mut walk = Walk::new(&whole.geometry, &whole.budget, &key, &tails, count());
            walk.run();
            // A third of what the task holds whole, so that its largest lists split.
            let lists = (walk.peak_list_bytes / 3).max(1024);
            let budget = Budget { lists, ..whole.budget };
            let mut in_pieces = Walk::new(&whole.geometry, &budget, &key, &tails, count());
            in_pieces.run();
            assert_eq!(in_pieces.goal.tally.total, walk.goal.tally.total, "N = {n}, key {bytes:?}");
            total += in_pieces.goal.tally.total;
            split |= walk.peak_list_bytes > lists;
            // Past the budget by at most one board's extensions in each list.
            let most_per_board = n.div_ceil(2) * size_of::<board::HalfBoard>();
            assert!(
                in_pieces.peak_list_bytes <= lists + (n + 2) * most_per_board,
                "N = {n} peak {} budget {lists} whole {}",
                in_pieces.peak_list_bytes,
                walk.peak_list_bytes
            );
            for walk in [&walk, &in_pieces] {
                let signatures = walk.signature_bytes() / budget::SIGNATURE_BYTES;
                let scratch = walk.goal.pair_scratch.held_bytes();
                let bounds = signatures * pair_count::BOUND_BYTES_PER_SIGNATURE;
                assert!(scratch <= budget::SCRATCH_BYTES as usize + bounds, "N = {n}");
                let sorted = walk.goal.pair_scratch.sorted_bytes();
                assert!(sorted <= signatures * size_of::<u64>(), "N = {n}");
            }
        }
        assert_eq!(total, crate::count(n, crate::Method::Plain).unwrap().total, "N = {n}");
        assert!(split || n < 12, "N = {n} fits the budget whole");
    }
}

/// Row sets over the budget, whose walks free each level once read for the last time and
/// place the other half's rows before a cut half's pieces: exact at a third and a sixth of
/// what the probe says they hold ([`Probe`], whose figure does not move when the count frees
/// more: a third of the count's own peak did), at a third placing at most two fifths
/// more north boards than whole (1.32 now), and at a sixth at most 3.7 times as many
/// (3.55; 4.05 while a cut fill's share counted a level for each row left on each half).
/// In the split's order, which walked the other half's later rows again for every piece
/// and held every level, they placed 1.56 times as many at a third of the probe's figure
/// at N = 16 and 17, and N = 28's largest checked row set 46 times.
#[test]
fn row_sets_in_pieces_place_each_half_about_once() {
    let mut placed = [0u128; 3];
    for n in [16, 17] {
        let whole = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        let keys = whole.geometry.keys(whole.geometry.most_decided());
        for bytes in keys.into_iter().step_by(n) {
            let key = whole.geometry.key(&bytes).unwrap();
            let tails = whole.tails_of(&key.split);
            let walk_within = |budget: &Budget| {
                let count = Count::profiled(&whole.pair_kernel, Slice::WHOLE);
                let mut walk = Walk::new(&whole.geometry, budget, &key, &tails, count);
                walk.run();
                let boards = walk.goal.clock.as_ref().map_or(0, |clock| clock.north_boards);
                (walk.goal.tally.total, boards)
            };
            let (total, boards) = walk_within(&whole.budget);
            placed[0] += boards;
            let unlimited = Probe { limit: usize::MAX };
            let mut probe = Walk::new(&whole.geometry, &whole.budget, &key, &tails, unlimited);
            probe.run();
            for divisor in [3, 6] {
                let lists = (probe.peak_list_bytes / divisor).max(1024);
                let budget = Budget { lists, ..whole.budget };
                let (in_pieces, boards) = walk_within(&budget);
                assert_eq!(in_pieces, total, "N = {n}, key {bytes:?}, a {divisor}th");
                placed[if divisor == 3 { 1 } else { 2 }] += boards;
            }
        }
    }
    let [whole, in_thirds, in_sixths] = placed;
    assert!(5 * in_thirds <= 7 * whole, "{in_thirds} north boards at a third, {whole} whole");
    assert!(10 * in_sixths <= 37 * whole, "{in_sixths} north boards at a sixth, {whole} whole");
}

/// A row set over the budget, which meets its pieces of half-boards in every fill of
/// its north rows, adds up to its slices too.
#[test]
fn slices_of_row_sets_over_the_budget_add_up_to_them() {
    for n in [12, 13, 14] {
        let whole = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        for bytes in whole.geometry.keys(whole.geometry.most_decided()).into_iter().step_by(7) {
            let key = whole.geometry.key(&bytes).unwrap();
            let tails = whole.tails_of(&key.split);
            let mut walk = Walk::new(
                &whole.geometry,
                &whole.budget,
                &key,
                &tails,
                Count::new(&whole.pair_kernel, Slice::WHOLE),
            );
            walk.run();
            let lists = (walk.peak_list_bytes / 3).max(1024);
            let budget = Budget { lists, ..whole.budget };
            let mut sum = 0;
            for index in 0..SLICES {
                let slice = Slice::nth(index, SLICES);
                let timed = Count::timed(&whole.pair_kernel, slice, true, true);
                let mut piece = Walk::new(&whole.geometry, &budget, &key, &tails, timed);
                piece.run();
                sum += piece.goal.tally.total;
                assert!(piece.peak_list_bytes > 0 && walk.peak_list_bytes > lists);
            }
            assert_eq!(sum, walk.goal.tally.total, "N = {n}, key {bytes:?}");
        }
    }
}

#[test]
fn a_budget_bounds_the_estimate() {
    let least = budget::MIN_MEMORY;
    let join = Join::new(18, Kernel::Auto, least, 1).unwrap();
    let unbounded = Join::new(18, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
    let whole = unbounded.bytes_per_thread(u64::MAX).unwrap().unwrap();
    assert!(whole > least, "N = 18 needs {whole} bytes whole");
    assert_eq!(join.bytes_per_thread(u64::MAX).unwrap(), Some(least));
}

#[test]
fn the_count_uses_the_tail_tables_the_probe_built() {
    let join = Join::new(12, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
    join.bytes_per_thread(u64::MAX).unwrap();
    let split = join.geometry.first_split();
    let probed = join.tails.get(split.middle_queen, |_| panic!("the probe left no tables"));
    assert!(probed.same(&join.tails_of(&split)));
}

#[test]
fn tasks_of_the_splits_the_cache_holds_build_no_tables() {
    let join = Join::new(13, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
    let splits = join.geometry.splits();
    let held = &splits[..join.budget.cached_splits];
    assert!(held.len() >= 2, "two threads in neighbouring splits share the cache");
    let first: Vec<_> = held.iter().map(|split| join.tails_of(split)).collect();
    for (split, tails) in held.iter().zip(&first).rev() {
        assert!(tails.same(&join.tails_of(split)), "{:?} rebuilt", split.middle_queen);
    }
}

/// A sample of N = 21 holds every split, beginning with the tables the count's join built;
/// an even board's one split is held by the count's join already.
#[test]
fn a_sample_holds_every_split_and_shares_the_tables_built() {
    let count = Join::new(21, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
    let splits = count.geometry.splits();
    assert!(count.budget.cached_splits < splits.len());
    let built = count.tails_of(&splits[0]);
    let sampled = count.sampled_by(2).expect("N = 21's sample holds more splits");
    assert!(built.same(&sampled.tails_of(&splits[0])), "the sample rebuilt them");
    let first: Vec<_> = splits.iter().map(|split| sampled.tails_of(split)).collect();
    for (split, tails) in splits.iter().zip(&first) {
        assert!(tails.same(&sampled.tails_of(split)), "{:?} rebuilt", split.middle_queen);
    }
    assert!(count.sampled_by(1).is_some(), "one thread's budget holds more splits too");
    let even = Join::new(20, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
    assert!(even.sampled_by(2).is_none());
}

/// A profiled solve counts what a plain one counts, its parts add up to its time, and its
/// pair count's work agrees with the pairs it tested: every group test is of a query
/// against up to a group of lanes, and costs a lookup per chunk.
#[test]
fn a_profile_counts_what_the_solve_counts_and_its_parts_add_up() {
    for n in [9, 12, 14] {
        for kernel in [Kernel::Auto, Kernel::Scalar] {
            let join = Join::new(n, kernel, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
            for task in join.tasks(join.max_depth().min(4)) {
                let plain = join.solve(&task, true).unwrap();
                let (counts, profile) = join.solve_profiled(&task).unwrap();
                assert_eq!(counts.total, plain.total, "N = {n}");
                let counter = |name: &str| profile.counter(name).unwrap();
                assert_eq!(counter("solutions"), plain.total, "N = {n}");
                assert_eq!(counter("pairs tested"), plain.nodes, "N = {n}");
                let (tests, lookups) = (counter("group tests"), counter("lookups"));
                assert!(tests * 512 >= plain.nodes && tests <= plain.nodes, "N = {n}");
                assert!(lookups >= tests && lookups <= 11 * tests, "N = {n}");
                assert_eq!(counter("query bytes"), 8 * tests, "N = {n}");
                let parts: f64 = profile.parts.iter().map(|part| part.seconds).sum();
                assert!(profile.parts.iter().all(|part| part.seconds >= 0.0), "{profile:?}");
                assert!((parts - profile.seconds).abs() <= 1e-9 + 1e-6 * profile.seconds);
            }
        }
    }
}

/// The probe runs on the thread that starts a count, which counts nothing itself: it keeps
/// none of the pages its lists took.
#[test]
#[cfg(target_os = "linux")]
fn the_probes_thread_keeps_no_pages() {
    std::thread::spawn(|| {
        // Room for few tail rows, so that the north rows' lists are long enough for pages.
        let join = Join::new(22, Kernel::Auto, 256 << 20, 1).unwrap();
        let probed = join.probe_bytes(usize::MAX);
        assert!(probed > 32 << 20, "the probe's lists should take pages: {probed} bytes");
        assert_eq!(room::arena_resident_bytes(), 0, "after a probe of {probed} bytes");
    })
    .join()
    .unwrap();
}
