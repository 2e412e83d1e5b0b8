#!/usr/bin/env node
// The installed command. It is a file of its own, not dist/cli.js, so that installing the workspace
// before the first build links it without a warning.
import "../dist/cli.js";
