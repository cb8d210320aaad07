//! Which instruction set a count runs on.

use std::fmt;

/// The largest board the lane kernels hold: the tie counter of the eightfold rules lives in
/// bits 28 and 29 of a `u32` column mask.
pub const MAX_LANE_N: usize = 28;

/// Which instruction set a count's inner loop runs on: the lanes of the backtracking
/// search, or the join's bulk test of half-board pairs. The counts (and the nodes or pairs)
/// are the same on every kernel; only the speed differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Kernel {
    /// The fastest this processor has for the board: AVX-512, else AVX2, else scalar.
    #[default]
    Auto,
    /// AVX-512: sixteen boards at a time in the backtracking's lanes (N <= 28); 512 pairs
    /// per table entry in the join, which also needs the vector popcount (VPOPCNTDQ).
    Avx512,
    /// AVX2: eight boards at a time in the backtracking's lanes (N <= 28); 256 pairs per
    /// table entry in the join.
    Avx2,
    /// One board at a time (with BMI1/BMI2 where the processor has them), or 64 pairs per
    /// `u64` in the join; any board, any processor.
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
