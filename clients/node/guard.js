#!/usr/bin/env node
// A long-running agent-hooks hook in JavaScript (node), standard library only.
//
// The first half is a client of the long-running hook protocol (docs/long-running-hooks.md):
// copy it into your own hook. The second half is an example guard: it blocks `rm -rf`, asks
// the user before `git push --force`, and shows how many commands it checked in the status
// line. Configure it with `"persistent": true`; run without it (or by another agent) it reads
// its one payload from stdin and answers as a one-shot hook.
"use strict";

const fs = require("fs");
const readline = require("readline");

const PROTOCOL = 1;

// Lines from stdin, one at a time: `await lines.next()` is a line, or null at the end.
class Lines {
  constructor(input) {
    this.queue = [];
    this.wanting = [];
    this.ended = false;
    const rl = readline.createInterface({ input, crlfDelay: Infinity });
    rl.on("line", (line) => this.push(line));
    rl.on("close", () => {
      this.ended = true;
      for (const want of this.wanting.splice(0)) want(null);
    });
  }
  push(line) {
    const want = this.wanting.shift();
    if (want) want(line);
    else this.queue.push(line);
  }
  next() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.wanting.push(resolve));
  }
}

// One connection to the agent: events in, answers and requests out, one JSON per line.
class Hook {
  constructor(name, { events = [], commands = [] } = {}) {
    this.name = name;
    this.events = events;
    this.commands = commands;
    this.nextRequest = 0;
    this.waiting = []; // events that arrived while a request waited for its reply
    this.event = null; // the id of the event being handled
    this.lines = null;
  }

  send(message) {
    fs.writeSync(1, JSON.stringify(message) + "\n");
  }

  async read() {
    const line = await this.lines.next();
    return line === null ? null : JSON.parse(line);
  }

  // Asks the agent for something during the current event; resolves to the value.
  async request(method, fields, wait = true) {
    const id = ++this.nextRequest;
    this.send({ ...fields, type: "request", id, event: this.event, method });
    if (!wait) return null;
    for (;;) {
      const message = await this.read();
      if (message === null) process.exit(0);
      if (message.type === "reply" && message.id === id) {
        const result = message.result || {};
        if (result.status !== "ok") throw new Error(result.message || "the agent refused");
        return result.value;
      }
      if (message.type === "event" || message.type === "command") this.waiting.push(message);
      // Replies to requests not waited for, and kinds this client does not know: ignored.
    }
  }

  // What the agent offers during an event (the UI calls wait for the user).
  async confirm(title, message) {
    return Boolean(await this.request("ui_confirm", { title, message }));
  }
  select(title, options) {
    return this.request("ui_select", { title, options });
  }
  input(title, placeholder = "") {
    return this.request("ui_input", { title, placeholder });
  }
  notify(message, level = "info") {
    this.request("ui_notify", { message, level }, false);
  }
  status(key, text) {
    this.request("ui_set_status", { key, text }, false);
  }

  // Says hello, then answers each event with what `handle(event, payload)` resolves to:
  // null (no decision), {block: reason} (what exit code 2 means), or {output: ...} (what a
  // one-shot hook prints on stdout).
  async run(handle) {
    this.send({
      type: "hello",
      protocol: PROTOCOL,
      name: this.name,
      events: this.events,
      commands: this.commands.map(([name, description]) => ({ name, description })),
    });
    for (;;) {
      const message = this.waiting.length ? this.waiting.shift() : await this.read();
      if (message === null || message.type === "goodbye") return;
      if (message.type !== "event" && message.type !== "command") continue;
      this.event = message.id;
      try {
        const answer = await handle(message.event, message.payload);
        this.send({ ...(answer || {}), type: "answer", id: message.id });
      } catch (error) {
        // An error answers the event; the hook keeps running.
        this.send({ type: "answer", id: message.id, error: String(error && error.message) });
      }
      this.event = null;
    }
  }
}

// Long-running when the agent says hello first; otherwise one payload, answered once.
async function main(hook, handle) {
  hook.lines = new Lines(process.stdin);
  const first = await hook.lines.next();
  let hello = null;
  try {
    hello = JSON.parse(first);
  } catch (_) {
    hello = null;
  }
  if (hello && hello.type === "hello") {
    if (hello.protocol !== PROTOCOL) {
      console.error(`agent speaks protocol ${hello.protocol}, this hook ${PROTOCOL}`);
      process.exit(1);
    }
    await hook.run(handle);
    process.exit(0);
  }
  let text = first === null ? "" : first;
  for (let line = await hook.lines.next(); line !== null; line = await hook.lines.next()) {
    text += "\n" + line;
  }
  const payload = JSON.parse(text);
  const answer = (await handle(payload.hook_event_name, payload, true)) || {};
  if ("block" in answer) {
    process.stderr.write(answer.block);
    process.exit(2);
  }
  if ("output" in answer) console.log(JSON.stringify(answer.output));
}

// ---- The example guard ---------------------------------------------------------------------

let checked = 0;
const hook = new Hook("guard");

async function guard(event, payload, oneShot = false) {
  const command = ((payload || {}).tool_input || {}).command;
  if (typeof command !== "string") return null;
  checked += 1;
  if (!oneShot) hook.status("guard", `guard: ${checked} checked`);
  if (command.includes("rm -rf")) return { block: "rm -rf is blocked by the guard hook" };
  if (command.includes("git push") && (command.includes("--force") || command.includes(" -f"))) {
    if (oneShot) {
      return {
        output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } },
      };
    }
    if (!(await hook.confirm("Force push", `Run \`${command}\`?`))) {
      return { block: "the user did not confirm the force push" };
    }
  }
  return null;
}

main(hook, guard);
