#!/usr/bin/env node
// The pi-quests command. Checks the Node version before loading any TypeScript, so an old
// Node gets a sentence, not a syntax error.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `pi-quests needs Node.js 22.19 or newer (this is ${process.version}). Install Node 22 and try again.\n`,
  );
  process.exit(3);
}
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
