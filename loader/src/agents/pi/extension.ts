// agent-hooks for pi: each of pi's events below goes to agent-hooks, and its answer is
// applied in pi's terms: a blocked tool call, a rewritten tool input, text added to a tool's
// result, context for the model, a run kept going, a refused compaction, messages for the
// user. An event goes straight to agent-hooks' warm resident process over its socket (one
// round trip, no process started); when that cannot answer (not running, of another
// version, gone mid-call), it goes through `agent-hooks hook --agent pi` (COMMAND), which
// starts the resident process or runs the hooks itself, so the event is always answered.
//
// Written by `agent-hooks install --agent pi`; `agent-hooks uninstall --agent pi` removes it
// as long as it is as written. It uses node's own modules only, and never throws into pi: a
// problem is a notice for the user, and a tool call that cannot be checked is blocked (a
// gate fails closed).
//
// The request is Claude Code's hook payload under pi's event and tool names; the answer is
// Claude Code's: exit code 2 blocks with the reason on stderr, anything else is the JSON on
// stdout.

import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { connect } from "node:net";
import { isAbsolute, join } from "node:path";

const COMMAND = "agent-hooks hook --agent pi";

// The version of agent-hooks that wrote this extension: the resident process answers a
// client of its own version only.
const VERSION = "";

// The longest one event may take. agent-hooks cuts each hook at its own timeout, well
// before this; this bounds agent-hooks itself.
const CALL_LIMIT_MS = 600_000;

// The most of an answer read (stdout and stderr each).
const ANSWER_LIMIT = 4 * 1024 * 1024;

// How many times in a row a stop hook may keep a run going.
const MAX_CONTINUATIONS = 8;

// How long a question to the user waits for an answer before the no-UI answer stands.
const QUESTION_LIMIT_MS = 120_000;

// The custom type of what this extension adds to a session.
const CUSTOM_TYPE = "agent-hooks";

type Reply = { code: number; stdout: string; stderr: string };

// What agent-hooks made of an event.
type Answer = {
  // The action is refused, with this reason.
  block?: string;
  // The agent stops, with this reason for the user.
  stop?: string;
  // The tool runs with this input instead.
  input?: Record<string, unknown>;
  // The user is to be asked, with this reason.
  ask?: string;
  // Text for the model (a stop hook's or a tool result's `decision: "block"` reason, and
  // `additionalContext`).
  context: string[];
  // Messages for the user.
  messages: string[];
  // The tool's result as the hooks left it (agent-hooks' content blocks), where one changed
  // it: what hooks added for the model is in it already.
  content?: any[];
  // agent-hooks gave no answer: why.
  problem?: string;
};

// FNV-1a (64 bits, hex) of `text`: how agent-hooks names a user's socket folder.
function fnv(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

// The resident process's socket for this user, where agent-hooks puts it:
// `$XDG_RUNTIME_DIR/agent-hooks/<user>/serve.sock` or `~/.cache/agent-hooks/run/<user>/...`.
function socketPath(): string | undefined {
  const home = process.env.HOME;
  if (!home || !isAbsolute(home)) return undefined;
  const config = process.env.XDG_CONFIG_HOME;
  const xdg = config && isAbsolute(config) ? config : "";
  const tag = fnv(`${home}\0${xdg}`);
  const runtime = process.env.XDG_RUNTIME_DIR;
  let base = join(home, ".cache", "agent-hooks", "run");
  try {
    if (runtime && isAbsolute(runtime) && statSync(runtime).isDirectory()) {
      base = join(runtime, "agent-hooks");
    }
  } catch {
    // No runtime folder: the home's.
  }
  return join(base, tag, "serve.sock");
}

// The agents whose hooks files run too (`--with` in COMMAND).
const WITH = (/ --with ([^ ]+)/.exec(COMMAND)?.[1] ?? "").split(",").filter((name) => name !== "");

// Whether events may go to the resident process's socket: not when COMMAND or the
// environment says the hooks run in agent-hooks' own process, nor once a resident process of
// another version gave way to this extension (the relay then answers, at its version).
let direct = !COMMAND.includes("--no-serve") && process.env.AGENT_HOOKS_NO_SERVE === undefined;

// How many questions and notices of one event the extension shows; past them a question
// gets the no-UI answer at once and a notice is dropped (agent-hooks bounds them too).
const MAX_QUESTIONS = 16;
const MAX_NOTICES = 64;

// Shows one of the resident process's UI frames (a question or a notice of a plugin) in
// pi's UI; resolves to the answer line for a question, `undefined` for a notice. Never
// rejects: a UI that fails answers as if nobody answered (`null`, or `false` for confirm).
async function showFrame(
  ctx: any,
  frame: any,
  counts: { questions: number; notices: number },
  signal: AbortSignal,
): Promise<string | undefined> {
  const call = frame?.call;
  if (call === "notify" || call === "set_status") {
    counts.notices += 1;
    if (counts.notices > MAX_NOTICES) return undefined;
    try {
      if (call === "notify" && typeof frame.message === "string") {
        const level = ["info", "warning", "error"].includes(frame.level) ? frame.level : "info";
        ctx.ui.notify(frame.message, level);
      } else if (call === "set_status" && typeof frame.key === "string") {
        ctx.ui.setStatus(frame.key, typeof frame.text === "string" ? frame.text : undefined);
      }
    } catch {
      // A notice pi could not show is not the event's problem.
    }
    return undefined;
  }
  if (typeof frame?.id !== "number") return undefined;
  const none = call === "confirm" ? false : null;
  let answer: unknown = none;
  counts.questions += 1;
  if (counts.questions <= MAX_QUESTIONS) {
    const timeout = Math.min(
      typeof frame.timeout_ms === "number" && frame.timeout_ms > 0 ? frame.timeout_ms : QUESTION_LIMIT_MS,
      QUESTION_LIMIT_MS,
    );
    const title = typeof frame.title === "string" ? frame.title : "agent-hooks";
    try {
      if (call === "confirm") {
        answer = (await ctx.ui.confirm(title, String(frame.message ?? ""), { timeout, signal })) === true;
      } else if (call === "select" && Array.isArray(frame.options)) {
        const options = frame.options.filter((option: unknown) => typeof option === "string");
        const picked = await ctx.ui.select(title, options, { timeout, signal });
        answer = typeof picked === "string" ? picked : null;
      } else if (call === "input") {
        const typed = await ctx.ui.input(title, String(frame.placeholder ?? ""), { timeout, signal });
        answer = typeof typed === "string" ? typed : null;
      }
    } catch {
      answer = none;
    }
  }
  return `${JSON.stringify({ id: frame.id, answer })}\n`;
}

// The part of a request's header that is the same for every event of this pi process, made
// at its first event: the user's folders, this extension's options and version, pi's pid
// and pi's environment. pi runs its extensions in its own process, whose environment does
// not change per event (reading it whole costs more than the rest of a call in node), so
// the hooks get pi's environment as it was at the first event.
let headerBase: string | undefined;

// The resident process's socket, found at the first event.
let socketAt: string | undefined | null = null;

// A connection to the resident process, kept open from one event to the next: the events
// of this pi process go over it one after another (each request's header says `keep`, and
// the resident process marks its answer `keep` when it keeps the connection for the next
// one; a resident process that does not closes it after its answer, and the next event
// connects anew). While no event is on it, it does not keep pi's process alive.
type Link = {
  socket: ReturnType<typeof connect>;
  // What came since the last whole line.
  pending: Buffer;
  // Bytes of the current call's lines so far.
  size: number;
  // The current call's handlers: a line, and the connection's end (it broke, or was closed).
  onLine?: (text: string) => void;
  onEnd?: () => void;
  ended: boolean;
};

// The connections not in use, the most recently used last. Events that come while one is
// in use (pi's handlers may run at once) get a connection of their own, kept as well.
const idle: Link[] = [];

// How many connections are kept while not in use.
const MAX_IDLE = 4;

// A call whose connection broke before its answer (its resident process was killed, closed
// the connection, or answered something unreadable): sent again on a new connection.
const BROKEN = Symbol("broken");

type Outcome = { reply?: Reply; problem?: string };

// A new connection to the socket at `path`, once it is connected; `undefined` when it
// cannot be made.
function open(path: string): Promise<Link | undefined> {
  return new Promise((resolve) => {
    let socket: ReturnType<typeof connect>;
    try {
      socket = connect(path);
    } catch {
      resolve(undefined);
      return;
    }
    const link: Link = { socket, pending: Buffer.alloc(0), size: 0, ended: false };
    let connected = false;
    const end = () => {
      if (link.ended) return;
      link.ended = true;
      const at = idle.indexOf(link);
      if (at >= 0) idle.splice(at, 1);
      socket.destroy();
      if (!connected) resolve(undefined);
      link.onEnd?.();
    };
    socket.on("error", end);
    socket.on("close", end);
    socket.on("end", () => {
      // A last line without its newline is the end of the answer (an older resident process).
      if (link.pending.length > 0 && link.onLine) {
        const text = link.pending.toString("utf8");
        link.pending = Buffer.alloc(0);
        link.onLine(text);
      }
      end();
    });
    socket.on("data", (chunk: Buffer) => {
      if (!link.onLine) {
        // Nothing is asked on it: what comes is not an answer.
        end();
        return;
      }
      link.size += chunk.length;
      if (link.size > ANSWER_LIMIT) {
        end();
        return;
      }
      link.pending = link.pending.length === 0 ? chunk : Buffer.concat([link.pending, chunk]);
      let at = link.pending.indexOf(10);
      while (at >= 0 && link.onLine) {
        const text = link.pending.toString("utf8", 0, at);
        link.pending = link.pending.subarray(at + 1);
        link.onLine(text);
        at = link.pending.indexOf(10);
      }
    });
    socket.on("connect", () => {
      connected = true;
      resolve(link);
    });
  });
}

// Sends `request` on `link` and reads its answer: the reply, a problem (no answer within
// CALL_LIMIT_MS), `undefined` when the resident process cannot answer it (the relay then
// does), or BROKEN. With pi's UI (`hasUI`), the resident process's UI frames (a plugin's
// `confirm`, `select`, `input`, `notify`, status) come before its answer, and are shown in
// pi's UI and answered on the same connection. The connection is kept for the next event
// when the resident process said so, and closed otherwise.
function exchange(link: Link, request: string, ctx: any, hasUI: boolean): Promise<Outcome | undefined | typeof BROKEN> {
  return new Promise((resolve) => {
    let settled = false;
    const counts = { questions: 0, notices: 0 };
    // Dismisses the call's dialogs still open once it is answered (agent-hooks gave up on them).
    const dialogs = new AbortController();
    const finish = (outcome: Outcome | undefined | typeof BROKEN, keep: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      link.onLine = undefined;
      link.onEnd = undefined;
      dialogs.abort();
      if (keep && !link.ended && link.pending.length === 0 && idle.length < MAX_IDLE) {
        link.socket.unref();
        idle.push(link);
      } else {
        link.ended = true;
        link.socket.destroy();
      }
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ problem: `the resident process gave no answer within ${CALL_LIMIT_MS / 1000} s` }, false),
      CALL_LIMIT_MS,
    );
    // One line from the resident process: a UI frame, or the answer that ends the call.
    link.onLine = (text: string) => {
      let value: any;
      try {
        value = JSON.parse(text);
      } catch {
        finish(BROKEN, false);
        return;
      }
      if (value && typeof value.ui === "object" && value.ui !== null) {
        if (!hasUI) return;
        void showFrame(ctx, value.ui, counts, dialogs.signal).then((reply) => {
          if (reply !== undefined && !settled && !link.ended) link.socket.write(reply);
        });
        return;
      }
      if (typeof value?.gave_way === "string") direct = false;
      const readable =
        typeof value?.code === "number" && typeof value?.stdout === "string" && typeof value?.stderr === "string";
      if (!readable) {
        // A refusal (of another version, or past its connections) is answered by the
        // relay; anything else is a broken answer.
        finish(typeof value?.refused === "string" ? undefined : BROKEN, false);
        return;
      }
      finish({ reply: { code: value.code, stdout: value.stdout, stderr: value.stderr } }, value.keep === true);
    };
    link.onEnd = () => finish(BROKEN, false);
    if (link.ended) {
      finish(BROKEN, false);
      return;
    }
    link.size = 0;
    link.socket.ref();
    try {
      link.socket.write(request);
    } catch {
      finish(BROKEN, false);
    }
  });
}

// Sends one event to the resident process: its reply, or `undefined` when it cannot answer
// (the relay then does), or a problem when it took past CALL_LIMIT_MS. It goes on a kept
// connection when there is one; when that one broke (its resident process was killed or
// closed it between events), on a new connection, once.
async function resident(ctx: any, cwd: string, payload: Record<string, unknown>): Promise<Outcome | undefined> {
  if (socketAt === null) socketAt = socketPath();
  const path = direct ? socketAt : undefined;
  if (!path) return undefined;
  let hasUI = false;
  try {
    hasUI = ctx?.hasUI === true;
  } catch {
    // No UI, then.
  }
  if (headerBase === undefined) {
    const config = process.env.XDG_CONFIG_HOME;
    const env = Object.entries(process.env).filter((pair): pair is [string, string] => typeof pair[1] === "string");
    headerBase = JSON.stringify({
      v: 1,
      agent: "pi",
      event: null,
      with: WITH,
      home: process.env.HOME,
      xdg_config_home: config && isAbsolute(config) ? config : null,
      hooks: [],
      no_discover: false,
      trust_project: false,
      required: [],
      in_process: false,
      env,
      program: process.env.AGENT_HOOKS_TEST_PROGRAM_VERSION || VERSION,
      agent_pid: process.pid,
      keep: true,
    }).slice(0, -1);
  }
  // The header and the payload in one write.
  const body = JSON.stringify(payload);
  const ui = hasUI ? `{"question_ms":${QUESTION_LIMIT_MS}}` : "null";
  const length = Buffer.byteLength(body, "utf8");
  const request = `${headerBase},"cwd":${JSON.stringify(cwd)},"length":${length},"ui":${ui}}\n${body}`;
  let link = idle.pop();
  const kept = link !== undefined;
  link ??= await open(path);
  if (!link) return undefined;
  let outcome = await exchange(link, request, ctx, hasUI);
  if (outcome === BROKEN && kept && direct) {
    const fresh = await open(path);
    if (!fresh) return undefined;
    outcome = await exchange(fresh, request, ctx, hasUI);
  }
  return outcome === BROKEN ? undefined : outcome;
}

// Runs COMMAND with `payload` on stdin, bounded in time and size; resolves, never rejects.
function relay(payload: Record<string, unknown>): Promise<{ reply?: Reply; problem?: string }> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: { reply?: Reply; problem?: string }) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      finish({ problem: `agent-hooks could not start (${String(error)})` });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outSize = 0;
    let errSize = 0;
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ problem: `agent-hooks gave no answer within ${CALL_LIMIT_MS / 1000} s` });
    }, CALL_LIMIT_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      if (outSize < ANSWER_LIMIT) out.push(chunk);
      outSize += chunk.length;
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (errSize < ANSWER_LIMIT) err.push(chunk);
      errSize += chunk.length;
    });
    child.on("error", (error) => finish({ problem: `agent-hooks could not run (${error.message})` }));
    child.on("close", (code, signal) => {
      if (outSize > ANSWER_LIMIT) {
        finish({ problem: `agent-hooks answered more than ${ANSWER_LIMIT} bytes` });
      } else if (code === null) {
        finish({ problem: `agent-hooks was ended by ${signal ?? "a signal"}` });
      } else if (code === 127) {
        finish({ problem: `agent-hooks is not where this extension runs it: ${COMMAND}` });
      } else {
        finish({
          reply: {
            code,
            stdout: Buffer.concat(out).toString("utf8"),
            stderr: Buffer.concat(err).toString("utf8").slice(0, ANSWER_LIMIT),
          },
        });
      }
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify(payload));
  });
}

// One event's reply: from the resident process, else through the relay.
async function call(ctx: any, cwd: string, payload: Record<string, unknown>): Promise<{ reply?: Reply; problem?: string }> {
  return (await resident(ctx, cwd, payload)) ?? (await relay(payload));
}

// The JSON object in `text`: the whole of it, or its last line that is one.
function json(text: string): Record<string, any> | undefined {
  const candidates = [text, ...text.split("\n").reverse()];
  for (const candidate of candidates) {
    const trimmed = candidate.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value = JSON.parse(trimmed);
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

// Reads agent-hooks' reply (Claude Code's answer form).
function read(outcome: { reply?: Reply; problem?: string }): Answer {
  const answer: Answer = { context: [], messages: [] };
  if (!outcome.reply) {
    answer.problem = outcome.problem ?? "agent-hooks gave no answer";
    return answer;
  }
  const { code, stdout, stderr } = outcome.reply;
  const notes = stderr.trim();
  if (code === 2) {
    answer.block = notes || "Blocked by agent-hooks";
    return answer;
  }
  if (code !== 0 && notes) answer.messages.push(notes);
  const reply = json(stdout);
  if (!reply) return answer;
  if (typeof reply.systemMessage === "string") answer.messages.push(reply.systemMessage);
  if (reply.continue === false) {
    answer.stop = typeof reply.stopReason === "string" ? reply.stopReason : "agent-hooks stopped the agent";
  }
  if (reply.decision === "block" && typeof reply.reason === "string") answer.context.push(reply.reason);
  if (Array.isArray(reply.content)) answer.content = reply.content;
  const specific = reply.hookSpecificOutput;
  if (specific && typeof specific === "object") {
    const reason = typeof specific.permissionDecisionReason === "string" ? specific.permissionDecisionReason : "";
    if (specific.permissionDecision === "deny") answer.block = reason || "Blocked by agent-hooks";
    if (specific.permissionDecision === "ask") answer.ask = reason;
    const input = specific.updatedInput;
    if (input && typeof input === "object" && !Array.isArray(input)) answer.input = input;
    if (typeof specific.additionalContext === "string") answer.context.push(specific.additionalContext);
  }
  return answer;
}

// Tells the user `text`: pi's notice where it has a UI, stderr where it has none.
function tell(ctx: any, text: string, level: "info" | "warning" | "error" = "warning") {
  try {
    if (ctx?.hasUI) {
      ctx.ui.notify(text, level);
      return;
    }
  } catch {
    // Fall through to stderr.
  }
  try {
    process.stderr.write(`${text}\n`);
  } catch {
    // Nowhere left to tell it.
  }
}

// The fields every request carries.
function base(event: string, ctx: any): Record<string, unknown> {
  const payload: Record<string, unknown> = { hook_event_name: event };
  try {
    payload.cwd = ctx?.cwd ?? process.cwd();
    const id = ctx?.sessionManager?.getSessionId?.();
    if (typeof id === "string") payload.session_id = id;
    const file = ctx?.sessionManager?.getSessionFile?.();
    if (typeof file === "string") payload.transcript_path = file;
  } catch {
    // A field pi could not give is left out.
  }
  return payload;
}

// Sends one event and reads the answer, telling the user its messages and problems.
async function send(event: string, ctx: any, fields: Record<string, unknown>): Promise<Answer> {
  const payload = { ...base(event, ctx), ...fields };
  const answer = read(await call(ctx, String(payload.cwd ?? process.cwd()), payload));
  for (const message of answer.messages) tell(ctx, message, "info");
  if (answer.problem) tell(ctx, `agent-hooks: ${answer.problem}`, "error");
  return answer;
}

// The text of a tool's result content.
function text(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((part: any) => part && part.type === "text" && typeof part.text === "string")
    .map((part: any) => part.text)
    .join("\n");
}

export default function agentHooks(pi: any) {
  // Context for the model from the start of the session or a prompt, given with the next
  // run's first request.
  let pending: string[] = [];
  // Context from a tool call's hooks, added to that call's result.
  const beforeResult = new Map<string, string[]>();
  // How many times in a row stop hooks kept the run going.
  let continuations = 0;

  const guarded = (name: string, handler: (event: any, ctx: any) => Promise<any>) =>
    pi.on(name, async (event: any, ctx: any) => {
      try {
        return await handler(event, ctx);
      } catch (error) {
        tell(ctx, `agent-hooks: ${name}: ${String(error)}`, "error");
        return name === "tool_call"
          ? { block: true, reason: `agent-hooks could not check this call (${String(error)})` }
          : undefined;
      }
    });

  guarded("session_start", async (event, ctx) => {
    const source = { new: "clear", resume: "resume", fork: "resume" }[event?.reason as string] ?? "startup";
    const answer = await send("session_start", ctx, { source });
    pending.push(...answer.context);
    if (answer.stop) tell(ctx, answer.stop);
  });

  guarded("input", async (event, ctx) => {
    const answer = await send("input", ctx, { prompt: event?.text ?? "" });
    if (answer.block || answer.stop) {
      tell(ctx, answer.block ?? answer.stop ?? "");
      return { action: "handled" };
    }
    pending.push(...answer.context);
    return { action: "continue" };
  });

  guarded("before_agent_start", async () => {
    if (pending.length === 0) return undefined;
    const content = pending.join("\n");
    pending = [];
    return { message: { customType: CUSTOM_TYPE, content, display: false } };
  });

  guarded("tool_call", async (event, ctx) => {
    const answer = await send("tool_call", ctx, {
      tool_name: event.toolName,
      tool_input: event.input,
      tool_use_id: event.toolCallId,
    });
    if (answer.problem) {
      return { block: true, reason: `agent-hooks could not check this call (${answer.problem})` };
    }
    if (answer.stop) {
      tell(ctx, answer.stop);
      return { block: true, reason: answer.block ?? answer.stop, terminate: true };
    }
    if (answer.block) return { block: true, reason: answer.block };
    if (answer.ask !== undefined) {
      const question = answer.ask || `Allow ${event.toolName}?`;
      const allowed = ctx?.hasUI
        ? await ctx.ui.confirm("agent-hooks", question, { timeout: QUESTION_LIMIT_MS })
        : false;
      if (!allowed) {
        const why = ctx?.hasUI ? "the user did not allow it" : "nobody can be asked here (pi has no UI)";
        return { block: true, reason: `${question} (${why})` };
      }
    }
    if (answer.input) {
      for (const key of Object.keys(event.input)) delete event.input[key];
      Object.assign(event.input, answer.input);
    }
    if (answer.context.length > 0) beforeResult.set(event.toolCallId, answer.context);
    return undefined;
  });

  guarded("tool_result", async (event, ctx) => {
    const earlier = beforeResult.get(event.toolCallId) ?? [];
    beforeResult.delete(event.toolCallId);
    // A failed call (the tool threw, or `bash` exited non-zero) is Claude Code's
    // PostToolUseFailure, its result's text the error; one that ran is PostToolUse.
    const fields = { tool_name: event.toolName, tool_input: event.input, tool_use_id: event.toolCallId };
    const answer =
      event.isError === true
        ? await send("tool_result (isError)", ctx, {
            ...fields,
            error: text(event.content),
            is_interrupt: ctx?.signal?.aborted === true,
          })
        : await send("tool_result", ctx, { ...fields, tool_response: { output: text(event.content) } });
    if (answer.stop) {
      tell(ctx, answer.stop);
      ctx?.abort?.();
    }
    const added = [...earlier, ...(answer.block ? [answer.block] : [])];
    let content: any[] = event.content ?? [];
    if (answer.content) {
      // The result as the hooks left it: its text in place of pi's, what is not text (an
      // image agent-hooks did not see) kept.
      const texts = answer.content
        .filter((block: any) => block?.type === "text" && typeof block.text === "string")
        .map((block: any) => ({ type: "text", text: block.text }));
      content = [...content.filter((block: any) => block?.type !== "text"), ...texts];
    } else {
      added.push(...answer.context);
    }
    if (added.length === 0 && !answer.content) return undefined;
    if (added.length > 0) content = [...content, { type: "text", text: added.join("\n") }];
    return { content };
  });

  guarded("agent_before_settle", async (event, ctx) => {
    const answer = await send("agent_before_settle", ctx, { stop_hook_active: continuations > 0 });
    const reason = answer.block ?? answer.context.join("\n");
    if (!reason || answer.stop) {
      continuations = 0;
      if (answer.stop) tell(ctx, answer.stop);
      return undefined;
    }
    if (continuations >= MAX_CONTINUATIONS) {
      continuations = 0;
      tell(ctx, `agent-hooks: stop hooks kept pi going ${MAX_CONTINUATIONS} times in a row; letting it stop`);
      return undefined;
    }
    continuations += 1;
    const entry = { type: "custom_message", customType: CUSTOM_TYPE, content: reason, display: true };
    return { entries: [...(event.entries ?? []), entry], continue: true };
  });

  guarded("session_before_compact", async (event, ctx) => {
    const trigger = event?.reason === "manual" ? "manual" : "auto";
    const answer = await send("session_before_compact", ctx, {
      trigger,
      custom_instructions: event?.customInstructions ?? "",
    });
    if (answer.block || answer.stop) {
      tell(ctx, answer.block ?? answer.stop ?? "");
      return { cancel: true };
    }
    return undefined;
  });

  guarded("session_compact", async (event, ctx) => {
    const trigger = event?.reason === "manual" ? "manual" : "auto";
    await send("session_compact", ctx, { trigger });
  });

  guarded("session_shutdown", async (event, ctx) => {
    const reason = event?.reason === "new" ? "clear" : "other";
    await send("session_shutdown", ctx, { reason });
  });
}
