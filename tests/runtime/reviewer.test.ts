/**
 * The reviewer's runtime side with the real snapshot, receipts and store, and a scripted session
 * in place of the model: what the reviewer is given (the fingerprinted files, never ignored ones),
 * the redacted transcript, receipts that answer an unchanged workspace and go stale on an edit,
 * and a snapshot changed during the review.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PiSdk, PiSdkSource } from "../../src/probes/pi-sdk.ts";
import type { ReviewSessionOutcome, ReviewSessionRequest } from "../../src/probes/review-session.ts";
import { createReceiptPort } from "../../src/receipts/port.ts";
import { currentHost, openReceiptStore } from "../../src/receipts/store.ts";
import { createReviewer } from "../../src/runtime/reviewer.ts";
import type { EvaluationTrigger } from "../../src/verifier/context.ts";
import { evaluateQuest } from "../../src/verifier/evaluate.ts";
import { check } from "../support/checks.ts";
import { fakeProbes } from "../support/fake-probes.ts";
import { testSealer } from "../support/seal.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const review = check({ type: "review", criterion: "NOTES.md explains the bug", files: ["NOTES.md"] });

/** A session that reads NOTES.md and judges pass quoting it; it records what it was given. */
function scriptedSession(seen: { root: string; files: string[] }[], during?: (root: string) => void) {
  return async (request: ReviewSessionRequest): Promise<ReviewSessionOutcome> => {
    seen.push({
      root: request.root,
      files: readdirSync(request.root, { recursive: true }).map(String).sort(),
    });
    request.onStart?.("p/m");
    during?.(request.root);
    const text = readFileSync(join(request.root, "NOTES.md"), "utf8");
    return {
      ended: "finished",
      model: "p/m",
      messages: [
        {
          role: "toolResult",
          content: [{ type: "text", text: `${text} GITHUB_TOKEN=ghp_${"a".repeat(36)}` }],
        },
      ],
      ledger: {
        reads: [{ path: "NOTES.md", firstLine: 1, text }],
        submissions: [{ verdict: "pass", evidence: [{ path: "NOTES.md", quote: "subtracts" }] }],
        refusedTools: [],
      },
    };
  };
}

/** The scripted session calls nothing of Pi's SDK: any object stands for it. */
const SOME_SDK: PiSdkSource = async () => ({ ok: true, sdk: {} as PiSdk });

async function setup(during?: (root: string) => void, pi: PiSdkSource = SOME_SDK, reviewerPi?: string) {
  const workspace = makeWorkspace({
    "NOTES.md": "add() subtracts b.\n",
    ".gitignore": ".env\n",
    ".env": "SECRET=1\n",
    "node_modules/x/index.js": "x\n",
  });
  git(workspace, "init", "-q");
  const dataDir = makeWorkspace();
  const store = await openReceiptStore(join(dataDir, "receipts"), { sealer: testSealer() });
  const seen: { root: string; files: string[] }[] = [];
  const activity: string[] = [];
  const reviewer = createReviewer({
    workspace,
    dataDir,
    agentDir: dataDir,
    models: {},
    onActivity: (a) => activity.push(a.reviewing ? `start ${a.model}` : "end"),
    runSession: scriptedSession(seen, during),
    pi,
  });
  const evaluate = (trigger: EvaluationTrigger = "manual", through = reviewerPi) =>
    evaluateQuest(
      { id: "q", checks: [review] },
      {
        probes: fakeProbes({}, { review: reviewer }),
        events: [],
        paths: { workspace, agentDir: dataDir, home: dataDir },
        questId: "q",
        receipts: createReceiptPort({
          store,
          workspace,
          host: currentHost(),
          ...(through ? { reviewer: through } : {}),
        }),
        trigger,
      },
    );
  return { workspace, store, seen, activity, evaluate };
}

describe("the reviewer's runtime", () => {
  it("gives the reviewer a copy of the fingerprinted files only, keeps a redacted transcript, removes the copy", async () => {
    const { seen, activity, evaluate } = await setup();
    const result = await evaluate();
    expect(result.checks[0]).toMatchObject({ status: "pass", evidence: { kind: "review", model: "p/m" } });
    expect(seen[0]?.files).toEqual([".gitignore", "NOTES.md"]);
    expect(activity).toEqual(["start p/m", "end"]);
    expect(existsSync(seen[0]?.root ?? "")).toBe(false);
    const evidence = result.checks[0]?.evidence;
    if (evidence?.kind !== "review" || !evidence.record) throw new Error("no record");
    const transcript = readFileSync(evidence.record.transcript.file, "utf8");
    expect(transcript).toContain("add() subtracts b.");
    expect(transcript).toContain("GITHUB_TOKEN=***");
    expect(transcript).not.toContain("ghp_");
  });

  it("reviews at most once per fingerprint; an edit makes the pass stale and asks for a review", async () => {
    const { workspace, store, seen, evaluate } = await setup();
    expect((await evaluate()).status).toBe("pass");
    const again = await evaluate("turn_end");
    expect(again.checks[0]).toMatchObject({ status: "pass", evidence: { receipt: { reused: true } } });
    expect(seen).toHaveLength(1);
    const [receipt] = (await store.list()).receipts;
    expect(receipt).toMatchObject({
      kind: "review",
      termination: "judged",
      state: "passed",
      command: "review: NOTES.md explains the bug",
    });

    writeFileSync(join(workspace, "NOTES.md"), "add() is fine.\n");
    const edited = await evaluate("turn_end");
    expect(edited.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "awaiting_review" } });
    expect(seen).toHaveLength(1);
    expect((await evaluate()).checks[0]?.status).toBe("pending"); // the quote "subtracts" is gone
    expect(seen).toHaveLength(2);
  });

  it("takes a judgment only from the Pi that made it: a pass judged through another Pi's SDK is reviewed again", async () => {
    // The CLI run by the agent with PI_QUESTS_PI naming a "Pi" of its own leaves a receipt that
    // must never answer for the Pi the learner runs.
    const { seen, evaluate } = await setup(undefined, SOME_SDK, "/agents/fake-pi");
    expect((await evaluate()).status).toBe("pass");
    expect((await evaluate("turn_end", "/agents/fake-pi")).checks[0]).toMatchObject({
      evidence: { receipt: { reused: true } },
    });
    const inRealPi = await evaluate("turn_end", "/usr/lib/node_modules/@earendil-works/pi-coding-agent");
    expect(inRealPi.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "awaiting_review" } });
    expect(seen).toHaveLength(1);
  });

  it("makes a pass stale when the files change during the evaluation, after the review", async () => {
    let workspaceOf = "";
    const { workspace, evaluate } = await setup(() =>
      writeFileSync(join(workspaceOf, "NOTES.md"), "add() subtracts, edited.\n"),
    );
    workspaceOf = workspace;
    const result = await evaluate();
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stale" } });
  });

  it("does not take a judgment of a snapshot that changed during the review", async () => {
    const { evaluate } = await setup((root) =>
      writeFileSync(join(root, "NOTES.md"), "add() subtracts, swapped.\n"),
    );
    const result = await evaluate();
    expect(result.checks[0]).toMatchObject({ status: "pending", evidence: { pending: "stale" } });
    expect(result.checks[0]?.evidence.summary).toContain("changed during the review");
  });

  it("is unavailable, and starts no session, where Pi's SDK is not found", async () => {
    const { seen, evaluate } = await setup(undefined, async () => ({
      ok: false,
      message: "Pi was not found (no pi on PATH)",
    }));
    const result = await evaluate();
    expect(result.checks[0]).toMatchObject({
      status: "pending",
      evidence: { pending: "unavailable", summary: "no reviewer here: Pi was not found (no pi on PATH)" },
    });
    expect(seen).toEqual([]);
  });
});
