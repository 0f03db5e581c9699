/**
 * The package as a learner gets it: `npm pack` of a copy of the checkout (its prepack builds
 * dist/), the tarball's list checked, then unpacked into a `node_modules/pi-quests` with no
 * @earendil-works package beside it or above it (the shape `pi install npm:pi-quests` makes:
 * Pi is elsewhere, and only its own loader hands its packages to the extension). The installed
 * CLI runs there: --version, lint, sandbox and check of its own pack, and `test`, whose plays
 * start the Pi on PATH (the checkout's, as a global install would put it) with the bundle's
 * dist/extension/*.js.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { yamlValues } from "../../scripts/yaml-values.ts";
import type { YamlValuesFile } from "../../src/core/yaml-value-cache.ts";
import { REPO } from "../support/cli.ts";
import { modulesLoadedBy } from "../support/modules-loaded.ts";
import {
  npmCli,
  npmEnvironment,
  type PackedPackage,
  packRepository,
  unpackPackage,
} from "../support/packed-package.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

let packed: PackedPackage;
let installed: string;
let env: Record<string, string>;
const distBefore = existsSync(join(REPO, "dist"));

beforeAll(async () => {
  packed = await packRepository({ workDir: makeWorkspace() });
  const project = makeWorkspace();
  installed = await unpackPackage(packed.tarball, join(project, "node_modules"));
  const home = makeWorkspace();
  // `pi` on PATH, as `npm install -g @earendil-works/pi-coding-agent` puts it.
  const bin = join(home, "bin");
  mkdirSync(bin);
  symlinkSync(join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"), join(bin, "pi"));
  env = {
    HOME: home,
    PI_CODING_AGENT_DIR: join(home, "agent"),
    PATH: [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
  };
}, 240_000);
afterAll(removeWorkspaces);

async function installedCli(args: string[], timeoutMs = 60_000) {
  return execa(process.execPath, [join(installed, "bin/pi-quests.js"), ...args], {
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: timeoutMs,
  });
}

describe("the tarball", () => {
  it("holds the bundle, the quests and the docs a user reads, and nothing of development", () => {
    const files = packed.files;
    for (const file of [
      "package.json",
      "bin/pi-quests.js",
      "dist/cli/main.js",
      "dist/extension/index.js",
      "dist/extension/scripted-model.js",
      "dist/extension/play-controls.js",
      "dist/THIRD_PARTY_LICENSES.md",
      "quests/010-first-prompt.yaml",
      "quests/solutions/first-file/pass.yaml",
      "docs/quest-format.md",
      "docs/security.md",
      "docs/ci.md",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => /^quests\/[^/]+\.yaml$/.test(file)).length).toBeGreaterThan(20);
    expect(files.filter((file) => file.startsWith("dist/chunks/")).length).toBeGreaterThan(5);
    const development =
      /^(src|tests|fixtures|bench|scripts|docs\/qualification|node_modules)\/|\.d\.ts$|\.map$/;
    expect(files.filter((file) => development.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith("docs/")).sort()).toEqual([
      "docs/ci.md",
      "docs/quest-format.md",
      "docs/security.md",
    ]);
  });

  it("depends on nothing (the bundle holds it), names Pi as peers, and packing left the checkout alone", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest.dependencies).toEqual({});
    expect(Object.keys(manifest.peerDependencies as object).sort()).toEqual([
      "@earendil-works/pi-ai",
      "@earendil-works/pi-coding-agent",
      "@earendil-works/pi-tui",
    ]);
    expect(manifest.pi).toEqual({ extensions: ["./dist/extension/index.js", "./src/extension/index.ts"] });
    expect(existsSync(join(REPO, "dist"))).toBe(distBefore);
  });
});

describe("the installed package, with no Pi package beside it", () => {
  it("has no @earendil-works package in any node_modules at or above it", () => {
    for (let dir = installed; dirname(dir) !== dir; dir = dirname(dir)) {
      expect(existsSync(join(dir, "node_modules/@earendil-works")), dir).toBe(false);
    }
  });

  it("packed without its dist/: a sentence saying so, not a stack", async () => {
    const broken = join(makeWorkspace(), "node_modules/pi-quests");
    for (const entry of ["bin", "package.json"])
      cpSync(join(installed, entry), join(broken, entry), { recursive: true });
    const run = await execa(process.execPath, [join(broken, "bin/pi-quests.js"), "--version"], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(run).toMatchObject({ exitCode: 2, stdout: "" });
    expect(run.stderr).toBe(
      `pi-quests: this installed package has no ${join(broken, "dist/cli/main.js")}: it was packed without its build (npm pack builds dist/ first). Reinstall pi-quests from the registry, or pack it with npm pack.`,
    );
  });

  it("--version prints the packed version", async () => {
    expect(await installedCli(["--version"])).toMatchObject({
      exitCode: 0,
      stdout: packed.version,
      stderr: "",
    });
  });

  it("lints its own pack, quests and plays", async () => {
    const run = await installedCli(["lint", join(installed, "quests")]);
    expect(run.stderr).toBe("");
    expect(run).toMatchObject({ exitCode: 0 });
    expect(run.stdout).toMatch(/^\d+ quest\(s\) and \d+ play\(s\) valid$/);
  });

  it("sets up a quest's sandbox and checks it, the command check in the isolated task verifier", async () => {
    const workspace = join(makeWorkspace(), "ws");
    const pack = join(installed, "quests");
    const setUp = await installedCli(["sandbox", pack, "--quest", "first-file", workspace]);
    expect(setUp.stderr).toBe("");
    expect(setUp.exitCode).toBe(0);
    await execa("sh", ["-c", "printf 'hello world\\n' > hello.txt"], { cwd: workspace });
    const events = join(REPO, "fixtures/events/first-file-done.jsonl");
    const checked = await installedCli(
      ["check", pack, "--quest", "first-file", "--cwd", workspace, "--events", events, "--json"],
      120_000,
    );
    expect(checked.stderr).toBe("");
    const result = JSON.parse(checked.stdout) as { status: string; checks: { id: string; status: string }[] };
    expect(result.checks.map((check) => [check.id, check.status])).toEqual([
      ["pi-made-it", "pass"],
      ["file-there", "pass"],
      ["greets", "pass"],
    ]);
    expect(checked.exitCode).toBe(0);
  }, 150_000);

  it("test plays its own pack's plays in the Pi on PATH, with the bundle's extensions", async () => {
    const run = await installedCli(
      ["test", join(installed, "quests"), "--quest", "first-file", "--reporter", "json", "--jobs", "2"],
      300_000,
    );
    expect(run.stderr).toBe("");
    const report = JSON.parse(run.stdout) as {
      plays: { quest: string; play: string; ok: boolean; reason?: string }[];
    };
    const plays = report.plays.map((play) => [`${play.quest}/${play.play}`, play.ok, play.reason]);
    expect(plays.sort()).toEqual([
      ["first-file/fail-by-hand", true, undefined],
      ["first-file/fail-claim", true, undefined],
      ["first-file/pass", true, undefined],
      ["first-file/pass-echo", true, undefined],
      ["first-file/pass-greetings", true, undefined],
      ["first-file/pass-heredoc", true, undefined],
      ["first-file/pass-mistake-then-fix", true, undefined],
    ]);
    expect(run.exitCode).toBe(0);
  }, 320_000);
});

describe("installed beside its own copy of pi-ai (npm i -D pi-quests @earendil-works/pi-coding-agent)", () => {
  /** What a project with Pi's packages beside pi-quests holds: pi-ai and what its compat entry imports, copied. */
  const BESIDE = [
    "@earendil-works/pi-ai",
    "@earendil-works/pi-schema",
    "@earendil-works/pi-telemetry",
    "partial-json",
  ];

  it("the scripted model registers in the running Pi's pi-ai, not in the copy beside it: a play is answered", async () => {
    const project = makeWorkspace();
    const nodeModules = join(project, "node_modules");
    const beside = await unpackPackage(packed.tarball, nodeModules);
    for (const name of BESIDE)
      cpSync(join(REPO, "node_modules", name), join(nodeModules, name), {
        recursive: true,
        dereference: true,
      });
    // The name resolves from pi-quests' files, to the copy: another pi-ai than the running Pi's.
    const probe = await execa(process.execPath, ["--input-type=module", "-e", RESOLVE_PI_AI], {
      cwd: beside,
      env,
      extendEnv: false,
      reject: false,
    });
    expect(probe.stderr).toBe("");
    expect(probe.stdout).toBe(
      `function ${pathToFileURL(join(nodeModules, "@earendil-works/pi-ai/dist/compat.js")).href}`,
    );
    // Two quests of the pack, played in the Pi on PATH with the installed scripted model: Pi's
    // write tool makes hello.txt only if the model's reply reached Pi.
    const pack = join(project, "pack");
    for (const path of [
      "010-first-prompt.yaml",
      "020-first-file.yaml",
      "sandboxes/practice",
      "solutions/first-prompt/pass.yaml",
      "solutions/first-file/pass.yaml",
    ])
      cpSync(join(installed, "quests", path), join(pack, path), { recursive: true });
    const run = await execa(
      process.execPath,
      [join(beside, "bin/pi-quests.js"), "test", pack, "--reporter", "json"],
      { cwd: project, env, extendEnv: false, reject: false, stdin: "ignore", timeout: 120_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).not.toContain("No API provider registered");
    const report = JSON.parse(run.stdout) as {
      plays: { quest: string; play: string; ok: boolean; reason?: string }[];
    };
    expect(report.plays.map((play) => [`${play.quest}/${play.play}`, play.ok, play.reason]).sort()).toEqual([
      ["first-file/pass", true, undefined],
      ["first-prompt/pass", true, undefined],
    ]);
    expect(run.exitCode).toBe(0);
  }, 150_000);
});

/** Run with the installed pi-quests' folder as cwd: whether pi-ai's compat entry resolves there, and to which file. */
const RESOLVE_PI_AI = `const name = "@earendil-works/pi-ai/compat";
const module = await import(name);
process.stdout.write(typeof module.registerFauxProvider + " " + import.meta.resolve(name));`;

describe("the installed package's parse cache of its pack (dist/yaml-values.json)", () => {
  /** A copy of the installed package, to edit its quests/ and its cache. */
  function copyOfInstalled(): string {
    const copy = join(makeWorkspace(), "node_modules/pi-quests");
    cpSync(installed, copy, { recursive: true });
    return copy;
  }

  /** The bundle's files (below dist/) that `pi-quests ARGS` of the package at `root` loads. */
  async function bundleFilesLoaded(root: string, args: string[]): Promise<string[]> {
    const loaded = await modulesLoadedBy(root, args, env);
    const prefix = pathToFileURL(join(root, "dist")).href;
    return loaded.filter((url) => url.startsWith(prefix));
  }

  /** The bundle's file that holds the yaml library, among those loaded (by what it holds, not its name). */
  const yamlChunk = (files: string[]) =>
    files.filter(
      (url) =>
        url.startsWith("file:") && readFileSync(new URL(url), "utf8").includes("\n// node_modules/yaml/"),
    );

  it("a lint of the valid pack reads every file from it and never loads the yaml library", async () => {
    const lint = ["lint", join(installed, "quests")];
    const loaded = await bundleFilesLoaded(installed, lint);
    expect(loaded.some((url) => /\/chunks\/loader-[\w-]+\.js$/.test(url))).toBe(true);
    expect(yamlChunk(loaded)).toEqual([]);
    const copy = copyOfInstalled();
    rmSync(join(copy, "dist/yaml-values.json"));
    expect(yamlChunk(await bundleFilesLoaded(copy, ["lint", join(copy, "quests")]))).toHaveLength(1);
  });

  it.each([
    ["a schema error", "010-first-prompt.yaml", ["title:", "titel:"]],
    ["a YAML error", "020-first-file.yaml", ["goal: |", 'goal: "never closed\n  |']],
  ])(
    "a copy of the pack with %s: the same lint output, byte for byte, with the cache and without",
    async (_name, file, [from, to]) => {
      const copy = copyOfInstalled();
      const pack = join(copy, "quests");
      writeFileSync(join(pack, file), readFileSync(join(pack, file), "utf8").replace(from ?? "", to ?? ""));
      // The cache as the build would write it for this pack: the file with a schema error is in it.
      const shipped = JSON.parse(readFileSync(join(copy, "dist/yaml-values.json"), "utf8")) as YamlValuesFile;
      const made = yamlValues(pack, shipped.yaml);
      expect(made.recorded).toHaveLength(
        file === "010-first-prompt.yaml" ? shipped.values.length : shipped.values.length - 1,
      );
      writeFileSync(join(copy, "dist/yaml-values.json"), JSON.stringify(made.contents));
      const lint = async () => {
        const run = await execa(process.execPath, [join(copy, "bin/pi-quests.js"), "lint", pack], {
          env,
          extendEnv: false,
          reject: false,
        });
        return { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr };
      };
      const cached = await lint();
      expect(cached.exitCode).toBe(3);
      expect(cached.stderr).toContain(`${join(pack, file)}:`);
      rmSync(join(copy, "dist/yaml-values.json"));
      expect(await lint()).toEqual(cached);
    },
  );
});

describe("the data dir's parse cache of the quest files check reads from outside the package", () => {
  it("the second check of the same text does not load the yaml library; an edited text does", async () => {
    const folder = makeWorkspace({ "hello.txt": "hello\n" });
    const quest = join(makeWorkspace(), "quest.yaml");
    const text =
      "version: 1\nid: q\ntitle: T\ngoal: g\nchecks:\n  - type: file_exists\n    path: hello.txt\n";
    writeFileSync(quest, text);
    const check = ["check", quest, "--cwd", folder, "--data-dir", join(makeWorkspace(), "data")];
    const yamlLoaded = async () => {
      const loaded = await modulesLoadedBy(installed, check, env);
      return loaded.filter(
        (url) =>
          url.startsWith("file:") && readFileSync(new URL(url), "utf8").includes("\n// node_modules/yaml/"),
      ).length;
    };
    expect(await yamlLoaded()).toBe(1);
    expect(await yamlLoaded()).toBe(0);
    writeFileSync(quest, text.replace("title: T", "title: Edited"));
    expect(await yamlLoaded()).toBe(1);
    expect(await yamlLoaded()).toBe(0);
  });
});

describe("the tarball installed with npm install -g, as docs/ci.md installs it until pi-quests is published", () => {
  it("puts pi-quests on PATH, offline (it needs nothing from a registry), running the bundle", async () => {
    const dir = makeWorkspace();
    const prefix = join(dir, "global");
    const npm = npmEnvironment(dir);
    // Without Pi's packages, its peers, which docs/ci.md's command installs beside it from the
    // registry (npm would otherwise fetch them for the tarball too): here Pi is the checkout's.
    const install = await execa(
      process.execPath,
      [npmCli(), "install", "-g", "--legacy-peer-deps", packed.tarball],
      {
        env: { ...npm, npm_config_prefix: prefix, npm_config_offline: "true" },
        extendEnv: false,
        reject: false,
        stdin: "ignore",
        timeout: 60_000,
      },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    // Nothing beside it: what runs is the bundle, whose libraries are inside.
    const global = join(prefix, "lib/node_modules/pi-quests");
    expect(existsSync(join(global, "node_modules"))).toBe(false);
    const onPath = { ...env, PATH: [join(prefix, "bin"), env.PATH].join(":") };
    const version = await execa("pi-quests", ["--version"], { env: onPath, extendEnv: false, reject: false });
    expect(version).toMatchObject({ exitCode: 0, stdout: packed.version, stderr: "" });
    const lint = await execa("pi-quests", ["lint", join(global, "quests")], {
      env: onPath,
      extendEnv: false,
      reject: false,
    });
    expect(lint.stderr).toBe("");
    expect(lint.stdout).toMatch(/^\d+ quest\(s\) and \d+ play\(s\) valid$/);
  });
});
