//! The backtracking engine: plain, mirror-halved and eightfold counts, row by row.
//!
//! A task is a *prefix*, the columns of the queens in the first rows. Every prefix
//! descends from a *root*, a first-row placement whose rules say which columns the rows
//! below may take and what a finished board is worth ([`rules`], [`eightfold`]). The
//! completions below a prefix are counted by the scalar kernel ([`search`]) or, sixteen or
//! eight boards at a time, by a lane kernel ([`lanes`]), which follows the same rules in
//! table form.

mod eightfold;
mod lanes;
mod rules;
mod search;

use self::eightfold::{Border, Corner, EdgeRoot};
use self::lanes::LaneKernel;
use self::rules::{LaneRules, Placed, SearchCount, Unrestricted};
use self::search::Walker;
use crate::counts::Counts;
use crate::engine::{Engine, Setup, Task};
use crate::error::Error;
use crate::kernel::{Kernel, MAX_LANE_N};
use crate::mask::{Mask, MaskWidth};
use crate::placement::Placement;
use crate::simd::Bmi;

/// The backtracking's unit of work: a queen placed.
pub(crate) const WORK_UNIT: &str = "node";

/// The fewest tasks an estimate samples from: backtracking tasks share nothing, so a finer
/// list costs no more in all, and more tasks make a better sample.
const FEWEST_SAMPLED_TASKS: usize = 16384;

/// How much finer than the count's own list an estimate's sampled list is at least, so
/// that a large count's sample is drawn from tasks smaller than its own.
const SAMPLE_FINER: usize = 8;

/// How much of the board's symmetry a backtracking count uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symmetry {
    /// None: every placement is searched.
    None,
    /// The mirror: first-row queens in the left half count twice, the middle column of an
    /// odd board once.
    Mirror,
    /// All eight symmetries, through the edge nearest a corner ([`eightfold`]).
    Eightfold,
}

/// What runs the search below a prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Searcher {
    /// One board at a time, with the BMI instructions where the processor has them.
    Scalar(Option<Bmi>),
    /// Many boards at a time, in vector lanes.
    Lanes(LaneKernel),
}

/// The backtracking engine for one board, symmetry and kernel.
#[derive(Clone, Debug)]
pub(crate) struct Backtrack {
    n: usize,
    width: MaskWidth,
    symmetry: Symmetry,
    placement: Option<Placement>,
    searcher: Searcher,
}

/// How the search below a prefix is restricted and weighed.
#[derive(Clone, Copy, Debug)]
enum Root {
    /// Every completion counts, `weight` times.
    Weighted { weight: u128 },
    /// An eightfold root: completions count by the nearest-edge rule.
    Edge(EdgeRoot),
    /// Every completion holding the placed queens counts once.
    Placed(Placement),
}

/// A task of this engine: a prefix it made, with the root it descends from.
#[derive(Clone, Copy, Debug)]
struct Prefix<'a> {
    columns: &'a [u8],
    root: Root,
}

/// Runs `$body` with `$walker` bound to a scalar walker over `$mask` under `$root`'s rules;
/// the rules differ in type, so each arm is its own monomorphic instance.
macro_rules! with_walker {
    ($n:expr, $mask:ty, $root:expr, |$walker:ident| $body:expr) => {
        match $root {
            Root::Weighted { .. } => {
                let $walker = Walker::<$mask, _>::new($n, &Unrestricted);
                $body
            }
            Root::Edge(EdgeRoot::Corner { bound1 }) => {
                let rules = Corner::<$mask>::new(bound1);
                let $walker = Walker::<$mask, _>::new($n, &rules);
                $body
            }
            Root::Edge(EdgeRoot::Border { bound1 }) => {
                let rules = Border::<$mask>::new($n, bound1);
                let $walker = Walker::<$mask, _>::new($n, &rules);
                $body
            }
            Root::Placed(placement) => {
                let rules = Placed::<$mask>::new($n, &placement);
                let $walker = Walker::<$mask, _>::new($n, &rules);
                $body
            }
        }
    };
}

impl Backtrack {
    /// The engine for `setup`; a lane kernel the processor lacks, or one asked for a
    /// board it cannot hold, is refused with [`Error::Kernel`].
    pub(crate) fn new(setup: &Setup, symmetry: Symmetry) -> Result<Backtrack, Error> {
        let searcher = match setup.kernel {
            Kernel::Scalar => Searcher::Scalar(Bmi::new()),
            Kernel::Auto => match LaneKernel::widest() {
                Some(lanes) if setup.n <= MAX_LANE_N => Searcher::Lanes(lanes),
                _ => Searcher::Scalar(Bmi::new()),
            },
            asked => match LaneKernel::new(asked) {
                Some(lanes) if setup.n <= MAX_LANE_N => Searcher::Lanes(lanes),
                _ => return Err(Error::Kernel { kernel: asked, n: setup.n, max_n: MAX_LANE_N }),
            },
        };
        Ok(Backtrack {
            n: setup.n,
            width: setup.width,
            symmetry,
            placement: setup.placement,
            searcher,
        })
    }

    /// Whether the eightfold edge roots apply; smaller boards are mirrored in half.
    fn uses_edges(&self) -> bool {
        self.symmetry == Symmetry::Eightfold && self.n >= eightfold::MIN_N
    }

    /// The first-row placements every task descends from, before splitting.
    fn roots(&self) -> Vec<Vec<u8>> {
        if self.symmetry == Symmetry::None || self.n == 1 {
            return vec![vec![]];
        }
        if self.uses_edges() {
            return EdgeRoot::prefixes(self.n);
        }
        (0..self.n.div_ceil(2) as u8).map(|c| vec![c]).collect()
    }

    /// The root `columns` descends from, or `None` if it is not a prefix of this count.
    fn root_of(&self, columns: &[u8]) -> Option<Root> {
        if columns.len() > self.max_depth() || columns.iter().any(|&c| usize::from(c) >= self.n) {
            return None;
        }
        if let Some(placement) = self.placement {
            return placement.admits(columns).then_some(Root::Placed(placement));
        }
        if self.symmetry == Symmetry::None || self.n == 1 {
            return Some(Root::Weighted { weight: 1 });
        }
        if self.uses_edges() {
            return EdgeRoot::of(self.n, columns).map(Root::Edge);
        }
        let first = usize::from(*columns.first()?);
        let weight = if 2 * first + 1 < self.n { 2 } else { 1 };
        (2 * first < self.n).then_some(Root::Weighted { weight })
    }

    /// The task's prefix, if this engine made it for this board.
    fn prefix<'t>(&self, task: &'t Task) -> Result<Prefix<'t>, Error> {
        let columns = task.key_for(self)?;
        let root = self.root_of(columns).ok_or_else(|| task.foreign())?;
        Ok(Prefix { columns, root })
    }

    /// The search's tally below `prefix`.
    fn walk(&self, prefix: Prefix<'_>, count_nodes: bool) -> SearchCount {
        // The last rows of a deep prefix are left to the scalar kernel: too few to vectorise.
        let bmi = match self.searcher {
            Searcher::Lanes(lanes) if lanes::fit(self.n, prefix.columns.len()) => {
                let rules = lane_rules(self.n, prefix.root);
                return lanes.count(&rules, prefix.columns, count_nodes);
            }
            Searcher::Lanes(lanes) => Some(lanes.bmi()),
            Searcher::Scalar(bmi) => bmi,
        };
        match self.width {
            MaskWidth::U64 => scalar::<u64>(self.n, prefix, count_nodes, bmi),
            MaskWidth::U128 => scalar::<u128>(self.n, prefix, count_nodes, bmi),
        }
    }
}

impl Engine for Backtrack {
    fn name(&self) -> &'static str {
        match self.symmetry {
            Symmetry::None => "plain",
            Symmetry::Mirror => "half",
            Symmetry::Eightfold => "eightfold",
        }
    }

    fn n(&self) -> usize {
        self.n
    }

    fn kernel(&self) -> Kernel {
        match self.searcher {
            Searcher::Scalar(_) => Kernel::Scalar,
            Searcher::Lanes(lanes) => lanes.kernel(),
        }
    }

    /// Every task leaves at least the last row open.
    fn max_depth(&self) -> usize {
        self.n - 1
    }

    fn tasks(&self, depth: usize) -> Vec<Task> {
        let mut prefixes = Vec::new();
        for root in self.roots() {
            let rules = self.root_of(&root).expect("every root is a prefix of its count");
            match self.width {
                MaskWidth::U64 => {
                    with_walker!(self.n, u64, rules, |w| w.extend(&root, depth, &mut prefixes))
                }
                MaskWidth::U128 => {
                    with_walker!(self.n, u128, rules, |w| w.extend(&root, depth, &mut prefixes))
                }
            }
        }
        prefixes.into_iter().map(|prefix| Task::new(self, prefix)).collect()
    }

    fn sampled_tasks(&self, count_tasks: usize) -> usize {
        FEWEST_SAMPLED_TASKS.max(SAMPLE_FINER * count_tasks)
    }

    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        let prefix = self.prefix(task)?;
        let tally = self.walk(prefix, count_nodes);
        let leaves = tally.leaves.map(u128::from);
        let (total, thirds) = match prefix.root {
            Root::Weighted { weight } => (leaves[0].checked_mul(weight).ok_or(Error::Overflow)?, 0),
            Root::Placed(_) => (leaves[0], 0),
            Root::Edge(edge) => edge.weigh(leaves).ok_or(Error::Overflow)?,
        };
        Ok(Counts { total, thirds, nodes: u128::from(tally.nodes) })
    }
}

/// The rules below `root` in the table form the lane kernels read.
fn lane_rules(n: usize, root: Root) -> LaneRules {
    match root {
        Root::Weighted { .. } => Unrestricted::lane_rules(n),
        Root::Edge(EdgeRoot::Corner { bound1 }) => Corner::<u32>::new(bound1).lane_rules(n),
        Root::Edge(EdgeRoot::Border { bound1 }) => Border::<u32>::new(n, bound1).lane_rules(n),
        Root::Placed(placement) => Placed::<u32>::new(n, &placement).lane_rules(n),
    }
}

fn scalar<M: Mask>(
    n: usize,
    prefix: Prefix<'_>,
    count_nodes: bool,
    bmi: Option<Bmi>,
) -> SearchCount {
    with_walker!(n, M, prefix.root, |w| if count_nodes {
        w.count::<true>(prefix.columns, bmi)
    } else {
        w.count::<false>(prefix.columns, bmi)
    })
}
