// The tool-gate quest's checker: loads the project's extensions (.pi/extensions/, with Pi's own
// loader), and hands their `tool_call` handlers bash calls of its own, as Pi would before running
// them: every command with `rm -rf` in it must be blocked, with a reason; every other command must
// be let through. The commands are the checker's, some with names it makes up, so a gate is judged
// on what it does, not on what Pi happened to run. Exit 0 when the gate holds; 1 with the reason.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askExtensions, CONTEXT_SOURCE, ERRORS_SOURCE, EXTENSIONS } from "./load-extensions.mjs";

const fail = (why) => {
  console.error(`check-gate: ${why}`);
  process.exit(1);
};
if (!existsSync(EXTENSIONS)) fail(`${EXTENSIONS} is missing: write the gate there`);

const name = () => `tmp-${randomBytes(3).toString("hex")}`;
const MUST_BLOCK = [
  "rm -rf scratch",
  `rm -rf ${name()}`,
  `cd build && rm -rf ${name()}`,
  `ls; rm -rf ./${name()}/`,
];
const MUST_PASS = ["ls scratch/cache", "git status", `echo ${name()}`, "cat README.md", "node --test"];

// Runs in the child: each command's fate, as Pi's runner decides it (the first block wins).
const ask = `
  const handlers = loaded.extensions.flatMap((extension) => extension.handlers.get("tool_call") ?? []);
  if (handlers.length === 0) {
    const errors = ${ERRORS_SOURCE};
    return { error: errors.length > 0 ? "Pi could not load an extension: " + errors[0] : "no extension in ${EXTENSIONS} has a tool_call handler" };
  }
  const fates = [];
  for (const [n, command] of args.commands.entries()) {
    const event = { type: "tool_call", toolName: "bash", toolCallId: "check-" + n, input: { command } };
    let fate = { command, blocked: false };
    try {
      for (const handler of handlers) {
        const result = await handler(event, ${CONTEXT_SOURCE});
        if (result?.block) { fate = { command, blocked: true, reason: typeof result.reason === "string" ? result.reason : "" }; break; }
      }
    } catch (error) {
      fate = { command, threw: String(error?.message ?? error).split("\\n")[0] };
    }
    fates.push(fate);
  }
  return { fates };`;

const dir = realpathSync(mkdtempSync(join(tmpdir(), "check-gate-")));
try {
  const answer = askExtensions(ask, { commands: [...MUST_BLOCK, ...MUST_PASS] }, dir);
  if (answer.error) fail(answer.error);
  const fates = new Map((answer.fates ?? []).map((fate) => [fate.command, fate]));
  for (const command of [...MUST_BLOCK, ...MUST_PASS]) {
    const fate = fates.get(command);
    if (fate?.threw !== undefined) fail(`your tool_call handler threw on bash "${command}": ${fate.threw}`);
  }
  for (const command of MUST_BLOCK) {
    const fate = fates.get(command);
    if (!fate?.blocked) fail(`bash "${command}" was let through: a command with rm -rf must be blocked`);
    if (!fate.reason?.trim())
      fail(`bash "${command}" was blocked without a reason: return { block: true, reason: "..." }`);
  }
  for (const command of MUST_PASS) {
    if (fates.get(command)?.blocked)
      fail(
        `bash "${command}" was blocked too: only commands with rm -rf should be, other commands must still run`,
      );
  }
  console.log(
    `check-gate: the gate blocks rm -rf (${MUST_BLOCK.length} commands, with a reason) and lets ${MUST_PASS.length} other commands through`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
