#!/usr/bin/env bash
# Quick start: build nodeagent, run it standalone with the process:// runtime on
# examples/static-pods/, and show the first pod (a small web server) answering on 127.0.0.1.
# Usage: scripts/quickstart.sh [--check]
#   --check   stop everything once the pod has answered (for CI and trials); otherwise the agent
#             keeps running until Ctrl-C.
# Environment: QUICKSTART_ROOT (agent root dir; default a new temp dir), QUICKSTART_SKIP_BUILD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=${1:-}
URL=http://127.0.0.1:18080/
ROOT=${QUICKSTART_ROOT:-$(mktemp -d -t nodeagent-quickstart.XXXXXX)}
LOG="$ROOT/nodeagent.log"

if curl -fsS --max-time 1 "$URL" >/dev/null 2>&1; then
  echo "something already answers on $URL; stop it first" >&2
  exit 1
fi
if [ "${QUICKSTART_SKIP_BUILD:-}" != 1 ]; then
  echo "==> building (npm run build)"
  npm run build --silent >/dev/null 2>"$ROOT/build.log" || true
  [ -f dist/bundle/nodeagent/nodeagent.mjs ] || { echo "build failed; see $ROOT/build.log" >&2; exit 1; }
fi

echo "==> starting nodeagent (root dir $ROOT, log $LOG)"
mkdir -p "$ROOT/pki"
node bin/nodeagent \
  --pod-manifest-path examples/static-pods \
  --container-runtime-endpoint process:// \
  --root-dir "$ROOT" \
  --cert-dir "$ROOT/pki" \
  --hostname-override quickstart \
  --file-check-frequency 5s \
  --fail-cgroupv1=false \
  --address 127.0.0.1 \
  >"$LOG" 2>&1 &
AGENT=$!

cleanup() {
  kill -TERM "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null || true
  # the agent leaves pods running on purpose (a restarted agent adopts them): stop them here
  for f in "$ROOT"/process-runtime/containers/*.json; do
    [ -f "$f" ] || continue
    pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$f")
    ticks=$(sed -n 's/.*"startTicks":"\([0-9]*\)".*/\1/p' "$f")
    [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || continue
    # only if the pid is still the process the agent started (field 22: start time)
    now=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
    [ "$now" = "$ticks" ] && kill -TERM -- "-$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

for _ in $(seq 1 150); do
  if body=$(curl -fsS --max-time 1 "$URL" 2>/dev/null); then break; fi
  if ! kill -0 "$AGENT" 2>/dev/null; then echo "nodeagent exited; last log lines:" >&2; tail -20 "$LOG" >&2; exit 1; fi
  sleep 0.2
done
if [ -z "${body:-}" ]; then echo "the pod did not answer on $URL within 30 s; last log lines:" >&2; tail -20 "$LOG" >&2; exit 1; fi

echo "==> agent log:"
grep -E "runtime ready|agent starting|container started" "$LOG" | sed 's/^/    /'
echo "==> curl $URL"
echo "    $body"
for _ in $(seq 1 25); do
  health=$(curl -fsS --max-time 1 http://127.0.0.1:10248/healthz 2>/dev/null) && break
  sleep 0.2
done
if [ -n "${health:-}" ]; then
  echo "==> curl http://127.0.0.1:10248/healthz"
  echo "    $health"
fi
# the pods as the agent reports them (read-only server)
for _ in $(seq 1 25); do
  pods=$(curl -fsS --max-time 2 http://127.0.0.1:10255/pods 2>/dev/null) || true
  case "$pods" in *'"type":"Ready","status":"True"'*) break ;; esac
  sleep 0.2
done
if [ -n "${pods:-}" ]; then
  echo "==> curl http://127.0.0.1:10255/pods (summary)"
  printf '%s' "$pods" | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      for (const p of JSON.parse(s).items ?? []) {
        const ready = (p.status?.conditions ?? []).find((c) => c.type === "Ready")?.status;
        console.log(`    ${p.metadata.namespace}/${p.metadata.name}: ${p.status?.phase} (Ready=${ready}, podIP ${p.status?.podIP})`);
      }
    });' || true
fi
if [ "$CHECK" = --check ]; then
  echo "==> stopping the agent and its pod"
  exit 0
fi
echo "==> nodeagent is running; edit or add manifests in examples/static-pods/. Ctrl-C stops it and its pods."
wait "$AGENT"
