//! `nqueens list`: solutions streamed in lexicographic order.
//!
//! The listing is split into tasks, the placements of the first rows in lexicographic
//! order. Worker threads take tasks in that order and send each task's solutions over a
//! channel of its own; the printing thread reads the channels one task after another, so
//! the output is in order while later tasks are already being searched. The channels are
//! bounded, so a worker that runs ahead waits, and memory stays small however long the
//! listing. When the printing stops (a `--limit`, a closed pipe), dropping the channels
//! makes every worker's next send fail, and the workers end.

use std::collections::BTreeMap;
use std::io::{BufWriter, IsTerminal, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use nqueens_core::{Enumeration, EnumerationTask, Solution};

use crate::cli::{Format, ListArgs};
use crate::{output, show};

/// Solutions a task's channel holds before its worker waits for the printer.
const CHANNEL_CAPACITY: usize = 256;

/// Rows fixed in each task: a few dozen tasks to hundreds, enough to keep every thread
/// busy while the printer works through them in order.
const TASK_DEPTH: usize = 2;

pub(crate) fn run(args: ListArgs) -> anyhow::Result<ExitCode> {
    crate::signals::end_at_once("listing solutions")?;
    let enumeration = Enumeration::new(args.n, args.unique)?;
    let format = args.printed.format();
    if format == Format::Board {
        show::check_drawable(args.n)?;
    }
    let threads = crate::spec::threads(args.workers.threads)?;
    let tasks = enumeration.tasks(TASK_DEPTH.min(args.n - 1))?;
    let limit = args.limit.map_or(usize::MAX, |limit| usize::try_from(limit).unwrap_or(usize::MAX));
    // A terminal sees each solution as it is found; a pipe gets full buffers, and at
    // least every FLUSH_EVERY what is found, so a slow listing still streams.
    let interactive = std::io::stdout().is_terminal();
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, output::stdout()?);
    let mut flushed = Instant::now();
    for solution in InOrder::start(enumeration, tasks, threads).take(limit) {
        let solution = solution?;
        let printed = show::write(&mut out, &solution, format).and_then(|()| {
            if format == Format::Board {
                writeln!(out)?;
            }
            if interactive || flushed.elapsed() >= FLUSH_EVERY {
                flushed = Instant::now();
                out.flush()?;
            }
            Ok(())
        });
        if let Err(error) = printed {
            show::unless_closed(Err(error))?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    show::unless_closed(out.flush())?;
    Ok(ExitCode::SUCCESS)
}

/// The bytes of output gathered before a write to a pipe or file.
const OUTPUT_BUFFER: usize = 1 << 16;

/// The longest a found solution waits in the buffer.
const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// What a worker sends over a task's channel.
enum Message {
    Found(Solution),
    Failed(nqueens_core::Error),
    /// The task is done; a channel closed without it lost its worker.
    Done,
}

/// The solutions of every task, in task order, searched by worker threads.
struct InOrder {
    /// The task whose solutions come next.
    next: usize,
    /// Its channel, once its worker has opened it.
    current: Option<Receiver<Message>>,
    /// The number of tasks.
    tasks: usize,
    /// Each task's channel, sent by the worker that took the task.
    opened: Receiver<(usize, Receiver<Message>)>,
    /// Channels of tasks after `next`, opened before their turn.
    waiting: BTreeMap<usize, Receiver<Message>>,
}

impl InOrder {
    fn start(enumeration: Enumeration, tasks: Vec<EnumerationTask>, threads: usize) -> InOrder {
        let count = tasks.len();
        let tasks: Arc<[EnumerationTask]> = tasks.into();
        let taken = Arc::new(AtomicUsize::new(0));
        let (open, opened) = channel();
        for _ in 0..threads.min(count) {
            let (tasks, taken, open) = (Arc::clone(&tasks), Arc::clone(&taken), open.clone());
            // Detached: a worker deep in a search that finds nothing for a while must not
            // hold up the end of the program once the printer has stopped.
            thread::spawn(move || work(enumeration, &tasks, &taken, &open));
        }
        InOrder { next: 0, current: None, tasks: count, opened, waiting: BTreeMap::new() }
    }
}

/// Takes tasks in order until there are none left or nobody reads any more.
fn work(
    enumeration: Enumeration,
    tasks: &[EnumerationTask],
    taken: &AtomicUsize,
    open: &Sender<(usize, Receiver<Message>)>,
) {
    loop {
        // Relaxed: the counter only hands out distinct indices; the tasks are immutable.
        let index = taken.fetch_add(1, Ordering::Relaxed);
        let Some(task) = tasks.get(index) else {
            return;
        };
        let (send, receive) = sync_channel(CHANNEL_CAPACITY);
        if open.send((index, receive)).is_err() {
            return;
        }
        let end =
            enumeration.each_solution(task, |solution| match send.send(Message::Found(solution)) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            });
        let last = match end {
            Ok(ControlFlow::Continue(())) => Message::Done,
            Ok(ControlFlow::Break(())) => return,
            Err(error) => Message::Failed(error),
        };
        if send.send(last).is_err() {
            return;
        }
    }
}

impl Iterator for InOrder {
    type Item = anyhow::Result<Solution>;

    fn next(&mut self) -> Option<anyhow::Result<Solution>> {
        loop {
            if let Some(current) = &self.current {
                match current.recv() {
                    Ok(Message::Found(solution)) => return Some(Ok(solution)),
                    Ok(Message::Failed(error)) => return Some(Err(error.into())),
                    Ok(Message::Done) => {
                        self.current = None;
                        self.next += 1;
                    }
                    Err(_) => return Some(Err(anyhow!("a listing thread stopped unexpectedly"))),
                }
            }
            if self.next == self.tasks {
                return None;
            }
            while !self.waiting.contains_key(&self.next) {
                match self.opened.recv() {
                    Ok((index, channel)) => {
                        self.waiting.insert(index, channel);
                    }
                    Err(_) => {
                        return Some(Err(anyhow!("the listing threads stopped unexpectedly")));
                    }
                }
            }
            self.current = self.waiting.remove(&self.next);
        }
    }
}
