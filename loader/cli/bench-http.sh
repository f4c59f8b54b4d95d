#!/bin/sh
# The round trip of one Claude Code HTTP hook (`install --agent claude --http`) with the
# resident process warm: a 2 KB PreToolUse POST to 127.0.0.1 with the secret, answered by
# the resident process, measured from a Python client (standard library only), on one
# kept-alive connection (what an agent's HTTP client reuses) and on a new connection each.
#
#   cargo build --release -p agent-hooks-cli
#   loader/cli/bench-http.sh [target/release/agent-hooks] [ROUNDS] [N]
#
# Prints the median per-request time over ROUNDS rounds of N requests of each kind, in
# turn. With GUARD=1 the user's hooks folder holds a long-running Python guard on
# PreToolUse (warm in the resident process); without it, no hook is found.
set -eu
BIN=$(cd "$(dirname "${1:-target/release/agent-hooks}")" && pwd)/$(basename "${1:-target/release/agent-hooks}")
ROUNDS=${2:-15}
N=${3:-200}
TMP=$(mktemp -d)
export HOME="$TMP/home"
unset XDG_RUNTIME_DIR XDG_CONFIG_HOME AGENT_HOOKS_NO_SERVE
export AGENT_HOOKS_SERVE_IDLE=120
trap 'rm -f "$HOME"/.cache/agent-hooks/run/*/serve.sock; rm -rf "$TMP"' EXIT
mkdir -p "$HOME/.config/agent-hooks/hooks" "$HOME/.claude" "$TMP/project"
cd "$TMP/project"
if [ "${GUARD:-0}" = 1 ]; then
    cat > "$HOME/.config/agent-hooks/hooks/guard.py" <<'PY'
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "guard"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        c = (m["payload"].get("tool_input") or {}).get("command", "")
        send({"type": "answer", "id": m["id"], **({"block": "no"} if "rm -rf" in c else {})})
    elif m.get("type") == "goodbye":
        break
PY
    printf '{"PreToolUse":[{"matcher":"exec","hooks":[{"type":"command","command":"python3 %s","persistent":true,"timeout":5}]}]}' \
        "$HOME/.config/agent-hooks/hooks/guard.py" > "$HOME/.config/agent-hooks/hooks/guard.json"
fi
echo '{}' > "$HOME/.claude/settings.json"
"$BIN" install --agent claude --http > /dev/null
# SessionStart (a command entry) starts the resident process, which listens on the port.
printf '{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}' \
    | "$BIN" hook --agent claude > /dev/null
python3 - "$HOME/.config/agent-hooks/http.json" "$TMP/project" "$ROUNDS" "$N" <<'PY'
import http.client, json, socket, statistics, sys, time
config = json.load(open(sys.argv[1]))
project, rounds, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
body = json.dumps({"session_id": "bench", "cwd": project, "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "ls " + "a" * 1900}})
headers = {"Content-Type": "application/json", "X-Agent-Hooks-Secret": config["secret"]}
def connect():
    # As an agent's HTTP client (Node's) does: no Nagle delay between a request's head and body.
    conn = http.client.HTTPConnection("127.0.0.1", config["port"])
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn
def once(conn):
    conn.request("POST", "/hook/claude", body, headers)
    response = conn.getresponse()
    answer = response.read()
    assert response.status == 200, (response.status, answer)
kept = connect()
for _ in range(50):
    once(kept)
kept_times, new_times = [], []
for _ in range(rounds):
    t0 = time.perf_counter()
    for _ in range(n):
        once(kept)
    t1 = time.perf_counter()
    for _ in range(n):
        conn = connect()
        once(conn)
        conn.close()
    t2 = time.perf_counter()
    kept_times.append((t1 - t0) / n * 1e6)
    new_times.append((t2 - t1) / n * 1e6)
print(f"HTTP hook round trip, kept-alive connection: {statistics.median(kept_times):.0f} us per request (median of {rounds} rounds of {n})")
print(f"HTTP hook round trip, a new connection each: {statistics.median(new_times):.0f} us per request")
PY
