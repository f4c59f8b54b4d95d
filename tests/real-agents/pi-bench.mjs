// One `tool_call` handler of a pi extension, timed as pi would call it: the extension file is
// loaded in node (which runs TypeScript by stripping its types), its `tool_call` handler is
// called by a stand-in for pi that records what `pi.on` registers, and each call is timed
// from the call to its answer. Half the calls run `rm -rf` (blocked), half `ls`.
//
//   node pi-bench.mjs EXTENSION.ts CALLS
//
// Prints `median_ms p90_ms blocked` over CALLS calls, after 5 to warm up.

const [file, count] = process.argv.slice(2);
const calls = Number(count ?? 200);
const handlers = {};
const extension = await import(file);
await extension.default({ on: (name, handler) => { handlers[name] = handler; } });
const ctx = { hasUI: false, mode: "print", cwd: process.cwd(), sessionManager: { getSessionId: () => "bench" } };
const times = [];
let blocked = 0;
for (let i = 0; i < calls + 5; i++) {
  const event = { toolName: "bash", toolCallId: `call-${i}`, input: { command: i % 2 ? "ls" : "rm -rf build" } };
  const started = process.hrtime.bigint();
  const result = await handlers.tool_call(event, ctx);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (i < 5) continue;
  times.push(ms);
  if (result?.block) blocked += 1;
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(4);
console.log(`${at(0.5)} ${at(0.9)} ${blocked}`);
