/**
 * The bash sandbox in the real `pi` over RPC (offline, scripted model): the model's own bash tool
 * calls look for pi-quests' seal key everywhere and read it by a path the guard does not see. In
 * the sandbox they find an empty folder, and pi-quests goes on working; a `pi -p` run from that
 * bash works and records nothing; `/quest status` says which protection applies. With another
 * extension's `bash` loaded first, the same commands read the key (the sandbox is not in Pi's
 * hands then), and pi-quests says so.
 *
 * The attack was green on main's code (the key was printed): see the commit that added this file.
 */
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { playControlPrompt } from "../../src/core/play-controls.ts";
import { probeBashSandbox } from "../../src/probes/os/bash-sandbox.ts";
import {
  closeAllPis,
  dataFolderOf,
  PI,
  type PiRpc,
  PLAIN_BASH,
  PLAY_CONTROLS,
  type RpcLine,
  scriptedPiArgs,
  startPiRpc,
} from "../support/pi-rpc.ts";
import { CHECK_SCRIPT, FIX_PACK_FILES, NOTES_PACK_FILES } from "../support/records.ts";
import { makeRepo } from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(async () => {
  await closeAllPis();
  removeWorkspaces();
});

const supported = await probeBashSandbox({ dataDir: join(makeWorkspace(), "quests") });

/**
 * Find the key anywhere under the home folder (the agent dir, in these runs), list the data dir
 * and read the key, with every name built at run time: main's guard and today's let it through.
 */
const LOOK_FOR_THE_KEY = [
  'n=seal; q=que; d="$(printenv PI_CODING_AGENT_DIR)"',
  'echo "found: $(find "$HOME" -name "$n.k*" 2>/dev/null)"',
  `echo "listed: $(ls -A "$d/\${q}sts" 2>&1)"`,
  `echo "key: $(cat "$d/\${q}sts/$n.key" 2>&1)"`,
].join("; ");

/** The text of each bash result the model got, from line `from` on. */
function bashOutputs(pi: PiRpc, from = 0): string[] {
  return pi.lines
    .slice(from)
    .filter((line: RpcLine) => line.type === "tool_execution_end" && line.toolName === "bash")
    .map((line) => {
      const result = line.result as { content?: Array<{ type: string; text?: string }> };
      return (result.content ?? []).map((part) => part.text ?? "").join("");
    });
}

const keyOf = (agentDir: string) => readFileSync(join(agentDir, "quests", "seal.key"), "utf8").trim();

describe.runIf(supported.protection === "namespaces")("the model's bash, in the sandbox", () => {
  it("looks for the seal key everywhere and reads it past the guard: it finds nothing, and pi-quests goes on (the fix turns the HUD green)", async () => {
    const workspace = makeRepo({ "answer.txt": "broken\n", "check.sh": CHECK_SCRIPT });
    const learner = startPiRpc({
      workspace,
      pack: makeWorkspace(FIX_PACK_FILES),
      script: [
        { tools: [{ name: "bash", arguments: { command: LOOK_FOR_THE_KEY } }] },
        { tools: [{ name: "bash", arguments: { command: "echo fixed > answer.txt" } }] },
        { text: "Fixed." },
      ],
    });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Make the check pass.");
    await learner.settled();
    const [looked] = bashOutputs(learner, from);
    const key = keyOf(learner.agentDir);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(looked).not.toContain(key);
    expect(looked).toBe(
      `found: \nlisted: \nkey: cat: ${join(learner.agentDir, "quests", "seal.key")}: No such file or directory\n`,
    );
    expect(learner.notifications(from).join("\n")).toContain("Quest complete: Fix the answer");
    expect(learner.notifications(from).join("\n")).not.toMatch(/blocked/);
    expect(await learner.close()).toBe(0);
  });

  it("runs a `pi -p` from the model's bash: it answers and exits 0, and its pi-quests records nothing and says nothing", async () => {
    const workspace = makeWorkspace();
    const agentDir = realpathSync(makeWorkspace());
    // The inner Pi's own script, in the agent dir (the part of it the sandbox leaves in sight).
    const inner = join(agentDir, "inner-script.json");
    writeFileSync(inner, JSON.stringify([{ text: "Hi from the inner Pi." }]));
    const printMode = [process.execPath, PI, ...scriptedPiArgs(), "-p", "Say hi"]
      .map((part) => `'${part}'`)
      .join(" ");
    const learner = startPiRpc({
      workspace,
      agentDir,
      pack: makeWorkspace(NOTES_PACK_FILES),
      script: [
        {
          tools: [
            {
              name: "bash",
              arguments: { command: `PI_QUESTS_SCRIPT='${inner}' ${printMode} 2>&1; echo "exit=$?"` },
            },
          ],
        },
        { tools: [{ name: "write", arguments: { path: "notes.txt", content: "notes\n" } }] },
        { text: "Done." },
      ],
    });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Run Pi once in print mode, then write notes.txt.");
    await learner.settled();
    expect(bashOutputs(learner, from)).toEqual(["Hi from the inner Pi.\nexit=0\n"]);
    // The Pi outside still records and checks: the quest completes.
    expect(learner.notifications(from).join("\n")).toContain("Quest complete: Write notes");
    expect(await learner.close()).toBe(0);
    const log = readFileSync(join(dataFolderOf(agentDir, workspace), "events.jsonl"), "utf8");
    const starts = log
      .trim()
      .split("\n")
      .filter((line) => JSON.parse(line).name === "session_start");
    expect(starts).toHaveLength(1);
  });

  it("leaves the learner's own ! commands out of it: the same command reads the key there", async () => {
    const learner = startPiRpc({
      workspace: makeWorkspace(),
      pack: makeWorkspace(NOTES_PACK_FILES),
      script: [{ tools: [{ name: "bash", arguments: { command: LOOK_FOR_THE_KEY } }] }, { text: "Done." }],
    });
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt("Look around.");
    await learner.settled();
    const key = keyOf(learner.agentDir);
    expect(bashOutputs(learner, from)[0]).not.toContain(key);
    const own = await learner.request({ type: "bash", command: LOOK_FOR_THE_KEY });
    expect((own.data as { output: string }).output).toContain(`key: ${key}`);
    expect(await learner.close()).toBe(0);
  });

  it("stays the agent's bash after a new session and a /reload (pi-quests takes it over again each time)", async () => {
    const learner = startPiRpc({
      workspace: makeWorkspace(),
      session: true,
      // /reload as the terminal UI does it: the play controls call the same ctx.reload().
      extensions: [PLAY_CONTROLS],
      script: [
        { tools: [{ name: "bash", arguments: { command: LOOK_FOR_THE_KEY } }] },
        { text: "Looked." },
        { tools: [{ name: "bash", arguments: { command: LOOK_FOR_THE_KEY } }] },
        { text: "Looked again." },
      ],
    });
    await learner.settled();
    await learner.request({ type: "new_session" });
    await learner.prompt("Look around.");
    await learner.settled();
    const from = learner.lines.length;
    await learner.prompt(playControlPrompt({ action: "reload", args: {} }));
    await learner.waitFor((line) => JSON.stringify(line).includes("pi-quests-play: done"), from);
    await learner.settled();
    await learner.prompt("Look again.");
    await learner.settled();
    const key = keyOf(learner.agentDir);
    const looked = bashOutputs(learner);
    expect(looked).toHaveLength(2);
    for (const output of looked) {
      expect(output).not.toContain(key);
      expect(output).toMatch(/^found: \nlisted: \nkey: cat: .*: No such file or directory\n$/);
    }
    expect(await learner.close()).toBe(0);
  });

  it("/quest status says the agent's bash runs where the records look like an empty, read-only folder", async () => {
    const learner = startPiRpc({ workspace: makeWorkspace(), pack: makeWorkspace(NOTES_PACK_FILES) });
    await learner.settled();
    // Nothing to warn about at start.
    expect(learner.notifications().join("\n")).not.toContain("Agent's bash");
    const from = learner.lines.length;
    await learner.prompt("/quest status");
    expect(learner.notifications(from).join("\n")).toContain(
      `Agent's bash: its commands run where pi-quests' records (${join(learner.agentDir, "quests")}) look like an empty, read-only folder; they cannot read or change them.`,
    );
    expect(await learner.close()).toBe(0);
  });
});

describe("another extension's bash, loaded before pi-quests", () => {
  it("is the one Pi runs: its commands read the key, and pi-quests says so at start and in /quest status", async () => {
    const learner = startPiRpc({
      workspace: makeWorkspace(),
      pack: makeWorkspace(NOTES_PACK_FILES),
      extensionsBefore: [PLAIN_BASH],
      script: [{ tools: [{ name: "bash", arguments: { command: LOOK_FOR_THE_KEY } }] }, { text: "Done." }],
    });
    await learner.settled();
    const told = `pi-quests: Agent's bash: the bash tool in use comes from ${PLAIN_BASH}, not pi-quests, so its commands can see pi-quests' records. pi-quests blocks the commands that name them, and ignores any record changed anyway.`;
    expect(learner.notifications().filter((text) => text.includes("Agent's bash"))).toEqual([told]);
    let from = learner.lines.length;
    await learner.prompt("Look around.");
    await learner.settled();
    expect(bashOutputs(learner, from)[0]).toContain(`key: ${keyOf(learner.agentDir)}`);
    from = learner.lines.length;
    await learner.prompt("/quest status");
    expect(learner.notifications(from).join("\n")).toContain(told.replace("pi-quests: ", ""));
    expect(await learner.close()).toBe(0);
  });
});
