#!/usr/bin/env node
// The pi-quests command. Checks the Node version before loading any TypeScript, so an old
// Node gets a sentence, not a syntax error.
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `pi-quests needs Node.js 22.19 or newer (this is ${process.version}). Install Node 22 and try again.\n`,
  );
  process.exit(3);
}
// Node keeps the compiled code of the modules it loads on disk, and the next start reuses it
// (Pi's own cli.js does the same). Node 22.1 and later; a no-op where it is not.
module.enableCompileCache?.();
// In a checkout Node runs the TypeScript sources as they are; Node does not strip types under
// node_modules, so an installed package runs the JavaScript that `npm pack` built into dist/.
const installed = import.meta.url.includes("/node_modules/");
const entry = new URL(installed ? "../dist/cli/main.js" : "../src/cli/main.ts", import.meta.url);
let cli;
try {
  cli = await import(entry.href);
} catch (error) {
  if (!installed || existsSync(entry)) throw error;
  process.stderr.write(
    `pi-quests: this installed package has no ${fileURLToPath(entry)}: it was packed without its build (npm pack builds dist/ first). Reinstall pi-quests from the registry, or pack it with npm pack.\n`,
  );
  process.exit(2);
}
process.exitCode = await cli.main(process.argv.slice(2));
