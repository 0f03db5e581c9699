import { spawn } from "node:child_process";
import { readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  openPlayContainment,
  PLAY_MARKER,
  type PlayContainment,
} from "../../../src/cli/plays/containment.ts";
import { startPiRpcClient } from "../../../src/cli/plays/pi-rpc.ts";
import { PLAY_MODEL, PLAY_PROVIDER, playRepliesJson } from "../../../src/core/play-replies.ts";
import { openRecordSealer } from "../../../src/core/record-sealers.ts";
import { pidNamespaceSupport } from "../../../src/probes/os/pid-namespace.ts";
import { processAlive } from "../../../src/probes/os/process-group.ts";
import { openProgressStore } from "../../../src/runtime/progress.ts";
import { dataFolderOf, EXTENSION, PI } from "../../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

const SCRIPTED_MODEL = join(import.meta.dirname, "../../../src/extension/scripted-model.ts");

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const namespaces = await pidNamespaceSupport("/bin/sh", { ownProc: true });

const opened: PlayContainment[] = [];
const strays: number[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((containment) => containment.close()));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  removeWorkspaces();
});

async function open(options: { namespaces?: boolean } = {}) {
  const containment = await openPlayContainment(options);
  opened.push(containment);
  return containment;
}

/** A sleep nobody else runs: `sleep SECONDS` with a fraction of its own, and how to find it from outside. */
function uniqueSleep(): { command: string; pids: () => number[] } {
  const seconds = `300.${Math.floor(Math.random() * 1e9)}`;
  const wanted = `sleep\0${seconds}\0`;
  return {
    command: `sleep ${seconds}`,
    pids: () =>
      readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .filter((entry) => {
          try {
            return readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted;
          } catch {
            return false;
          }
        })
        .map(Number)
        .filter(processAlive),
  };
}

async function until(test: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

describe.runIf(namespaces.ok)("a play's PID namespace", () => {
  it("is used where namespaces work; a setsid escapee is gone once it is closed", async () => {
    const containment = await open();
    expect([containment.kind, containment.note]).toEqual(["pid-namespace", undefined]);
    const sleeper = uniqueSleep();
    const ran = await containment.run(
      `setsid ${sleeper.command} > /dev/null 2>&1 < /dev/null & echo started`,
      {
        cwd: makeWorkspace(),
        env: ENV,
      },
    );
    expect([ran.exitCode, ran.stdout]).toEqual([0, "started\n"]);
    expect(await until(() => sleeper.pids().length === 1)).toBe(true);
    strays.push(...sleeper.pids());
    expect(await containment.close()).toEqual({ ok: true });
    expect(sleeper.pids()).toEqual([]);
  });

  it("has a /proc of its own: $$ is /proc/self, and the machine's processes are not there", async () => {
    const containment = await open();
    const ran = await containment.run(
      `read -r self _ < /proc/self/stat; echo "$self $$"; test -e /proc/${process.pid} && echo host-visible; true`,
      { cwd: makeWorkspace(), env: ENV },
    );
    const [self, shell] = ran.stdout.trim().split(" ");
    expect(self).toBe(shell);
    expect(Number(self)).toBeLessThan(100);
    expect(ran.stdout).not.toContain("host-visible");
  });

  it("keeps the folder a command runs in, and gives it the play's marker", async () => {
    const containment = await open();
    const cwd = makeWorkspace();
    const ran = await containment.run(`pwd; printf '%s' "$${PLAY_MARKER}"`, { cwd, env: ENV });
    expect(ran.stdout).toBe(`${cwd}\n${containment.env[PLAY_MARKER]}`);
    expect(containment.env[PLAY_MARKER]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("wrap runs another spawner's command inside, with the folder it was started in", async () => {
    const containment = await open();
    const cwd = makeWorkspace();
    const { file, args } = containment.wrap("sh", ["-c", "pwd; grep NSpid /proc/self/status"]);
    expect(file).toBe("nsenter");
    const child = spawn(file, args, {
      cwd,
      env: { ...ENV, ...containment.env },
      detached: containment.detached,
    });
    containment.track(child.pid);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => child.once("close", resolve));
    // Inside its own /proc a process has one id, a small one.
    expect(out).toMatch(new RegExp(`^${cwd}\nNSpid:\\s+\\d{1,2}\n$`));
  });
});

describe("the process-group fallback", () => {
  it("says it is the fallback, and why", async () => {
    const containment = await open({ namespaces: false });
    expect([containment.kind, containment.note]).toEqual([
      "process-group",
      "PID namespaces were not asked for",
    ]);
    expect(containment.wrap("pi", ["--mode", "rpc"])).toEqual({ file: "pi", args: ["--mode", "rpc"] });
  });

  it("ends a background process of the group, and a setsid escapee by its marker", async () => {
    const containment = await open({ namespaces: false });
    const inGroup = uniqueSleep();
    const escapee = uniqueSleep();
    const ran = await containment.run(
      `${inGroup.command} > /dev/null 2>&1 & setsid ${escapee.command} > /dev/null 2>&1 < /dev/null & echo started`,
      { cwd: makeWorkspace(), env: ENV },
    );
    expect(ran.stdout).toBe("started\n");
    expect(await until(() => inGroup.pids().length === 1 && escapee.pids().length === 1)).toBe(true);
    strays.push(...inGroup.pids(), ...escapee.pids());
    expect(await containment.close()).toEqual({ ok: true });
    expect([...inGroup.pids(), ...escapee.pids()]).toEqual([]);
  });

  it("cannot reach a process that left its group and cleared its environment (env -i): the documented limit", async () => {
    const containment = await open({ namespaces: false });
    const hidden = uniqueSleep();
    await containment.run(`setsid env -i ${hidden.command} > /dev/null 2>&1 < /dev/null &`, {
      cwd: makeWorkspace(),
      env: ENV,
    });
    expect(await until(() => hidden.pids().length === 1)).toBe(true);
    strays.push(...hidden.pids());
    expect(await containment.close()).toEqual({ ok: true });
    expect(hidden.pids()).toHaveLength(1);
  });
});

describe("run", () => {
  it("returns when the shell exits, even when a background process holds its output", async () => {
    const containment = await open();
    const sleeper = uniqueSleep();
    const began = Date.now();
    const ran = await containment.run(`${sleeper.command} & echo out; echo err >&2; exit 4`, {
      cwd: makeWorkspace(),
      env: ENV,
    });
    expect(ran).toEqual({ exitCode: 4, signal: null, stdout: "out\n", stderr: "err\n", timedOut: false });
    expect(Date.now() - began).toBeLessThan(5000);
    strays.push(...sleeper.pids());
  });

  it("a timeout kills the command's group", async () => {
    const containment = await open();
    const sleeper = uniqueSleep();
    const ran = await containment.run(sleeper.command, { cwd: makeWorkspace(), env: ENV, timeoutMs: 200 });
    expect([ran.timedOut, ran.exitCode, ran.signal]).toEqual([true, null, "SIGKILL"]);
    expect(await until(() => sleeper.pids().length === 0)).toBe(true);
  });

  it("close twice gives the same answer, and nothing started after it is tracked", async () => {
    const containment = await open();
    const first = await containment.close();
    expect(await containment.close()).toEqual(first);
  });
});

describe.runIf(namespaces.ok)("the real pi in a play's namespace", () => {
  it("plays a quest whose command check opens its own namespace inside; the model's setsid escapee is gone at the close", async () => {
    const containment = await open();
    const workspace = realpathSync(makeWorkspace());
    const agent = realpathSync(makeWorkspace());
    const pack = makeWorkspace({
      "10-solo.yaml": [
        "version: 1",
        "id: solo",
        "title: Solo",
        "goal: Write hello.txt.",
        "checks:",
        "  - id: hello",
        "    type: command",
        "    isolation: none",
        "    run: grep -q hello hello.txt",
        "",
      ].join("\n"),
    });
    const sleeper = uniqueSleep();
    const replies = join(agent, "replies.json");
    writeFileSync(
      replies,
      playRepliesJson([
        [
          {
            tool: "bash",
            args: { command: `setsid ${sleeper.command} > /dev/null 2>&1 < /dev/null & echo started` },
          },
          { tool: "write", args: { path: "hello.txt", content: "hello\n" } },
        ],
      ]),
    );
    const pi = startPiRpcClient({
      cli: PI,
      cwd: workspace,
      env: {
        ...ENV,
        HOME: agent,
        PI_CODING_AGENT_DIR: agent,
        PI_QUESTS_PACK: pack,
        PI_QUESTS_START: "off",
        PI_QUESTS_PLAY_REPLIES: replies,
        ...containment.env,
      },
      args: ["--offline", "--no-session", "--provider", PLAY_PROVIDER, "--model", PLAY_MODEL],
      extensions: [SCRIPTED_MODEL, EXTENSION],
      wrap: containment.wrap,
      detached: containment.detached,
    });
    containment.track(pi.pid);
    try {
      await pi.prompt("/quest start solo");
      await pi.prompt("Write hello.txt");
      await pi.prompt("/quest check");
    } finally {
      expect(await pi.close()).toBe(0);
    }
    expect(sleeper.pids()).toHaveLength(1);
    strays.push(...sleeper.pids());

    const folder = dataFolderOf(agent, workspace);
    const loaded = await openProgressStore(
      join(folder, "progress.json"),
      openRecordSealer(join(agent, "quests"), "progress", workspace),
    ).load();
    expect(loaded.kind).toBe("loaded");
    expect(Object.keys(loaded.progress.completed)).toEqual(["solo"]);
    expect(loaded.progress.lastResult).toMatchObject({
      quest: "solo",
      status: "pass",
      checks: [{ id: "hello", status: "pass", evidence: { containment: "pid-namespace" } }],
    });

    expect(await containment.close()).toEqual({ ok: true });
    expect(sleeper.pids()).toEqual([]);
  });
});
