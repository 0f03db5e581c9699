import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.ts";
import { commitAll, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("receipts through the CLI", () => {
  it("check leaves a receipt, reuses it on unchanged files, and `receipts` reassesses it without running", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n", "test/hello.sh": "grep -q hello hello.txt\n" });
    commitAll(workspace);
    const quest = join(makeWorkspace(), "q.yaml");
    writeFileSync(
      quest,
      "version: 1\nid: hi\ntitle: T\ngoal: g\nchecks:\n  - id: says-hello\n    type: command\n    run: bash test/hello.sh\n",
    );
    const dataDir = makeWorkspace();
    const check = async () =>
      JSON.parse(
        (await runCli(["check", quest, "--cwd", workspace, "--data-dir", dataDir, "--json"])).stdout,
      );
    const receipts = async () =>
      JSON.parse((await runCli(["receipts", "--cwd", workspace, "--data-dir", dataDir, "--json"])).stdout);

    const first = await check();
    expect(first.status).toBe("pass");
    expect(first.checks[0].evidence.receipt).toMatchObject({ state: "passed", reused: false });
    const second = await check();
    expect(second.checks[0].evidence.receipt).toMatchObject({
      id: first.checks[0].evidence.receipt.id,
      reused: true,
    });

    expect((await receipts()).receipts).toMatchObject([
      {
        check: "says-hello",
        writer: "cli",
        state: "passed",
        freshness: "fresh",
        command: "bash test/hello.sh",
      },
    ]);
    writeFileSync(join(workspace, "hello.txt"), "hello, edited\n");
    expect((await receipts()).receipts).toMatchObject([{ state: "passed", freshness: "stale" }]);

    const text = await runCli(["receipts", "--cwd", workspace, "--data-dir", dataDir]);
    expect(text.stdout).toMatch(
      /^stale +passed +cli +hi\/says-hello: bash test\/hello\.sh \(the files changed since this receipt; /,
    );
  });

  it("a check started with a preload checks the quest, but reads no receipt and leaves none, and says so", async () => {
    const workspace = makeWorkspace({ "hello.txt": "hello\n", "test/hello.sh": "grep -q hello hello.txt\n" });
    commitAll(workspace);
    const quest = join(makeWorkspace(), "q.yaml");
    writeFileSync(
      quest,
      "version: 1\nid: hi\ntitle: T\ngoal: g\nchecks:\n  - id: says-hello\n    type: command\n    run: bash test/hello.sh\n",
    );
    const preload = join(makeWorkspace({ "noop.cjs": "// loaded before pi-quests\n" }), "noop.cjs");
    const dataDir = makeWorkspace();
    const check = (env: Record<string, string> = {}) =>
      runCli(["check", quest, "--cwd", workspace, "--data-dir", dataDir, "--json"], { env });
    const honest = JSON.parse((await check()).stdout);
    expect(honest.checks[0].evidence.receipt).toMatchObject({ state: "passed", reused: false });
    const [home = ""] = readdirSync(join(dataDir, "workspaces"));
    const kept = () => readdirSync(join(dataDir, "workspaces", home, "receipts", "cli"));
    expect(kept()).toHaveLength(1);

    const preloaded = await check({ NODE_OPTIONS: `--require ${preload}` });
    expect(preloaded.exitCode).toBe(0);
    const sentence = `this process was started with code that runs before pi-quests (NODE_OPTIONS --require ${preload}): the quest is checked, but no receipt is read or left`;
    expect(preloaded.stderr).toContain(`pi-quests check: ${sentence}`);
    const result = JSON.parse(preloaded.stdout);
    expect(result.status).toBe("pass");
    // Not answered by the honest receipt: it ran, and what it ran stayed in its memory.
    expect(result.checks[0].evidence.receipt).toMatchObject({ state: "passed", reused: false });
    expect(result.notes).toEqual([expect.stringContaining(sentence)]);
    expect(kept()).toHaveLength(1);
    // NODE_PATH alike.
    const withPath = await check({ NODE_PATH: makeWorkspace() });
    expect(withPath.stderr).toMatch(/started with code that runs before pi-quests \(NODE_PATH=/);
    expect(kept()).toHaveLength(1);
  });

  it("`receipts` with nothing recorded says so; bad flags and folders exit 3", async () => {
    const workspace = makeWorkspace();
    const empty = await runCli(["receipts", "--cwd", workspace, "--data-dir", makeWorkspace()]);
    expect(empty).toMatchObject({ exitCode: 0, stdout: `no receipts for ${workspace}` });
    expect((await runCli(["receipts", "--colour"])).exitCode).toBe(3);
    const missing = await runCli(["receipts", "--cwd", "/nonexistent/folder"]);
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toContain("--cwd /nonexistent/folder: no such folder");
  });
});
