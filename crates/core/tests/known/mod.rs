//! The known counts from `testdata/known-counts.json` (OEIS A000170 and A002562).

/// `(total, unique)` for an `n`-board.
pub(crate) fn counts(n: usize) -> (u128, u128) {
    let text = include_str!("../../../../testdata/known-counts.json");
    let json: serde_json::Value = serde_json::from_str(text).expect("known counts are JSON");
    let entry = json["counts"]
        .as_array()
        .expect("a list of counts")
        .iter()
        .find(|c| c["n"] == n)
        .unwrap_or_else(|| panic!("no known count for N = {n}"));
    let field = |name: &str| u128::from(entry[name].as_u64().expect("an integer count"));
    (field("total"), field("unique"))
}
