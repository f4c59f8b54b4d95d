#!/usr/bin/env node
// `agent-hooks`: the program, from this machine's platform package.
"use strict";
require("./launch.js")("agent-hooks");
