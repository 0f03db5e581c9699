/**
 * The bash sandbox, for real: Pi's own bash tool (createBashToolDefinition) with the sandbox's
 * wrapper, as src/extension/bash-tool.ts runs it, against real namespaces and a real data dir in
 * a temporary agent dir. Each attack is a command an agent that has read the sandbox's code would
 * try; each asserts the key never shows. Without the sandbox (the plain tool, as Pi runs bash
 * today) the same commands print the key: `plainly` shows that first, so a test whose sandbox
 * did nothing fails. Then the probe's fallbacks, on a machine made to look like one without
 * namespaces by fakes in the folder the probe takes its programs from.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  createBashToolDefinition,
  createLocalBashOperations,
  getShellConfig,
} from "@earendil-works/pi-coding-agent";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type BashSandbox,
  closeBashSandboxes,
  probeBashSandbox,
} from "../../../src/probes/os/bash-sandbox.ts";
import { hiddenPathsOf } from "../../../src/probes/os/mount-paths.ts";
import { processAlive } from "../../../src/probes/os/process-group.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

afterEach(removeWorkspaces);
afterAll(closeBashSandboxes);

const KEY = "0123456789abcdef".repeat(4);
const ROOT = process.getuid?.() === 0;

/** A workspace and an agent dir whose data dir holds a key, a receipt and progress. */
function world() {
  const agentDir = realpathSync(
    makeWorkspace({
      "quests/seal.key": `${KEY}\n`,
      "quests/workspaces/abc/receipts/r1.json": '{"state":"failed"}\n',
      "quests/workspaces/abc/progress.json": "{}\n",
      "settings.json": '{"theme":"dark"}\n',
    }),
  );
  const workspace = realpathSync(makeWorkspace({ "answer.txt": "broken\n" }));
  return { agentDir, dataDir: join(agentDir, "quests"), workspace };
}

type Ran = { text: string; isError: boolean; exitCode?: number; error?: string };

/** One call of Pi's bash tool, plain or through the sandbox, as the model would make it. */
async function runBash(
  sandbox: BashSandbox | undefined,
  cwd: string,
  command: string,
  options: { timeout?: number; signal?: AbortSignal; onText?: (text: string) => void } = {},
): Promise<Ran> {
  const entry = sandbox?.protection === "namespaces" ? await sandbox.enter(cwd) : undefined;
  const tool =
    sandbox?.protection === "namespaces" && entry
      ? createBashToolDefinition(cwd, {
          operations: createLocalBashOperations({ shellPath: sandbox.outerShell }),
          spawnHook: (spawn) => ({ ...spawn, command: entry.wrap(getShellConfig().shell, spawn.command) }),
        })
      : createBashToolDefinition(cwd);
  const onUpdate = options.onText
    ? (update: { content: Array<{ type: string; text?: string }> }) =>
        options.onText?.(update.content.map((part) => part.text ?? "").join(""))
    : undefined;
  try {
    const result = await tool.execute(
      "call",
      { command, ...(options.timeout ? { timeout: options.timeout } : {}) },
      options.signal,
      onUpdate as never,
      undefined as never,
    );
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    const structured = (result as { structuredContent?: { exit_code?: number } }).structuredContent;
    return {
      text,
      isError: (result as { isError?: boolean }).isError === true,
      ...(structured?.exit_code !== undefined ? { exitCode: structured.exit_code } : {}),
    };
  } catch (error) {
    return { text: "", isError: true, error: (error as Error).message };
  }
}

const supported = await probeBashSandbox({ dataDir: world().dataDir });
removeWorkspaces();

async function sandboxed(dataDir: string): Promise<Extract<BashSandbox, { protection: "namespaces" }>> {
  const sandbox = await probeBashSandbox({ dataDir });
  if (sandbox.protection !== "namespaces") throw new Error(sandbox.reason);
  return sandbox;
}

/** Runs `command` plainly (it must print the key: the attack works there) and in the sandbox. */
async function attack(command: (w: ReturnType<typeof world>) => string) {
  const w = world();
  const text = command(w);
  const plain = await runBash(undefined, w.workspace, text);
  const inside = await runBash(await sandboxed(w.dataDir), w.workspace, text);
  return { plain, inside, w };
}

describe.runIf(supported.protection === "namespaces")("the bash sandbox", () => {
  it("hides the data dir: the key cannot be read, and the folder is empty and read-only", async () => {
    const { plain, inside, w } = await attack(
      (w) =>
        `ls -A ${w.dataDir}; cat ${w.dataDir}/seal.key; find ${w.agentDir} -name 'seal.k*'; touch ${w.dataDir}/x; echo done`,
    );
    expect(plain.text).toContain(KEY);
    expect(inside.text).not.toContain(KEY);
    expect(inside.text).not.toContain("workspaces");
    expect(inside.text).toMatch(/No such file or directory/);
    expect(inside.text).toMatch(/Read-only file system/);
    expect(readFileSync(join(w.dataDir, "seal.key"), "utf8")).toBe(`${KEY}\n`);
  });

  it("leaves the workspace and the rest of the agent dir as they were: read and written as before", async () => {
    const w = world();
    const ran = await runBash(
      await sandboxed(w.dataDir),
      w.workspace,
      `cat answer.txt ${w.agentDir}/settings.json; echo fixed > answer.txt; printf '{"app.session.tree":"alt+t"}' > ${w.agentDir}/keybindings.json; id -u; pwd`,
    );
    expect(ran).toMatchObject({ isError: false, exitCode: 0 });
    expect(ran.text).toBe(`broken\n{"theme":"dark"}\n${process.getuid?.()}\n${w.workspace}\n`);
    expect(readFileSync(join(w.workspace, "answer.txt"), "utf8")).toBe("fixed\n");
    expect(readFileSync(join(w.agentDir, "keybindings.json"), "utf8")).toBe('{"app.session.tree":"alt+t"}');
  });

  it("cannot be undone from inside: no unmount, not in namespaces of its own, no bind of the folder under it", async () => {
    const { inside } = await attack((w) =>
      [
        `umount ${w.dataDir}`,
        `umount -l ${w.dataDir}`,
        `unshare --user --map-root-user --mount sh -c 'umount ${w.dataDir}; umount -l ${w.dataDir}; cat ${w.dataDir}/seal.key'`,
        `unshare --user --map-root-user --mount sh -c 'mkdir -p /tmp/pq-$$ && mount --bind ${w.agentDir} /tmp/pq-$$ && cat /tmp/pq-$$/quests/seal.key'`,
        `unshare --user --map-root-user --mount sh -c 'mkdir -p /tmp/pq-$$ && mount --rbind / /tmp/pq-$$ && cat /tmp/pq-$$${w.dataDir}/seal.key'`,
        `cat ${w.dataDir}/seal.key`,
      ].join("; "),
    );
    expect(inside.text).not.toContain(KEY);
    expect(inside.text).toMatch(/must be superuser|not mounted|permission denied|Operation not permitted/i);
  });

  it("cannot reach it through /proc: Pi's root, Pi's open descriptors, nsenter, or descriptors it inherits", async () => {
    const w = world();
    // Pi (here the test's process) holds the key open, as a process of pi-quests may.
    const held = openSync(join(w.dataDir, "seal.key"), "r");
    try {
      const command = [
        `cat /proc/${process.pid}/root${w.dataDir}/seal.key`,
        `cat /proc/${process.pid}/fd/${held}`,
        `cat /proc/${process.pid}/cwd/../../${w.dataDir}/seal.key`,
        `nsenter --target ${process.pid} --mount cat ${w.dataDir}/seal.key`,
        `nsenter --target ${process.pid} --user --mount cat ${w.dataDir}/seal.key`,
        // Every file the command has open (its stdout and stderr are pipes: not read, they would block).
        `for fd in /proc/self/fd/*; do if [ -f "$fd" ]; then cat "$fd"; fi; done`,
      ].join("; ");
      const plain = await runBash(undefined, w.workspace, command);
      expect(plain.text).toContain(KEY);
      const inside = await runBash(await sandboxed(w.dataDir), w.workspace, command);
      expect(inside.text).not.toContain(KEY);
      expect(inside.text).toMatch(/Permission denied/);
    } finally {
      closeSync(held);
    }
  });

  it("cannot reach it through a link, made in the workspace before or by the command itself", async () => {
    const { plain, inside } = await attack((w) => {
      symlinkSync(w.dataDir, join(w.workspace, "before"));
      return `ln -sfn ${w.dataDir} now; ls -A before now; cat before/seal.key now/seal.key; echo end`;
    });
    expect(plain.text).toContain(KEY);
    expect(inside.text).not.toContain(KEY);
    expect(inside.text).toMatch(/^before:\n\nnow:\n/);
  });

  it("runs a command as the plain tool does: output, exit codes, signals, truncation", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    for (const command of [
      "echo out; echo err >&2; exit 3",
      "true",
      "kill -TERM $$",
      "printf 'line %s\\n' $(seq 1 3000)",
      "cd /nonexistent",
      'echo $0; echo "$PWD"',
      "exit 255",
    ]) {
      const plain = await runBash(undefined, w.workspace, command);
      const inside = await runBash(sandbox, w.workspace, command);
      // The full-output file of a truncated run is a new temporary file each time.
      const same = (ran: Ran) => ({ ...ran, text: ran.text.replace(/\/\S*\/pi-bash-[\w.-]+/g, "FILE") });
      expect(same(inside), command).toEqual(same(plain));
    }
  });

  it("an abort kills the command and what it started, as the plain tool does", async () => {
    const w = world();
    const aborting = new AbortController();
    let pid = 0;
    const ran = runBash(await sandboxed(w.dataDir), w.workspace, "sleep 300 & echo started $!; wait", {
      signal: aborting.signal,
      onText: (text) => {
        const found = /started (\d+)/.exec(text);
        if (found && pid === 0) {
          pid = Number(found[1]);
          aborting.abort();
        }
      },
    });
    const result = await ran;
    expect(result.error).toMatch(/Command aborted/);
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => processAlive(pid)).toBe(false);
  });

  it("a timeout kills the command and what it started, as the plain tool does", async () => {
    const w = world();
    const file = join(w.workspace, "pid");
    const ran = await runBash(
      await sandboxed(w.dataDir),
      w.workspace,
      `sleep 300 & echo $! > ${file}; wait`,
      {
        timeout: 1,
      },
    );
    expect(ran.error).toMatch(/Command timed out after 1 seconds/);
    const pid = Number(readFileSync(file, "utf8"));
    await expect.poll(() => processAlive(pid)).toBe(false);
  });

  it("keeps a background process of one command running after it, as the plain tool does, still in the sandbox", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    const started = await runBash(
      sandbox,
      w.workspace,
      `(sleep 1; cat ${w.dataDir}/seal.key > late.txt 2>&1) > /dev/null 2>&1 & echo $!`,
    );
    const pid = Number(started.text.trim());
    expect(processAlive(pid)).toBe(true);
    await expect.poll(() => processAlive(pid), { timeout: 5000 }).toBe(false);
    expect(readFileSync(join(w.workspace, "late.txt"), "utf8")).toMatch(/No such file or directory/);
  });

  it("is made again when its keeper is gone; a command made for the gone one fails, it never runs unhidden", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    const first = await sandbox.enter(w.workspace);
    const stale = first.wrap("/bin/sh", `cat ${w.dataDir}/seal.key; echo ran`);
    // The agent can see its keeper and end it (same user): only a denial of service.
    await runBash(sandbox, w.workspace, `kill -9 ${first.keeperPid}`);
    await expect.poll(() => processAlive(first.keeperPid)).toBe(false);
    const ranStale = spawnSync(sandbox.outerShell, ["-c", stale], { cwd: w.workspace, encoding: "utf8" });
    expect(ranStale.status).not.toBe(0);
    expect(ranStale.stdout).toBe("");
    const again = await sandbox.enter(w.workspace);
    expect(again.keeperPid).not.toBe(first.keeperPid);
    const inside = await runBash(sandbox, w.workspace, `cat ${w.dataDir}/seal.key; echo ran`);
    expect(inside.text).not.toContain(KEY);
    expect(inside.text).toMatch(/ran\n$/);
  });

  it("is made again over a data dir removed and made again (a mount stays with the folder it was made on)", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    const before = await sandbox.enter(w.workspace);
    rmSync(w.dataDir, { recursive: true });
    mkdirSync(w.dataDir);
    writeFileSync(join(w.dataDir, "seal.key"), `${KEY}\n`);
    const inside = await runBash(
      sandbox,
      w.workspace,
      `cat ${w.dataDir}/seal.key; ls -A ${w.dataDir}; echo end`,
    );
    expect(inside.text).not.toContain(KEY);
    expect((await sandbox.enter(w.workspace)).keeperPid).not.toBe(before.keeperPid);
  });

  it("runs in the folder as it is now: one removed and made again is entered anew", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    expect((await runBash(sandbox, w.workspace, "cat answer.txt")).text).toBe("broken\n");
    rmSync(w.workspace, { recursive: true });
    mkdirSync(w.workspace);
    writeFileSync(join(w.workspace, "answer.txt"), "new\n");
    expect((await runBash(sandbox, w.workspace, "cat answer.txt")).text).toBe("new\n");
  });

  it("runs nothing in a folder inside the data dir (a relative path would reach the records from there)", async () => {
    const w = world();
    const sandbox = await sandboxed(w.dataDir);
    await expect(sandbox.enter(join(w.dataDir, "workspaces"))).rejects.toThrow(
      /inside its own records folder/,
    );
  });

  it("hides the folder at every path it has: the same folder bind-mounted elsewhere", () => {
    const w = world();
    const alias = realpathSync(makeWorkspace());
    // A mount namespace of its own, where the agent dir is also seen at `alias` (a bind mount).
    const script = join(makeWorkspace(), "alias.ts");
    writeFileSync(
      script,
      [
        `import { spawnSync } from "node:child_process";`,
        `import { probeBashSandbox } from ${JSON.stringify(join(import.meta.dirname, "../../../src/probes/os/bash-sandbox.ts"))};`,
        `const sandbox = await probeBashSandbox({ dataDir: ${JSON.stringify(w.dataDir)} });`,
        `if (sandbox.protection !== "namespaces") throw new Error(sandbox.reason);`,
        `const command = "cat ${alias}/quests/seal.key; ls -A ${alias}/quests; echo end";`,
        `const entry = await sandbox.enter("/");`,
        `const ran = spawnSync(sandbox.outerShell, ["-c", entry.wrap("/bin/sh", command)], { encoding: "utf8" });`,
        `console.log(JSON.stringify({ hidden: sandbox.hidden, out: ran.stdout + ran.stderr }));`,
      ].join("\n"),
    );
    const outside = execFileSync(
      "unshare",
      [
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        `mount --bind "$1" "$2" && cat "$2/quests/seal.key" && exec "$3" "$4"`,
        "sh",
        w.agentDir,
        alias,
        process.execPath,
        script,
      ],
      { encoding: "utf8" },
    );
    const [shown, report] = outside.split("\n");
    expect(shown).toBe(KEY);
    const { hidden, out } = JSON.parse(report as string) as { hidden: string[]; out: string };
    expect(hidden).toEqual([w.dataDir, join(alias, "quests")]);
    expect(out).not.toContain(KEY);
    expect(out).toContain(`cat: ${alias}/quests/seal.key: No such file or directory`);
    expect(out).toMatch(/^end\n/);
  });

  it.runIf(ROOT)("works the same for a learner who is not root (run as nobody)", () => {
    const w = world();
    for (const folder of [w.agentDir, w.dataDir, w.workspace]) {
      chownSync(folder, 65534, 65534);
      chmodSync(folder, 0o700);
    }
    chownSync(join(w.dataDir, "seal.key"), 65534, 65534);
    const script = join(w.workspace, "as-nobody.ts");
    writeFileSync(
      script,
      [
        `import { spawnSync } from "node:child_process";`,
        `import { probeBashSandbox } from ${JSON.stringify(join(import.meta.dirname, "../../../src/probes/os/bash-sandbox.ts"))};`,
        `const sandbox = await probeBashSandbox({ dataDir: ${JSON.stringify(w.dataDir)} });`,
        `if (sandbox.protection !== "namespaces") { console.log(JSON.stringify(sandbox)); process.exit(0); }`,
        `const command = "id -u; cat ${w.dataDir}/seal.key; ls -A ${w.dataDir}; umount ${w.dataDir}; cat /proc/${"$"}PPID/root${w.dataDir}/seal.key; echo x > ${w.workspace}/written; echo end";`,
        `const plain = spawnSync("/bin/sh", ["-c", "cat ${w.dataDir}/seal.key"], { encoding: "utf8" });`,
        `const entry = await sandbox.enter(${JSON.stringify(w.workspace)});`,
        `const ran = spawnSync(sandbox.outerShell, ["-c", entry.wrap("/bin/bash", command)], { encoding: "utf8", cwd: ${JSON.stringify(w.workspace)} });`,
        `console.log(JSON.stringify({ protection: sandbox.protection, plain: plain.stdout, out: ran.stdout + ran.stderr }));`,
      ].join("\n"),
    );
    chmodSync(script, 0o644);
    // The script imports from this checkout: nobody must be able to read it.
    const ran = spawnSync(
      "setpriv",
      ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script],
      { encoding: "utf8", cwd: "/" },
    );
    if (ran.status !== 0 && /EACCES|permission denied/i.test(ran.stderr)) {
      throw new Error(`nobody cannot read the checkout: ${ran.stderr}`);
    }
    const report = JSON.parse(ran.stdout) as { protection: string; plain: string; out: string };
    expect(report.protection).toBe("namespaces");
    expect(report.plain).toBe(`${KEY}\n`);
    expect(report.out.split("\n")[0]).toBe("65534");
    expect(report.out).not.toContain(KEY);
    expect(report.out).toMatch(/^65534\nend\n/);
    expect(report.out).toMatch(/must be superuser to unmount/);
    expect(readFileSync(join(w.workspace, "written"), "utf8")).toBe("x\n");
  });
});

describe("the probe", () => {
  /** A folder of the programs the probe looks for: the system's, but `unshare` as given. */
  function systemWith(unshare: string): string {
    const folder = makeWorkspace();
    for (const name of ["sh", "mount", "nsenter"]) symlinkSync(join("/usr/bin", name), join(folder, name));
    writeFileSync(join(folder, "unshare"), `#!/bin/sh\n${unshare}\n`);
    chmodSync(join(folder, "unshare"), 0o755);
    return folder;
  }
  const realUnshare = ["/usr/bin/unshare", "/bin/unshare"].find((path) => {
    try {
      return spawnSync(path, ["--version"]).status === 0;
    } catch {
      return false;
    }
  });

  it("falls back to the guard where user namespaces are refused (Ubuntu's AppArmor restriction), saying why", async () => {
    const folder = systemWith(
      `echo "unshare: write failed /proc/self/uid_map: Operation not permitted" >&2; exit 1`,
    );
    const found = await probeBashSandbox({ dataDir: world().dataDir, systemFolders: [folder] });
    expect(found).toEqual({
      protection: "guard",
      reason: "unshare: write failed /proc/self/uid_map: Operation not permitted",
    });
  });

  it.runIf(realUnshare)(
    "falls back to the guard with an unshare that has no --map-user (util-linux before 2.38)",
    async () => {
      const folder = systemWith(
        `for a do case "$a" in --map-user=*) echo "unshare: unrecognized option '$a'" >&2; exit 1;; esac; done; exec ${realUnshare} "$@"`,
      );
      const found = await probeBashSandbox({ dataDir: world().dataDir, systemFolders: [folder] });
      expect(found.protection).toBe("guard");
      expect(found.protection === "guard" && found.reason).toMatch(/unrecognized option '--map-user=/);
    },
  );

  it("does not take an unshare's word for it: one that makes no namespaces at all is found out", async () => {
    // It starts the keeper as asked, but in this process's own namespaces: nothing is hidden.
    const outside = systemWith(`exec /bin/sh -c 'echo ready; read -r _'`);
    const found = await probeBashSandbox({ dataDir: world().dataDir, systemFolders: [outside] });
    expect(found.protection).toBe("guard");
    expect(found.protection === "guard" && found.reason).toMatch(/still visible|nsenter/);
    // One that ends at once, saying nothing.
    const silent = systemWith("exit 0");
    expect(await probeBashSandbox({ dataDir: world().dataDir, systemFolders: [silent] })).toEqual({
      protection: "guard",
      reason: "the sandbox ended with 0",
    });
  });

  it("falls back to the guard without unshare in the system's folders, and off Linux", async () => {
    const empty = makeWorkspace();
    expect(await probeBashSandbox({ dataDir: world().dataDir, systemFolders: [empty] })).toEqual({
      protection: "guard",
      reason: `sh, unshare, mount, nsenter not found in ${empty}`,
    });
    expect(await probeBashSandbox({ dataDir: world().dataDir, platform: "darwin" })).toEqual({
      protection: "guard",
      reason: "the bash sandbox needs Linux (this is darwin)",
    });
  });

  it("is asked once per data dir: the answer is kept", async () => {
    const { dataDir } = world();
    expect(probeBashSandbox({ dataDir })).toBe(probeBashSandbox({ dataDir }));
  });

  it("makes the data dir when there is none yet (0700, as pi-quests does), so the first command has it hidden", async () => {
    const dataDir = join(makeWorkspace(), "quests");
    const found = await probeBashSandbox({ dataDir });
    expect(found.protection).toBe(supported.protection);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});

describe("the paths of the data dir", () => {
  it("are its real path and every other mount of the same folder (read from mountinfo, escapes decoded)", () => {
    const folder = realpathSync(makeWorkspace());
    const mountinfo = [
      "1 0 8:1 / / rw - ext4 /dev/root rw",
      `2 1 8:1 ${folder.replaceAll(" ", "\\040")} /elsewhere\\040x rw - ext4 /dev/root rw`,
    ].join("\n");
    // /elsewhere x does not exist here: a path that is not the same folder is left out.
    expect(hiddenPathsOf(folder, mountinfo)).toEqual([folder]);
    expect(hiddenPathsOf(folder, "")).toEqual([folder]);
  });
});
