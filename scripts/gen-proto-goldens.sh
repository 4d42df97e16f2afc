#!/usr/bin/env bash
# Golden bytes for the protobuf round-trip tests, produced by an encoder independent of ours:
# protoc (Debian's protobuf-compiler, libprotoc 3.21) encoding the hand-written text-format
# messages test/fixtures/protobuf/<case>.txtpb against the published .proto files (the same
# checkouts scripts/gen-proto.mjs reads; see scripts/README.md for their versions).
# For each case: <case>.bin is the object's message; <case>.envelope.bin is the `k8s\0` magic
# followed by the runtime.Unknown {typeMeta, raw = <case>.bin, contentEncoding "", contentType ""}
# (the layout the reference writes). watch-event.txtpb gives the WatchEvent golden frame body;
# openapi-v2/document.txtpb an openapi.v2.Document.
# Usage: bash scripts/gen-proto-goldens.sh API_DIR APIMACHINERY_DIR GNOSTIC_DIR
#   (checkouts of k8s.io/api, k8s.io/apimachinery and github.com/google/gnostic-models; needs
#   protoc; the tests only read the .bin files)
set -euo pipefail
if [ $# -ne 3 ]; then sed -n '2,12p' "$0" >&2; exit 2; fi
API=$(realpath "$1"); MACHINERY=$(realpath "$2"); GNOSTIC=$(realpath "$3")
cd "$(dirname "$0")/.."
DIR=test/fixtures/protobuf
INCLUDES=(-Ik8s.io/api="$API" -Ik8s.io/apimachinery="$MACHINERY")
PROTOS=(k8s.io/api/{core,certificates,coordination,rbac,authentication,authorization,events}/v1/generated.proto
  k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto k8s.io/apimachinery/pkg/runtime/generated.proto)
enc() { protoc --deterministic_output --encode="$1" "${INCLUDES[@]}" "${PROTOS[@]}" 2> >(grep -v 'is unused' >&2); }
# A text-format string literal of a file's bytes (every byte as an octal escape).
octal() { od -An -v -tu1 "$1" | tr -s ' \n' '\n\n' | awk 'NF { printf "\\%03o", $1 }'; }
field() { python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
for txt in "$DIR"/*.txtpb; do
  name=$(basename "$txt" .txtpb)
  [ "$name" = watch-event ] && continue
  json="$DIR/$name.json"
  message=$(field "$json" 'o["message"]')
  apiVersion=$(field "$json" 'o["object"]["apiVersion"]')
  kind=$(field "$json" 'o["object"]["kind"]')
  enc "$message" < "$txt" > "$DIR/$name.bin"
  { printf 'k8s\000'; printf 'typeMeta { apiVersion: "%s" kind: "%s" } raw: "%s" contentEncoding: "" contentType: ""' "$apiVersion" "$kind" "$(octal "$DIR/$name.bin")" | enc k8s.io.apimachinery.pkg.runtime.Unknown; } > "$DIR/$name.envelope.bin"
done
# The watch frame golden: a WatchEvent whose object.raw is the Lease case's envelope.
printf 'type: "MODIFIED" object { raw: "%s" }' "$(octal "$DIR/lease.envelope.bin")" | enc k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent > "$DIR/watch-event.bin"
# The openapi.v2.Document golden. Its import google/protobuf/any.proto is declared here with the
# well-known type's two fields when protoc has no copy of its own.
WKT=$(mktemp -d); trap 'rm -rf "$WKT"' EXIT
mkdir -p "$WKT/google/protobuf"
printf 'syntax = "proto3";\npackage google.protobuf;\nmessage Any { string type_url = 1; bytes value = 2; }\n' > "$WKT/google/protobuf/any.proto"
protoc --deterministic_output --encode=openapi.v2.Document -I"$GNOSTIC" -I"$WKT" openapiv2/OpenAPIv2.proto \
  < "$DIR/openapi-v2/document.txtpb" > "$DIR/openapi-v2/document.bin"
echo "goldens written under $DIR"
