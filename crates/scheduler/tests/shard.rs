//! `I/M` as typed on a command line: every shard reads back from how it is written, and
//! no string makes the parser panic or yields a shard that does not exist.

use nqueens_scheduler::Shard;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// Any shard that exists: `index < count`, over the whole range of `usize`.
fn shard() -> impl Strategy<Value = Shard> {
    (1..=usize::MAX)
        .prop_flat_map(|count| (0..count, Just(count)))
        .prop_map(|(index, count)| Shard::new(index, count).unwrap())
}

/// Blanks that may stand around either number.
fn blank() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", " ", "  ", "\t"]).prop_map(str::to_owned)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_shard_reads_back_from_how_it_is_written(shard in shard()) {
        prop_assert_eq!(shard.to_string().parse::<Shard>(), Ok(shard));
    }

    #[test]
    fn blanks_around_the_numbers_are_allowed(
        shard in shard(),
        blanks in [blank(), blank(), blank(), blank()],
    ) {
        let [a, b, c, d] = &blanks;
        let written = format!("{a}{}{b}/{c}{}{d}", shard.index, shard.count);
        prop_assert_eq!(written.parse::<Shard>(), Ok(shard));
    }

    #[test]
    fn a_shard_that_does_not_exist_is_refused(index in any::<usize>(), count in any::<usize>()) {
        let parsed = format!("{index}/{count}").parse::<Shard>();
        prop_assert_eq!(parsed.is_ok(), index < count, "{:?}", parsed);
    }

    #[test]
    fn any_string_is_a_shard_that_exists_or_refused(
        text in prop_oneof![any::<String>(), "[-+ 0-9a-f]{0,24}/[-+ 0-9a-f]{0,24}"],
    ) {
        // Whatever parses is a shard that exists, and is written back the plain way.
        if let Ok(shard) = text.parse::<Shard>() {
            prop_assert!(shard.index < shard.count, "{text:?} gave {shard:?}");
            prop_assert_eq!(shard.to_string().parse::<Shard>(), Ok(shard));
        }
    }
}
