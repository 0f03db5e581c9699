/**
 * Receipts through the engine: the regressions receipts exist to stop, with the real store, the real
 * fingerprint and real processes. A counting runner shows when a check did not run at all.
 */
import { execFileSync } from "node:child_process";
import { renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bashCheck } from "../../src/probes/script-runner.ts";
import { reassess } from "../../src/receipts/assess.ts";

import {
  type FingerprintOutcome,
  recordableFileSystem,
  fingerprint as takeFingerprintOf,
} from "../../src/receipts/fingerprint.ts";
import { createFingerprinter } from "../../src/receipts/fingerprinter.ts";
import { createReceiptPort, type PresumingReceiptPort } from "../../src/receipts/port.ts";
import type { Fingerprint } from "../../src/receipts/schema.ts";
import { currentHost, openReceiptStore, type ReceiptStore } from "../../src/receipts/store.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import type { IsolatedRunRequest, ScriptRequest } from "../../src/verifier/probes.ts";
import { formatQuestResult } from "../../src/verifier/report.ts";
import type { QuestResult } from "../../src/verifier/results.ts";
import { check } from "../support/checks.ts";
import { fakeProbes } from "../support/fake-probes.ts";
import { testSealer } from "../support/seal.ts";
import { NARROW, pastRacyWindow } from "../support/stat-record.ts";
import { commitAll, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

/** What a fake worktree run reports of where it ran: nothing of it is under test here. */
const RUN_IN_PLACE = {
  runDir: "",
  baseline: "",
  head: "",
  patchSha256: "",
  patchBytes: 0,
  restored: [],
  manifestsMerged: [],
  removedConfigs: [],
  cleanup: { ok: true as const },
};

/** A workspace, its receipt store, and an evaluator whose runner counts what it ran. */
async function setup(files: Record<string, string> = { "hello.txt": "hello\n" }) {
  const workspace = makeWorkspace(files);
  const store = await openReceiptStore(join(makeWorkspace(), "receipts"), { sealer: testSealer() });
  const ran: string[] = [];
  const bash = bashCheck();
  let evaluated: ReturnType<typeof check>[] = [];
  const probes = fakeProbes(
    {},
    {
      runCommand: async (request: ScriptRequest) => {
        ran.push(request.content);
        return bash(request);
      },
      // The isolated verifier is not under test here: the command runs in place, and the run
      // reports the fingerprint of the files it saw, as the verifier's worktree run does.
      runIsolated: async (request: IsolatedRunRequest) => {
        const pinned = evaluated.find((candidate) => candidate.id === request.checkId);
        const content = pinned?.type === "command" ? pinned.run : "exit 99";
        ran.push(content);
        const outcome = await bash({ script: request.checkId, content, cwd: request.cwd, timeoutMs: 30_000 });
        const taken = await takeFingerprintOf(request.cwd);
        const fingerprint = taken.ok
          ? { ok: true as const, ...taken.fingerprint }
          : { ok: false as const, reason: taken.reason };
        return { ...outcome, verification: { ...RUN_IN_PLACE, fingerprint } };
      },
    },
  );
  const evaluate = async (
    checks: ReturnType<typeof check>[],
    options: {
      signal?: AbortSignal;
      takeFingerprint?: (w: string) => Promise<FingerprintOutcome>;
      presume?: (w: string) => Fingerprint | undefined;
      port?: (port: PresumingReceiptPort) => void;
    } = {},
  ): Promise<QuestResult> => {
    evaluated = checks;
    const receipts = createReceiptPort({
      store,
      workspace,
      host: currentHost(),
      ...(options.takeFingerprint ? { takeFingerprint: options.takeFingerprint } : {}),
      ...(options.presume ? { presume: options.presume } : {}),
    });
    options.port?.(receipts);
    // The receipts' recheck is the evaluation's last step.
    return evaluateQuest(
      { id: "q", checks },
      {
        probes,
        events: [],
        paths: { workspace, agentDir: "/nonexistent/agent", home: workspace },
        questId: "q",
        receipts,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
  };
  return { workspace, store, ran, evaluate };
}

/** A worktree check (the default): what it sees is the fingerprinted files, so a receipt can answer it. */
const says = (word: string, id = "says") =>
  check({ type: "command", isolation: "worktree", run: `grep -q ${word} hello.txt` }, id);

/** The same check in place (`isolation: none`): the receipt's fingerprint is taken when it begins. */
const saysInPlace = (word: string, id = "says") =>
  check({ type: "command", isolation: "none", run: `grep -q ${word} hello.txt` }, id);

async function states(store: ReceiptStore) {
  return (await store.list()).receipts.map((receipt) => [receipt.check, receipt.state, receipt.termination]);
}

describe("a presumed fingerprint: a receipt chosen with it, the files looked at once", () => {
  /** The fingerprint of the files now, and a fingerprinter that counts its looks. */
  async function looks(workspace: string) {
    const taken = await takeFingerprintOf(workspace);
    if (!taken.ok) throw new Error(taken.reason);
    let count = 0;
    const takeFingerprint = (w: string) => {
      count++;
      return takeFingerprintOf(w);
    };
    return { fingerprint: taken.fingerprint, takeFingerprint, count: () => count };
  }

  it("answers unchanged files from the receipt with one look, the recheck's: the presumption held", async () => {
    const { ran, evaluate, workspace } = await setup();
    await evaluate([says("hello")]);
    const { fingerprint, takeFingerprint, count } = await looks(workspace);
    let port: PresumingReceiptPort | undefined;
    const again = await evaluate([says("hello")], {
      takeFingerprint,
      presume: () => fingerprint,
      port: (p) => (port = p),
    });
    expect(again.status).toBe("pass");
    expect(again.checks[0]?.evidence).toMatchObject({ receipt: { reused: true } });
    expect(ran).toHaveLength(1);
    expect(count()).toBe(1);
    expect(port?.presumptionFailed()).toBe(false);
  });

  it("files changed since: the receipt it chose is looked at, a failed one too, and the presumption failed", async () => {
    const { evaluate, workspace } = await setup({ "hello.txt": "bye\n" });
    expect((await evaluate([says("hello")])).status).toBe("fail");
    const { fingerprint: before } = await looks(workspace);
    // The learner fixes the file; the presumption is still the old files'.
    writeFileSync(join(workspace, "hello.txt"), "hello\n");
    const { takeFingerprint, count } = await looks(workspace);
    let port: PresumingReceiptPort | undefined;
    await evaluate([says("hello")], { takeFingerprint, presume: () => before, port: (p) => (port = p) });
    expect(count()).toBe(1);
    expect(port?.presumptionFailed()).toBe(true);
  });

  it("one check answered by the presumption, another with no receipt: the look shows other files, and nothing runs before the evaluation is made again", async () => {
    const { ran, evaluate, workspace } = await setup();
    await evaluate([says("hello", "first")]);
    const { fingerprint: before } = await looks(workspace);
    writeFileSync(join(workspace, "hello.txt"), "hello again\n");
    let port: PresumingReceiptPort | undefined;
    const result = await evaluate([says("hello", "first"), says("again", "second")], {
      presume: () => before,
      port: (p) => (port = p),
    });
    expect(ran).toEqual(["grep -q hello hello.txt"]);
    expect(port?.presumptionFailed()).toBe(true);
    expect(result.checks[1]).toMatchObject({ status: "pending" });
  });

  it("a presumption that no receipt answers is not relied on: the files are looked at and chosen with", async () => {
    const { ran, evaluate, workspace } = await setup();
    await evaluate([says("hello")]);
    const { fingerprint, takeFingerprint } = await looks(workspace);
    let port: PresumingReceiptPort | undefined;
    const other = { ...fingerprint, value: "0".repeat(64) };
    const again = await evaluate([says("hello")], {
      takeFingerprint,
      presume: () => other,
      port: (p) => (port = p),
    });
    expect(again.checks[0]?.evidence).toMatchObject({ receipt: { reused: true } });
    expect(ran).toHaveLength(1);
    expect(port?.presumptionFailed()).toBe(false);
  });
});

describe("receipts", () => {
  it("reuse: a second evaluation on unchanged files is answered by the receipt, and nothing runs", async () => {
    const { ran, evaluate, store } = await setup();
    const first = await evaluate([says("hello")]);
    expect(first.status).toBe("pass");
    const second = await evaluate([says("hello")]);
    expect(second.status).toBe("pass");
    expect(ran).toEqual(["grep -q hello hello.txt"]);
    const receipt =
      second.checks[0]?.evidence.kind === "command" ? second.checks[0].evidence.receipt : undefined;
    expect(receipt).toMatchObject({ reused: true, state: "passed" });
    // The evidence says what the run found; the report adds that it was not run again.
    expect(second.checks[0]?.evidence.summary).toBe(first.checks[0]?.evidence.summary);
    expect(formatQuestResult(second, "Says hello")).toContain(
      `(receipt ${receipt?.id}: same check, same files; not run again)`,
    );
    expect(await states(store)).toEqual([["says", "passed", "exit"]]);
  });

  it("a failing run is reused as a failure too, and an edit that fixes it runs again", async () => {
    const { ran, evaluate, workspace } = await setup({ "hello.txt": "bye\n" });
    expect((await evaluate([says("hello")])).status).toBe("fail");
    expect((await evaluate([says("hello")])).status).toBe("fail");
    expect(ran).toHaveLength(1);
    writeFileSync(join(workspace, "hello.txt"), "hello\n");
    expect((await evaluate([says("hello")])).status).toBe("pass");
    expect(ran).toHaveLength(2);
  });

  it("an isolation: none check runs every time: what it reads in place is not in the fingerprint", async () => {
    const { ran, evaluate, store } = await setup({ "hello.txt": "bye\n" });
    const inPlace = check({ type: "command", isolation: "none", run: "grep -q hello hello.txt" }, "in-place");
    expect((await evaluate([inPlace])).status).toBe("fail");
    expect((await evaluate([inPlace])).status).toBe("fail");
    expect(ran).toHaveLength(2);
    expect(await states(store)).toEqual([
      ["in-place", "failed", "exit"],
      ["in-place", "failed", "exit"],
    ]);
  });

  it("a command that prints a success word but fails leaves a failed receipt", async () => {
    const { evaluate, store } = await setup();
    const printsPass = check(
      { type: "command", isolation: "none", run: "echo 'PASS: all tests passed'; exit 1" },
      "liar",
    );
    expect((await evaluate([printsPass])).status).toBe("fail");
    expect(await states(store)).toEqual([["liar", "failed", "exit"]]);
  });

  it("a model's claim with no command leaves no receipt: nothing is verified", async () => {
    const { store, workspace } = await setup();
    const found = await reassess(store, workspace);
    expect(found.assessments).toEqual([]);
  });

  it("edits after a check make its receipt stale: reassessment says so, and the check runs again", async () => {
    const { ran, evaluate, store, workspace } = await setup();
    await evaluate([says("hello")]);
    writeFileSync(join(workspace, "notes.md"), "an unrelated edit still changes the snapshot\n");
    const found = await reassess(store, workspace);
    expect(found.assessments.map((a) => [a.receipt.state, a.freshness])).toEqual([["passed", "stale"]]);
    await evaluate([says("hello")]);
    expect(ran).toHaveLength(2);
    const after = await reassess(store, workspace);
    expect(after.assessments.map((a) => [a.freshness, a.superseded])).toEqual([["fresh", 1]]);
  });

  it("a pass whose files change before the quest is published is stale, not complete", async () => {
    const { evaluate, workspace } = await setup();
    let calls = 0;
    const { fingerprint } = await import("../../src/receipts/fingerprint.ts");
    // The second fingerprint (the recheck) is taken after the learner's editor saved a file.
    const takeFingerprint = async (dir: string) => {
      calls++;
      if (calls === 2) writeFileSync(join(workspace, "hello.txt"), "goodbye\n");
      return fingerprint(dir);
    };
    const result = await evaluate([saysInPlace("hello")], { takeFingerprint });
    expect(result.status).toBe("pending");
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stale" } });
  });

  it.skipIf(!recordableFileSystem(tmpdir()))(
    "a pass is never published without a second look: lstat's recheck sees a same-size edit with its mtime set back",
    async () => {
      const { evaluate, workspace } = await setup();
      commitAll(workspace);
      // Past the racy window, so that the evaluation's first fingerprint leaves a stat record.
      await pastRacyWindow();
      const looks = async (edit: boolean) => {
        // The racy window narrowed to the granularity (tests/receipts/fingerprinter.test.ts says why).
        const fingerprinter = createFingerprinter(NARROW);
        const paths: string[] = [];
        let calls = 0;
        const takeFingerprint = async (dir: string) => {
          // The second look is the recheck, after the run: the edit lands between the two.
          if (++calls === 2 && edit) {
            const file = join(workspace, "hello.txt");
            const { mtimeNs } = statSync(file, { bigint: true });
            writeFileSync(file, "jello\n");
            execFileSync("touch", [
              "-m",
              "-d",
              `@${mtimeNs / 10n ** 9n}.${String(mtimeNs % 10n ** 9n).padStart(9, "0")}`,
              file,
            ]);
          }
          const taken = await fingerprinter(dir);
          paths.push(taken.ok ? taken.path : "none");
          return taken;
        };
        return { result: await evaluate([says("hello")], { takeFingerprint }), paths };
      };
      const honest = await looks(false);
      expect(honest.result.status).toBe("pass");
      expect(honest.paths).toEqual(["fast", "stat"]);
      const edited = await looks(true);
      expect(edited.result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stale" } });
      expect(edited.paths).toEqual(["fast", "fast"]);
    },
  );

  it("a different passing command never erases a failed check", async () => {
    const { evaluate, store, workspace } = await setup();
    await evaluate([says("goodbye", "strict")]);
    await evaluate([check({ type: "command", isolation: "none", run: "true" }, "strict")]);
    const found = await reassess(store, workspace);
    expect(found.assessments.map((a) => [a.receipt.command, a.receipt.state]).sort()).toEqual([
      ["grep -q goodbye hello.txt", "failed"],
      ["true", "passed"],
    ]);
  });

  it("a cancelled run is recorded as cancelled and never reused", async () => {
    const { ran, evaluate, store } = await setup();
    const slow = check({ type: "command", isolation: "none", run: "sleep 30" }, "slow");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await evaluate([slow], { signal: controller.signal });
    expect(result.status).toBe("pending");
    expect(await states(store)).toEqual([["slow", "cancelled", "stopped"]]);
    await evaluate([check({ type: "command", isolation: "none", run: "sleep 30", timeout_ms: 200 }, "slow")]);
    expect(ran).toHaveLength(2);
  });

  it("a timeout is a termination reason: the receipt failed, the check pending, never reused", async () => {
    const { ran, evaluate, store } = await setup();
    const slow = check({ type: "command", isolation: "none", run: "sleep 30", timeout_ms: 200 }, "slow");
    expect((await evaluate([slow])).status).toBe("pending");
    expect((await evaluate([slow])).status).toBe("pending");
    expect(ran).toHaveLength(2);
    expect(await states(store)).toEqual([
      ["slow", "failed", "timeout"],
      ["slow", "failed", "timeout"],
    ]);
  });

  it("no fingerprint (a workspace over a limit): the run is skipped, its pass never green", async () => {
    const { evaluate, store } = await setup();
    const overLimit = async (): Promise<FingerprintOutcome> => ({ ok: false, reason: "over 100000 entries" });
    const result = await evaluate([saysInPlace("hello")], { takeFingerprint: overLimit });
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "no_fingerprint" } });
    const [receipt] = (await store.list()).receipts;
    expect(receipt).toMatchObject({
      state: "skipped",
      fingerprint: null,
      note: "no fingerprint: over 100000 entries",
    });
  });

  it("uncommitted content counts, and an ignored file does not", async () => {
    const { ran, evaluate, workspace } = await setup({ "hello.txt": "hello\n", ".gitignore": "*.log\n" });
    commitAll(workspace);
    await evaluate([says("hello")]);
    writeFileSync(join(workspace, "debug.log"), "ignored: the snapshot is the same\n");
    await evaluate([says("hello")]);
    expect(ran).toHaveLength(1);
    writeFileSync(join(workspace, "hello.txt"), "hello again, uncommitted\n");
    await evaluate([says("hello")]);
    expect(ran).toHaveLength(2);
  });

  it("a rename changes the snapshot", async () => {
    const { ran, evaluate, workspace } = await setup({ "hello.txt": "hello\n", "a.txt": "a\n" });
    await evaluate([says("hello")]);
    renameSync(join(workspace, "a.txt"), join(workspace, "b.txt"));
    await evaluate([says("hello")]);
    expect(ran).toHaveLength(2);
  });

  it("command text is redacted when persisted, and identity is taken before redaction", async () => {
    const { evaluate, store } = await setup();
    await evaluate([check({ type: "command", isolation: "none", run: "TOKEN=s3cr3t-one true" }, "one")]);
    await evaluate([check({ type: "command", isolation: "none", run: "TOKEN=s3cr3t-two true" }, "two")]);
    const { receipts } = await store.list();
    expect(receipts.map((r) => r.command)).toEqual(["TOKEN=*** true", "TOKEN=*** true"]);
    expect(new Set(receipts.map((r) => r.checkIdentity)).size).toBe(2);
    expect(JSON.stringify(receipts)).not.toContain("s3cr3t");
  });
});
