//! Which instruction set a count runs on.

use std::fmt;

/// The largest board the lane kernels hold: the tie counter of the eightfold rules lives in
/// bits 28 and 29 of a `u32` column mask.
pub const MAX_LANE_N: usize = 28;

/// Which backtracking kernel the methods that search board by board use. The counts (and
/// the nodes) are the same on every kernel; only the speed differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Kernel {
    /// The fastest this processor has for the board: AVX-512, else AVX2, else scalar.
    #[default]
    Auto,
    /// Sixteen boards at a time in the lanes of AVX-512 registers (N <= 28).
    Avx512,
    /// Eight boards at a time in the lanes of AVX2 registers (N <= 28).
    Avx2,
    /// One board at a time (with BMI1/BMI2 where the processor has them); any board, any
    /// processor.
    Scalar,
}

impl Kernel {
    /// Every kernel, in the order the help text lists them.
    pub const ALL: [Kernel; 4] = [Kernel::Auto, Kernel::Avx512, Kernel::Avx2, Kernel::Scalar];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Avx512 => "avx512",
            Kernel::Avx2 => "avx2",
            Kernel::Scalar => "scalar",
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
