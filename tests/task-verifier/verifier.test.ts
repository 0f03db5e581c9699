import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTaskVerifier } from "../../src/task-verifier/index.ts";
import { inLearnerPath } from "../../src/verifier/learner-paths.ts";
import {
  dataDirOutside,
  expectCleanAfter,
  finished,
  makeRepo,
  request,
  snapshot,
  verifierFor,
} from "../support/task-verifier.ts";
import { git, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const ADD_PROJECT = {
  "package.json": JSON.stringify({ name: "demo", scripts: { test: "node test/add.test.js" } }, null, 2),
  "src/add.js": "exports.add = (a, b) => a - b;\n",
  "test/add.test.js":
    'const { add } = require("../src/add.js");\nif (add(2, 3) !== 5) { console.error("add(2, 3) should be 5, got", add(2, 3)); process.exit(1); }\nconsole.log("ok");\n',
};

describe("the isolated task verifier", () => {
  it("runs the check on the candidate's changes: red before the fix, green after", async () => {
    const workspace = makeRepo(ADD_PROJECT);
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const red = finished(await verifier.run(request(workspace, "npm test")));
    expect(red).toMatchObject({ passed: false, exitCode: 1 });
    expect(red.report).toContain("add(2, 3) should be 5, got -1");

    writeFileSync(join(workspace, "src/add.js"), "exports.add = (a, b) => a + b;\n");
    const before = snapshot(workspace);
    const green = finished(await verifier.run(request(workspace, "npm test")));
    expect(green).toMatchObject({ passed: true, exitCode: 0 });
    expectCleanAfter(workspace, before, dataDir);
  });

  it("pins the baseline at construction to a full object id", async () => {
    const workspace = makeRepo(ADD_PROJECT);
    const head = git(workspace, "rev-parse", "HEAD").trim();
    const { verifier } = await verifierFor(workspace);
    expect(verifier.baseline).toBe(head);
    expect(verifier.baseline).toMatch(/^[0-9a-f]{40}$/);
  });

  it("records the run and its provenance in the data dir", async () => {
    const workspace = makeRepo(ADD_PROJECT);
    const { verifier } = await verifierFor(workspace, { pin: [request(workspace, "npm test")] });
    const outcome = finished(await verifier.run(request(workspace, "npm test")));
    const runDir = outcome.verification?.runDir ?? "";
    const run = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8"));
    expect(run).toMatchObject({
      executable: "bash",
      arguments: ["-c", "npm test", "q/c"],
      exitCode: 1,
      termination: "exit",
    });
    expect(readFileSync(join(runDir, "output.log"), "utf8")).toContain("should be 5");
    const provenance = JSON.parse(readFileSync(join(runDir, "provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ baseline: verifier.baseline, head: verifier.baseline, patchBytes: 0 });
    expect(provenance.patchSha256).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("refuses a data dir inside the workspace, and a relative one", async () => {
    const workspace = makeRepo(ADD_PROJECT);
    const inside = await createTaskVerifier({ workspace, dataDir: join(workspace, ".quests"), checks: [] });
    expect(inside).toMatchObject({ ok: false, kind: "bad_options" });
    const relativeDir = await createTaskVerifier({ workspace, dataDir: "data", checks: [] });
    expect(relativeDir).toMatchObject({ ok: false, kind: "bad_options" });
  });

  it("outside a git repository it cannot start, and says why", async () => {
    const made = await createTaskVerifier({
      workspace: dataDirOutside(),
      dataDir: dataDirOutside(),
      checks: [],
    });
    expect(made).toMatchObject({ ok: false, kind: "not_git" });
  });

  it("names in its evidence the worktree the check ran in and the repository it stands for; the outcome names the learner's paths, output.log the worktree's", async () => {
    const workspace = makeRepo({ ...ADD_PROJECT, "sub/README.md": "a folder\n" });
    const check = request(
      workspace,
      'pwd; ls "$PWD/src/missing.js"; echo "file://$PWD/src/a.mjs:3"; echo "$PWD/src/missing.js" >&2; exit 3',
    );
    const { verifier, dataDir } = await verifierFor(workspace, { pin: [check] });
    const outcome = finished(await verifier.run(check));
    const verification = outcome.verification;
    const worktree = verification?.worktree ?? "";
    expect(verification?.repository).toBe(workspace);
    expect(worktree).toMatch(/\/workspaces\/[0-9a-f]+\/worktrees\/[0-9a-f]{32}$/);
    expect(worktree.startsWith(dataDir)).toBe(true);
    // What the run printed, as it printed it, is kept in the run's output.log: the worktree's paths.
    const raw = readFileSync(join(verification?.runDir ?? "", "output.log"), "utf8");
    expect(raw).toContain(`${worktree}\n`);
    expect(raw).toContain(`${worktree}/src/missing.js`);
    // Everyone else reads the learner's files: the report, stdout and stderr (what predicates see).
    for (const text of [outcome.report, outcome.stdout, outcome.stderr])
      expect(text).not.toContain("/worktrees/");
    expect(outcome.stdout).toBe(`${workspace}\nfile://${workspace}/src/a.mjs:3\n`);
    expect(outcome.stderr).toContain(`'${workspace}/src/missing.js'`);
    expect(outcome.stderr).toContain(`\n${workspace}/src/missing.js\n`);
    // /quest status: relative to the workspace.
    const place = { worktree, repository: verification?.repository ?? "" };
    const shown = inLearnerPath(outcome.report, place, workspace);
    expect(shown.split("\n")[0]).toBe(".");
    expect(shown).toContain("'src/missing.js'");
    expect(inLearnerPath(outcome.report, place, join(workspace, "sub"))).toContain("'../src/missing.js'");
  });

  describe("Pi's package folder (PI_QUESTS_PI_PACKAGE)", () => {
    const learnersOwn = process.env.PI_QUESTS_PI_PACKAGE;
    afterEach(() => {
      if (learnersOwn === undefined) delete process.env.PI_QUESTS_PI_PACKAGE;
      else process.env.PI_QUESTS_PI_PACKAGE = learnersOwn;
    });
    const printsIt = (workspace: string) => request(workspace, 'printf "%s" "$PI_QUESTS_PI_PACKAGE"');

    it("a check is told the folder the host knows, whatever the inherited environment says", async () => {
      const workspace = makeRepo(ADD_PROJECT);
      process.env.PI_QUESTS_PI_PACKAGE = "/tmp/a-fake-pi";
      const check = printsIt(workspace);
      const { verifier } = await verifierFor(workspace, { pin: [check], piPackage: "/opt/pi/package" });
      expect(finished(await verifier.run(check)).stdout).toBe("/opt/pi/package");
    });

    it("when the host knows none, the check sees the learner's own value, as any variable", async () => {
      const workspace = makeRepo(ADD_PROJECT);
      process.env.PI_QUESTS_PI_PACKAGE = "/home/me/my-pi";
      const check = printsIt(workspace);
      const { verifier } = await verifierFor(workspace, { pin: [check] });
      expect(finished(await verifier.run(check)).stdout).toBe("/home/me/my-pi");
    });
  });
});
