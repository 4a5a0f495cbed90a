#!/usr/bin/env bash
# Rewrites README.md's config key tables (between <!-- keys:begin --> and <!-- keys:end -->) from
# the keys' declarations: `clustersim run --list-keys=markdown` of a build (build/bin, or
# $CLUSTERSIM). tests/app/options_test.cc fails while the two differ.
set -euo pipefail
cd "$(dirname "$0")/.."
clustersim=${CLUSTERSIM:-${BUILD_DIR:-build}/bin/clustersim}
table=$(mktemp)
trap 'rm -f "$table" README.md.new' EXIT
"$clustersim" run --list-keys=markdown >"$table"
grep -q '^<!-- keys:begin' README.md && grep -q '^<!-- keys:end' README.md ||
  { echo "README.md has no <!-- keys:begin --> ... <!-- keys:end --> markers" >&2; exit 1; }
awk -v table="$table" '
  /^<!-- keys:begin/ { print; print ""; while ((getline line < table) > 0) print line; print ""; skip = 1; next }
  /^<!-- keys:end/ { skip = 0 }
  !skip { print }
' README.md >README.md.new
mv README.md.new README.md
echo "README.md: key tables rewritten from $clustersim"
