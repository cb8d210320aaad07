//! The same timings taken again: what a sample timed, found again by its keys and timed as
//! the sample timed it, to tell how fast the machine runs the board's own work now.

use nqueens_core::{Problem, Task};
use nqueens_scheduler::{Finish, Runner};
use serde::{Deserialize, Serialize};

use crate::gate::Gate;
use crate::options::{Options, PlanError, Timed};
use crate::sample::Sample;
use crate::whole::WARM_UP_PER_THREAD;

/// What a sample timed, by key, and the split of the list it drew them from: all that
/// [`time_again`] needs, so that a process started later (a sweep resumed in another
/// session) times the same work as the one that sampled it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedKeys {
    pub depth: usize,
    pub timed: Timed,
    /// Written as hex, one string a key: as JSON arrays, pretty-printed a byte a line, a
    /// panel of thousands of keys took tens of thousands of lines of a committed file.
    #[serde(with = "hex_keys")]
    pub keys: Vec<Vec<u8>>,
}

mod hex_keys {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(keys: &[Vec<u8>], to: S) -> Result<S::Ok, S::Error> {
        let hex = |key: &Vec<u8>| key.iter().map(|byte| format!("{byte:02x}")).collect::<String>();
        to.collect_seq(keys.iter().map(hex))
    }

    /// Keys written as hex, or as arrays of bytes, as the first sweeps wrote them.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Key {
        Hex(String),
        Bytes(Vec<u8>),
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        from: D,
    ) -> Result<Vec<Vec<u8>>, D::Error> {
        let bytes = |hex: &str| {
            if !hex.len().is_multiple_of(2) || !hex.bytes().all(|digit| digit.is_ascii_hexdigit()) {
                return Err(D::Error::custom(format!("not a key in hex: {hex:?}")));
            }
            let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16);
            Ok((0..hex.len()).step_by(2).map(|at| byte(at).expect("two hex digits")).collect())
        };
        Vec::<Key>::deserialize(from)?
            .into_iter()
            .map(|key| match key {
                Key::Hex(hex) => bytes(&hex),
                Key::Bytes(bytes) => Ok(bytes),
            })
            .collect()
    }
}

impl Sample {
    /// What it timed, in the order its timings ended ([`Sample::timings`]).
    pub fn timed_keys(&self) -> TimedKeys {
        TimedKeys {
            depth: self.depth,
            timed: self.timed,
            keys: self.timings.iter().map(|timing| timing.key.clone()).collect(),
        }
    }
}

/// The thread-seconds each of the timings of a sample takes now, in their order
/// ([`Sample::timed_keys`]): the tasks, units or pieces it timed, found again by their keys
/// and timed as it timed them, on the options' threads, after the same untimed warm-up
/// (the first of them again, as many a thread as a sample runs). The same keys take the same work
/// every time, so that timings of them taken hours apart say how far the machine's speed
/// moved for the work the board does (a small board's count, resident in the caches, did
/// not follow a Zen 5 whose memory slowed: docs/measurements/plans.md). `None` if stopped.
pub fn time_again(
    problem: &Problem,
    timed_keys: &TimedKeys,
    options: &Options,
) -> Result<Option<Vec<f64>>, PlanError> {
    let list = problem.tasks(timed_keys.depth)?;
    let found = (timed_keys.keys.iter())
        .map(|key| task_of(problem, &list, key))
        .collect::<Result<Vec<Task>, PlanError>>()?;
    // Item k < timed is timing k; the warm-ups, served first, come after them.
    let timed = found.len();
    let warm_up: Vec<Task> =
        found.iter().cycle().take(WARM_UP_PER_THREAD * options.threads).cloned().collect();
    let mut tasks: Vec<(usize, Task)> = found.into_iter().chain(warm_up).enumerate().collect();
    tasks.rotate_left(timed);
    let (solver, gate) = (problem.for_sample(options.threads), Gate::default());
    let whole = timed_keys.timed == Timed::Tasks;
    let runner = Runner::new(
        tasks,
        move |(at, task): &(usize, Task)| {
            let seconds = if whole {
                gate.solve_timed(&solver, task)?.1.as_secs_f64()
            } else {
                gate.measure(&solver, task)?.1
            };
            Ok::<_, nqueens_core::Error>(if *at < timed { vec![(*at, seconds)] } else { vec![] })
        },
        |a: &Vec<(usize, f64)>, b: &Vec<(usize, f64)>| Ok(a.iter().chain(b).copied().collect()),
        Vec::new(),
    )
    .threads(options.threads)
    .stop_flag(options.stop.clone());
    let report = runner.run(|_| {})?;
    if report.finish != Finish::Complete {
        return Ok(None);
    }
    let mut seconds = vec![0.0; timed];
    for (at, taken) in report.result {
        seconds[at] = taken;
    }
    Ok(Some(seconds))
}

/// The task of `key` below `list` (the list a sample drew from): the list's task its key
/// begins with, then the child or piece of each whose key it begins with, down to the key
/// itself.
fn task_of(problem: &Problem, list: &[Task], key: &[u8]) -> Result<Task, PlanError> {
    let unknown = || PlanError::UnknownKey(key.to_vec());
    let mut task =
        list.iter().find(|task| key.starts_with(task.key())).ok_or_else(unknown)?.clone();
    while task.key() != key {
        let mut finer = problem.children(&task)?;
        if finer.is_empty() {
            finer = problem.pieces(&task)?;
        }
        let within =
            |finer: &Task| finer.key().len() > task.key().len() && key.starts_with(finer.key());
        task = finer.into_iter().find(within).ok_or_else(unknown)?;
    }
    Ok(task)
}

#[cfg(test)]
mod tests {
    use nqueens_core::Method;

    use super::*;
    use crate::Unwatched;

    /// Every key a sample timed, of whole tasks, of units or of pieces, is found again and
    /// timed; a key no task of the board has is refused.
    #[test]
    fn what_a_sample_timed_is_timed_again_by_its_keys() {
        let mut kinds = Vec::new();
        let boards = [
            (12, Method::Plain, None),
            (14, Method::Join, Some(Timed::Units)),
            (14, Method::Join, Some(Timed::Pieces)),
        ];
        for (n, method, timed) in boards {
            let problem = Problem::new(n, method).unwrap();
            let list = crate::TaskList::of(&problem, 2).unwrap();
            let options = Options {
                timed,
                sample_time: Some(std::time::Duration::from_millis(300)),
                ..Options::new(2, 3)
            };
            let (_, sample, _) =
                crate::estimate(&problem, &list, 0.0, &options, &Unwatched).unwrap().unwrap();
            kinds.push(sample.timed());
            assert!(!sample.timings().is_empty(), "N = {n}");
            for timing in sample.timings() {
                let found = task_of(&problem, &sample.list, &timing.key).unwrap();
                assert_eq!(found.key(), timing.key, "N = {n}");
            }
            // What another process reads back of it times the same keys.
            let keys = sample.timed_keys();
            let read: TimedKeys =
                serde_json::from_str(&serde_json::to_string(&keys).unwrap()).unwrap();
            assert_eq!(read, keys, "N = {n}");
            let seconds = time_again(&problem, &read, &options).unwrap().unwrap();
            assert_eq!(seconds.len(), sample.timings().len());
            assert!(seconds.iter().all(|s| *s > 0.0), "N = {n}: {seconds:?}");
        }
        // Whole tasks, the units or the tasks just above them, and pieces.
        assert!(
            matches!(kinds[..], [Timed::Tasks, Timed::Units | Timed::Finer, Timed::Pieces]),
            "{kinds:?}"
        );
        let problem = Problem::new(12, Method::Join).unwrap();
        let list = problem.tasks(2).unwrap();
        let refused = task_of(&problem, &list, &[7; 40]).unwrap_err();
        assert!(matches!(refused, PlanError::UnknownKey(_)), "{refused}");
        // A key that begins as a task of the list and goes on as none below it does.
        let astray = [list[0].key(), &[9]].concat();
        let refused = task_of(&problem, &list, &astray).unwrap_err();
        assert!(matches!(refused, PlanError::UnknownKey(_)), "{refused}");
    }

    /// Keys are written as hex and read back from it, or from the arrays of bytes the
    /// first sweeps wrote; what is neither is refused.
    #[test]
    fn timed_keys_are_written_in_hex_and_read_in_either_form() {
        let keys =
            TimedKeys { depth: 4, timed: Timed::Pieces, keys: vec![vec![0, 10, 255], vec![]] };
        let written = serde_json::to_value(&keys).unwrap();
        assert_eq!(written["keys"], serde_json::json!(["000aff", ""]));
        assert_eq!(serde_json::from_value::<TimedKeys>(written.clone()).unwrap(), keys);
        let mut as_arrays = written;
        as_arrays["keys"] = serde_json::json!([[0, 10, 255], []]);
        assert_eq!(serde_json::from_value::<TimedKeys>(as_arrays).unwrap(), keys);
        for odd in ["0a1", "zz", "+1"] {
            let json = serde_json::json!({ "depth": 4, "timed": "pieces", "keys": [odd] });
            assert!(serde_json::from_value::<TimedKeys>(json).is_err(), "{odd}");
        }
    }
}
