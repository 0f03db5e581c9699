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
// In a checkout Node runs the TypeScript sources as they are; Node does not strip types under
// node_modules, so an installed package runs the JavaScript that `npm pack` built into dist/.
const installed = import.meta.url.includes("/node_modules/");
const { main } = await import(installed ? "../dist/cli/main.js" : "../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
