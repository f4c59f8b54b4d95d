# The probe hook of the real-agents suite: records what it got (stdin, its environment,
# its working folder) as one JSON line in probe.jsonl next to it, then answers as the case
# scripted: answers/<tag>.json holds a list, the n-th run of <tag> takes the n-th entry
# ({"stdout": ..., "stderr": ..., "code": ..., "sleep": seconds}); past the list, or with no
# list, it prints nothing and exits 0.
import json, os, sys, time

here = os.path.dirname(os.path.abspath(__file__))
tag = sys.argv[1]
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"__not_json__": raw}
prefixes = ("CLAUDE", "CODEX", "GEMINI", "COPILOT", "AGENT_HOOKS", "DEVIN", "QWEN")
env = {k: v for k, v in os.environ.items() if k.startswith(prefixes)}
counts = os.path.join(here, "counts")
os.makedirs(counts, exist_ok=True)
count_file = os.path.join(counts, tag)
n = int(open(count_file).read()) if os.path.exists(count_file) else 0
open(count_file, "w").write(str(n + 1))
with open(os.path.join(here, "probe.jsonl"), "a") as log:
    log.write(json.dumps({"tag": tag, "n": n, "payload": payload, "env": env,
                          "env_names": sorted(os.environ), "cwd": os.getcwd()}) + "\n")
answers = os.path.join(here, "answers", tag + ".json")
answer = {}
if os.path.exists(answers):
    listed = json.load(open(answers))
    if n < len(listed):
        answer = listed[n]
if answer.get("sleep"):
    time.sleep(answer["sleep"])
sys.stdout.write(answer.get("stdout", ""))
sys.stderr.write(answer.get("stderr", ""))
sys.stdout.flush()
sys.exit(answer.get("code", 0))
