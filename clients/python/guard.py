#!/usr/bin/env python3
"""A long-running agent-hooks hook in Python, standard library only.

The first half is a client of the long-running hook protocol (docs/long-running-hooks.md):
copy it into your own hook. The second half is an example guard: it blocks `rm -rf`, asks
the user before `git push --force`, and shows how many commands it checked in the status
line. Configure it with `"persistent": true`; run without it (or by another agent) it reads
its one payload from stdin and answers as a one-shot hook.
"""

import json
import sys

PROTOCOL = 1


class Hook:
    """One connection to the agent: events in, answers and requests out, one JSON per line."""

    def __init__(self, name, events=(), commands=()):
        self.name = name
        self.events = list(events)
        self.commands = list(commands)
        self.next_request = 0
        self.waiting = []  # events that arrived while a request waited for its reply
        self.event = None  # the id of the event being handled

    def send(self, message):
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def request(self, method, wait=True, **fields):
        """Asks the agent for something during the current event; returns the value."""
        self.next_request += 1
        rid = self.next_request
        self.send(dict(fields, type="request", id=rid, event=self.event, method=method))
        if not wait:
            return None
        while True:
            message = self.read()
            if message is None:
                sys.exit(0)
            if message.get("type") == "reply" and message.get("id") == rid:
                result = message.get("result", {})
                if result.get("status") != "ok":
                    raise RuntimeError(result.get("message", "the agent refused"))
                return result.get("value")
            if message.get("type") in ("event", "command"):
                self.waiting.append(message)
            # Replies to requests not waited for, and kinds this client does not know: ignored.

    def read(self):
        line = sys.stdin.readline()
        if not line:
            return None
        return json.loads(line)

    # What the agent offers during an event (the UI calls wait for the user).
    def confirm(self, title, message):
        return bool(self.request("ui_confirm", title=title, message=message))

    def select(self, title, options):
        return self.request("ui_select", title=title, options=list(options))

    def input(self, title, placeholder=""):
        return self.request("ui_input", title=title, placeholder=placeholder)

    def notify(self, message, level="info"):
        self.request("ui_notify", wait=False, message=message, level=level)

    def status(self, key, text):
        self.request("ui_set_status", wait=False, key=key, text=text)

    def run(self, handle):
        """Says hello, then answers each event with what `handle(event, payload)` returns:
        None (no decision), {"block": reason} (what exit code 2 means), or
        {"output": ...} (what a one-shot hook prints on stdout)."""
        self.send({"type": "hello", "protocol": PROTOCOL, "name": self.name,
                   "events": self.events,
                   "commands": [{"name": n, "description": d} for n, d in self.commands]})
        while True:
            message = self.waiting.pop(0) if self.waiting else self.read()
            if message is None or message.get("type") == "goodbye":
                return
            kind = message.get("type")
            if kind not in ("event", "command"):
                continue
            self.event = message["id"]
            try:
                answer = handle(message.get("event"), message.get("payload"))
                self.send(dict(answer or {}, type="answer", id=message["id"]))
            except Exception as error:  # an error answers the event; the hook keeps running
                self.send({"type": "answer", "id": message["id"], "error": str(error)})
            self.event = None


def main(hook, handle):
    """Long-running when the agent says hello first; otherwise one payload, answered once."""
    first = sys.stdin.readline()
    try:
        hello = json.loads(first)
    except ValueError:
        hello = None
    if isinstance(hello, dict) and hello.get("type") == "hello":
        if hello.get("protocol") != PROTOCOL:
            sys.exit("agent speaks protocol %s, this hook %s" % (hello.get("protocol"), PROTOCOL))
        hook.run(handle)
        return
    payload = json.loads(first + sys.stdin.read())
    answer = handle(payload.get("hook_event_name"), payload, one_shot=True) or {}
    if "block" in answer:
        sys.stderr.write(answer["block"])
        sys.exit(2)
    if "output" in answer:
        print(json.dumps(answer["output"]))


# ---- The example guard -------------------------------------------------------------------

checked = 0
hook = Hook("guard")


def guard(event, payload, one_shot=False):
    global checked
    command = (payload or {}).get("tool_input", {}).get("command", "")
    if not isinstance(command, str):
        return None
    checked += 1
    if not one_shot:
        hook.status("guard", "guard: %d checked" % checked)
    if "rm -rf" in command:
        return {"block": "rm -rf is blocked by the guard hook"}
    if "git push" in command and ("--force" in command or " -f" in command):
        if one_shot:
            return {"output": {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                      "permissionDecision": "ask"}}}
        if not hook.confirm("Force push", "Run `%s`?" % command):
            return {"block": "the user did not confirm the force push"}
    return None


if __name__ == "__main__":
    main(hook, guard)
