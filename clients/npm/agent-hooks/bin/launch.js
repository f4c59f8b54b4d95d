// Runs one of the program's binaries from the platform package npm installed beside this
// one (an optional dependency whose `os` and `cpu` match this machine): the same arguments,
// stdin, stdout and stderr, and its exit code (a signal that ended it ends this process the
// same way).
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// The platform packages, by Node's names of the system and the processor.
const PLATFORM_PACKAGES = {
  "linux x64": "agent-hooks-linux-x64",
  "linux arm64": "agent-hooks-linux-arm64",
};

// The binary `name` of this machine's platform package, or an error that says what to do.
function binary(name) {
  const key = `${process.platform} ${process.arch}`;
  const platformPackage = PLATFORM_PACKAGES[key];
  if (!platformPackage) {
    throw new Error(
      `agent-hooks has no prebuilt program for ${key}; build it from source: ` +
        "cargo install agent-hooks-cli (or cargo install --path loader/cli in a clone)",
    );
  }
  let root;
  try {
    root = path.dirname(require.resolve(`${platformPackage}/package.json`));
  } catch {
    throw new Error(
      `the package ${platformPackage} is not installed (npm skips optional dependencies ` +
        "with --omit=optional or --no-optional); reinstall: npm install -g agent-hooks",
    );
  }
  const file = path.join(root, "bin", name);
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing; reinstall: npm install -g agent-hooks`);
  }
  return file;
}

// Ends this process as the child ended.
function mirror(code, signal) {
  if (signal) {
    // The default action of the signal, as the binary got it; 128 + its number if this
    // process outlives it (a signal Node ignores).
    process.removeAllListeners(signal);
    process.exitCode = 128 + (os.constants.signals[signal] || 0);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
}

module.exports = function launch(name) {
  let file;
  try {
    file = binary(name);
  } catch (error) {
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  }
  const args = process.argv.slice(2);
  // Where execve is available, the binary replaces Node: signals and the exit code are its
  // own, and no Node process stays beside it. A handler for SIGXFSZ restores its default
  // disposition in the binary (Node ignores it, and an ignored signal survives execve).
  if (process.platform !== "win32" && typeof process.execve === "function") {
    process.on("SIGXFSZ", () => {});
    process.execve(file, [file, ...args], process.env);
  }
  const child = spawn(file, args, { stdio: "inherit" });
  child.on("error", (error) => {
    process.stderr.write(`${name}: ${file} could not start: ${error.message}\n`);
    process.exit(1);
  });
  // Signals sent to this process (a terminal's Ctrl-C reaches both) go on to the binary.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) {
    process.on(signal, () => {
      try {
        child.kill(signal);
      } catch {
        // Already ended.
      }
    });
  }
  child.on("exit", mirror);
};
