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
# turn, beside the floor: a small HTTP server in Rust (std only, built here with rustc -O)
# that reads a request's head and body and answers `{}` in one write, on the accepting
# thread, measured by the same client in the same rounds. With GUARD=1 the user's hooks folder holds a long-running Python guard on
# PreToolUse (warm in the resident process); without it, no hook is found.
set -eu
BIN=$(cd "$(dirname "${1:-target/release/agent-hooks}")" && pwd)/$(basename "${1:-target/release/agent-hooks}")
ROUNDS=${2:-15}
N=${3:-200}
TMP=$(mktemp -d)
# The floor: what a new connection and a request cost on this machine at least.
cat > "$TMP/floor.rs" <<'RS'
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
fn main() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap().port());
    std::io::stdout().flush().unwrap();
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let _ = stream.set_nodelay(true);
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        'requests: loop {
            let mut length = 0;
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break 'requests,
                    _ => {}
                }
                if line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                break;
            }
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}";
            if stream.write_all(answer.as_bytes()).is_err() {
                break;
            }
        }
    }
}
RS
rustc -O -o "$TMP/floor" "$TMP/floor.rs"
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
"$TMP/floor" > "$TMP/floor.port" &
FLOOR_PID=$!
trap 'kill $FLOOR_PID 2>/dev/null; rm -f "$HOME"/.cache/agent-hooks/run/*/serve.sock; rm -rf "$TMP"' EXIT
while [ ! -s "$TMP/floor.port" ]; do sleep 0.05; done
"$BIN" install --agent claude --http > /dev/null
# SessionStart (a command entry) starts the resident process, which listens on the port.
printf '{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}' \
    | "$BIN" hook --agent claude > /dev/null
python3 - "$HOME/.config/agent-hooks/http.json" "$TMP/project" "$ROUNDS" "$N" "$(cat "$TMP/floor.port")" <<'PY'
import http.client, json, socket, statistics, sys, time
config = json.load(open(sys.argv[1]))
project, rounds, n, floor_port = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
body = json.dumps({"session_id": "bench", "cwd": project, "hook_event_name": "PreToolUse",
                   "tool_name": "Bash", "tool_input": {"command": "ls " + "a" * 1900}})
headers = {"Content-Type": "application/json", "X-Agent-Hooks-Secret": config["secret"]}
def connect(port=config["port"]):
    # As an agent's HTTP client (Node's) does: no Nagle delay between a request's head and body.
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn
def once(conn):
    conn.request("POST", "/hook/claude", body, headers)
    response = conn.getresponse()
    answer = response.read()
    assert response.status == 200, (response.status, answer)
def rounds_of(port):
    kept = connect(port)
    for _ in range(50):
        once(kept)
    t0 = time.perf_counter()
    for _ in range(n):
        once(kept)
    t1 = time.perf_counter()
    # The floor serves one connection at a time: the kept one ends first.
    kept.close()
    t1b = time.perf_counter()
    for _ in range(n):
        conn = connect(port)
        once(conn)
        conn.close()
    t2 = time.perf_counter()
    return (t1 - t0) / n * 1e6, (t2 - t1b) / n * 1e6
times = {"ours": ([], []), "floor": ([], [])}
for r in range(rounds):
    for who in (["ours", "floor"] if r % 2 == 0 else ["floor", "ours"]):
        kept, new = rounds_of(config["port"] if who == "ours" else floor_port)
        times[who][0].append(kept)
        times[who][1].append(new)
med = {w: (statistics.median(k), statistics.median(c)) for w, (k, c) in times.items()}
ratio = lambda i: statistics.median(o / f for o, f in zip(times["ours"][i], times["floor"][i]))
print(f"HTTP hook round trip, kept-alive connection: {med['ours'][0]:.0f} us per request (median of {rounds} rounds of {n}); floor {med['floor'][0]:.0f} us; ratio {ratio(0):.2f}x")
print(f"HTTP hook round trip, a new connection each: {med['ours'][1]:.0f} us per request; floor {med['floor'][1]:.0f} us; ratio {ratio(1):.2f}x")
PY
