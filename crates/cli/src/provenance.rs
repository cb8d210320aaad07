//! What made a result: the engine identity, which decides whether task results may be
//! added up, and the build (commit, and whether its tree had uncommitted changes), which
//! says where to look when something is wrong.

use serde::{Deserialize, Serialize};

/// The build of the program: its commit and whether what it was built from (`crates/`, the
/// Cargo files) had uncommitted changes, new files among them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct Build {
    /// The commit, as 12 hex digits; `unknown` where the build had no git.
    pub(crate) commit: String,
    /// Whether what it was built from differed from the commit; `None` where the build had
    /// no git.
    pub(crate) modified: Option<bool>,
}

impl Build {
    /// This program's build.
    pub(crate) fn this() -> Build {
        Build::from_words(env!("NQUEENS_COMMIT"), env!("NQUEENS_MODIFIED"))
    }

    /// A build as `build.rs` and checkpoint sessions write it: the commit, and `yes`, `no`
    /// or `unknown` for whether it was modified.
    pub(crate) fn from_words(commit: &str, modified: &str) -> Build {
        let modified = match modified {
            "yes" => Some(true),
            "no" => Some(false),
            _ => None,
        };
        Build { commit: commit.to_owned(), modified }
    }

    /// Whether it was modified, as [`Build::from_words`] reads it.
    pub(crate) fn modified_word(&self) -> &'static str {
        match self.modified {
            Some(true) => "yes",
            Some(false) => "no",
            None => "unknown",
        }
    }

    /// Each build of `builds` once, in the order they first come.
    pub(crate) fn distinct(builds: impl IntoIterator<Item = Build>) -> Vec<Build> {
        let mut distinct: Vec<Build> = Vec::new();
        for build in builds {
            if !distinct.contains(&build) {
                distinct.push(build);
            }
        }
        distinct
    }

    /// The commit with a mark where the tree was modified (or may have been).
    pub(crate) fn text(&self) -> String {
        match self.modified {
            Some(false) => self.commit.clone(),
            Some(true) => format!("{} (modified)", self.commit),
            None => format!("{} (modified or not: unknown)", self.commit),
        }
    }
}

/// The one line that refuses to add `what`'s task results (a checkpoint, a shard, a rank)
/// to those of `ours` ("this build's engine 1-...", say): two engines may count a task
/// differently, and their sum would be wrong with nothing to show it. `theirs` is `None`
/// for results written before engines had an identity; `made_by` names the builds that
/// made them, where known; `again` says what to do instead.
pub(crate) fn engines_differ(
    what: &str,
    theirs: Option<&str>,
    ours: &str,
    made_by: &[Build],
    again: &str,
) -> String {
    let commits: Vec<String> = made_by.iter().map(Build::text).collect();
    let builds = match commits.len() {
        0 => String::new(),
        1 => format!(" (commit {})", commits[0]),
        _ => format!(" (commits {})", commits.join(", ")),
    };
    let theirs = match theirs {
        Some(engine) => format!("engine {engine}{builds}"),
        None => format!("a build from before engine identities{builds}"),
    };
    format!(
        "{what} holds task results of {theirs}, not of {ours}; results of two engines are \
         never added up, since a task may count differently in each: {again}"
    )
}
