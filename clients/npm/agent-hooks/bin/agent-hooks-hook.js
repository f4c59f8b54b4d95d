#!/usr/bin/env node
// `agent-hooks-hook`: the relay agents run for their events, from this machine's platform
// package. `agent-hooks install` wires agents to the binary itself, not to this launcher
// (Node's start would be paid on every event).
"use strict";
require("./launch.js")("agent-hooks-hook");
