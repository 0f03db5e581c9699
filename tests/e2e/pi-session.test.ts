/**
 * The real `pi` binary, offline, with a scripted model (fixtures/pi/scripted-model.ts): the
 * session file Pi writes is checked by `pi-quests check --session`. A model that does the work
 * passes the first-file quest; one that only says it did fails it.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PI = join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const SCRIPTED_MODEL = join(REPO, "fixtures/pi/scripted-model.ts");
const FIRST_FILE = join(REPO, "fixtures/quests/first-file.yaml");

/** Runs one prompt in the real pi with a scripted model; returns the session file it wrote. */
async function runPi(workspace: string, script: unknown[]): Promise<string> {
  const agentDir = makeWorkspace();
  const scriptFile = join(agentDir, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  const run = await execa(
    process.execPath,
    [
      PI,
      "--offline",
      "-e",
      SCRIPTED_MODEL,
      "--provider",
      "scripted",
      "--model",
      "scripted-1",
      "-p",
      "create hello.txt that says hello",
    ],
    {
      cwd: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir, PI_QUESTS_SCRIPT: scriptFile, HOME: agentDir },
      reject: false,
      stdin: "ignore",
      timeout: 60_000,
    },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  const sessions = join(agentDir, "sessions");
  const [folder] = readdirSync(sessions);
  const [file] = readdirSync(join(sessions, folder ?? ""));
  return join(sessions, folder ?? "", file ?? "");
}

describe("the real pi, offline, with a scripted model", () => {
  it("a model that writes hello.txt passes the first-file quest, checked from Pi's own session file", async () => {
    const workspace = makeWorkspace();
    const session = await runPi(workspace, [
      { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
      { text: "Done! I created hello.txt." },
    ]);
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--session", session, "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).checks[0]).toMatchObject({ id: "wrote-it", status: "pass" });
  });

  it("a model that only claims it wrote the file fails it", async () => {
    const workspace = makeWorkspace();
    const session = await runPi(workspace, [{ text: "Done! I created hello.txt and it says hello." }]);
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--session", session, "--json"]);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).counts).toEqual({ passed: 0, failed: 3, pending: 0 });
  });
});
