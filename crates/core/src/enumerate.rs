//! Solutions one by one, in lexicographic order of their columns.
//!
//! The same bitmask search as the counters, taking the lowest free column first, so that
//! solutions come out in lexicographic order. A listing splits into tasks (the placements
//! of the first rows, themselves in lexicographic order), so that tasks can be searched side
//! by side while their solutions are still read in order.

use std::ops::ControlFlow;

use crate::error::Error;
use crate::mask::{MAX_N, Mask, MaskWidth};
use crate::solution::Solution;

/// One independent piece of a listing: the columns of the queens in the first rows. Only
/// an [`Enumeration`] makes them, and only an enumeration of the same board lists them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumerationTask {
    n: usize,
    columns: Box<[u8]>,
}

impl EnumerationTask {
    /// The columns of the first rows' queens, counted from 0.
    pub fn columns(&self) -> &[u8] {
        &self.columns
    }

    fn foreign(&self) -> Error {
        Error::ForeignTask { method: "enumeration", n: self.n, key: self.columns.to_vec() }
    }
}

/// A listing of an `n`-board's solutions: all of them, or with `unique`, one per class
/// under the board's 8 symmetries (its canonical, least image: [`Solution::canonical`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enumeration {
    n: usize,
    unique: bool,
    width: MaskWidth,
}

/// What stopped a search early: the visitor, or a solution the search got wrong.
type Stop<B> = Result<B, Error>;

impl Enumeration {
    /// A listing of the `n`-board, `n` in `1..=`[`MAX_N`].
    pub fn new(n: usize, unique: bool) -> Result<Enumeration, Error> {
        if !(1..=MAX_N).contains(&n) {
            return Err(Error::BoardSize { n });
        }
        Ok(Enumeration { n, unique, width: MaskWidth::for_board(n) })
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The placements of the first `depth` rows that the listing descends from, in
    /// lexicographic order: listing each in turn lists the whole board in order.
    pub fn tasks(&self, depth: usize) -> Result<Vec<EnumerationTask>, Error> {
        // Every task leaves the last row to the search.
        let max = self.n - 1;
        if depth > max {
            return Err(Error::Depth { depth, n: self.n, max });
        }
        let mut tasks = Vec::new();
        match self.width {
            MaskWidth::U64 => Lister::<u64>::new(self).prefixes(depth, &mut tasks),
            MaskWidth::U128 => Lister::<u128>::new(self).prefixes(depth, &mut tasks),
        }
        Ok(tasks)
    }

    /// Calls `visit` with each solution below `task`, in lexicographic order, until it
    /// breaks; returns how the visits ended.
    pub fn each_solution<B>(
        &self,
        task: &EnumerationTask,
        mut visit: impl FnMut(Solution) -> ControlFlow<B>,
    ) -> Result<ControlFlow<B>, Error> {
        let end = match self.width {
            MaskWidth::U64 => Lister::<u64>::new(self).solutions(task, &mut visit)?,
            MaskWidth::U128 => Lister::<u128>::new(self).solutions(task, &mut visit)?,
        };
        Ok(match end {
            ControlFlow::Continue(()) => ControlFlow::Continue(()),
            ControlFlow::Break(stop) => ControlFlow::Break(stop?),
        })
    }
}

/// One listing's search on masks `M`.
struct Lister<M> {
    n: usize,
    unique: bool,
    full: M,
    /// A class's least image has its first queen in the left half: the mirror image of
    /// a board with the first queen further right starts with a smaller column.
    first_row: M,
    columns: Vec<usize>,
}

impl<M: Mask> Lister<M> {
    fn new(enumeration: &Enumeration) -> Lister<M> {
        let n = enumeration.n;
        let full = M::low_bits(n as u32);
        let first_row = if enumeration.unique { M::low_bits(n.div_ceil(2) as u32) } else { full };
        Lister { n, unique: enumeration.unique, full, first_row, columns: Vec::with_capacity(n) }
    }

    /// The columns `row` may take below the attacked `masks`.
    fn allowed(&self, row: usize, (left, down, right): (M, M, M)) -> M {
        let free = self.full & !(left | down | right);
        if row == 0 { free & self.first_row } else { free }
    }

    fn prefixes(mut self, depth: usize, out: &mut Vec<EnumerationTask>) {
        self.extend(depth, (M::ZERO, M::ZERO, M::ZERO), out);
    }

    fn extend(&mut self, depth: usize, masks: (M, M, M), out: &mut Vec<EnumerationTask>) {
        let row = self.columns.len();
        if row == depth {
            let columns = self.columns.iter().map(|&c| c as u8).collect();
            out.push(EnumerationTask { n: self.n, columns });
            return;
        }
        let mut candidates = self.allowed(row, masks);
        while !candidates.is_empty() {
            let bit = candidates.lowest();
            candidates = candidates ^ bit;
            self.columns.push(bit.lowest_index() as usize);
            self.extend(depth, below(masks, bit), out);
            self.columns.pop();
        }
    }

    fn solutions<B>(
        mut self,
        task: &EnumerationTask,
        visit: &mut impl FnMut(Solution) -> ControlFlow<B>,
    ) -> Result<ControlFlow<Stop<B>>, Error> {
        if task.n != self.n {
            return Err(task.foreign());
        }
        let mut masks = (M::ZERO, M::ZERO, M::ZERO);
        for (row, &column) in task.columns.iter().enumerate() {
            let bit = M::bit(u32::from(column));
            if usize::from(column) >= self.n || (self.allowed(row, masks) & bit).is_empty() {
                return Err(task.foreign());
            }
            self.columns.push(usize::from(column));
            masks = below(masks, bit);
        }
        Ok(self.descend(masks, visit))
    }

    fn descend<B>(
        &mut self,
        masks: (M, M, M),
        visit: &mut impl FnMut(Solution) -> ControlFlow<B>,
    ) -> ControlFlow<Stop<B>> {
        let row = self.columns.len();
        if row == self.n {
            return self.leaf(visit);
        }
        let mut candidates = self.allowed(row, masks);
        while !candidates.is_empty() {
            let bit = candidates.lowest();
            candidates = candidates ^ bit;
            self.columns.push(bit.lowest_index() as usize);
            let end = self.descend(below(masks, bit), visit);
            self.columns.pop();
            end?;
        }
        ControlFlow::Continue(())
    }

    fn leaf<B>(&self, visit: &mut impl FnMut(Solution) -> ControlFlow<B>) -> ControlFlow<Stop<B>> {
        let solution = match Solution::new(self.columns.clone()) {
            Ok(solution) => solution,
            Err(conflict) => {
                return ControlFlow::Break(Err(Error::Inconsistent(format!(
                    "the listing produced a board that is not a solution: {conflict}"
                ))));
            }
        };
        if self.unique && solution.canonical() != solution {
            return ControlFlow::Continue(());
        }
        visit(solution).map_break(Ok)
    }
}

/// The attacked masks of the row below one whose queen is `bit`.
fn below<M: Mask>((left, down, right): (M, M, M), bit: M) -> (M, M, M) {
    ((left | bit) << 1, down | bit, (right | bit) >> 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(n: usize, unique: bool, depth: usize) -> Vec<Solution> {
        let enumeration = Enumeration::new(n, unique).unwrap();
        let mut found = Vec::new();
        for task in enumeration.tasks(depth).unwrap() {
            let end = enumeration.each_solution(&task, |s| {
                found.push(s);
                ControlFlow::<()>::Continue(())
            });
            assert_eq!(end, Ok(ControlFlow::Continue(())));
        }
        found
    }

    #[test]
    fn lists_the_six_queens_solutions_in_order() {
        let listed: Vec<String> = all(6, false, 0).iter().map(Solution::to_string).collect();
        assert_eq!(listed, ["2 4 6 1 3 5", "3 6 2 5 1 4", "4 1 5 2 6 3", "5 3 1 6 4 2"]);
        assert_eq!(
            all(6, true, 2).iter().map(Solution::to_string).collect::<Vec<_>>(),
            ["2 4 6 1 3 5"]
        );
    }

    #[test]
    fn every_depth_lists_the_same_solutions() {
        let whole = all(8, false, 0);
        assert_eq!(whole.len(), 92);
        for depth in 1..8 {
            assert_eq!(all(8, false, depth), whole, "depth {depth}");
        }
    }

    #[test]
    fn a_visitor_can_stop_the_listing() {
        let enumeration = Enumeration::new(8, false).unwrap();
        let task = &enumeration.tasks(0).unwrap()[0];
        let mut seen = 0;
        let end = enumeration.each_solution(task, |s| {
            seen += 1;
            if seen == 3 { ControlFlow::Break(s) } else { ControlFlow::Continue(()) }
        });
        assert_eq!(end.unwrap(), ControlFlow::Break(all(8, false, 0)[2].clone()));
    }

    #[test]
    fn tasks_of_other_listings_are_refused() {
        let unique = Enumeration::new(8, true).unwrap();
        let foreign = EnumerationTask { n: 8, columns: Box::new([7]) };
        let refused = unique.each_solution(&foreign, |_| ControlFlow::<()>::Continue(()));
        let expected = Error::ForeignTask { method: "enumeration", n: 8, key: vec![7] };
        assert_eq!(refused, Err(expected));
        let other_board = Enumeration::new(9, false).unwrap().tasks(1).unwrap();
        let refused = unique.each_solution(&other_board[0], |_| ControlFlow::<()>::Continue(()));
        assert!(matches!(refused, Err(Error::ForeignTask { n: 9, .. })));
        assert!(Enumeration::new(0, false).is_err());
        assert!(unique.tasks(8).is_err());
    }
}
