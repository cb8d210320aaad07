/*!
Runs a list of independent tasks on worker threads and folds their results. It knows
nothing of queens: a task is any value with a stable index in its list, solved by a
function into a result that merges associatively.

# Brief overview

* [`Runner`] serves task indices to worker threads over a crossbeam channel, merges
  results on the calling thread, and reports [`Progress`]. Its tasks are a shard of the
  list, or whatever a feed hands out batch by batch ([`Runner::run_fed`]), as another
  process does in a run over several machines.
* [`Checkpoint`] files record the finished tasks and the merged partial result, written
  atomically, so a stopped or killed run resumes where it was, held by one run at a time
  ([`CheckpointLock`]), with what ran each of its sessions ([`Session`]).
* [`CostModel`] predicts what the tasks not yet run will cost from a stratified sample of
  those that have, for the runner's ETA and for estimates made before a run.
* [`Shard`] `I/M` runs one of `M` shares of the list, for runs split over machines.

# Example

```
use nqueens_scheduler::{Finish, Runner};

let tasks: Vec<u64> = (1..=100).collect();
let report = Runner::new(tasks, |&t| Ok::<u64, String>(t * t), |a, b| Ok(a + b), 0)
    .threads(4)
    .run(|_progress| {})?;
assert_eq!((report.result, report.finish), (338_350, Finish::Complete));
# Ok::<(), nqueens_scheduler::RunError<String>>(())
```
*/

#![deny(missing_docs)]

pub use crate::checkpoint::{
    Checkpoint, CheckpointError, Identity, MOST_CHECKPOINT_BYTES, Session, fnv1a,
};
pub use crate::cost::{
    CostModel, INTERVAL_WIDTH, Prediction, makespan, shared_mean_variance, stratified_order,
};
pub use crate::files::write_atomically;
pub use crate::lock::CheckpointLock;
pub use crate::run::{Finish, Progress, Report, RunError, Runner, sample_first_order};
pub use crate::shard::{Shard, ShardError};

mod checkpoint;
mod cost;
mod files;
mod lock;
mod pool;
mod run;
mod shard;
mod state;
