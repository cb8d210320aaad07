//! `nqueens count --mpi`: one count shared among the ranks of an MPI job.
//!
//! Every rank builds the same task list from the same arguments, so tasks travel as indices.
//! Rank 0's main thread is the coordinator: it checks that every rank counts the same thing,
//! hands out batches of task indices on request (or, with `--mpi-static`, lets each rank run
//! its shard), gathers each rank's merged counts, sums them and prints the usual report. Its
//! own share runs on a second thread, which talks to the coordinator over channels as the
//! other ranks do over MPI; only the main thread of a rank calls MPI.
//!
//! This module knows the engine only through the run's [`RunSpec`], `Problem::solve`,
//! `Problem::finish` and `Counts::merge`, so every method runs under MPI.
//!
//! A rank that fails prints why, with its rank, and aborts the whole job: MPI then ends every
//! rank, so no rank waits for one that is gone.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mpi::Rank;
use mpi::environment::Threading;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use nqueens_core::{Counts, Problem, Task};
use nqueens_plan::Sharing;
use nqueens_scheduler::{Progress, Report, RunError, Runner, Shard};
use serde::{Deserialize, Serialize};

use crate::cli::CountArgs;
use crate::exit::usage;
use crate::output::say;
use crate::progress::Display;
use crate::provenance::engines_differ;
use crate::report::{CountReport, Finished, NodeStats};
use crate::spec::{RunIdentity, RunSpec};
use crate::unique;

/// How often a rank tells rank 0 how far it is, for the progress display.
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// How long rank 0's coordinator sleeps when no rank has anything to say. Short, so that a
/// rank asking for tasks waits little; a probe per wake-up costs next to nothing.
const POLL: Duration = Duration::from_micros(200);

/// Batches per rank that the remaining tasks are cut into: the batches shrink as the count
/// nears its end, so the ranks finish close together (guided self-scheduling).
const BATCHES_PER_RANK: usize = 4;

/// What a rank tells rank 0.
#[derive(Debug, Serialize, Deserialize)]
enum Note {
    /// What the rank counts and its thread count, sent first.
    Hello { run: RunIdentity, threads: usize },
    /// How far the rank is: tasks done and their merged counts.
    Status { done: usize, partial: Counts },
    /// How far the rank is, and a request for the next batch of tasks.
    Ask { done: usize, partial: Counts },
    /// The rank's last word: every task it ran, merged.
    Done { done: usize, counts: Counts },
}

/// Where each rank stands, as rank 0 knows it.
#[derive(Clone, Debug, Default)]
struct RankState {
    threads: Option<usize>,
    done: usize,
    partial: Counts,
    finished: bool,
}

pub(crate) fn run(args: &CountArgs, problem: Problem, threads: usize) -> anyhow::Result<ExitCode> {
    let (universe, threading) = mpi::initialize_with_threading(Threading::Funneled)
        .context("MPI was initialized already")?;
    if threading < Threading::Funneled {
        bail!("the MPI library cannot be used beside worker threads (MPI_THREAD_FUNNELED)");
    }
    let world = universe.world();
    let rank = world.rank();
    let ranks = world.size() as usize;
    match share(args, problem, threads, &world) {
        Ok(code) => Ok(code),
        Err(err) => {
            say!("rank {rank} of {ranks}: {err:#}");
            // Ends every rank, with the status of the convention: the others may be
            // waiting for this one.
            world.abort(i32::from(crate::exit::status_of(&err)))
        }
    }
}

/// The unique count, with the rotation-fixed counts on rank 0's threads; under MPI no
/// handler stops them, a signal ends the rank.
fn finish_here(problem: &Problem, counts: &Counts, threads: usize) -> anyhow::Result<Option<u128>> {
    let never = Arc::new(AtomicBool::new(false));
    let outcome = unique::finish(problem, counts, threads, never)?;
    Ok(outcome.context("the rotation-fixed counts stopped unasked")?.unique)
}

/// This rank's part of the count: coordinating and counting on rank 0, counting elsewhere.
fn share(
    args: &CountArgs,
    problem: Problem,
    threads: usize,
    world: &SimpleCommunicator,
) -> anyhow::Result<ExitCode> {
    let ranks = world.size() as usize;
    // The split may depend on the number of ranks, never on one machine's threads: every
    // rank must build the same task list.
    let spec = RunSpec::new(problem, args.depth, Sharing::Shared { processes: ranks })?;
    let RunSpec { problem, tasks, identity } = spec;
    let share = Share {
        problem: problem.clone(),
        stats: args.stats,
        threads,
        shard: args.mpi_static.then(|| Shard::new(world.rank() as usize, ranks)).transpose()?,
    };
    if world.rank() != 0 {
        share.count_for_root(tasks, identity, world)?;
        return Ok(ExitCode::SUCCESS);
    }

    let started = Instant::now();
    let mut coordinator = Coordinator {
        world,
        run: identity.clone(),
        next: 0,
        ranks: vec![RankState::default(); ranks],
        display: Display::new(args.board.progress()),
        started,
    };
    let counts = coordinator.serve(share, tasks)?;
    let elapsed = started.elapsed();
    let all_threads = coordinator.ranks.iter().filter_map(|r| r.threads).sum();
    let finished = Finished {
        kernel: Some(problem.kernel()),
        threads: Some(all_threads),
        sessions: None,
        resumed: false,
        shard_builds: None,
        counts,
        unique: finish_here(&problem, &counts, threads)?,
        elapsed_s: elapsed.as_secs_f64(),
        shard: None,
        stats: args.stats.then(|| {
            let thread_seconds = elapsed.as_secs_f64() * all_threads as f64;
            NodeStats::of_this_process(counts.nodes, problem.work_unit(), thread_seconds)
        }),
        host: None,
        audit: None,
        by_task: None,
    };
    CountReport::new(identity, finished).print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// What one rank counts, and how.
#[derive(Clone, Debug)]
struct Share {
    problem: Problem,
    stats: bool,
    threads: usize,
    /// This rank's shard with `--mpi-static`; without, rank 0 hands out batches.
    shard: Option<Shard>,
}

impl Share {
    /// Runs this rank's tasks: its shard, or the batches `ask` gets from rank 0, telling
    /// `tell` how far it is every so often.
    fn count(
        self,
        tasks: Vec<Task>,
        mut ask: impl FnMut(&Progress<'_, Counts>) -> Vec<usize>,
        mut tell: impl FnMut(&Progress<'_, Counts>),
    ) -> Result<Report<Counts>, RunError<nqueens_core::Error>> {
        let (problem, stats) = (self.problem, self.stats);
        let runner = Runner::new(
            tasks,
            move |task: &Task| problem.solve(task, stats),
            |a: &Counts, b: &Counts| a.merge(b),
            Counts::default(),
        )
        .threads(self.threads);
        let mut last_told: Option<Instant> = None;
        let every_so_often = |progress: &Progress<'_, Counts>| {
            if last_told.is_none_or(|at| at.elapsed() >= REPORT_EVERY) {
                last_told = Some(Instant::now());
                tell(progress);
            }
        };
        match self.shard {
            Some(shard) => runner.shard(shard).run(every_so_often),
            None => runner.run_fed(|progress| Ok(ask(progress)), every_so_often),
        }
    }

    /// The share of a rank other than 0: every word to rank 0 goes over MPI.
    fn count_for_root(
        self,
        tasks: Vec<Task>,
        run: RunIdentity,
        world: &SimpleCommunicator,
    ) -> anyhow::Result<()> {
        let root = world.process_at_rank(0);
        let send = |note: &Note| root.send(&encode(note)[..]);
        send(&Note::Hello { run, threads: self.threads });
        let report = self
            .count(
                tasks,
                |p| {
                    send(&Note::Ask { done: p.done, partial: *p.partial });
                    let (batch, _) = root.receive_vec::<u64>();
                    batch.into_iter().map(|index| index as usize).collect()
                },
                |p| send(&Note::Status { done: p.done, partial: *p.partial }),
            )
            .context("count failed")?;
        send(&Note::Done { done: report.done, counts: report.result });
        Ok(())
    }
}

/// Rank 0's side of the count.
struct Coordinator<'w> {
    world: &'w SimpleCommunicator,
    /// What rank 0 counts, which every rank's count must equal.
    run: RunIdentity,
    /// The first task not yet handed out, when rank 0 hands out batches.
    next: usize,
    ranks: Vec<RankState>,
    display: Display,
    started: Instant,
}

impl Coordinator<'_> {
    /// Counts rank 0's share on a second thread while answering every rank, and returns
    /// the counts of all tasks once every rank is done.
    fn serve(&mut self, share: Share, tasks: Vec<Task>) -> anyhow::Result<Counts> {
        let (notes, inbox) = mpsc::channel::<anyhow::Result<Note>>();
        let (batches, batch) = mpsc::channel::<Vec<usize>>();
        let run = self.run.clone();
        let local = thread::spawn(move || {
            let say = |note| {
                // The coordinator stops listening only on an error it reports itself.
                let _ = notes.send(Ok(note));
            };
            say(Note::Hello { run, threads: share.threads });
            let outcome = share.count(
                tasks,
                |p| {
                    say(Note::Ask { done: p.done, partial: *p.partial });
                    batch.recv().unwrap_or_default()
                },
                |p| say(Note::Status { done: p.done, partial: *p.partial }),
            );
            match outcome {
                Ok(report) => say(Note::Done { done: report.done, counts: report.result }),
                Err(err) => {
                    let _ = notes.send(Err(anyhow::Error::new(err).context("count failed")));
                }
            }
        });

        let mut shown = Instant::now();
        while self.ranks.iter().any(|r| !r.finished) {
            let mut idle = true;
            if let Some((message, status)) = self.world.any_process().immediate_matched_probe() {
                let (bytes, _) = (message, status).matched_receive_vec::<u8>();
                let sender = status.source_rank();
                let note = serde_json::from_slice(&bytes)
                    .with_context(|| format!("rank {sender} sent something that is not a note"))?;
                self.hear(sender, note, &batches)?;
                idle = false;
            }
            match inbox.try_recv() {
                Ok(note) => {
                    self.hear(0, note?, &batches)?;
                    idle = false;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) if self.ranks[0].finished => {}
                Err(TryRecvError::Disconnected) => {
                    bail!("rank 0's counting thread ended without a result")
                }
            }
            if shown.elapsed() >= Duration::from_millis(100) {
                self.show();
                shown = Instant::now();
            }
            if idle {
                thread::sleep(POLL);
            }
        }
        self.show();
        self.display.finish();
        // Its last note is sent: the thread is ending, and cannot have panicked.
        let _ = local.join();

        let done: usize = self.ranks.iter().map(|r| r.done).sum();
        if done != self.run.tasks {
            bail!("the ranks ran {done} tasks, but the count has {}", self.run.tasks);
        }
        let counts = self
            .ranks
            .iter()
            .try_fold(Counts::default(), |sum, r| sum.merge(&r.partial))
            .context("summing the ranks' counts failed")?;
        Ok(counts)
    }

    /// Takes in one note from `rank`, answering an `Ask` with the next batch.
    fn hear(
        &mut self,
        rank: Rank,
        note: Note,
        local_batches: &mpsc::Sender<Vec<usize>>,
    ) -> anyhow::Result<()> {
        let ranks = self.ranks.len();
        let state = &mut self.ranks[rank as usize];
        if state.finished {
            bail!("rank {rank} spoke after its last word: {note:?}");
        }
        match note {
            Note::Hello { run, threads } => {
                if run.engine != self.run.engine {
                    return Err(usage!(
                        "{}",
                        engines_differ(
                            &format!("rank {rank}"),
                            run.engine.as_deref(),
                            &format!("rank 0's engine {}", self.run.engine_text()),
                            &[],
                            "run every rank with builds of one engine",
                        )
                    ));
                }
                if let Some(difference) = self.run.difference(&run) {
                    bail!("rank {rank} counts something else: {difference} on rank 0");
                }
                state.threads = Some(threads);
            }
            _ if state.threads.is_none() => bail!("rank {rank} did not say what it counts"),
            Note::Status { done, partial } => (state.done, state.partial) = (done, partial),
            Note::Ask { done, partial } => {
                (state.done, state.partial) = (done, partial);
                let left = self.run.tasks - self.next;
                let size = left.div_ceil(BATCHES_PER_RANK * ranks);
                let batch = self.next..self.next + size;
                self.next = batch.end;
                if rank == 0 {
                    // Only a count that failed stops listening, and that failure comes next.
                    let _ = local_batches.send(batch.collect());
                } else {
                    let indices: Vec<u64> = batch.map(|index| index as u64).collect();
                    self.world.process_at_rank(rank).send(&indices[..]);
                }
            }
            Note::Done { done, counts } => {
                (state.done, state.partial, state.finished) = (done, counts, true);
            }
        }
        Ok(())
    }

    /// Updates the progress display with every rank's last report.
    fn show(&mut self) {
        // An overflow here is reported, with context, when the final counts are summed.
        let partial = self
            .ranks
            .iter()
            .try_fold(Counts::default(), |sum, r| sum.merge(&r.partial))
            .unwrap_or_default();
        let session = self.started.elapsed();
        self.display.update(&Progress {
            done: self.ranks.iter().map(|r| r.done).sum(),
            total: self.run.tasks,
            resumed: 0,
            partial: &partial,
            elapsed: session,
            session,
            // Ranks report counts, not the time each task took.
            eta: None,
            // A run over MPI has no checkpoint.
            checkpoint_failure: None,
        });
    }
}

fn encode(note: &Note) -> Vec<u8> {
    serde_json::to_vec(note).expect("a note has no map keys that JSON cannot hold")
}
