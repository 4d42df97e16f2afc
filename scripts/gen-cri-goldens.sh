#!/usr/bin/env bash
# Golden wire bytes for the CRI codec test, from an encoder independent of ours: protoc (Debian's
# protobuf-compiler) encoding the hand-written text-format messages test/fixtures/cri/<case>.txtpb
# against the reference's own api.proto (k8s.io/cri-api v0.32; read from the path given, never
# committed). The gogoproto import and options are dropped first (they change nothing on the wire).
# Usage: bash scripts/gen-cri-goldens.sh <path/to/api.proto>   (the test only reads the .bin files)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 <path/to/api.proto>" >&2; exit 2; }
DIR=test/fixtures/cri
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v -e '^import "github.com/gogo' -e '^option (gogoproto' "$1" > "$tmp/api.proto"
for txt in "$DIR"/*.txtpb; do
  name=$(basename "$txt" .txtpb)
  message=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["message"])' "$DIR/$name.json")
  protoc --deterministic_output --encode="runtime.v1.$message" -I "$tmp" "$tmp/api.proto" < "$txt" > "$DIR/$name.bin"
done
echo "goldens written under $DIR"
