use crate::Error;

/// What one task (or a merge of tasks) found. Merging is associative and commutative, so
/// any grouping of tasks yields the same sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Counts {
    /// Solutions, each counted once.
    pub total: u128,
    /// Classes of solutions under the board's symmetries, by their number of distinct
    /// images: `[2, 4, 8]`. Only the eightfold method fills these in.
    pub classes: [u128; 3],
    /// Placements tried; zero unless node counting was asked for.
    pub nodes: u128,
}

impl Counts {
    /// The sum of two counts, or [`Error::Overflow`].
    pub fn merge(&self, other: &Counts) -> Result<Counts, Error> {
        let add = |a: u128, b: u128| a.checked_add(b).ok_or(Error::Overflow);
        Ok(Counts {
            total: add(self.total, other.total)?,
            classes: [
                add(self.classes[0], other.classes[0])?,
                add(self.classes[1], other.classes[1])?,
                add(self.classes[2], other.classes[2])?,
            ],
            nodes: add(self.nodes, other.nodes)?,
        })
    }

    /// The number of classes found, whatever their size.
    pub fn class_count(&self) -> Result<u128, Error> {
        self.classes.iter().try_fold(0u128, |sum, &c| sum.checked_add(c).ok_or(Error::Overflow))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_every_field() {
        let a = Counts { total: 10, classes: [1, 2, 3], nodes: 7 };
        let b = Counts { total: 5, classes: [4, 5, 6], nodes: 1 };
        assert_eq!(a.merge(&b), Ok(Counts { total: 15, classes: [5, 7, 9], nodes: 8 }));
    }

    #[test]
    fn merge_refuses_to_wrap() {
        let a = Counts { total: u128::MAX, ..Counts::default() };
        let b = Counts { total: 1, ..Counts::default() };
        assert_eq!(a.merge(&b), Err(Error::Overflow));
    }
}
