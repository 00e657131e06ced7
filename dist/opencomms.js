#!/usr/bin/env node
"use strict";

// src/cli/main.ts
process.stdout.write(`${"0.1.0"}
`);
//# sourceMappingURL=opencomms.js.map
