/**
 * A Pi started from the agent's sandboxed bash (a `pi -p` a quest asks for) finds pi-quests' data
 * dir empty and read-only: its pi-quests records nothing and opens no quest session, quietly, so
 * the run it is part of goes on. Run for real inside the sandbox (src/probes/os/bash-sandbox.ts);
 * the same script outside records as usual.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBashSandbox } from "../../src/probes/os/bash-sandbox.ts";
import { dataFolderOf } from "../support/pi-rpc.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const SRC = join(import.meta.dirname, "../../src/extension");
const supported = await probeBashSandbox({ dataDir: join(makeWorkspace(), "quests") });

/** What the recorder and the session opening do in `workspace`, as a script of its own prints it. */
const SCRIPT = [
  `import { openEventRecorder } from ${JSON.stringify(join(SRC, "recorder.ts"))};`,
  `import { openQuestSession } from ${JSON.stringify(join(SRC, "session.ts"))};`,
  "const errors = [];",
  "const log = await openEventRecorder({ cwd: process.cwd(), env: process.env, onWriteError: (e) => errors.push(String(e)) });",
  'log.record({ name: "turn_end", payload: {} }, "s-1");',
  "await log.flush();",
  "const said = [];",
  "const ui = { hasUI: false, showHud() {}, notify: (m, level) => said.push([level, String(m)]), say() {}, async confirm() { return undefined; } };",
  "const opened = await openQuestSession({ cwd: process.cwd(), env: process.env, ui, sessionId: () => 's-1' });",
  "if (opened.ok) await opened.controller.dispose();",
  "console.log(JSON.stringify({ file: log.file, errors, opened: { ok: opened.ok, readOnly: opened.readOnly ?? false, message: opened.message ?? '' }, said }));",
].join("\n");

async function runScript(inSandbox: boolean) {
  const agentDir = realpathSync(makeWorkspace());
  const sandbox = await probeBashSandbox({ dataDir: join(agentDir, "quests") });
  const workspace = realpathSync(makeWorkspace());
  const script = join(makeWorkspace(), "open.ts");
  writeFileSync(script, SCRIPT);
  const command = `exec '${process.execPath}' '${script}'`;
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir };
  const ran =
    inSandbox && sandbox.protection === "namespaces"
      ? spawnSync(sandbox.outerShell, ["-c", (await sandbox.enter(workspace)).wrap("/bin/sh", command)], {
          cwd: workspace,
          env,
          encoding: "utf8",
        })
      : spawnSync("/bin/sh", ["-c", command], { cwd: workspace, env, encoding: "utf8" });
  if (ran.status !== 0) throw new Error(ran.stderr);
  return { ...JSON.parse(ran.stdout), stderr: ran.stderr, agentDir, workspace };
}

describe.runIf(supported.protection === "namespaces")(
  "a read-only data dir (a Pi inside the agent's bash)",
  () => {
    it("print mode records nothing and says nothing; no quest session opens, and the reason is only an info line", async () => {
      const inside = await runScript(true);
      expect(inside).toMatchObject({ file: "", errors: [], stderr: "" });
      expect(inside.opened).toEqual({
        ok: false,
        readOnly: true,
        message: expect.stringMatching(
          /^pi-quests records nothing in this Pi: its records folder .* is read-only here/,
        ),
      });
      // The session opening itself says nothing: the extension passes the reason on as an info line.
      expect(inside.said).toEqual([]);
      // Nothing was written where the Pi outside keeps its records.
      expect(existsSync(join(inside.agentDir, "quests", "seal.key"))).toBe(false);
    });

    it("outside the sandbox the same script records, and the session opens", async () => {
      const outside = await runScript(false);
      expect(outside.file).toBe(join(dataFolderOf(outside.agentDir, outside.workspace), "events.jsonl"));
      expect(outside.errors).toEqual([]);
      expect(outside.opened.ok).toBe(true);
    });
  },
);
