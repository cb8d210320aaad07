//! The machine a count ran on, as its report records it, so that a result read later (or
//! on another machine) says what it was measured on.

use serde::{Deserialize, Serialize};

/// The processor and what of it the kernels could use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Host {
    /// The processor's model name, or the architecture where the system does not say.
    pub(crate) cpu_model: String,
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
            cpu_model: model_name(&cpuinfo).unwrap_or(std::env::consts::ARCH).to_owned(),
            logical_cpus: num_cpus::get(),
            instruction_sets: nqueens_core::instruction_sets()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        }
    }
}

/// The first processor's model name in the text of `/proc/cpuinfo`.
fn model_name(cpuinfo: &str) -> Option<&str> {
    let line = cpuinfo.lines().find(|line| line.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_name_is_the_first_processors() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
                       flags\t\t: fpu avx2\n\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(model_name(cpuinfo), Some("AMD EPYC 7B13"));
        assert_eq!(model_name("processor\t: 0\n"), None);
    }
}
