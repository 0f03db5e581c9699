/**
 * `changedPaths` from the real `pi` over RPC (offline, the scripted model): what a tool call or a
 * `!` command changed, recorded only while the active quest has a check that reads it
 * (fixtures/packs/changed-paths: two quests that read it, then one that does not).
 *
 * One session, in order: a bash call that times out after writing a file; two bash calls of one
 * message, which Pi runs at the same time; a bash call the learner aborts; an extension's own
 * tool that writes a file; hello.txt created with a bash heredoc (not `write`), which completes
 * the first quest; a `!` command that writes notes.txt, which completes the second; then, in the
 * third quest, a tool call and a `!` command that record no list. Then the session file Pi saved,
 * read as `check --session` reads it: the same events without the lists, which only a live
 * session can know.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSessionFile } from "../../src/cli/session-file.ts";
import { readEventLog } from "../../src/events/log-reader.ts";
import type { VerifierEvent } from "../../src/events/schema.ts";
import { REPO } from "../support/cli.ts";
import { asFileGivesIt } from "../support/live-only.ts";
import { closeAllPis, dataFolderOf, type PiRpc, type ScriptedTurn, startPiRpc } from "../support/pi-rpc.ts";
import { agentSealer } from "../support/seal.ts";
import { makeWorkspace } from "../support/workspace.ts";

const PACK = join(REPO, "fixtures/packs/changed-paths");
const NOTE_TOOL = join(REPO, "fixtures/pi/note-tool.ts");
const STEP_MS = 15_000;

const HEREDOC = "cat > hello.txt <<'EOF'\nhello\nEOF";

const SCRIPT: ScriptedTurn[] = [
  // "Try it slowly": the bash tool kills the command after a second; partial.txt is written by then.
  { tools: [{ name: "bash", arguments: { command: "echo partial > partial.txt; sleep 30", timeout: 1 } }] },
  { text: "It timed out." },
  // "Two at once": one message, two calls; the second writes b.txt a second after both started.
  {
    tools: [
      { name: "bash", arguments: { command: "echo a > a.txt" } },
      { name: "bash", arguments: { command: "sleep 1; echo b > b.txt" } },
    ],
  },
  { text: "Both done." },
  // "Stop me": a call the learner aborts (RPC abort) after it wrote begun.txt; the run ends there.
  { tools: [{ name: "bash", arguments: { command: "echo begun > begun.txt; sleep 30" } }] },
  // "Save a note": an extension's own tool (fixtures/pi/note-tool.ts) writes note.md.
  { tools: [{ name: "save_note", arguments: { text: "remember" } }] },
  { text: "Saved." },
  // "Create hello.txt": with bash, not the write tool.
  { tools: [{ name: "bash", arguments: { command: HEREDOC } }] },
  { text: "Created hello.txt." },
  // In the quest that does not read changedPaths.
  { tools: [{ name: "bash", arguments: { command: "echo other > other.txt" } }] },
  { text: "Done." },
];

/** Whether a notification starting with `text` comes (from index `from` on) within STEP_MS. */
const notified = (pi: PiRpc, text: string, from: number) =>
  pi
    .waitFor(
      (line) => line.type === "extension_ui_request" && String(line.message).startsWith(text),
      from,
      STEP_MS,
    )
    .then(
      () => true,
      () => false,
    );

type Run = {
  workspace: string;
  sessionFile: string;
  events: VerifierEvent[];
  completed: { created: boolean; byCommand: boolean; noLook: boolean };
  completedBeforeHello: boolean;
};

async function runScenario(): Promise<Run> {
  const workspace = makeWorkspace({ "README.md": "Practice.\n" });
  const pi = startPiRpc({ workspace, pack: PACK, script: SCRIPT, session: true, extensions: [NOTE_TOOL] });
  await pi.settled();
  const { sessionFile } = (await pi.request({ type: "get_state" })).data as { sessionFile: string };
  await pi.prompt("Try it slowly");
  await pi.prompt("Two at once");
  const stopping = pi.lines.length;
  expect((await pi.request({ type: "prompt", message: "Stop me" })).data).toEqual({ disposition: "started" });
  await pi.waitFor((line) => line.type === "tool_execution_start", stopping, STEP_MS);
  // Aborted once the command has written its file (the look after it must see that much).
  for (let waited = 0; !existsSync(join(workspace, "begun.txt")) && waited < STEP_MS; waited += 50)
    await setTimeout(50);
  await pi.request({ type: "abort" });
  await pi.waitFor((line) => line.type === "agent_settled", stopping, STEP_MS);
  await pi.settled();
  await pi.prompt("Save a note");
  await pi.settled();
  const completedBeforeHello = pi.notifications().some((text) => text.startsWith("Quest complete:"));

  let from = pi.lines.length;
  await pi.prompt("Create hello.txt");
  const created = await notified(pi, "Quest complete: Have Pi create hello.txt ✓", from);
  await pi.settled();

  from = pi.lines.length;
  await pi.request({ type: "bash", command: "echo note > notes.txt" });
  const byCommand = await notified(pi, "Quest complete: Write notes with a ! command ✓", from);
  await pi.settled();

  from = pi.lines.length;
  await pi.prompt("Anything");
  await pi.request({ type: "bash", command: "echo x > x.txt" });
  const noLook = await notified(pi, "Quest complete: A quest that does not ask what changed ✓", from);
  await pi.settled();
  const agentDir = pi.agentDir;
  expect(await pi.close()).toBe(0);

  const read = await readEventLog(
    join(dataFolderOf(agentDir, workspace), "events.jsonl"),
    agentSealer(agentDir, "events", workspace),
    "strict",
  );
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  expect(read.warnings).toEqual([]);
  return {
    workspace,
    sessionFile,
    events: read.events,
    completed: { created, byCommand, noLook },
    completedBeforeHello,
  };
}

let run: Run;
beforeAll(async () => {
  run = await runScenario();
}, 120_000);
afterAll(closeAllPis);

const payloads = (name: string) =>
  run.events.filter((event) => event.name === name).map((event) => event.payload);

describe("changedPaths from a real pi", () => {
  it("a quest whose check reads changedPaths.* completes when Pi creates the file with a bash heredoc", () => {
    expect(run.completedBeforeHello).toBe(false);
    expect(run.completed.created).toBe(true);
    expect(readFileSync(join(run.workspace, "hello.txt"), "utf8")).toBe("hello\n");
    expect(
      payloads("tool_result").find((result) => (result.input as { command?: string }).command === HEREDOC),
    ).toMatchObject({ toolName: "bash", isError: false, changedPaths: ["hello.txt"] });
  });

  it("each tool_result has its own call's list: a timed-out call's, two calls at once, an aborted call's, an extension tool's", () => {
    const [timedOut, first, second, aborted] = payloads("tool_result");
    // Killed after a second: what it changed until then.
    expect(timedOut).toMatchObject({ isError: true, changedPaths: ["partial.txt"] });
    // Both looked before either ran: the slower one also lists what the other wrote meanwhile.
    expect(first).toMatchObject({ input: { command: "echo a > a.txt" }, changedPaths: ["a.txt"] });
    expect(second).toMatchObject({
      input: { command: "sleep 1; echo b > b.txt" },
      changedPaths: ["a.txt", "b.txt"],
    });
    // Stopped by the learner: what it changed until then, too.
    expect(aborted).toMatchObject({ isError: true, changedPaths: ["begun.txt"] });
    // An extension's own tool counts as much as Pi's.
    expect(payloads("tool_result").find((result) => result.toolName === "save_note")).toMatchObject({
      isError: false,
      changedPaths: ["note.md"],
    });
    expect(payloads("agent_end")).toContainEqual(expect.objectContaining({ aborted: true }));
  });

  it("a ! command's change is recorded on its user_bash event, and completes the quest that reads it", () => {
    expect(run.completed.byCommand).toBe(true);
    expect(payloads("user_bash")[0]).toEqual({
      command: "echo note > notes.txt",
      exitCode: 0,
      excludeFromContext: false,
      changedPaths: ["notes.txt"],
    });
  });

  it("a quest without such a check records no changedPaths, for a tool call or a ! command", () => {
    expect(run.completed.noLook).toBe(true);
    const other = payloads("tool_result").find((result) =>
      (result.input as { command?: string }).command?.includes("other.txt"),
    );
    expect(other).toEqual({
      toolName: "bash",
      toolCallId: expect.any(String),
      isError: false,
      input: { command: "echo other > other.txt" },
    });
    expect(payloads("user_bash")[1]).toEqual({
      command: "echo x > x.txt",
      exitCode: 0,
      excludeFromContext: false,
    });
  });

  it("is absent from the session file's view of the same session: the file gives the rest, event for event", () => {
    const parsed = parseSessionFile(readFileSync(run.sessionFile, "utf8"), run.sessionFile);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const fromFile = parsed.events.map(({ name, payload }) => ({ name, payload }));
    expect(fromFile.some((event) => "changedPaths" in event.payload)).toBe(false);
    expect(fromFile).toEqual(asFileGivesIt(run.events));
  });
});
