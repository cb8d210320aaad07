//! Where and with what a benchmark ran: the machine, the toolchain and the source.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use nqueens_core::ENGINE_IDENTITY;
use serde::{Deserialize, Serialize};

/// The machine a sweep ran on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Host {
    pub(crate) os: String,
    pub(crate) kernel: String,
    pub(crate) cpu_model: String,
    /// The processor's family and model numbers, which tell apart generations that share
    /// a model name (an "AMD EPYC" is a Zen 3, 4 or 5), and its first-level data cache per
    /// core, which the join's speed follows; `None` in files written before they were
    /// recorded, or where the system does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_family: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_model_number: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) l1d_bytes: Option<u64>,
    pub(crate) logical_cpus: usize,
    pub(crate) physical_cores: usize,
    pub(crate) memory_bytes: u64,
    /// Which of the instruction sets the kernels choose by
    /// ([`nqueens_core::KERNEL_INSTRUCTION_SETS`]) they would use here; empty in files
    /// written before it was recorded.
    #[serde(default)]
    pub(crate) instruction_sets: Vec<String>,
}

/// The toolchain and source a sweep was built from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Build {
    pub(crate) git_commit: String,
    /// Whether what the binary is built from (`crates/`, the Cargo files) had uncommitted
    /// changes; in files written before 2026-11-26, whether any tracked file had (the
    /// results being written among them).
    pub(crate) git_dirty: bool,
    /// The engine identity of the build measured (`nqueens_core::ENGINE_IDENTITY`);
    /// `None` in files written before engines had one, and where `results/README.md` says
    /// no digest of the commit's task results was taken since.
    #[serde(default)]
    pub(crate) engine: Option<String>,
    pub(crate) rustc: String,
    pub(crate) profile: String,
    pub(crate) rustflags: String,
}

/// What the binary measured is built from, as git pathspecs from the repository root.
const BUILT_FROM: [&str; 4] =
    [":(top)crates", ":(top)Cargo.toml", ":(top)Cargo.lock", ":(top)rust-toolchain.toml"];

/// What a sweep of `cargo xtask seeds` times with: the binary's sources and xtask's, whose
/// constants choose the panel and the reference count that take the machine's speed.
const SWEPT_FROM: [&str; 5] =
    [BUILT_FROM[0], BUILT_FROM[1], BUILT_FROM[2], BUILT_FROM[3], ":(top)xtask"];

/// Whether git, run in the workspace with `args`, exits with success.
fn git_succeeds(args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(crate::workspace::project_root())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default().trim().to_owned()
}

fn command(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .current_dir(crate::workspace::project_root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

impl Host {
    /// Whether `other` is a machine of the same processor and size: where a sweep begun
    /// on it may go on, its speed then told by the sweep's own same work.
    pub(crate) fn same_processor(&self, other: &Host) -> bool {
        (&self.cpu_model, self.cpu_family, self.cpu_model_number, self.l1d_bytes)
            == (&other.cpu_model, other.cpu_family, other.cpu_model_number, other.l1d_bytes)
            && (self.logical_cpus, &self.instruction_sets)
                == (other.logical_cpus, &other.instruction_sets)
    }

    pub(crate) fn this() -> Host {
        let processor = nqueens_core::processor();
        let memory_kib: u64 = read("/proc/meminfo")
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0);
        let os_name = read("/etc/os-release")
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|name| name.trim_matches('"').to_owned())
            .unwrap_or_else(|| std::env::consts::OS.to_owned());
        Host {
            os: os_name,
            kernel: format!(
                "{} {}",
                read("/proc/sys/kernel/ostype"),
                read("/proc/sys/kernel/osrelease")
            ),
            cpu_model: processor.name.unwrap_or_else(|| std::env::consts::ARCH.to_owned()),
            cpu_family: processor.family,
            cpu_model_number: processor.model,
            l1d_bytes: processor.l1_data_bytes.map(|bytes| bytes as u64),
            logical_cpus: num_cpus::get(),
            physical_cores: num_cpus::get_physical(),
            memory_bytes: memory_kib * 1024,
            instruction_sets: nqueens_core::instruction_sets()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        }
    }

    /// One line for table captions.
    pub(crate) fn describe(&self) -> String {
        let sets = if self.instruction_sets.is_empty() {
            String::new()
        } else {
            format!(" with {}", self.instruction_sets.join(", "))
        };
        let family = match (self.cpu_family, self.cpu_model_number) {
            (Some(family), Some(model)) => format!(" (family {family} model {model})"),
            _ => String::new(),
        };
        let l1d = self
            .l1d_bytes
            .map_or(String::new(), |bytes| format!(", {} KiB first-level data cache", bytes >> 10));
        format!(
            "{}{family}{sets}{l1d}, {} logical CPUs ({} physical cores), {:.0} GiB, {}; {}",
            self.cpu_model,
            self.logical_cpus,
            self.physical_cores,
            self.memory_bytes as f64 / (1u64 << 30) as f64,
            self.kernel,
            self.os
        )
    }
}

impl Build {
    /// `commit 0123456789 with uncommitted changes, engine 1-0ea2b9fc`, for table captions.
    pub(crate) fn describe(&self) -> String {
        let commit = self.git_commit.get(..10).unwrap_or("unknown");
        let dirty = if self.git_dirty { " with uncommitted changes" } else { "" };
        let engine = self.engine.as_deref().unwrap_or("not recorded");
        format!("commit {commit}{dirty}, engine {engine}")
    }

    /// The build of the binary that printed `output` (a count's `--json`), as it names
    /// itself: where `NQUEENS_BINARY` times a binary built elsewhere, this tree's commit
    /// and engine need not be its. The toolchain is this one's.
    pub(crate) fn of_binary(output: &serde_json::Value) -> Build {
        let this = Build::this();
        Build {
            git_commit: output["build"]["commit"].as_str().map_or(this.git_commit, str::to_owned),
            git_dirty: output["build"]["modified"].as_bool().unwrap_or(this.git_dirty),
            engine: output["engine"].as_str().map(str::to_owned),
            ..this
        }
    }

    /// Whether the sources a sweep of `cargo xtask seeds` times with, the engines' and
    /// xtask's own, are all committed here, so that a later process can tell by the
    /// commits whether it times the same work.
    pub(crate) fn sweep_committed() -> bool {
        git_succeeds(&[&["diff", "--quiet", "HEAD", "--"][..], &SWEPT_FROM].concat())
    }

    /// Why this build may not time the same work as `earlier`, if it may not, so that a
    /// sweep begun with that build cannot go on with this one: another engine, compiler,
    /// profile or flags, or changes to the engines or xtask between their commits
    /// (commits of results alone change neither).
    pub(crate) fn times_as(&self, earlier: &Build) -> Result<(), String> {
        let engine = |build: &Build| build.engine.clone().unwrap_or_default();
        let settings = [
            ("engine", engine(self), engine(earlier)),
            ("compiler", self.rustc.clone(), earlier.rustc.clone()),
            ("profile", self.profile.clone(), earlier.profile.clone()),
            ("RUSTFLAGS", self.rustflags.clone(), earlier.rustflags.clone()),
        ];
        if let Some((setting, _, _)) = settings.iter().find(|(_, now, then)| now != then) {
            return Err(format!("was built with another {setting}"));
        }
        let is_commit = |commit: &str| {
            commit.len() == 40 && commit.bytes().all(|byte| byte.is_ascii_hexdigit())
        };
        if !is_commit(&self.git_commit) || !is_commit(&earlier.git_commit) {
            return Err("has no commit to compare this one's with".to_owned());
        }
        let (now, then) = (&self.git_commit, &earlier.git_commit);
        if now != then
            && !git_succeeds(&[&["diff", "--quiet", then, now, "--"][..], &SWEPT_FROM].concat())
        {
            return Err(format!(
                "was built from {}, and the engines or xtask changed since",
                &then[..7]
            ));
        }
        Ok(())
    }

    pub(crate) fn this() -> Build {
        Build {
            git_commit: command("git", &["rev-parse", "HEAD"]),
            git_dirty: !command(
                "git",
                &[&["status", "--porcelain", "--"][..], &BUILT_FROM].concat(),
            )
            .is_empty(),
            engine: Some(ENGINE_IDENTITY.to_owned()),
            rustc: command("rustc", &["-vV"]),
            profile: "release".to_owned(),
            rustflags: std::env::var("RUSTFLAGS").unwrap_or_default(),
        }
    }
}

/// Seconds since the Unix epoch and the same instant as an RFC 3339 UTC timestamp.
pub(crate) fn timestamp() -> (u64, String) {
    let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (seconds / 86_400) as i64;
    let time = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    let text = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3600,
        time / 60 % 60,
        time % 60
    );
    (seconds, text)
}
