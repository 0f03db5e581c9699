// The sdk-program quest's checker: makes a session folder with two sessions named by random
// words (one renamed after a first name), runs `sdk/sessions.ts DIR` against Pi's own SDK
// (through pi-sdk-hook.mjs) and wants both current names in what it prints, one a line, and not
// the old name. The names are new each run, so no program can know them in advance. Then it runs
// the program again with an SDK whose SessionManager answers other fresh names for the same
// files: a program that reads the files itself (and only names the SDK, in a comment, say)
// prints the files' names there, not the SDK's, and fails. Exit 0 when it does; 1 with the reason.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROGRAM = "sdk/sessions.ts";
const HOOK = join(import.meta.dirname, "pi-sdk-hook.mjs");
const fail = (why) => {
  console.error(`check-sdk: ${why}`);
  process.exit(1);
};

if (!existsSync(PROGRAM)) fail(`${PROGRAM} is missing`);
const source = readFileSync(PROGRAM, "utf8");
// Any way of loading the SDK counts (a static import, `await import(...)`); what it prints decides.
if (!/@earendil-works\/pi-coding-agent/.test(source))
  fail(`${PROGRAM} does not load Pi's SDK ("@earendil-works/pi-coding-agent")`);
if (!/\bSessionManager\b/.test(source)) fail(`${PROGRAM} does not use SessionManager`);

const word = () => `w${randomBytes(4).toString("hex")}`;
const [first, second, old] = [word(), word(), word()];
const dir = mkdtempSync(join(tmpdir(), "check-sdk-"));
try {
  // The sessions are made with the SDK itself, in a script run through the same hook.
  const make = `
    import { SessionManager } from "@earendil-works/pi-coding-agent";
    const [dir, first, second, old] = process.argv.slice(1);
    for (const [name, renamed] of [[first], [old, second]]) {
      const session = SessionManager.create(process.cwd(), dir);
      session.appendMessage({ role: "user", content: [{ type: "text", text: "hello" }], timestamp: Date.now() });
      session.appendMessage({ role: "assistant", content: [{ type: "text", text: "hi" }], api: "x", provider: "x", model: "x",
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "stop", timestamp: Date.now() });
      session.appendSessionInfo(name);
      if (renamed) session.appendSessionInfo(renamed);
    }`;
  const made = spawnSync(
    process.execPath,
    ["--import", HOOK, "--input-type=module", "-e", make, dir, first, second, old],
    {
      encoding: "utf8",
    },
  );
  if (made.status !== 0) fail(`could not make the test sessions: ${made.stderr.trim().split("\n").at(-1)}`);

  const printed = (env = {}) => {
    const run = spawnSync(process.execPath, ["--import", HOOK, PROGRAM, dir], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
    if (run.error) fail(`${PROGRAM} could not run: ${run.error.message}`);
    if (run.status !== 0)
      fail(
        `node ${PROGRAM} DIR exited ${run.status}: ${(run.stderr || run.stdout).trim().split("\n").slice(-3).join(" / ")}`,
      );
    return run.stdout;
  };
  // One session a line: the name alone, or with more on its line (its path, a bullet).
  const says = (stdout, name) =>
    stdout.split("\n").some((line) => new RegExp(`(^|[^\\w])${name}([^\\w]|$)`).test(line));
  const stdout = printed();
  const missing = [first, second].filter((name) => !says(stdout, name));
  if (missing.length > 0)
    fail(
      `the sessions in DIR are named ${first} and ${second}; ${PROGRAM} printed ${JSON.stringify(stdout.slice(0, 200))}`,
    );
  if (stdout.includes(old)) fail(`${PROGRAM} printed ${old}, a name the session had before it was renamed`);

  // The same files, with an SDK whose SessionManager names them anew.
  const [third, fourth] = [word(), word()];
  const through = printed({ PI_QUESTS_SDK_RENAME: JSON.stringify({ [first]: third, [second]: fourth }) });
  if (![third, fourth].every((name) => says(through, name)))
    fail(
      `${PROGRAM} did not list the sessions through the SDK: asked again, SessionManager named them ${third} and ${fourth}, and the program printed ${JSON.stringify(through.slice(0, 200))} (take the names from SessionManager, not from the files)`,
    );
  console.log(`check-sdk: ${PROGRAM} listed both sessions of the folder by name (${first}, ${second})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
