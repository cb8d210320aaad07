#!/bin/bash
# build.sh REV: the release nqueens of REV at /tmp/bis/bin/REV (shared target dir).
set -e
rev=$1
mkdir -p /tmp/bis/bin
[ -x /tmp/bis/bin/$rev ] && exit 0
tree=/tmp/bis/tree-$rev
[ -d $tree ] || git -C /work/main worktree add --detach $tree $rev >/dev/null 2>&1
(cd $tree && CARGO_TARGET_DIR=/tmp/bis/target cargo build --release -q -p nqueens-cli)
cp /tmp/bis/target/release/nqueens /tmp/bis/bin/$rev
git -C /work/main worktree remove --force $tree
