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
* [`Method::Join`], the default from N = 16 ([`Method::fastest`]), counts by meeting in
  the middle: it builds the west and east half-boards of each choice of the rows whose
  queens stand west, one choice per symmetry orbit, and counts the pairs of half-boards
  that share no diagonal, 64 to 512 pairs per instruction, in a memory budget per thread
  ([`Problem::with_memory_per_thread`], [`Problem::fit_memory`]).
* [`Method::Plain`] searches every placement, [`Method::Half`] mirrors the first row, and
  [`Method::Eightfold`] counts each solution through the board edge nearest a corner.
  The searches run on a [`Kernel`]: sixteen boards per AVX-512 register or eight per
  AVX2 register where the processor has them, one board at a time elsewhere; the join's
  pair test runs on the same kernels.
* Every task is tagged with the method and board size that made it; a task handed to
  another problem is refused ([`Error::ForeignTask`]), never counted.
* Unique counts come from Burnside's lemma ([`unique_by_burnside`]), with the few
  rotation-symmetric solutions found by a tiny search.
* [`Solution`] is a validated placement with the board's rotations and reflections, used to
  check the engines against an independent brute force; [`Conflict`] names the first two
  queens of a placement that attack each other.
* A [`Placement`] fixes queens in advance ([`Problem::with_placement`]): the plain search
  then counts only the solutions that hold them.
* [`Enumeration`] lists solutions in lexicographic order, all or one per class.
* [`construct()`] builds one solution of any size in O(N); [`random_solution`] finds a
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
pub use crate::engine::{
    Charge, Counter, DEFAULT_MEMORY_PER_THREAD, Measurement, Part, Profile, Task,
};
pub use crate::enumerate::{Enumeration, EnumerationTask};
pub use crate::error::Error;
pub use crate::fixed::{Turn, UnknownTurn, count_rotation_fixed, unique_by_burnside};
pub use crate::identity::{ENGINE_DIGEST, ENGINE_IDENTITY, ENGINE_VERSION};
pub use crate::kernel::{Kernel, MAX_LANE_N};
pub use crate::mask::{MAX_N, Mask, MaskWidth};
pub use crate::method::{Method, UnknownMethod};
pub use crate::placement::Placement;
pub use crate::problem::{MemoryLimit, MemoryPlan, Outcome, Problem, count};
pub use crate::published::{SolutionsOf, solutions_of};
pub use crate::random::{MAX_RANDOM_N, random_solution};
pub use crate::simd::{KERNEL_INSTRUCTION_SETS, Processor, instruction_sets, processor};
pub use crate::solution::{Conflict, Solution};

mod backtrack;
mod construct;
mod counts;
mod engine;
mod enumerate;
mod error;
mod fixed;
mod identity;
mod join;
mod kernel;
mod mask;
mod method;
mod placement;
mod problem;
mod published;
mod random;
mod simd;
mod solution;
