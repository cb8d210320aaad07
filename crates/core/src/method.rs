//! The ways of counting, and the engine behind each.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::backtrack::{self, Backtrack, Symmetry};
use crate::engine::{Engine, Setup};
use crate::error::Error;
use crate::join::{self, Join, MAX_JOIN_N};

/// How a count is searched. Every method is exact; they differ in speed and in what they
/// learn about symmetry along the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Method {
    /// Every placement, no symmetry.
    Plain,
    /// Mirror halving: first-row queens in the left half count twice, the middle column of an
    /// odd board once.
    Half,
    /// The 8-fold symmetry reduction: only boards whose top edge's queen is in the left half
    /// and no farther from a corner than the other edges' queens are searched, each counting
    /// 8 / (1 + the number of edges as near), so that every solution counts once in all.
    Eightfold,
    /// The half-board join: west and east half-boards are enumerated separately and the
    /// pairs that do not clash are counted in bulk, by symmetry orbits of row sets.
    Join,
}

impl Method {
    /// Every method, in the order the help text lists them.
    pub const ALL: [Method; 4] = [Method::Join, Method::Eightfold, Method::Half, Method::Plain];

    /// The fastest method for an `n`-board, as measured on an x86-64 machine with AVX2
    /// (`cargo xtask bench`, results/README.md names it): the join from N = 16, where its
    /// half-boards become large enough for the bulk pair test to outrun the lane-parallel
    /// backtracking, up to the largest board it splits; the eightfold backtracking below
    /// and above.
    pub fn fastest(n: usize) -> Method {
        if (16..=MAX_JOIN_N).contains(&n) { Method::Join } else { Method::Eightfold }
    }

    /// The method to count an `n`-board with when none is named: the fastest, or with
    /// queens placed in advance the one that takes them ([`crate::Problem::with_placement`]).
    pub fn auto(n: usize, placed: bool) -> Method {
        if placed { Method::Plain } else { Method::fastest(n) }
    }

    /// What the method's node counts count: `"node"` for backtracking (a queen placed),
    /// `"pair"` for the join (a pair of half-boards tested).
    pub fn work_unit(self) -> &'static str {
        match self {
            Method::Plain | Method::Half | Method::Eightfold => backtrack::WORK_UNIT,
            Method::Join => join::WORK_UNIT,
        }
    }

    /// The engine that counts `setup` this way: the one place that maps a method to its
    /// engine.
    pub(crate) fn engine(self, setup: &Setup) -> Result<Arc<dyn Engine>, Error> {
        Ok(match self {
            Method::Plain => Arc::new(Backtrack::new(setup, Symmetry::None)?),
            Method::Half => Arc::new(Backtrack::new(setup, Symmetry::Mirror)?),
            Method::Eightfold => Arc::new(Backtrack::new(setup, Symmetry::Eightfold)?),
            Method::Join => {
                Arc::new(Join::new(setup.n, setup.kernel, setup.memory_per_thread, setup.threads)?)
            }
        })
    }

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Method::Plain => "plain",
            Method::Half => "half",
            Method::Eightfold => "eightfold",
            Method::Join => "join",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a method name that is not one of [`Method::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMethod(pub String);

impl fmt::Display for UnknownMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        write!(f, "unknown method '{}' (expected one of: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownMethod {}

impl FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(s: &str) -> Result<Method, UnknownMethod> {
        Method::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| UnknownMethod(s.to_owned()))
    }
}
