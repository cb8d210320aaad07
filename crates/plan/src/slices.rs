//! A sample taken in slices: it pauses after a slice of time and goes on later, in this
//! process or another, from what it had timed. Several samples that take their slices in
//! turn meet the same machine: on a shared one whose speed drifts by a third over the
//! hours that five samples of N = 28 take one after another, each sample would otherwise
//! time its own stretch of that drift (docs/measurements/plans.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::descent::Timing;
use crate::options::PlanError;

/// How a sample is taken in slices: where it keeps what it has timed, and how long each
/// slice may time afresh before the sample pauses.
#[derive(Clone, Debug)]
pub struct Slices {
    pub so_far: Arc<Mutex<SoFar>>,
    pub length: Duration,
}

/// What a sample taken in slices has timed so far: a slice goes on from it without timing
/// again what it holds, and adds what it times. Kept as JSON between processes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SoFar {
    /// The sample the timings belong to, from its first slice on.
    drawn: Option<Drawn>,
    timings: Vec<Timing>,
}

/// What decides a sample's draws: only a sample drawn alike may go on from another's
/// timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Drawn {
    pub(crate) seed: u64,
    pub(crate) threads: usize,
    pub(crate) tasks: usize,
    pub(crate) depth: usize,
}

/// Which timing of a sample: its draw, whether of the draw's piece, and where its unit's
/// path was cut.
type Which = (usize, bool, usize);

impl SoFar {
    /// How many timings it holds.
    pub fn len(&self) -> usize {
        self.timings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.timings.is_empty()
    }

    /// The timings a slice of the sample `drawn` finds here, by which they are; the
    /// sample's own from now on.
    pub(crate) fn go_on(&mut self, drawn: Drawn) -> Result<HashMap<Which, Timing>, PlanError> {
        match self.drawn {
            Some(earlier) if earlier != drawn => {
                return Err(PlanError::OtherSample(format!(
                    "seed {}, {} threads, {} tasks split {} deep",
                    earlier.seed, earlier.threads, earlier.tasks, earlier.depth
                )));
            }
            _ => self.drawn = Some(drawn),
        }
        Ok(self.timings.iter().map(|t| ((t.draw, t.piece, t.cut), *t)).collect())
    }

    pub(crate) fn add(&mut self, timing: Timing) {
        self.timings.push(timing);
    }
}

/// A sample's clock, in seconds: from its start, or in a slice that goes on from earlier
/// ones, where the latest timing it finds again ended then, and from its first timing
/// afresh on, that and the time since. So a sample's decisions (how long its pilot runs,
/// when its time is up) read the time it has spent in all its slices, and not the time a
/// slice spends finding the earlier ones' timings again: at N = 21, slices of 3 s that
/// counted it took the sample to 29 s where it took 17 to 18 s in one go.
pub(crate) struct Clock {
    /// The clock's reading at an instant, and that instant; none while it stands.
    mark: Mutex<(f64, Option<Instant>)>,
}

impl Clock {
    /// A clock that runs from now, or that stands at nothing until it is `run`.
    pub(crate) fn start(running: bool) -> Clock {
        Clock { mark: Mutex::new((0.0, running.then(Instant::now))) }
    }

    /// Lets a standing clock run on from what it reads.
    pub(crate) fn run(&self) {
        let mut mark = self.mark.lock().unwrap_or_else(PoisonError::into_inner);
        mark.1.get_or_insert_with(Instant::now);
    }

    pub(crate) fn now(&self) -> f64 {
        let (reading, at) = *self.mark.lock().unwrap_or_else(PoisonError::into_inner);
        reading + at.map_or(0.0, |at| at.elapsed().as_secs_f64())
    }

    pub(crate) fn session(&self) -> Duration {
        Duration::from_secs_f64(self.now())
    }

    /// A timing found again, which ended at `ended_s` when it was taken: the clock reads
    /// at least that from now on.
    pub(crate) fn found_again(&self, ended_s: f64) {
        let mut mark = self.mark.lock().unwrap_or_else(PoisonError::into_inner);
        let (reading, at) = *mark;
        if ended_s > reading + at.map_or(0.0, |at| at.elapsed().as_secs_f64()) {
            *mark = (ended_s, at.map(|_| Instant::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timing found again sets the clock to when it ended, if that is later than the
    /// clock reads; the clock never goes back.
    #[test]
    fn timings_found_again_move_the_clock_on_never_back() {
        let clock = Clock::start(true);
        assert!(clock.now() < 1.0);
        clock.found_again(100.0);
        let later = clock.now();
        assert!((100.0..101.0).contains(&later), "{later}");
        clock.found_again(50.0);
        assert!(clock.now() >= later);
    }

    /// A slice's clock stands while it finds the earlier slices' timings again, at the
    /// latest end among them, and runs on from there once it times afresh.
    #[test]
    fn a_slice_clock_stands_until_it_times_afresh() {
        let clock = Clock::start(false);
        clock.found_again(7.0);
        std::thread::sleep(Duration::from_millis(20));
        clock.found_again(5.0);
        assert_eq!(clock.now(), 7.0);
        clock.run();
        std::thread::sleep(Duration::from_millis(20));
        let running = clock.now();
        assert!((7.02..8.0).contains(&running), "{running}");
    }
}
