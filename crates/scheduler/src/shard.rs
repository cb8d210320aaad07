use std::fmt;
use std::str::FromStr;

/// One share of a run split over several machines: `index` of `count`, written `I/M`.
///
/// Shard `I` takes the tasks whose index is `I` modulo `M`. Neighbouring tasks share most
/// of their prefix and are of similar size, so dealing them out in turn balances the work
/// far better than cutting the list into `M` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard, `0 <= index < count`.
    pub index: usize,
    /// How many shards the run is split into.
    pub count: usize,
}

impl Shard {
    /// The whole run as a single shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// A shard, or an error if `index` is not below `count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        if count == 0 || index >= count {
            return Err(ShardError(format!(
                "shard {index}/{count} does not exist: the index must be below the count"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The indices of the tasks, out of `tasks`, that this shard runs.
    pub fn select(&self, tasks: usize) -> impl Iterator<Item = usize> + use<> {
        (self.index..tasks).step_by(self.count)
    }

    /// Whether this shard runs task `index`.
    pub fn contains(&self, index: usize) -> bool {
        index % self.count == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A shard written wrongly or out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError(String);

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardError {}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let malformed = || ShardError(format!("shard must be written I/M (e.g. 0/4), got '{s}'"));
        let (index, count) = s.split_once('/').ok_or_else(malformed)?;
        let index = index.trim().parse().map_err(|_| malformed())?;
        let count = count.trim().parse().map_err(|_| malformed())?;
        Shard::new(index, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_tasks() {
        let count = 3;
        let mut seen = vec![0; 10];
        for index in 0..count {
            let shard = Shard::new(index, count).unwrap();
            for task in shard.select(10) {
                assert!(shard.contains(task));
                seen[task] += 1;
            }
        }
        assert_eq!(seen, vec![1; 10]);
    }

    #[test]
    fn parses_and_refuses() {
        assert_eq!("2/5".parse(), Ok(Shard { index: 2, count: 5 }));
        assert!("3/3".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("1-3".parse::<Shard>().is_err());
        assert!("a/3".parse::<Shard>().is_err());
    }
}
