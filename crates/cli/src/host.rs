//! The machine a count ran on, as its report records it, so that a result read later (or
//! on another machine) says what it was measured on.

use serde::{Deserialize, Serialize};

/// The processor and what of it the kernels could use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Host {
    /// The processor's model name, or the architecture where the system does not say.
    pub(crate) cpu_model: String,
    /// The processor's family and model numbers, which tell apart generations that share
    /// a model name (an "AMD EPYC" may be a Zen 3, 4 or 5); absent where the system does
    /// not say, and in reports written before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_family: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_model_number: Option<u32>,
    pub(crate) logical_cpus: usize,
    /// The instruction sets of the kernels that this processor has (`avx512f`,
    /// `avx512_vpopcntdq`, `avx2`, `bmi2`).
    pub(crate) instruction_sets: Vec<String>,
}

impl Host {
    /// This machine.
    pub(crate) fn this() -> Host {
        // Only Linux has /proc/cpuinfo; elsewhere the report names the architecture.
        let cpuinfo = if cfg!(target_os = "linux") {
            std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
        } else {
            String::new()
        };
        Host {
            cpu_model: field(&cpuinfo, "model name").unwrap_or(std::env::consts::ARCH).to_owned(),
            cpu_family: field(&cpuinfo, "cpu family").and_then(|family| family.parse().ok()),
            cpu_model_number: field(&cpuinfo, "model").and_then(|model| model.parse().ok()),
            logical_cpus: num_cpus::get(),
            instruction_sets: nqueens_core::instruction_sets()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// The value of the first line of `/proc/cpuinfo`'s text named `name`: the first
/// processor's, where it has one.
fn field<'a>(cpuinfo: &'a str, name: &str) -> Option<&'a str> {
    let line = cpuinfo.lines().find(|line| line.split(':').next().map(str::trim) == Some(name))?;
    Some(line.split_once(':')?.1.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_name_is_the_first_processors() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
                       flags\t\t: fpu avx2\n\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(field(cpuinfo, "model name"), Some("AMD EPYC 7B13"));
        assert_eq!(field("processor\t: 0\n", "model name"), None);
        let zen5 = "processor\t: 0\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\n\n\
                    processor\t: 1\nmodel\t\t: 9\n";
        assert_eq!((field(zen5, "cpu family"), field(zen5, "model")), (Some("26"), Some("2")));
        assert_eq!(field(cpuinfo, "model"), None);
    }
}
