/*!
Exact N-Queens counting engines, and solutions themselves. This crate knows nothing of
threads, files or terminals: it turns a [`Problem`] (board size and [`Method`]) into an
ordered list of independent [`Task`]s, solves one task at a time into [`Counts`] that merge
associatively, and turns the merged counts into an [`Outcome`]: the number of solutions
(OEIS A000170) and the number of classes under the board's 8 symmetries (OEIS A002562).

# Brief overview

* Rows are bitsets of columns in a [`Mask`]: `u64` for N <= 64, `u128` up to N = 128. The
  width is picked once when the problem is built ([`MaskWidth::for_board`]); the search is
  generic and monomorphic inside.
* [`Method::Plain`] searches every placement, [`Method::Half`] mirrors the first row, and
  [`Method::Eightfold`] counts each solution through the board edge nearest a corner.
  The searches run on a [`Kernel`]: sixteen boards per AVX-512 register or eight per
  AVX2 register where the processor has them, one board at a time elsewhere.
* Unique counts come from Burnside's lemma ([`unique_by_burnside`]), with the few
  rotation-symmetric solutions found by a tiny search.
* [`Solution`] is a validated placement with the board's rotations and reflections, used to
  check the engines against an independent brute force; [`Conflict`] names the first two
  queens of a placement that attack each other.
* A [`Placement`] fixes queens in advance ([`Problem::with_placement`]): the plain search
  then counts only the solutions that hold them.
* [`Enumeration`] lists solutions in lexicographic order, all or one per class.
* [`construct`] builds one solution of any size in O(N); [`random_solution`] finds a
  random one by local search.

# Example

```
use nqueens_core::{count, Method};

let eight = count(8, Method::Eightfold)?;
assert_eq!((eight.total, eight.unique), (92, Some(12)));

// The same problem split into tasks, solved one by one and merged.
let problem = nqueens_core::Problem::new(10, Method::Half)?;
let mut counts = nqueens_core::Counts::default();
for task in problem.tasks(3)? {
    counts = counts.merge(&problem.solve(&task, false)?)?;
}
assert_eq!(problem.finish(&counts)?.total, 724);

// Solutions themselves, far beyond what can be counted.
let big = nqueens_core::construct(1_000_000)?;
assert_eq!(big.columns()[..4], [1, 3, 5, 7]);
assert_eq!(nqueens_core::random_solution(1000, 42)?.n(), 1000);
# Ok::<(), nqueens_core::Error>(())
```
*/

#![deny(missing_docs)]

pub use crate::construct::{MAX_CONSTRUCT_N, construct};
pub use crate::counts::Counts;
pub use crate::enumerate::Enumeration;
pub use crate::error::Error;
pub use crate::fixed::{count_rotation_fixed, unique_by_burnside};
pub use crate::mask::{Mask, MaskWidth};
pub use crate::method::{Kernel, Method, UnknownMethod};
pub use crate::placement::Placement;
pub use crate::random::{MAX_RANDOM_N, random_solution};
pub use crate::solution::{Conflict, Solution};

mod backtrack;
mod construct;
mod counts;
mod enumerate;
mod error;
mod fixed;
mod join;
mod lanes;
mod mask;
mod method;
mod placement;
mod random;
mod solution;

use crate::backtrack::{Border, Corner, LaneTables, Rules, Tally, Unrestricted, Walker};
use crate::join::Join;
use crate::placement::Placed;

/// The engine's version: results and checkpoints of different versions are not mixed.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How many times the memory of the join's probe row set a task may need
/// (see [`Problem::bytes_per_thread`]).
pub const JOIN_MEMORY_MARGIN: u64 = 4;

/// The largest board the masks can hold.
pub const MAX_N: usize = 128;

/// A board size and a method: what to count, and how; optionally, queens placed in
/// advance that every counted solution must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    n: usize,
    method: Method,
    width: MaskWidth,
    kernel: Kernel,
    placement: Option<Placement>,
}

/// One independent piece of a count: for backtracking, the columns of the queens in the
/// first rows; for the join, which of the first rows put their queen in the west half
/// (after the middle queens' row and column on an odd board). Tasks are produced in a
/// fixed order by [`Problem::tasks`], so their index in that list is stable from run to run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Task {
    prefix: Vec<u8>,
}

impl Task {
    /// The bytes that say which part of the count this task is.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }
}

/// The answer to a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// All solutions (OEIS A000170), or those holding the placed queens.
    pub total: u128,
    /// Solutions distinct under rotations and reflections (OEIS A002562); `None` when
    /// queens were placed in advance, since a partial board is not symmetric.
    pub unique: Option<u128>,
}

/// How the search below a task's prefix is restricted and weighed.
#[derive(Clone, Copy, Debug)]
enum Root {
    /// Every completion counts, `weight` times.
    Weighted { weight: u128 },
    /// Eightfold, first queen in the corner, second at `(1, bound1)`.
    Corner { bound1: usize },
    /// Eightfold, first queen at `(0, bound1)`, no queen in a corner.
    Border { bound1: usize },
    /// Every completion holding the placed queens counts once.
    Placed { placement: Placement },
}

/// Runs `$body` with `$walker` bound to a walker over `$mask` under `$root`'s rules; the
/// rules differ in type, so each arm is its own monomorphic instance.
macro_rules! with_walker {
    ($problem:expr, $mask:ty, $root:expr, |$walker:ident| $body:expr) => {
        match $root {
            Root::Weighted { .. } => {
                let $walker = Walker::<$mask, _>::new($problem.n, &Unrestricted);
                $body
            }
            Root::Corner { bound1 } => {
                let rules = Corner::<$mask>::new(bound1);
                let $walker = Walker::<$mask, _>::new($problem.n, &rules);
                $body
            }
            Root::Border { bound1 } => {
                let rules = Border::<$mask>::new($problem.n, bound1);
                let $walker = Walker::<$mask, _>::new($problem.n, &rules);
                $body
            }
            Root::Placed { placement } => {
                let rules = Placed::<$mask>::new($problem.n, &placement);
                let $walker = Walker::<$mask, _>::new($problem.n, &rules);
                $body
            }
        }
    };
}

impl Problem {
    /// A problem on the narrowest masks that hold an `n`-board.
    pub fn new(n: usize, method: Method) -> Result<Problem, Error> {
        if !(1..=MAX_N).contains(&n) {
            return Err(Error::BoardSize { n });
        }
        if method == Method::Join && n > join::MAX_JOIN_N {
            return Err(Error::JoinSize { n });
        }
        Ok(Problem {
            n,
            method,
            width: MaskWidth::for_board(n),
            kernel: Kernel::default(),
            placement: None,
        })
    }

    /// The same problem counting only the solutions that hold `queens`, given as 0-based
    /// `(row, column)` pairs in any rows. A partial board has no symmetry to exploit, so
    /// the method must be [`Method::Plain`] ([`Error::PlacementMethod`] otherwise); queens
    /// off the board or attacking each other are refused with [`Error::Placement`].
    pub fn with_placement(self, queens: &[(usize, usize)]) -> Result<Problem, Error> {
        if self.method != Method::Plain {
            return Err(Error::PlacementMethod { method: self.method });
        }
        Ok(Problem { placement: Some(Placement::new(self.n, queens)?), ..self })
    }

    /// The same problem on masks of the given width (wider masks are slower, never wrong).
    pub fn with_width(self, width: MaskWidth) -> Result<Problem, Error> {
        if self.n > width.columns() {
            return Err(Error::MaskTooNarrow { n: self.n, columns: width.columns() });
        }
        Ok(Problem { width, ..self })
    }

    /// The same problem searched with the given backtracking kernel (the join, which has
    /// its own, ignores it). A lane kernel the processor lacks, or one asked for a board
    /// above 28 rows, is refused with [`Error::Kernel`].
    pub fn with_kernel(self, kernel: Kernel) -> Result<Problem, Error> {
        let lanes = matches!(kernel, Kernel::Avx512 | Kernel::Avx2);
        if lanes
            && self.method != Method::Join
            && !(lanes::available(kernel) && self.n <= lanes::MAX_LANE_N)
        {
            return Err(Error::Kernel { kernel, n: self.n });
        }
        Ok(Problem { kernel, ..self })
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The backtracking kernel the search runs on this processor: for [`Kernel::Auto`], the
    /// widest lanes it has if the board fits them; `None` for the join, which has its own.
    pub fn kernel(&self) -> Option<Kernel> {
        if self.method == Method::Join {
            return None;
        }
        if self.kernel != Kernel::Auto {
            return Some(self.kernel);
        }
        let fastest = [Kernel::Avx512, Kernel::Avx2].into_iter().find(|&k| lanes::available(k));
        Some(fastest.filter(|_| self.n <= lanes::MAX_LANE_N).unwrap_or(Kernel::Scalar))
    }

    /// The mask width the search runs on.
    pub fn width(&self) -> MaskWidth {
        self.width
    }

    /// The queens placed in advance, if any.
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }

    /// The deepest split this board allows: for backtracking every task leaves at least the
    /// last row open; the join decides at most every free row.
    pub fn max_depth(&self) -> usize {
        match self.method {
            Method::Join => join::max_depth(self.n),
            _ => error::max_depth(self.n),
        }
    }

    /// Whether the corner and border roots apply; they need room for their bounds, so
    /// smaller boards are mirrored in half.
    fn uses_borders(&self) -> bool {
        self.method == Method::Eightfold && self.n >= 5
    }

    /// The first-row placements every task descends from, before splitting.
    fn roots(&self) -> Vec<Vec<u8>> {
        let n = self.n as u8;
        if self.method == Method::Plain || self.n == 1 {
            return vec![vec![]];
        }
        if !self.uses_borders() {
            return (0..n.div_ceil(2)).map(|c| vec![c]).collect();
        }
        let corners = (2..n - 1).map(|b| vec![0, b]);
        let sides = (1..n).take_while(|&b| b < n - 1 - b).map(|b| vec![b]);
        corners.chain(sides).collect()
    }

    fn root_of(&self, prefix: &[u8]) -> Result<Root, Error> {
        let foreign = || Error::ForeignTask { prefix: prefix.to_vec() };
        if prefix.len() > self.max_depth() || prefix.iter().any(|&c| usize::from(c) >= self.n) {
            return Err(foreign());
        }
        if let Some(placement) = self.placement {
            return if placement.admits(prefix) {
                Ok(Root::Placed { placement })
            } else {
                Err(foreign())
            };
        }
        if self.method == Method::Plain || self.n == 1 {
            return Ok(Root::Weighted { weight: 1 });
        }
        let first = usize::from(*prefix.first().ok_or_else(foreign)?);
        if !self.uses_borders() {
            let weight = if 2 * first + 1 < self.n { 2 } else { 1 };
            return if 2 * first < self.n { Ok(Root::Weighted { weight }) } else { Err(foreign()) };
        }
        if first == 0 {
            let bound1 = usize::from(*prefix.get(1).ok_or_else(foreign)?);
            return if (2..self.n - 1).contains(&bound1) {
                Ok(Root::Corner { bound1 })
            } else {
                Err(foreign())
            };
        }
        if first < self.n - 1 - first { Ok(Root::Border { bound1: first }) } else { Err(foreign()) }
    }

    /// The independent tasks of this count, each a prefix of `depth` rows (or the root's
    /// own rows where those are more), in a fixed order.
    pub fn tasks(&self, depth: usize) -> Result<Vec<Task>, Error> {
        let max = self.max_depth();
        if depth > max {
            return Err(Error::Depth { depth, n: self.n, max });
        }
        if self.method == Method::Join {
            let keys = Join::new(self.n)?.tasks(depth);
            return Ok(keys.into_iter().map(|prefix| Task { prefix }).collect());
        }
        let mut prefixes = Vec::new();
        for root in self.roots() {
            let rules = self.root_of(&root)?;
            match self.width {
                MaskWidth::U64 => {
                    with_walker!(self, u64, rules, |w| w.extend(&root, depth, &mut prefixes))
                }
                MaskWidth::U128 => {
                    with_walker!(self, u128, rules, |w| w.extend(&root, depth, &mut prefixes))
                }
            }
        }
        Ok(prefixes.into_iter().map(|prefix| Task { prefix }).collect())
    }

    /// The shallowest split that yields at least `min_tasks` tasks, or the deepest the
    /// board allows. Deeper splits make more, smaller and more even tasks.
    pub fn depth_for(&self, min_tasks: usize) -> Result<usize, Error> {
        for depth in 0..self.max_depth() {
            if self.tasks(depth)?.len() >= min_tasks {
                return Ok(depth);
            }
        }
        Ok(self.max_depth())
    }

    /// About how many bytes each worker thread needs beyond a fixed few hundred kilobytes,
    /// for the methods whose memory grows with N: the join holds every half-board of a row
    /// set. `None` for backtracking, which needs only a board per thread. Measuring stops
    /// once the figure passes `up_to`, and then returns a figure above `up_to`, so that a
    /// board far too large for the machine is refused in moments, not after a long probe.
    ///
    /// The join's figure is measured, not bounded: the half-boards of one row set with many
    /// of them are built, and their size taken [`JOIN_MEMORY_MARGIN`] times, the most that
    /// any task has needed more than that row set on the boards measured (N = 10 to 18
    /// needed at most 3.6 times).
    pub fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        if self.method != Method::Join {
            return Ok(None);
        }
        let budget = usize::try_from(up_to / JOIN_MEMORY_MARGIN).unwrap_or(usize::MAX);
        let probe = Join::new(self.n)?.probe_bytes(budget) as u64;
        Ok(Some(probe.saturating_mul(JOIN_MEMORY_MARGIN)))
    }

    /// Counts the solutions below one task. `count_nodes` adds the number of placements
    /// made; without it the search compiles without the counter.
    pub fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        if self.method == Method::Join {
            let tally = Join::new(self.n)?
                .solve(&task.prefix)
                .ok_or_else(|| Error::ForeignTask { prefix: task.prefix.clone() })?;
            let nodes = if count_nodes { tally.pairs } else { 0 };
            return Ok(Counts { total: tally.total, nodes, ..Counts::default() });
        }
        let root = self.root_of(&task.prefix)?;
        let tally = match self.width {
            MaskWidth::U64 => walk::<u64>(self, root, &task.prefix, count_nodes),
            MaskWidth::U128 => walk::<u128>(self, root, &task.prefix, count_nodes),
        };
        let leaves = tally.leaves.map(u128::from);
        let (total, thirds) = match root {
            Root::Weighted { weight } => (leaves[0].checked_mul(weight), 0),
            Root::Placed { .. } => (Some(leaves[0]), 0),
            Root::Corner { .. } => (Some(8 * leaves[0]), 0),
            // A board with k ties stands for 8 / (k + 1) solutions; only 8 / 3 leaves a
            // fraction, which `Counts` keeps in thirds.
            Root::Border { .. } => {
                let [alone, one_tie, two_ties, three_ties] = leaves;
                let thirds = 8 * two_ties;
                (Some(8 * alone + 4 * one_tie + thirds / 3 + 2 * three_ties), thirds % 3)
            }
        };
        let total = total.ok_or(Error::Overflow)?;
        Ok(Counts { total, thirds, nodes: u128::from(tally.nodes) })
    }

    /// The answer from the merged counts of every task.
    pub fn finish(&self, counts: &Counts) -> Result<Outcome, Error> {
        if counts.thirds != 0 {
            return Err(Error::Inconsistent(format!(
                "the counts add up to {} and {}/3 solutions",
                counts.total, counts.thirds
            )));
        }
        let unique = if self.placement.is_some() {
            None
        } else {
            Some(unique_by_burnside(self.n, counts.total)?)
        };
        Ok(Outcome { total: counts.total, unique })
    }
}

fn walk<M: Mask>(problem: &Problem, root: Root, prefix: &[u8], count_nodes: bool) -> Tally
where
    Unrestricted: Rules<M>,
    Corner<M>: Rules<M>,
    Border<M>: Rules<M>,
    Placed<M>: Rules<M>,
{
    let kernel = problem.kernel().unwrap_or(Kernel::Scalar);
    // The last rows of a deep prefix are left to the scalar kernel: too few to vectorise.
    if kernel != Kernel::Scalar && lanes::fit(problem.n, prefix.len()) {
        let rules = with_walker!(problem, u32, root, |w| w.rules().lane_rules(problem.n));
        return lanes::count(kernel, &rules, prefix, count_nodes);
    }
    with_walker!(problem, M, root, |w| if count_nodes {
        w.count::<true>(prefix)
    } else {
        w.count::<false>(prefix)
    })
}

/// Counts an `n`-board on one thread, without splitting.
pub fn count(n: usize, method: Method) -> Result<Outcome, Error> {
    let problem = Problem::new(n, method)?;
    let mut counts = Counts::default();
    for task in problem.tasks(0)? {
        counts = counts.merge(&problem.solve(&task, false)?)?;
    }
    problem.finish(&counts)
}
