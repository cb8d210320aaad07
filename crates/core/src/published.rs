//! The published counts of all solutions (OEIS A000170), for plans alone: an estimate
//! weighs the time its sample took against the solutions the sample found, and a count's
//! work is then its cost per solution times the solutions there are. A count never reads
//! them: its answer is what its tasks find.

/// A000170 for N = 1 to 27, as published: Q(27) was counted in 2016 (Preußer and Engelhardt,
/// on FPGAs) and confirmed on GPUs since.
const A000170: [u128; 27] = [
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2_680,
    14_200,
    73_712,
    365_596,
    2_279_184,
    14_772_512,
    95_815_104,
    666_090_624,
    4_968_057_848,
    39_029_188_884,
    314_666_222_712,
    2_691_008_701_644,
    24_233_937_684_440,
    227_514_171_973_736,
    2_207_893_435_808_352,
    22_317_699_616_364_044,
    234_907_967_154_122_528,
];

/// Boards beyond the published ones whose solutions the growth of the published ones
/// predicts: one board (N = 28) and the next.
const EXTRAPOLATED: usize = 2;

/// How many of the last growth factors Q(N) / Q(N - 1) give the trend extrapolated: with
/// four, the extrapolation one board ahead missed each of N = 21 to 27 by at most 1.7%, and
/// two boards ahead by at most 2.8%; with the last two, by 3.3% and 9% (odd and even boards
/// grow by different factors, which fewer steps follow).
const TREND_STEPS: usize = 4;

/// The relative standard deviation of an extrapolation, per board beyond the published:
/// twice the figure would have held each miss above.
const EXTRAPOLATION_ERROR: f64 = 0.01;

/// How many solutions an `n`-board has, as published or extrapolated from the published.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolutionsOf {
    /// The number of solutions.
    pub total: f64,
    /// Its relative standard deviation: 0 where published.
    pub relative_error: f64,
}

/// The solutions of an `n`-board: published for N up to 27, extrapolated from their growth
/// for the next [`EXTRAPOLATED`] boards, `None` beyond.
pub fn solutions_of(n: usize) -> Option<SolutionsOf> {
    let published = A000170.len();
    if (1..=published).contains(&n) {
        return Some(SolutionsOf { total: A000170[n - 1] as f64, relative_error: 0.0 });
    }
    let beyond = n.checked_sub(published).filter(|&beyond| (1..=EXTRAPOLATED).contains(&beyond))?;
    let growth = |n: usize| A000170[n - 1] as f64 / A000170[n - 2] as f64;
    let last = growth(published);
    let trend = (last - growth(published - TREND_STEPS)) / TREND_STEPS as f64;
    let total = (1..=beyond)
        .fold(A000170[published - 1] as f64, |total, step| total * (last + step as f64 * trend));
    Some(SolutionsOf { total, relative_error: EXTRAPOLATION_ERROR * beyond as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_boards_are_exact_and_the_next_two_extrapolated() {
        assert_eq!(solutions_of(8), Some(SolutionsOf { total: 92.0, relative_error: 0.0 }));
        assert_eq!(solutions_of(0), None);
        assert_eq!(solutions_of(30), None);
        let q28 = solutions_of(28).unwrap();
        let q27 = solutions_of(27).unwrap().total;
        // The growth factor keeps rising by about 0.4 a board (10.11 at N = 26, 10.53 at 27).
        assert!((10.8..11.1).contains(&(q28.total / q27)), "{q28:?}");
        assert_eq!(q28.relative_error, 0.01);
        let q29 = solutions_of(29).unwrap();
        assert!((11.2..11.6).contains(&(q29.total / q28.total)), "{q29:?}");
    }

    #[test]
    fn only_a_count_of_all_solutions_knows_them() {
        use crate::{Method, Problem, Turn};
        let all = Problem::new(10, Method::Join).unwrap();
        assert_eq!(all.known_solutions().map(|known| known.total), Some(724.0));
        let placed = Problem::new(10, Method::Plain).unwrap().with_placement(&[(0, 1)]).unwrap();
        assert_eq!(placed.known_solutions(), None);
        assert_eq!(all.fixed_by(Turn::Half).unwrap().known_solutions(), None);
    }

    #[test]
    fn the_extrapolation_would_have_found_the_last_published_board() {
        // The same trend taken one board earlier predicts Q(27) within twice the error
        // the extrapolation claims.
        let growth = |n: usize| A000170[n - 1] as f64 / A000170[n - 2] as f64;
        let trend = (growth(26) - growth(26 - TREND_STEPS)) / TREND_STEPS as f64;
        let predicted = A000170[25] as f64 * (growth(26) + trend);
        let miss = predicted / A000170[26] as f64 - 1.0;
        assert!(miss.abs() < 2.0 * EXTRAPOLATION_ERROR, "{miss}");
    }
}
