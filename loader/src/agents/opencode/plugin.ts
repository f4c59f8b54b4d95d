// agent-hooks for OpenCode (and Kilo Code, which loads plugins the same way): each OpenCode
// event below goes to agent-hooks, and its answer is applied in the plugin's terms: a tool
// call refused (an Error thrown with the reason, which OpenCode gives the model as the
// call's result), a rewritten tool input (its arguments changed in place), text added to or
// put in place of a tool's output, context for the model with the next prompt, messages for
// the user. An event goes straight to agent-hooks' warm resident process over its socket
// (one round trip, no process started); when that cannot answer (not running, of another
// version, gone mid-call), it goes through COMMAND (`agent-hooks hook`), which starts the
// resident process or runs the hooks itself, so the event is always answered.
//
// Written by `agent-hooks install`; `agent-hooks uninstall` removes it as long as it is as
// written. It uses node's own modules only, and throws into the agent only to refuse a tool
// call: a problem is a notice for the user (on stderr), and a tool call that cannot be
// checked is refused (a gate fails closed).
//
// The request is Claude Code's hook payload under OpenCode's event and tool names; the
// answer is Claude Code's: exit code 2 blocks with the reason on stderr, anything else is
// the JSON on stdout.

import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { connect } from "node:net";
import { isAbsolute, join } from "node:path";

const COMMAND = "agent-hooks hook --agent opencode";

// The agent this file was written for (`--agent`).
const AGENT = "opencode";

// The version of agent-hooks that wrote this plugin: the resident process answers a client
// of its own version only.
const VERSION = "";

// The longest one event may take. agent-hooks cuts each hook at its own timeout, well
// before this; this bounds agent-hooks itself.
const CALL_LIMIT_MS = 600_000;

// The most of an answer read (stdout and stderr each).
const ANSWER_LIMIT = 4 * 1024 * 1024;

type Reply = { code: number; stdout: string; stderr: string };

type Outcome = { reply?: Reply; problem?: string };

// What agent-hooks made of an event.
type Answer = {
  // The action is refused, with this reason.
  block?: string;
  // The agent is to stop, with this reason for the user.
  stop?: string;
  // The tool runs with this input instead.
  input?: Record<string, unknown>;
  // The user is to be asked, with this reason.
  ask?: string;
  // Text for the model (a tool result's `decision: "block"` reason, and
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
// another version gave way to this plugin (the relay then answers, at its version).
let direct = !COMMAND.includes("--no-serve") && process.env.AGENT_HOOKS_NO_SERVE === undefined;

// What a connection to the resident process reports.
type Wire = { data: (chunk: Buffer) => void; end: () => void; error: () => void };

// Opens a connection to the socket at `path`, sends `request` and closes the sending side,
// reporting what comes back to `wire`; the function returned closes it. Under Bun (OpenCode
// and Kilo Code run plugins in Bun) through Bun's own sockets, whose sending side can be
// closed while the answer is read (Bun's `node:net` closes both at `end()`); elsewhere
// through `node:net`.
function dial(path: string, request: Buffer, wire: Wire): () => void {
  const bun = (globalThis as any).Bun;
  if (typeof bun?.connect === "function") {
    let socket: any;
    let rest = request;
    let sent = false;
    const flush = (s: any) => {
      while (rest.length > 0) {
        const written = s.write(rest);
        if (!(written > 0)) return;
        rest = rest.subarray(written);
      }
      if (!sent) {
        sent = true;
        s.shutdown();
      }
    };
    Promise.resolve(
      bun.connect({
        unix: path,
        allowHalfOpen: true,
        socket: {
          open(s: any) {
            socket = s;
            flush(s);
          },
          drain(s: any) {
            flush(s);
          },
          data(_s: any, chunk: Uint8Array) {
            wire.data(Buffer.from(chunk));
          },
          end() {
            wire.end();
          },
          close() {
            wire.end();
          },
          error() {
            wire.error();
          },
          connectError() {
            wire.error();
          },
        },
      }),
    ).catch(() => wire.error());
    return () => {
      try {
        socket?.end();
      } catch {
        // Closed already.
      }
    };
  }
  const socket = connect(path);
  socket.on("error", () => wire.error());
  socket.on("data", (chunk: Buffer) => wire.data(chunk));
  socket.on("end", () => wire.end());
  socket.on("connect", () => socket.end(request));
  return () => socket.destroy();
}

// Sends one event to the resident process: its reply, or `undefined` when it cannot answer
// (the relay then does), or a problem when it took past CALL_LIMIT_MS.
function resident(cwd: string, payload: Record<string, unknown>): Promise<Outcome | undefined> {
  return new Promise((resolve) => {
    const path = direct ? socketPath() : undefined;
    if (!path) {
      resolve(undefined);
      return;
    }
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let close = () => {};
    const finish = (outcome: Outcome | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      close();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ problem: `the resident process gave no answer within ${CALL_LIMIT_MS / 1000} s` }),
      CALL_LIMIT_MS,
    );
    const answer = () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const line = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
      let value: any;
      try {
        value = JSON.parse(line);
      } catch {
        finish(undefined);
        return;
      }
      if (typeof value?.gave_way === "string") direct = false;
      const readable =
        typeof value?.code === "number" && typeof value?.stdout === "string" && typeof value?.stderr === "string";
      finish(readable ? { reply: { code: value.code, stdout: value.stdout, stderr: value.stderr } } : undefined);
    };
    const config = process.env.XDG_CONFIG_HOME;
    const env = Object.entries(process.env).filter((pair): pair is [string, string] => typeof pair[1] === "string");
    const header = {
      v: 1,
      agent: AGENT,
      event: null,
      with: WITH,
      home: process.env.HOME,
      xdg_config_home: config && isAbsolute(config) ? config : null,
      cwd,
      hooks: [],
      no_discover: false,
      trust_project: false,
      required: [],
      in_process: false,
      env,
      program: process.env.AGENT_HOOKS_TEST_PROGRAM_VERSION || VERSION,
      agent_pid: process.pid,
    };
    const request = Buffer.from(`${JSON.stringify(header)}\n${JSON.stringify(payload)}`, "utf8");
    try {
      close = dial(path, request, {
        data: (chunk) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size > ANSWER_LIMIT) finish(undefined);
          else if (chunk.includes(10)) answer();
        },
        end: () => (size > 0 ? answer() : finish(undefined)),
        error: () => finish(undefined),
      });
    } catch {
      finish(undefined);
    }
  });
}

// Runs COMMAND with `payload` on stdin, bounded in time and size; resolves, never rejects.
function relay(cwd: string, payload: Record<string, unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { cwd, stdio: ["pipe", "pipe", "pipe"] });
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
        finish({ problem: `agent-hooks is not where this plugin runs it: ${COMMAND}` });
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
function read(outcome: Outcome): Answer {
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
  if (reply.decision === "block" && typeof reply.reason === "string") answer.block = reply.reason;
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

// Tells the user `text`, on stderr: where `opencode run` shows its user what goes wrong.
function tell(text: string) {
  try {
    process.stderr.write(`${text}\n`);
  } catch {
    // Nowhere left to tell it.
  }
}

// OpenCode's file tools name their file `filePath`; agent-hooks' own tools name it `path`
// (which each hook sees in its agent's terms: a Claude Code hook's `file_path`).
const FILE_TOOLS = new Set(["read", "write", "edit"]);

// `input` with `from` renamed `to` where `tool` is a file tool.
function renamed(tool: unknown, input: any, from: string, to: string): any {
  if (!FILE_TOOLS.has(String(tool)) || !input || typeof input !== "object" || Array.isArray(input)) return input;
  if (!(from in input) || to in input) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[key === from ? to : key] = value;
  return out;
}

// The text of a message's parts.
function textOf(parts: unknown): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .filter((part: any) => part && part.type === "text" && typeof part.text === "string" && !part.synthetic)
    .map((part: any) => part.text)
    .join("\n");
}

export const AgentHooks = async (input: any) => {
  const cwd: string = typeof input?.directory === "string" ? input.directory : process.cwd();

  // Sends one event and reads the answer, telling the user its messages and problems.
  const send = async (event: string, session: unknown, fields: Record<string, unknown>): Promise<Answer> => {
    const payload: Record<string, unknown> = { hook_event_name: event, cwd, ...fields };
    if (typeof session === "string") payload.session_id = session;
    const outcome = (await resident(cwd, payload)) ?? (await relay(cwd, payload));
    const answer = read(outcome);
    for (const message of answer.messages) tell(message);
    if (answer.problem) tell(`agent-hooks: ${answer.problem}`);
    return answer;
  };

  // Context for the model from a session's start, given with its next prompt; each start's
  // answer, which that prompt waits for.
  const pending = new Map<string, string[]>();
  const starts = new Map<string, Promise<void>>();
  // Context from a tool call's hooks, added to that call's output.
  const beforeResult = new Map<string, string[]>();
  // The calls this plugin refused: OpenCode reports them failed, which is not a failure of
  // the tool.
  const refused = new Set<string>();
  // The failed calls already told.
  const failed = new Set<string>();

  const guarded =
    (name: string, handler: (...args: any[]) => Promise<void>) =>
    async (...args: any[]) => {
      try {
        await handler(...args);
      } catch (error) {
        tell(`agent-hooks: ${name}: ${String(error)}`);
      }
    };

  const started = (session: string) =>
    guarded("session.created", async () => {
      const answer = await send("session.created", session, { source: "startup" });
      if (answer.context.length > 0) pending.set(session, [...(pending.get(session) ?? []), ...answer.context]);
      if (answer.stop) tell(answer.stop);
    })();

  const onEvent = guarded("event", async ({ event }: any) => {
    const type = event?.type;
    const properties = event?.properties ?? {};
    const session = properties.sessionID ?? properties.info?.id;
    if (type === "session.created" && typeof session === "string") {
      if (!starts.has(session)) starts.set(session, started(session));
      return;
    }
    if (type === "session.idle") {
      const answer = await send("session.idle", session, { stop_hook_active: false });
      const reason = answer.block ?? answer.context.join("\n");
      if (reason) {
        tell(`agent-hooks: a Stop hook asked to go on (${reason}); OpenCode's plugins cannot keep a session going, so it stops`);
      }
      if (answer.stop) tell(answer.stop);
      return;
    }
    if (type === "session.compacted") {
      await send("session.compacted", session, { trigger: "auto" });
      return;
    }
    if (type === "message.part.updated") {
      const part = properties.part;
      if (part?.type !== "tool" || part.state?.status !== "error") return;
      const call = String(part.callID ?? "");
      if (refused.has(call) || failed.has(call)) return;
      failed.add(call);
      await send("message.part.updated", part.sessionID ?? session, {
        tool_name: part.tool,
        tool_input: renamed(part.tool, part.state?.input ?? {}, "filePath", "path"),
        tool_use_id: call,
        error: String(part.state?.error ?? ""),
      });
    }
  });

  // The bus events' hooks still running: OpenCode does not wait for them, but it waits for a
  // plugin's `dispose` when it ends (`opencode run` ends as soon as the session is idle).
  const running = new Set<Promise<void>>();

  return {
    event: (input: any) => {
      const job = onEvent(input);
      running.add(job);
      job.finally(() => running.delete(job));
      return job;
    },

    dispose: async () => {
      await Promise.allSettled([...running]);
    },

    "chat.message": guarded("chat.message", async (info: any, output: any) => {
      const session = info?.sessionID;
      await starts.get(session);
      const answer = await send("chat.message", session, { prompt: textOf(output?.parts) });
      if (answer.block || answer.stop) {
        // OpenCode takes no refusal here: the prompt goes out as written, with the refusal
        // in place of its text.
        const why = answer.block ?? answer.stop ?? "";
        tell(why);
        for (const part of output?.parts ?? []) {
          if (part?.type === "text" && !part.synthetic) part.text = `(agent-hooks kept this prompt from the model: ${why})`;
        }
        pending.delete(session);
        return;
      }
      const context = [...(pending.get(session) ?? []), ...answer.context];
      pending.delete(session);
      const first = (output?.parts ?? []).find((part: any) => part?.type === "text");
      if (context.length > 0 && first) first.text = `${first.text}\n\n${context.join("\n")}`;
    }),

    "tool.execute.before": async (info: any, output: any) => {
      let answer: Answer;
      try {
        answer = await send("tool.execute.before", info?.sessionID, {
          tool_name: info?.tool,
          tool_input: renamed(info?.tool, output?.args ?? {}, "filePath", "path"),
          tool_use_id: info?.callID,
        });
      } catch (error) {
        answer = { context: [], messages: [], problem: String(error) };
      }
      const refuse = (reason: string) => {
        refused.add(String(info?.callID ?? ""));
        return new Error(reason);
      };
      if (answer.problem) throw refuse(`agent-hooks could not check this call (${answer.problem})`);
      if (answer.stop) {
        tell(answer.stop);
        throw refuse(answer.block ?? answer.stop);
      }
      if (answer.block) throw refuse(answer.block);
      if (answer.ask !== undefined) {
        const question = answer.ask || `Allow ${info?.tool}?`;
        throw refuse(`${question} (nobody can be asked from an OpenCode plugin)`);
      }
      if (answer.input && output?.args && typeof output.args === "object") {
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, renamed(info?.tool, answer.input, "path", "filePath"));
      }
      if (answer.context.length > 0) beforeResult.set(String(info?.callID ?? ""), answer.context);
    },

    "tool.execute.after": guarded("tool.execute.after", async (info: any, output: any) => {
      const call = String(info?.callID ?? "");
      const earlier = beforeResult.get(call) ?? [];
      beforeResult.delete(call);
      const text = typeof output?.output === "string" ? output.output : "";
      const answer = await send("tool.execute.after", info?.sessionID, {
        tool_name: info?.tool,
        tool_input: renamed(info?.tool, info?.args ?? {}, "filePath", "path"),
        tool_use_id: call,
        tool_response: { output: text, metadata: output?.metadata ?? null },
      });
      if (answer.stop) tell(answer.stop);
      let result = text;
      if (answer.content) {
        // The result as the hooks left it: its text in place of OpenCode's.
        result = answer.content
          .filter((block: any) => block?.type === "text" && typeof block.text === "string")
          .map((block: any) => block.text)
          .join("\n");
      }
      const added = [...earlier, ...(answer.block ? [answer.block] : []), ...(answer.content ? [] : answer.context)];
      if (added.length > 0) result = `${result}\n${added.join("\n")}`;
      if (result !== text && output) output.output = result;
    }),

    "experimental.session.compacting": guarded("experimental.session.compacting", async (info: any) => {
      const answer = await send("experimental.session.compacting", info?.sessionID, {
        trigger: "auto",
        custom_instructions: "",
      });
      if (answer.block || answer.stop) {
        tell(`agent-hooks: a PreCompact hook refused the compaction (${answer.block ?? answer.stop}); OpenCode's plugins cannot cancel it, so it goes on`);
      }
    }),
  };
};
