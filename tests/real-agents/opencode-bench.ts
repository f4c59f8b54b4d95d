// One `tool.execute.before` handler of an OpenCode plugin, timed as OpenCode would call it:
// the plugin file is loaded in the Bun that OpenCode's own program carries (it runs plugins
// in it), its exported plugin function is called with the input OpenCode gives, and its
// `tool.execute.before` handler is called with OpenCode's two arguments; each call is timed
// from the call to its answer (a return, or a throw: OpenCode's refusal). Half the calls run
// `rm -rf` (refused), half `ls`.
//
//   BUN_BE_BUN=1 opencode run opencode-bench.ts PLUGIN.ts CALLS
//
// Prints `median_ms p90_ms refused` over CALLS calls, after 5 to warm up.

const [file, count] = process.argv.slice(2);
const calls = Number(count ?? 200);
const module = await import(file);
const plugin = Object.values(module).find((value) => typeof value === "function") as any;
const hooks = await plugin({ directory: process.cwd(), worktree: process.cwd(), client: {}, project: {} });
const times: number[] = [];
let refused = 0;
for (let i = 0; i < calls + 5; i++) {
  const info = { tool: "bash", sessionID: "ses_bench", callID: `call-${i}` };
  const output = { args: { command: i % 2 ? "ls" : "rm -rf build", description: "bench" } };
  const started = process.hrtime.bigint();
  let threw = false;
  try {
    await hooks["tool.execute.before"](info, output);
  } catch {
    threw = true;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (i < 5) continue;
  times.push(ms);
  if (threw) refused += 1;
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(4);
console.log(`${at(0.5)} ${at(0.9)} ${refused}`);
