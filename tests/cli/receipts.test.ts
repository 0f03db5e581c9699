import { writeFileSync } from "node:fs";
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
      { check: "says-hello", state: "passed", freshness: "fresh", command: "bash test/hello.sh" },
    ]);
    writeFileSync(join(workspace, "hello.txt"), "hello, edited\n");
    expect((await receipts()).receipts).toMatchObject([{ state: "passed", freshness: "stale" }]);

    const text = await runCli(["receipts", "--cwd", workspace, "--data-dir", dataDir]);
    expect(text.stdout).toMatch(
      /^stale +passed +hi\/says-hello: bash test\/hello\.sh \(the files changed since this receipt; /,
    );
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
