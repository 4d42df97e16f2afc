#!/usr/bin/env bash
# Golden bytes for the protobuf round-trip tests, produced by an encoder independent of ours:
# protoc (Debian's protobuf-compiler, libprotoc 3.21) encoding the hand-written text-format
# messages test/fixtures/protobuf/<case>.txtpb against the committed reference .proto files.
# For each case: <case>.bin is the object's message; <case>.envelope.bin is the `k8s\0` magic
# followed by the runtime.Unknown {typeMeta, raw = <case>.bin, contentEncoding "", contentType ""}
# (the layout the reference writes). watch-event.txtpb gives the WatchEvent golden frame body.
# Usage: bash scripts/gen-proto-goldens.sh   (needs protoc; the test only reads the .bin files)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=test/fixtures/protobuf
PROTOS=(proto/k8s.io/api/*/v1/generated.proto proto/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto proto/k8s.io/apimachinery/pkg/runtime/generated.proto)
enc() { protoc --deterministic_output --encode="$1" -I proto "${PROTOS[@]}" 2> >(grep -v 'is unused' >&2); }
# A text-format string literal of a file's bytes (every byte as an octal escape).
octal() { od -An -v -tu1 "$1" | tr -s ' \n' '\n\n' | awk 'NF { printf "\\%03o", $1 }'; }
for txt in "$DIR"/*.txtpb; do
  name=$(basename "$txt" .txtpb)
  [ "$name" = watch-event ] && continue
  json="$DIR/$name.json"
  message=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["message"])' "$json")
  apiVersion=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["object"]["apiVersion"])' "$json")
  kind=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["object"]["kind"])' "$json")
  enc "$message" < "$txt" > "$DIR/$name.bin"
  { printf 'k8s\000'; printf 'typeMeta { apiVersion: "%s" kind: "%s" } raw: "%s" contentEncoding: "" contentType: ""' "$apiVersion" "$kind" "$(octal "$DIR/$name.bin")" | enc k8s.io.apimachinery.pkg.runtime.Unknown; } > "$DIR/$name.envelope.bin"
done
# The watch frame golden: a WatchEvent whose object.raw is the Lease case's envelope.
printf 'type: "MODIFIED" object { raw: "%s" }' "$(octal "$DIR/lease.envelope.bin")" | enc k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent > "$DIR/watch-event.bin"
echo "goldens written under $DIR"
