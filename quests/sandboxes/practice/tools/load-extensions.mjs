// What the extension quests' checkers share: the project's extensions (every file and folder in
// `.pi/extensions/` that Pi would load there) loaded by Pi's own loader, in a child process, and
// asked something. The learner's code runs only in that child; the checker judges what the child
// prints, on inputs the checker chose. Pi's SDK comes through pi-sdk-hook.mjs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const HOOK = join(import.meta.dirname, "pi-sdk-hook.mjs");
export const EXTENSIONS = ".pi/extensions";

/**
 * Runs `ask` (the body of an async function of `loaded`, Pi's loaded extensions, and `args`) in a
 * child whose folder is `cwd`, and gives back what it returns (JSON), or `{ error }` with the
 * first line that says what went wrong.
 */
export function askExtensions(ask, args, cwd) {
  const agentDir = mkdtempSync(join(tmpdir(), "check-agent-"));
  const probe = `
    import { discoverAndLoadExtensions } from "@earendil-works/pi-coding-agent";
    const [extensions, agentDir, argsJson] = process.argv.slice(1);
    const loaded = await discoverAndLoadExtensions([extensions], process.cwd(), agentDir);
    const args = JSON.parse(argsJson);
    const answer = await (async (loaded, args) => { ${ask} })(loaded, args);
    process.stdout.write("\\n@@answer@@" + JSON.stringify(answer));`;
  try {
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        HOOK,
        "--input-type=module",
        "-e",
        probe,
        resolve(EXTENSIONS),
        agentDir,
        JSON.stringify(args),
      ],
      { cwd, encoding: "utf8", timeout: 30_000 },
    );
    const at = run.stdout.lastIndexOf("\n@@answer@@");
    if (run.status !== 0 || at < 0) {
      const why =
        (run.stderr || "").split("\n").find((line) => /^\w*Error\b[^(]*: /.test(line)) ??
        (run.error ? run.error.message : run.stderr.trim().split("\n").at(-1) || `exit ${run.status}`);
      return { error: why };
    }
    return JSON.parse(run.stdout.slice(at + "\n@@answer@@".length));
  } finally {
    rmSync(agentDir, { recursive: true, force: true });
  }
}

/** A context like the one Pi gives a tool or a handler, with no UI. */
export const CONTEXT_SOURCE = `({ cwd: process.cwd(), hasUI: false, ui: new Proxy({}, { get: () => () => undefined }) })`;

/** Pi's loading errors, one line each. */
export const ERRORS_SOURCE = `loaded.errors.map((e) => (e.path ? e.path.split("/").pop() + ": " : "") + String(e.error).split("\\n")[0])`;
