/**
 * The agent's `bash` as pi-quests registers it (src/extension/bash-tool.ts): Pi's own bash tool,
 * made from the checkout's Pi, its commands run in the bash sandbox; Pi's plain tool where the
 * sandbox cannot be made; Pi's built-in bash taken over, another extension's left alone and
 * said; what the learner is told.
 */
import { chmodSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Pi from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BashProtection,
  type BashToolPi,
  bashOwnerOf,
  createAgentBash,
  protectionNotice,
  protectionText,
} from "../../src/extension/bash-tool.ts";
import { type BashSandbox, probeBashSandbox } from "../../src/probes/os/bash-sandbox.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const KEY = "f".repeat(64);
const OURS = { path: "/pkg/pi-quests/dist/extension.js", source: "local" };
const BUILTIN = { path: "builtin:bash", source: "builtin" };

/**
 * A Pi as the tool sees it: its settings, and where its `bash` and `/quest` came from (Pi's
 * built-in bash unless `bashFrom` says whose, none for null); a tool registered is pi-quests'.
 */
function fakePi(
  settings: { shellPath?: string; shellCommandPrefix?: string } = {},
  bashFrom: { path: string; source: string } | null = BUILTIN,
): BashToolPi & { registered: string[] } {
  const tools = new Map([["read", { path: "builtin:read", source: "builtin" }]]);
  if (bashFrom) tools.set("bash", bashFrom);
  const registered: string[] = [];
  return {
    registered,
    getSettings: () => settings,
    getAllTools: () => [...tools].map(([name, sourceInfo]) => ({ name, sourceInfo })),
    getCommands: () => [{ name: "quest", sourceInfo: OURS }],
    registerTool(tool) {
      registered.push(tool.name);
      tools.set(tool.name, OURS);
    },
  };
}

function world() {
  const agentDir = realpathSync(makeWorkspace({ "quests/seal.key": `${KEY}\n` }));
  return { agentDir, dataDir: join(agentDir, "quests"), workspace: realpathSync(makeWorkspace()) };
}

function agentBash(
  w: ReturnType<typeof world>,
  pi: BashToolPi,
  sandboxFor: (dataDir: string) => Promise<BashSandbox> = (dataDir) => probeBashSandbox({ dataDir }),
) {
  return createAgentBash({ pi, modules: Pi, dataDirOf: () => w.dataDir, sandboxFor, ownCommand: "quest" });
}

async function run(bash: ReturnType<typeof agentBash>, cwd: string, command: string): Promise<string> {
  // What Pi's tool reads of its context: the folder, and the session it tells commands about.
  const ctx = { cwd, sessionManager: { getSessionId: () => "s-1", getSessionFile: () => undefined } };
  const result = await bash.definition.execute("call", { command }, undefined, undefined, ctx as never);
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

const supported = await probeBashSandbox({ dataDir: world().dataDir });
removeWorkspaces();

describe("the agent's bash", () => {
  it("is Pi's own bash tool: its name, schema, description, prompt lines and renderers", () => {
    const w = world();
    const { definition } = agentBash(w, fakePi());
    const pi = Pi.createBashToolDefinition(w.workspace);
    expect(definition.name).toBe("bash");
    expect(definition.parameters).toEqual(pi.parameters);
    expect(definition.description).toBe(pi.description);
    expect(definition.promptSnippet).toBe(pi.promptSnippet);
    expect(definition.promptGuidelines).toEqual(pi.promptGuidelines);
    expect(typeof definition.renderCall).toBe("function");
    expect(typeof definition.renderResult).toBe("function");
  });

  it.runIf(supported.protection === "namespaces")(
    "runs the command where the records are hidden, in the folder Pi runs in",
    async () => {
      const w = world();
      const out = await run(
        agentBash(w, fakePi()),
        w.workspace,
        `pwd; ls -A ${w.dataDir}; cat ${w.dataDir}/seal.key`,
      );
      expect(out).toBe(
        `${w.workspace}\ncat: ${w.dataDir}/seal.key: No such file or directory\n\n\nCommand exited with code 1`,
      );
    },
  );

  it.runIf(supported.protection === "namespaces")(
    "enters the sandbox with the system's sh: a shellPath the agent wrote into settings.json runs inside it, with the prefix",
    async () => {
      const w = world();
      // The agent's own "shell": it reads the key before running what it was given.
      const shell = join(w.workspace, "my-shell");
      writeFileSync(shell, `#!/bin/sh\ncat ${w.dataDir}/seal.key 2>&1\nexec /bin/bash "$@"\n`);
      chmodSync(shell, 0o755);
      // Pi's plain tool with that shellPath starts it outside any sandbox: the key shows.
      const plain = Pi.createBashToolDefinition(w.workspace, { shellPath: shell });
      const shown = await plain.execute(
        "call",
        { command: "true" },
        undefined,
        undefined,
        undefined as never,
      );
      expect(JSON.stringify(shown.content)).toContain(KEY);
      const settings = { shellPath: shell, shellCommandPrefix: "echo from-prefix" };
      const out = await run(agentBash(w, fakePi(settings)), w.workspace, "echo $0");
      expect(out).toBe(`cat: ${w.dataDir}/seal.key: No such file or directory\nfrom-prefix\n/bin/bash\n`);
    },
  );

  it("where the sandbox cannot be made, is Pi's plain tool (the guard and the seals are what hold)", async () => {
    const w = world();
    const bash = agentBash(w, fakePi(), async () => ({ protection: "guard", reason: "no namespaces" }));
    expect(await run(bash, w.workspace, `cat ${w.dataDir}/seal.key`)).toBe(`${KEY}\n`);
  });

  it("takes over Pi's built-in bash at session start, never another extension's (Pi would refuse to start with two)", () => {
    const w = world();
    const builtin = fakePi();
    agentBash(w, builtin).claim();
    expect(builtin.registered).toEqual(["bash"]);
    const other = fakePi({}, { path: "/home/l/.pi/agent/extensions/ssh.ts", source: "local" });
    agentBash(w, other).claim();
    expect(other.registered).toEqual([]);
    const none = fakePi({}, null);
    agentBash(w, none).claim();
    expect(none.registered).toEqual([]);
  });

  it("says which protection applies, as it stands, and keeps the answer for /quest status", async () => {
    const w = world();
    const guard = agentBash(w, fakePi(), async () => ({ protection: "guard", reason: "no namespaces" }));
    expect(guard.known()).toBeUndefined();
    guard.claim();
    const machine = { kind: "guard", cause: "machine", reason: "no namespaces" };
    expect(await guard.protection(w.workspace)).toEqual(machine);
    expect(guard.known()).toEqual(machine);

    const hidden = agentBash(w, fakePi(), async () => ({ protection: "namespaces" }) as BashSandbox);
    hidden.claim();
    expect(await hidden.protection(w.workspace)).toEqual({ kind: "namespaces", dataDir: w.dataDir });

    const path = "/home/learner/.pi/agent/extensions/sandbox.ts";
    const other = agentBash(w, fakePi({}, { path, source: "local" }));
    other.claim();
    expect(await other.protection(w.workspace)).toEqual({
      kind: "guard",
      cause: "other-extension",
      extension: path,
    });
    expect(await agentBash(w, fakePi({}, null)).protection(w.workspace)).toEqual({ kind: "no-bash" });
  });
});

describe("whose bash Pi runs", () => {
  it("is read from where Pi says its bash tool came from, against where /quest came from", () => {
    expect(bashOwnerOf(fakePi(), "quest")).toEqual({ kind: "builtin" });
    expect(bashOwnerOf(fakePi({}, OURS), "quest")).toEqual({ kind: "pi-quests" });
    expect(bashOwnerOf(fakePi({}, { path: "/x/other.ts", source: "local" }), "quest")).toEqual({
      kind: "other",
      path: "/x/other.ts",
    });
    // No bash at all (Pi started with --tools read): nothing runs commands.
    expect(bashOwnerOf(fakePi({}, null), "quest")).toEqual({ kind: "none" });
  });
});

describe("what the learner is told", () => {
  it("in /quest status, for each protection; a notification only when the agent's bash can see the records", () => {
    const hidden: BashProtection = { kind: "namespaces", dataDir: "/home/l/.pi/agent/quests" };
    const machine: BashProtection = {
      kind: "guard",
      cause: "machine",
      reason: "unshare: write failed /proc/self/uid_map: Operation not permitted",
    };
    const other: BashProtection = { kind: "guard", cause: "other-extension", extension: "/x/other.ts" };
    expect(protectionText(hidden)).toBe(
      "Agent's bash: its commands run where pi-quests' records (/home/l/.pi/agent/quests) look like an empty, read-only folder; they cannot read or change them.",
    );
    expect(protectionText(machine)).toBe(
      "Agent's bash: this machine does not let pi-quests hide its records from the agent's commands (unshare: write failed /proc/self/uid_map: Operation not permitted). pi-quests blocks the commands that name them, and ignores any record changed anyway.",
    );
    expect(protectionText(other)).toBe(
      "Agent's bash: the bash tool in use comes from /x/other.ts, not pi-quests, so its commands can see pi-quests' records. pi-quests blocks the commands that name them, and ignores any record changed anyway.",
    );
    expect(protectionText({ kind: "no-bash" })).toBe(
      "Agent's bash: the agent has no bash tool in this session.",
    );
    expect(protectionNotice(hidden)).toBeUndefined();
    expect(protectionNotice({ kind: "no-bash" })).toBeUndefined();
    expect(protectionNotice(machine)).toBe(`pi-quests: ${protectionText(machine)}`);
    expect(protectionNotice(other)).toBe(`pi-quests: ${protectionText(other)}`);
  });
});
