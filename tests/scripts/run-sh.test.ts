/**
 * scripts/run.sh runs the command in the folder it is called from (relative paths are the
 * caller's), and installs dependencies in the repository. Run on a copy of the script in a fake
 * repository, with a fake npm that records where it ran: the real node_modules is never touched.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

function fakeRepo(options: { lockNewer: boolean }) {
  const root = makeWorkspace();
  const repo = join(root, "repo");
  mkdirSync(join(repo, "scripts"), { recursive: true });
  mkdirSync(join(repo, "node_modules"), { recursive: true });
  copyFileSync(join(REPO, "scripts/run.sh"), join(repo, "scripts/run.sh"));
  writeFileSync(join(repo, "package-lock.json"), "{}\n");
  writeFileSync(join(repo, "node_modules/.package-lock.json"), "{}\n");
  const [older, newer] = [new Date(2020, 0, 1), new Date(2021, 0, 1)];
  utimesSync(
    join(repo, "package-lock.json"),
    options.lockNewer ? newer : older,
    options.lockNewer ? newer : older,
  );
  utimesSync(join(repo, "node_modules/.package-lock.json"), older, older);
  // An npm that says where it ran, instead of installing anything.
  const bin = join(root, "bin");
  mkdirSync(bin);
  const record = join(root, "npm-ran-in");
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\npwd > ${JSON.stringify(record)}\necho "$@" >> ${JSON.stringify(record)}\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  const caller = join(root, "my-folder");
  mkdirSync(caller);
  const env = { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: root };
  return { repo, caller, record, env };
}

describe("scripts/run.sh", () => {
  it("runs the command in the caller's folder, so relative paths are the caller's", async () => {
    const { repo, caller, record, env } = fakeRepo({ lockNewer: false });
    const run = await execa("bash", [join(repo, "scripts/run.sh"), "pwd"], {
      cwd: caller,
      env,
      extendEnv: false,
    });
    expect(run.stdout.trim()).toBe(caller);
    expect(() => readFileSync(record)).toThrow(); // nothing to install
  });

  it("installs a newer lock file's dependencies in the repository, then runs the command where it was called", async () => {
    const { repo, caller, record, env } = fakeRepo({ lockNewer: true });
    const run = await execa("bash", [join(repo, "scripts/run.sh"), "pwd"], {
      cwd: caller,
      env,
      extendEnv: false,
    });
    expect(run.stdout.trim()).toBe(caller);
    expect(readFileSync(record, "utf8").split("\n").slice(0, 2)).toEqual([
      repo,
      "ci --no-audit --no-fund --loglevel=error",
    ]);
  });
});
