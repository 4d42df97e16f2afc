#!/usr/bin/env bash
# Runs the whole compiled test suite again on Node 24 (after `npm test` on the machine's Node 20
# has built dist/). Node 24 comes from the npm registry's `node` package, which ships the binary
# and its headers inside npm packages: nothing is downloaded from elsewhere. better-sqlite3 is a
# native addon built for one Node ABI: it is rebuilt against Node 24's headers for this run and
# the Node 20 build is put back afterwards, whatever the outcome.
# Usage: bash scripts/test-node24.sh [test path fragment...]   (NODE24_PREFIX reuses an install)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${NODE24_PREFIX:-$(mktemp -d)}"
if [ ! -x "$prefix/node_modules/node/bin/node" ]; then
  echo "==> installing Node 24 (npm package node@24) into $prefix"
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$prefix" node@24 >/dev/null
fi
node24_bin="$prefix/node_modules/node/bin"
headers="$(dirname "$(dirname "$(ls -d "$prefix"/node_modules/node/node_modules/node-*/include/node)")")"
echo "==> $("$node24_bin/node" --version) (headers: $headers)"

addon=node_modules/better-sqlite3
saved="$(mktemp -d)"
cp -a "$addon/build" "$saved/build"
restore() {
  rm -rf "$addon/build"
  cp -a "$saved/build" "$addon/build"
  rm -rf "$saved"
}
trap restore EXIT

echo "==> rebuilding better-sqlite3 for Node 24 (node-gyp from npm, Node 24's headers)"
node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
(cd "$addon" && PATH="$node24_bin:$PATH" node "$node_gyp" rebuild --release --nodedir="$headers" >"$saved/node-gyp.log" 2>&1) \
  || { cat "$saved/node-gyp.log" >&2; exit 1; }

echo "==> the test suite on Node 24"
PATH="$node24_bin:$PATH" node scripts/run-tests.mjs "$@"
