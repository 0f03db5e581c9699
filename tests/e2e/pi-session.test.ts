/**
 * The real `pi` binary, offline, with a scripted model (fixtures/pi/scripted-model.ts): the
 * session file Pi writes is checked by `pi-quests check --session`. A model that does the work
 * passes the first-file quest; one that only says it did fails it.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, runCli } from "../support/cli.ts";
import { runPi } from "../support/pi.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const FIRST_FILE = join(REPO, "fixtures/quests/first-file.yaml");
const PROMPT = "create hello.txt that says hello";

describe("the real pi, offline, with a scripted model", () => {
  it("a model that writes hello.txt passes the first-file quest, checked from Pi's own session file", async () => {
    const workspace = makeWorkspace();
    const session = await runPi(workspace, PROMPT, [
      { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
      { text: "Done! I created hello.txt." },
    ]);
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--session", session, "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).checks[0]).toMatchObject({ id: "wrote-it", status: "pass" });
  });

  it("a model that only claims it wrote the file fails it", async () => {
    const workspace = makeWorkspace();
    const session = await runPi(workspace, PROMPT, [
      { text: "Done! I created hello.txt and it says hello." },
    ]);
    const run = await runCli(["check", FIRST_FILE, "--cwd", workspace, "--session", session, "--json"]);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).counts).toEqual({ passed: 0, failed: 3, pending: 0 });
  });
});
