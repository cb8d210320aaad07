//! The bitset type a search row is held in.
//!
//! Bit `c` of a mask stands for column `c` of the board (column 0 is the least significant
//! bit). One search is written against [`Mask`] and instantiated for `u64` (N <= 64) and
//! `u128` (N <= 128); the width is picked once, at the public entry points, so the hot loop
//! is monomorphic.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Shl, Shr};

/// The largest board the masks can hold.
pub const MAX_N: usize = 128;

/// An unsigned integer used as a set of columns.
pub trait Mask:
    Copy
    + Eq
    + Ord
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitAndAssign
    + BitOr<Output = Self>
    + BitOrAssign
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The number of columns the mask can hold.
    const BITS: u32;
    /// The empty set.
    const ZERO: Self;
    /// The set holding column 0 only.
    const ONE: Self;

    /// The set of columns `0..n`; `n` may equal [`Mask::BITS`].
    fn low_bits(n: u32) -> Self;
    /// The set holding the lowest column of `self` only (`x & -x`).
    fn lowest(self) -> Self;
    /// The number of columns in the set.
    fn count(self) -> u32;
    /// The index of the lowest column in the set; [`Mask::BITS`] for the empty set.
    fn lowest_index(self) -> u32;
    /// The set holding column `c` only.
    #[inline(always)]
    fn bit(c: u32) -> Self {
        Self::ONE << c
    }
    /// Whether the set is empty.
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }
}

macro_rules! impl_mask {
    ($($t:ty),*) => {$(
        impl Mask for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;

            #[inline(always)]
            fn low_bits(n: u32) -> Self {
                if n >= <$t>::BITS { <$t>::MAX } else { (1 << n) - 1 }
            }
            #[inline(always)]
            fn lowest(self) -> Self {
                self & self.wrapping_neg()
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest_index(self) -> u32 {
                self.trailing_zeros()
            }
        }
    )*};
}

// `u32` holds the rules of the lane-parallel kernel, which packs sixteen boards of up to 28
// columns into one register.
impl_mask!(u32, u64, u128);

/// Which integer type the masks of a search use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskWidth {
    /// `u64`: boards up to 64 columns.
    U64,
    /// `u128`: boards up to 128 columns.
    U128,
}

impl MaskWidth {
    /// The narrowest width that holds `n` columns.
    pub fn for_board(n: usize) -> MaskWidth {
        if n <= 64 { MaskWidth::U64 } else { MaskWidth::U128 }
    }

    /// The number of columns this width holds.
    pub fn columns(self) -> usize {
        match self {
            MaskWidth::U64 => 64,
            MaskWidth::U128 => 128,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_bits_cover_the_full_width() {
        assert_eq!(u64::low_bits(64), u64::MAX);
        assert_eq!(u64::low_bits(3), 0b111);
        assert_eq!(u128::low_bits(128), u128::MAX);
        assert_eq!(u128::low_bits(65), (1u128 << 65) - 1);
    }

    #[test]
    fn lowest_isolates_the_least_column() {
        assert_eq!(0b10100u64.lowest(), 0b100);
        assert_eq!((1u128 << 100 | 1 << 70).lowest(), 1 << 70);
        assert_eq!(0b10100u64.lowest_index(), 2);
        assert_eq!(0u128.lowest_index(), 128);
    }
}
