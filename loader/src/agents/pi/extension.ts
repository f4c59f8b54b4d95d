// agent-hooks for pi: each of pi's events below goes to agent-hooks (`agent-hooks hook
// --agent pi`, which asks its warm resident process and runs the hooks itself when that
// cannot answer), and its answer is applied in pi's terms: a blocked tool call, a rewritten
// tool input, text added to a tool's result, context for the model, a run kept going, a
// refused compaction, messages for the user.
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

const COMMAND = "agent-hooks hook --agent pi";

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
  // agent-hooks gave no answer: why.
  problem?: string;
};

// Runs COMMAND with `payload` on stdin, bounded in time and size; resolves, never rejects.
function call(payload: Record<string, unknown>): Promise<{ reply?: Reply; problem?: string }> {
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
  const answer = read(await call({ ...base(event, ctx), ...fields }));
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
    const answer = await send("tool_result", ctx, {
      tool_name: event.toolName,
      tool_input: event.input,
      tool_use_id: event.toolCallId,
      tool_response: { output: text(event.content), is_error: event.isError === true },
    });
    if (answer.stop) {
      tell(ctx, answer.stop);
      ctx?.abort?.();
    }
    const added = [...earlier, ...(answer.block ? [answer.block] : []), ...answer.context];
    if (added.length === 0) return undefined;
    return { content: [...(event.content ?? []), { type: "text", text: added.join("\n") }] };
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
