/*!
Runs a list of independent tasks and folds their results. It knows nothing of queens.
*/

#![deny(missing_docs)]

/// Solves every task in order on the calling thread and folds the results with `merge`.
pub fn run_sequential<T, R, E>(
    tasks: &[T],
    solve: impl Fn(&T) -> Result<R, E>,
    merge: impl Fn(&R, &R) -> Result<R, E>,
    empty: R,
) -> Result<R, E> {
    tasks.iter().try_fold(empty, |acc, task| merge(&acc, &solve(task)?))
}
