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
        let processor = nqueens_core::processor();
        Host {
            cpu_model: processor.name.unwrap_or_else(|| std::env::consts::ARCH.to_owned()),
            cpu_family: processor.family,
            cpu_model_number: processor.model,
            logical_cpus: num_cpus::get(),
            instruction_sets: nqueens_core::instruction_sets()
                .into_iter()
                .map(str::to_owned)
                .collect(),
        }
    }
}
