use crate::error::Error;

/// What one task (or a merge of tasks) found. Merging is associative and commutative, so
/// any grouping of tasks yields the same sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Counts {
    /// Solutions, each counted once; for part of an eightfold count, the whole part of it.
    pub total: u128,
    /// Thirds of a solution beyond `total` (0, 1 or 2): part of an eightfold count may find
    /// a solution from several edges, a share each time, and a share of 8/3 leaves thirds.
    /// A whole count always comes to whole solutions.
    #[cfg_attr(feature = "serde", serde(default))]
    pub thirds: u128,
    /// Placements tried (for the join, pairs of half-boards tested); zero unless node
    /// counting was asked for, and then absent from what is written.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero"))]
    pub nodes: u128,
}

#[cfg(feature = "serde")]
fn is_zero(count: &u128) -> bool {
    *count == 0
}

impl Counts {
    /// The sum of two counts, or [`Error::Overflow`].
    pub fn merge(&self, other: &Counts) -> Result<Counts, Error> {
        let add = |a: u128, b: u128| a.checked_add(b).ok_or(Error::Overflow);
        let thirds = add(self.thirds, other.thirds)?;
        Ok(Counts {
            total: add(add(self.total, other.total)?, thirds / 3)?,
            thirds: thirds % 3,
            nodes: add(self.nodes, other.nodes)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_every_field() {
        let a = Counts { total: 10, thirds: 1, nodes: 7 };
        let b = Counts { total: 5, thirds: 0, nodes: 1 };
        assert_eq!(a.merge(&b), Ok(Counts { total: 15, thirds: 1, nodes: 8 }));
    }

    #[test]
    fn thirds_carry_into_whole_solutions() {
        let a = Counts { total: 10, thirds: 2, nodes: 0 };
        let b = Counts { total: 5, thirds: 2, nodes: 0 };
        assert_eq!(a.merge(&b), Ok(Counts { total: 16, thirds: 1, nodes: 0 }));
        let whole = a.merge(&b).and_then(|ab| ab.merge(&Counts { thirds: 2, ..Counts::default() }));
        assert_eq!(whole, Ok(Counts { total: 17, thirds: 0, nodes: 0 }));
    }

    #[test]
    fn merge_refuses_to_wrap() {
        let a = Counts { total: u128::MAX, ..Counts::default() };
        let b = Counts { total: 1, ..Counts::default() };
        assert_eq!(a.merge(&b), Err(Error::Overflow));
    }
}
