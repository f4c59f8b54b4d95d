#!/bin/sh
# The cost of one `agent-hooks hook` call with the resident process warm, against a bare
# spawn of `true`, interleaved: ROUNDS rounds of N spawns of each, in turn, from the same
# shell loop, so that the loop's own cost and the machine's load fall on both alike.
#
#   cargo build --release -p agent-hooks-cli
#   loader/cli/bench-hook.sh [target/release/agent-hooks] [ROUNDS] [N]
#
# Prints the median per-call time of each over the rounds, and their ratio; also of
# `agent-hooks --version` (the program's start-up alone) and of the small relay program
# `agent-hooks-hook` next to it (what `install` writes into the agents' entries). With GUARD=1
# the user's hooks folder holds a long-running Python guard on PreToolUse (warm in the
# resident process); without it, no hook is found (the client's and the resident
# process's own cost).
set -eu
BIN=$(cd "$(dirname "${1:-target/release/agent-hooks}")" && pwd)/$(basename "${1:-target/release/agent-hooks}")
ROUNDS=${2:-15}
N=${3:-50}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP/home"
unset XDG_RUNTIME_DIR XDG_CONFIG_HOME AGENT_HOOKS_NO_SERVE
export AGENT_HOOKS_SERVE_IDLE=120
mkdir -p "$HOME/.config/agent-hooks/hooks" "$TMP/project"
cd "$TMP/project"
if [ "${GUARD:-0}" = 1 ]; then
    cat > "$HOME/.config/agent-hooks/hooks/guard.py" <<'EOF'
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
EOF
    printf '{"PreToolUse":[{"matcher":"exec","hooks":[{"type":"command","command":"python3 %s","persistent":true,"timeout":5}]}]}' \
        "$HOME/.config/agent-hooks/hooks/guard.py" > "$HOME/.config/agent-hooks/hooks/guard.json"
fi
# A 2 KB PreToolUse payload as Claude Code writes it.
PAD=$(head -c 1900 /dev/zero | tr '\0' 'a')
printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls %s"}}' \
    "$TMP/project" "$PAD" > "$TMP/payload.json"
# Warm up: starts the resident process.
"$BIN" hook --agent claude < "$TMP/payload.json" > /dev/null
now() { date +%s%N; }
# The program, not the shell's builtin.
TRUE=/bin/true
[ -x "$TRUE" ] || TRUE=/usr/bin/true
hooks=""
trues=""
versions=""
relays=""
RELAY=$(dirname "$BIN")/agent-hooks-hook
i=0
while [ $i -lt "$ROUNDS" ]; do
    t0=$(now)
    j=0; while [ $j -lt "$N" ]; do "$TRUE" < "$TMP/payload.json"; j=$((j + 1)); done
    t1=$(now)
    j=0; while [ $j -lt "$N" ]; do "$BIN" hook --agent claude < "$TMP/payload.json" > /dev/null; j=$((j + 1)); done
    t2=$(now)
    j=0; while [ $j -lt "$N" ]; do "$BIN" --version > /dev/null; j=$((j + 1)); done
    t3=$(now)
    versions="$versions $(( (t3 - t2) / N / 1000 ))"
    j=0; while [ $j -lt "$N" ]; do "$RELAY" --agent claude < "$TMP/payload.json" > /dev/null; j=$((j + 1)); done
    t4=$(now)
    relays="$relays $(( (t4 - t3) / N / 1000 ))"
    trues="$trues $(( (t1 - t0) / N / 1000 ))"
    hooks="$hooks $(( (t2 - t1) / N / 1000 ))"
    i=$((i + 1))
done
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mt=$(median "$trues")
mh=$(median "$hooks")
echo "bare spawn of true:            ${mt} us per call (median of $ROUNDS rounds of $N)"
mv=$(median "$versions")
echo "agent-hooks hook, warm:        ${mh} us per call"
echo "agent-hooks --version:         ${mv} us per call (the program's own start-up)"
mr=$(median "$relays")
echo "agent-hooks-hook (the relay):  ${mr} us per call"
awk -v h="$mr" -v t="$mt" 'BEGIN {printf "ratio relay / true:            %.2f\n", h / t}'
awk -v h="$mh" -v t="$mt" 'BEGIN {printf "ratio hook / true:             %.2f\n", h / t}'
rm -f "$HOME"/.cache/agent-hooks/run/*/serve.sock
