import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { unwritableFileSentence } from "../../src/cli/main.ts";
import { CHECK_USAGE, LINT_USAGE, RECEIPTS_USAGE, SANDBOX_USAGE } from "../../src/cli/usage.ts";
import { REPO, runMain } from "../support/cli.ts";
import { commitAll, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const OVERVIEW = `pi-quests: build and test quest packs for the Pi coding agent

Usage:
  pi-quests lint PATH...        check quest files and packs (exit 0 valid, 3 invalid)
  pi-quests check QUEST.yaml|PACK_DIR [options]
                                evaluate a quest (exit 0 pass, 1 fail, 2 pending, 3 invalid input)
  pi-quests test PACK_DIR [options]
                                prove a pack: play its solutions in the real Pi (exit 0 proven, 1 not, 3 invalid input)
  pi-quests sandbox QUEST.yaml|PACK_DIR [--quest ID] DIR
                                set up the workspace a learner would start a quest in
  pi-quests play PACK_DIR [options]
                                try a pack by hand in the real Pi, in a fresh workspace
  pi-quests receipts [options]  reassess recorded receipts against the files, running nothing
  pi-quests packs [--cwd DIR] [--json]
                                list the quest packs Pi would offer in a folder, and why others are not
  pi-quests init DIR            create a new quest pack, ready to publish as a Pi package
  pi-quests help [COMMAND]

Run "pi-quests COMMAND --help" for a command's options.
`;

async function run(args: string[]) {
  return runMain(args, { cwd: "/", env: {} });
}

describe("the command table", () => {
  it("help is the overview built from the table, a synopsis and a summary per command", async () => {
    for (const word of ["help", "--help", "-h"]) {
      expect(await run([word])).toEqual({ exitCode: 0, stdout: OVERVIEW, stderr: "" });
    }
  });

  it("help COMMAND is that command's usage; help with anything else is the overview", async () => {
    expect((await run(["help", "lint"])).stdout).toBe(LINT_USAGE);
    expect((await run(["-h", "check"])).stdout).toBe(CHECK_USAGE);
    expect((await run(["--help", "receipts"])).stdout).toBe(RECEIPTS_USAGE);
    expect((await run(["help", "sandbox"])).stdout).toBe(SANDBOX_USAGE);
    expect((await run(["help", "help"])).stdout).toBe(OVERVIEW);
  });

  it("no command: the overview on stderr, exit 3", async () => {
    expect(await run([])).toEqual({ exitCode: 3, stdout: "", stderr: OVERVIEW });
  });

  it("an unknown command names the commands of the table", async () => {
    expect(await run(["frobnicate"])).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: `pi-quests: unknown command "frobnicate"; the commands are lint, check, test, sandbox, play, receipts, packs and init\n\n${OVERVIEW}`,
    });
  });

  it("a command runs with the words after its name", async () => {
    expect(await run(["lint", "--help"])).toEqual({ exitCode: 0, stdout: LINT_USAGE, stderr: "" });
  });
});

describe("pi-quests --version", () => {
  it("prints package.json's version, as --version, -v and version: the newest release in CHANGELOG.md", async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    const newest = readFileSync(join(REPO, "CHANGELOG.md"), "utf8").match(
      /^## \[?(\d+\.\d+\.\d+)\]? - /m,
    )?.[1];
    expect(newest).toBe(version);
    for (const word of ["--version", "-v", "version"]) {
      expect(await run([word])).toEqual({ exitCode: 0, stdout: `${version}\n`, stderr: "" });
    }
  });
});

/** The modules of src/ (and the packages) a `pi-quests ARGS` run in a fresh Node loads, in order. */
async function modulesLoadedBy(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const script = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    const { main } = await import(${JSON.stringify(pathToFileURL(join(REPO, "src/cli/main.ts")).href)});
    const quiet = () => {};
    const code = await main(${JSON.stringify(args)}, { stdout: quiet, stderr: quiet, cwd: "/", env: ${JSON.stringify(env)} });
    process.stdout.write(JSON.stringify({ code, loaded }));
  `;
  const run = await execa(process.execPath, ["--input-type=module", "-e", script]);
  const { code, loaded } = JSON.parse(run.stdout) as { code: number; loaded: string[] };
  expect(code).toBe(0);
  return loaded
    .filter((url) => url.startsWith("file:"))
    .map((url) => url.replace(pathToFileURL(REPO).href, ""));
}

describe("the command table is lazy", () => {
  afterEach(removeWorkspaces);
  it("help loads no command's module; lint loads lint's and none of the others'", async () => {
    const help = await modulesLoadedBy(["help"]);
    expect(help.filter((url) => url.startsWith("/src/cli/") && !url.startsWith("/src/cli/plays"))).toEqual([
      "/src/cli/main.ts",
      "/src/cli/command.ts",
      "/src/cli/exit-codes.ts",
      "/src/cli/io.ts",
      "/src/cli/usage.ts",
    ]);
    const lint = await modulesLoadedBy(["lint", join(REPO, "fixtures/packs/workshop")]);
    expect(lint).toContain("/src/cli/lint.ts");
    for (const other of ["check", "test", "sandbox", "play", "receipts"]) {
      expect(lint).not.toContain(`/src/cli/${other}.ts`);
    }
    expect(
      lint.filter((url) =>
        /node_modules\/(execa|simple-git|@modelcontextprotocol|@earendil-works)\//.test(url),
      ),
    ).toEqual([]);
  });

  it("a check answered by its receipt loads no task verifier, no script runner and no execa", async () => {
    const workspace = makeWorkspace({ "test/ok.sh": "exit 0\n" });
    commitAll(workspace);
    const home = makeWorkspace();
    const quest = join(home, "q.yaml");
    writeFileSync(
      quest,
      "version: 1\nid: q\ntitle: T\ngoal: g\nchecks:\n  - type: command\n    run: bash test/ok.sh\n",
    );
    const args = ["check", quest, "--cwd", workspace, "--data-dir", join(home, "data")];
    const env = { HOME: home, PI_CODING_AGENT_DIR: join(home, "agent"), PATH: process.env.PATH ?? "" };
    // The first check runs the command and leaves the receipt; the second is answered by it.
    expect((await runMain(args, { cwd: "/", env })).exitCode).toBe(0);
    const loaded = await modulesLoadedBy(args, env);
    expect(loaded).toContain("/src/cli/check.ts");
    expect(loaded).toContain("/src/receipts/store.ts");
    expect(
      loaded.filter((url) =>
        /^\/src\/(task-verifier\/|probes\/script-runner\.ts)|node_modules\/execa\//.test(url),
      ),
    ).toEqual([]);
  });
});

describe("a file pi-quests cannot write (its data dir read-only, as in Pi's sandboxed bash)", () => {
  it("is a sentence naming the file, why and what to do, never an internal error", () => {
    const error = Object.assign(new Error("EROFS: read-only file system, open '/d/quests/seal.key.tmp'"), {
      code: "EROFS",
      path: "/d/quests/seal.key.tmp",
    });
    expect(unwritableFileSentence(error)).toBe(
      "pi-quests: cannot write /d/quests/seal.key.tmp (a read-only file system). pi-quests keeps its records in its data dir ({agent_dir}/quests, or --data-dir DIR): run it where that folder can be written. Inside Pi, the agent's bash sees the data dir as an empty, read-only folder (docs/security.md, 13).\n",
    );
  });

  it("leaves every other error to the internal-error sentence", () => {
    expect(unwritableFileSentence(new Error("boom"))).toBeUndefined();
    expect(
      unwritableFileSentence(Object.assign(new Error("x"), { code: "ENOENT", path: "/x" })),
    ).toBeUndefined();
    expect(unwritableFileSentence(Object.assign(new Error("x"), { code: "EROFS" }))).toBeUndefined();
  });
});
