#!/usr/bin/env bash
# Prints the engine identity digest of the task results of commit REV, as
# crates/core/tests/engine_identity.rs computes it now, so that results written by an older
# build can be matched to an engine identity. Builds in a worktree under target/.
#   docs/experiments/engine-identity/digest-at.sh 2afcef0 [--no-turns]
# --no-turns leaves out the rotation-fixed boards, for commits before Problem::unchanged_by
# (run it on both commits compared: the digests are then of the smaller board set).
set -euo pipefail
rev=$1
root=$(git rev-parse --show-toplevel)
tree=$root/target/engine-identity/$rev
[[ -d $tree ]] || git -C "$root" worktree add --detach -f "$tree" "$rev" > /dev/null
sed -e '/^use nqueens_core::{$/,/^};$/c use nqueens_core::{Kernel, MaskWidth, Method, Problem, Turn};' \
    -e '/^use nqueens_test_support/d' -e '/^#\[test\]$/,$d' "$root/crates/core/tests/engine_identity.rs" > "$tree/crates/core/tests/digest_at.rs"
if [[ ${2:-} == --no-turns ]]; then
    # The boards of the rotation-fixed counts, and the kernel choice that names them.
    sed -i -e '/^    for turn in Turn::ALL {$/,/^    }$/d' -e 's/, Turn};/};/' \
        -e '/let problem = match problem.turn() {/,/};/c\            let problem = problem.with_kernel(kernel).unwrap();' \
        "$tree/crates/core/tests/digest_at.rs"
fi
cat >> "$tree/crates/core/tests/digest_at.rs" <<'TEST'
#[test]
fn print_digest() {
    println!("digest {}", digest(Kernel::Scalar));
}
TEST
cd "$tree" && CARGO_TARGET_DIR=$root/target/engine-identity/target \
    cargo test -q -p nqueens-core --test digest_at -- --nocapture 2>/dev/null | grep '^digest'
