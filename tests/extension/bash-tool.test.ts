/**
 * The agent's `bash` as pi-quests registers it (src/extension/bash-tool.ts): Pi's own bash tool,
 * made from the checkout's Pi, its commands run in the bash sandbox; Pi's plain tool where the
 * sandbox cannot be made; another extension's `bash` found; what the learner is told.
 */
import { chmodSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Pi from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BashProtection,
  type BashToolPi,
  createAgentBash,
  otherBashOf,
  protectionNotice,
  protectionText,
} from "../../src/extension/bash-tool.ts";
import { type BashSandbox, probeBashSandbox } from "../../src/probes/os/bash-sandbox.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const KEY = "f".repeat(64);
const OURS = { path: "/pkg/pi-quests/dist/extension.js" };

/** A Pi as the tool sees it: its settings, and where its `bash` and `/quest` came from. */
function fakePi(
  settings: { shellPath?: string; shellCommandPrefix?: string } = {},
  bashFrom = OURS,
): BashToolPi {
  return {
    getSettings: () => settings,
    getAllTools: () => [
      { name: "read", sourceInfo: { path: "builtin:read" } },
      { name: "bash", sourceInfo: bashFrom },
    ],
    getCommands: () => [{ name: "quest", sourceInfo: OURS }],
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
      const bash = agentBash(w, fakePi());
      const out = await run(bash, w.workspace, `pwd; ls -A ${w.dataDir}; cat ${w.dataDir}/seal.key`);
      expect(out).toContain(w.workspace);
      expect(out).not.toContain(KEY);
      expect(out).toMatch(/No such file or directory/);
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
      const settings = { shellPath: shell, shellCommandPrefix: "echo from-prefix" };
      // Pi's plain tool with those settings starts that shell outside: the key shows.
      const plain = Pi.createBashToolDefinition(w.workspace, { shellPath: shell, commandPrefix: "echo p" });
      const shown = await plain.execute(
        "call",
        { command: "true" },
        undefined,
        undefined,
        undefined as never,
      );
      expect(JSON.stringify(shown.content)).toContain(KEY);
      const out = await run(agentBash(w, fakePi(settings)), w.workspace, "echo $0");
      expect(out).not.toContain(KEY);
      expect(out).toBe(`cat: ${w.dataDir}/seal.key: No such file or directory\nfrom-prefix\n/bin/bash\n`);
    },
  );

  it("where the sandbox cannot be made, is Pi's plain tool (the guard and the seals are what hold)", async () => {
    const w = world();
    const bash = agentBash(w, fakePi(), async () => ({ protection: "guard", reason: "no namespaces" }));
    expect(await run(bash, w.workspace, `cat ${w.dataDir}/seal.key`)).toBe(`${KEY}\n`);
  });

  it("says which protection applies, once a session, and keeps it for /quest status", async () => {
    const w = world();
    const told: BashProtection[] = [];
    const guard = agentBash(w, fakePi(), async () => ({ protection: "guard", reason: "no namespaces" }));
    expect(guard.protection()).toBeUndefined();
    await guard.start(w.workspace, (protection) => told.push(protection));
    await guard.start(w.workspace, (protection) => told.push(protection));
    expect(told).toEqual([{ kind: "guard", cause: "machine", reason: "no namespaces" }]);
    expect(guard.protection()).toEqual(told[0]);

    const other = agentBash(w, fakePi({}, { path: "/home/learner/.pi/agent/extensions/sandbox.ts" }));
    expect(await other.start(w.workspace, () => {})).toEqual({
      kind: "guard",
      cause: "other-extension",
      extension: "/home/learner/.pi/agent/extensions/sandbox.ts",
    });
  });
});

describe("another extension's bash", () => {
  it("is found from where Pi says its bash tool came from, against where /quest came from", () => {
    expect(otherBashOf(fakePi(), "quest")).toBeUndefined();
    expect(otherBashOf(fakePi({}, { path: "/x/other.ts" }), "quest")).toBe("/x/other.ts");
    expect(otherBashOf(fakePi({}, { path: "builtin:bash" }), "quest")).toBe("Pi's built-in tool");
    // No bash at all (Pi started with --tools read): nothing runs commands.
    expect(otherBashOf({ ...fakePi(), getAllTools: () => [] }, "quest")).toBeUndefined();
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
    expect(protectionNotice(hidden)).toBeUndefined();
    expect(protectionNotice(machine)).toBe(`pi-quests: ${protectionText(machine)}`);
    expect(protectionNotice(other)).toBe(`pi-quests: ${protectionText(other)}`);
  });
});
