//! The engine identity: what a task's result means.
//!
//! Checkpoints and shards keep the results of single tasks and add them up later, perhaps
//! in another build of the program. That is right only if both builds give every task the
//! same result: a change to what a task counts (a weight, a symmetry share, a split) makes
//! the sum of old and new results wrong, often by an amount no check notices. So every
//! result names the identity of the engine that made it, and results of two identities are
//! never added up.
//!
//! The identity is a version number and a digest of every task's result over a fixed set of
//! small boards (every method, odd and even N, placed queens, the rotation-fixed counts,
//! shallow, default and deepest splits, both mask widths), which the test
//! `crates/core/tests/engine_identity.rs` computes and compares with the digest recorded
//! here. A change that alters any of those results fails that test until the version is
//! raised and the new digest recorded; a change that leaves them all as they were (speed
//! work, a new kernel) keeps the identity, so that older checkpoints and shards stay usable.

/// Declares the version and the recorded digest once, and the identity made of both, so
/// that the three cannot disagree.
macro_rules! engine_identity {
    (version $version:literal, digest $digest:literal) => {
        /// The version of the engine's task results. Raise it whenever a task's result
        /// changes (the engine identity test says when), never for speed alone.
        pub const ENGINE_VERSION: u32 = $version;
        /// The digest of the task results this version gives, as the engine identity test
        /// computes it.
        pub const ENGINE_DIGEST: &str = $digest;
        /// The engine identity, `VERSION-DIGEST`: results of different identities are never
        /// added up. It holds the digest too, so that a new digest recorded without a new
        /// version still changes it.
        pub const ENGINE_IDENTITY: &str = concat!($version, "-", $digest);
    };
}

engine_identity!(version 2, digest "4bd9b479");
