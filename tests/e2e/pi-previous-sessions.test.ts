/**
 * Sessions replaced over RPC in the previous minor's Pi (1.5.2, the dev dependency
 * `pi-previous`), which runs extensions' `session_start` and `resources_discover` handlers twice
 * for an RPC `fork` and `new_session` (Pi 1.6.0's changelog: fixed). A test extension
 * (fixtures/pi/session-starts.ts) writes down what Pi delivers; pi-quests' log and progress must
 * show each session once: one controller, one sequence, the progress its only writer left.
 * The same run in the newest Pi delivers each once, and pi-quests records the same.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_STARTS_FILE } from "../../fixtures/pi/session-starts.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import { REPO } from "../support/cli.ts";
import { closeAllPis, dataFolderOf, PI, PI_PREVIOUS, startPiRpc } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

afterEach(closeAllPis);

const SESSION_STARTS = join(REPO, "fixtures/pi/session-starts.ts");

/** Two quests: fork the session, then start a new one. */
const PACK = {
  "10-fork.yaml": [
    "version: 2",
    "id: fork",
    "title: Fork",
    "goal: Fork the session.",
    "checks:",
    "  - describe: You forked the session",
    "    type: event",
    "    match: { event: session_start, fields: { reason: fork, parentSession: { ends_with: .jsonl } } }",
    "    same_session: false",
    "",
  ].join("\n"),
  "20-new.yaml": [
    "version: 2",
    "id: new-session",
    "title: New",
    "goal: Start a new session.",
    "requires: [fork]",
    "checks:",
    "  - describe: You started a new session",
    "    type: event",
    "    match: { event: session_start, fields: { reason: new } }",
    "    same_session: false",
    "",
  ].join("\n"),
};

type Delivered = { event: string; reason?: string; sessionId: string };

/** A prompt, a fork at it, a prompt in the fork, a new session: in the Pi at `cli`. */
async function forkAndNew(cli: string) {
  const workspace = makeWorkspace();
  const starts = join(makeWorkspace(), "session-starts.jsonl");
  const pi = startPiRpc({
    workspace,
    pi: cli,
    session: true,
    pack: makeWorkspace(PACK),
    extensions: [SESSION_STARTS],
    script: [{ text: "Hello." }, { text: "Hello from the fork." }, { text: "Hello again." }],
    env: { [SESSION_STARTS_FILE]: starts },
  });
  await pi.prompt("Hello");
  await pi.settled();
  const forkable = (await pi.request({ type: "get_fork_messages" })).data as {
    messages: { entryId: string }[];
  };
  await pi.request({ type: "fork", entryId: forkable.messages[0]?.entryId });
  await pi.prompt("Hello from the fork");
  await pi.settled();
  await pi.request({ type: "new_session" });
  await pi.prompt("Hello again");
  await pi.settled();
  const notifications = pi.notifications();
  await pi.close();

  const folder = dataFolderOf(pi.agentDir, workspace);
  const log = await readEventLog(
    join(folder, "events.jsonl"),
    agentSealer(pi.agentDir, "events", workspace),
    "strict",
  );
  if (!log.ok) throw new Error(JSON.stringify(log.diagnostics));
  const delivered = existsSync(starts)
    ? readFileSync(starts, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Delivered)
    : [];
  const progress = JSON.parse(readFileSync(join(folder, "progress.json"), "utf8")) as {
    completed: Record<string, unknown>;
    active?: unknown;
  };
  return { events: log.events, delivered, progress, notifications };
}

/** How many times each session id appears, in order of first appearance. */
const countsBySession = (items: readonly { sessionId?: string }[]) => {
  const counts = new Map<string, number>();
  for (const { sessionId = "" } of items) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  return [...counts.values()];
};

describe("sessions replaced over RPC", () => {
  it("in Pi 1.5.2, which delivers session_start twice for a fork and a new session: each session once in the log, one sequence, both quests completed once", async () => {
    const run = await forkAndNew(PI_PREVIOUS);
    // What Pi 1.5.2 delivered: the startup once; the fork's and the new session's twice each.
    const starts = run.delivered.filter((line) => line.event === "session_start");
    expect(countsBySession(starts)).toEqual([1, 2, 2]);
    expect(starts.map((line) => line.reason)).toEqual(["startup", "fork", "fork", "new", "new"]);
    expect(countsBySession(run.delivered.filter((line) => line.event === "resources_discover"))).toEqual([
      1, 2, 2,
    ]);

    // What pi-quests recorded: each session started once, the seq numbers one sequence.
    const recordedStarts = run.events.filter((event) => event.name === "session_start");
    expect(recordedStarts.map((event) => event.sessionId)).toEqual([
      ...new Set(starts.map((s) => s.sessionId)),
    ]);
    expect(run.events.map((event) => event.seq)).toEqual(run.events.map((_event, index) => index));
    expect(
      run.events.filter((event) => event.name === "quest_completed").map((event) => event.payload),
    ).toEqual([{ quest: "fork" }, { quest: "new-session" }]);
    expect(Object.keys(run.progress.completed).sort()).toEqual(["fork", "new-session"]);
    expect(run.progress.active).toBeUndefined();
    expect(run.notifications.filter((text) => text.startsWith("Quest complete"))).toHaveLength(2);
  }, 90_000);

  it("in the newest Pi, which delivers each once: the same log and progress", async () => {
    const run = await forkAndNew(PI);
    const starts = run.delivered.filter((line) => line.event === "session_start");
    expect(countsBySession(starts)).toEqual([1, 1, 1]);
    expect(run.events.filter((event) => event.name === "session_start")).toHaveLength(3);
    expect(run.events.map((event) => event.seq)).toEqual(run.events.map((_event, index) => index));
    expect(Object.keys(run.progress.completed).sort()).toEqual(["fork", "new-session"]);
  }, 90_000);
});
