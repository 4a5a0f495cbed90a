#!/usr/bin/env bash
# Resume across a rebuild (issue 45): a sweep begun by one build and resumed by another is
# refused (exit 2, both builds named, the ways on), and its journal is left as it was; with
# --resume-any-build it is finished, and every point says which session (so which build)
# computed it. "Another build" is the same executable with bytes appended: a different binary
# (its SHA-256 differs) that computes the same results, so the mixed file must also equal a
# clean run's, provenance aside.
source "$(dirname "$0")/common.sh"
sed -e 's/^seeds = .*/seeds = 2/' "$DATA/slow_grid.toml" >grid.toml  # 12 points of ~0.3 s
POINTS=12
OLD=$WORK/old-clustersim
cp "$BIN" "$OLD"
printf 'another build' >>"$OLD"

sweep grid.toml --out ref.h5 --threads 2 -q

"$OLD" sweep grid.toml --out mix.h5 --threads 1 --progress-interval 0.1 >old.out 2>old.err &
PID=$!
wait_for_points old.err 3 120
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: the old build's sweep ended with $status, want 75"; cat old.err; exit 1; }
[ -e mix.h5.journal ] || { echo "FAIL: no journal after SIGTERM"; exit 1; }
journal_before=$(sha256sum mix.h5.journal | cut -d' ' -f1)

status=0
sweep grid.toml --out mix.h5 --resume --threads 1 -q 2>refused.err || status=$?
cat refused.err
[ "$status" -eq 2 ] || { echo "FAIL: resume with another build exited $status, want 2"; exit 1; }
for wanted in "mix.h5: this sweep was begun by another build of clustersim" \
  "by session 1" "binary sha256 $(sha256sum "$OLD" | cut -c1-12)" \
  "this is .*binary sha256 $(sha256sum "$BIN" | cut -c1-12)" \
  "finish it with the build that began it" \
  "clustersim sweep grid.toml --out mix.h5 --overwrite" \
  "clustersim sweep grid.toml --out mix.h5 --resume --resume-any-build"; do
  grep -q -- "$wanted" refused.err || { echo "FAIL: the refusal does not say '$wanted'"; exit 1; }
done
[ "$(wc -l <refused.err)" -eq 1 ] || { echo "FAIL: the refusal is not one line"; exit 1; }
[ "$(sha256sum mix.h5.journal | cut -d' ' -f1)" = "$journal_before" ] ||
  { echo "FAIL: the refused resume changed the journal"; exit 1; }
[ ! -e mix.h5.lock ] || { echo "FAIL: the refused resume left its lock"; exit 1; }

# The override needs --resume (a flag of resuming).
status=0
sweep grid.toml --out other.h5 --resume-any-build -q 2>needs.err || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: --resume-any-build without --resume exited $status, want 2"; exit 1; }

sweep grid.toml --out mix.h5 --resume --resume-any-build --threads 2 -q 2>mixed.err
cat mixed.err
grep -q "resuming with another build (--resume-any-build)" mixed.err ||
  { echo "FAIL: no warning that the builds mix"; exit 1; }
check once mix.h5 $POINTS
check identical ref.h5 mix.h5
if [ -n "$PYTHON" ]; then
  OLD_SHA=$(sha256sum "$OLD" | cut -d' ' -f1) NEW_SHA=$(sha256sum "$BIN" | cut -d' ' -f1) "$PYTHON" - <<'PY'
import json, os, h5py
f = h5py.File("mix.h5", "r")
session = f["points/session"][()]
builds = json.loads(f.attrs["session_builds"])
assert [b["session"] for b in builds] == [1, 2], builds
assert builds[0]["binary_sha256"] == os.environ["OLD_SHA"], builds[0]
assert builds[1]["binary_sha256"] == os.environ["NEW_SHA"], builds[1]
assert f.attrs["binary_sha256"] == os.environ["NEW_SHA"]
assert set(session.tolist()) == {1, 2}, session
old = int((session == 1).sum())
assert 3 <= old < 12, old
print(f"session column: {old} points by the old build, {len(session) - old} by this one")
ref = h5py.File("ref.h5", "r")
assert set(ref["points/session"][()].tolist()) == {1}
assert len(json.loads(ref.attrs["session_builds"])) == 1
PY
fi
echo PASS
