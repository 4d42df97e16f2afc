#!/usr/bin/env bash
# Runs the whole compiled test suite again on Node 24 (after `npm test` on the machine's Node 20
# has built dist/). Node 24 comes from the npm registry's `node` package, which ships the binary
# and its headers inside npm packages: nothing is downloaded from elsewhere. better-sqlite3 and
# usocket (dbus-next's fd passing) are native addons built for one Node ABI (node-pty uses N-API,
# which needs no rebuild): they are rebuilt against Node 24's headers for this run and the Node 20
# builds are put back afterwards, whatever the outcome.
# Usage: bash scripts/test-node24.sh [test path fragment...]   (NODE24_PREFIX reuses an install)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${NODE24_PREFIX:-$(mktemp -d)}"
# mktemp makes the directory 0700: the tests that run a child as an unprivileged user (an unwritable
# directory is only unwritable to one) must be able to reach the node binary inside it.
chmod 0755 "$prefix"
if [ ! -x "$prefix/node_modules/node/bin/node" ]; then
  echo "==> installing Node 24 (npm package node@24) into $prefix"
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$prefix" node@24 >/dev/null
fi
node24_bin="$prefix/node_modules/node/bin"
headers="$(dirname "$(dirname "$(ls -d "$prefix"/node_modules/node/node_modules/node-*/include/node)")")"
echo "==> $("$node24_bin/node" --version) (headers: $headers)"

addons=(node_modules/better-sqlite3 node_modules/usocket)
saved="$(mktemp -d)"
for addon in "${addons[@]}"; do
  mkdir -p "$saved/$addon"
  cp -a "$addon/build" "$saved/$addon/build"
done
restore() {
  for addon in "${addons[@]}"; do
    rm -rf "$addon/build"
    cp -a "$saved/$addon/build" "$addon/build"
  done
  rm -rf "$saved"
  if [ -z "${NODE24_PREFIX:-}" ]; then rm -rf "$prefix"; fi
}
trap restore EXIT

node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
for addon in "${addons[@]}"; do
  echo "==> rebuilding $addon for Node 24 (node-gyp from npm, Node 24's headers)"
  (cd "$addon" && PATH="$node24_bin:$PATH" node "$node_gyp" rebuild --release --nodedir="$headers" >"$saved/node-gyp.log" 2>&1) \
    || { cat "$saved/node-gyp.log" >&2; exit 1; }
done

echo "==> the test suite on Node 24"
PATH="$node24_bin:$PATH" node scripts/run-tests.mjs "$@"
