/**
 * A pack's plays as `pi-quests test` and `lint` read them: `solutions/<quest>/pass.yaml`,
 * `pass-<name>.yaml` and `fail-<name>.yaml`, each checked against the play schema, every problem
 * with file:line:col.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPlays } from "../../src/verifier/play-loader.ts";
import { makeWorkspace } from "../support/workspace.ts";

const QUESTS = ["first-prompt", "first-file"];

/** A pack folder holding only `solutions/`, with these files (paths under solutions/). */
function pack(files: Record<string, string>): string {
  const dir = makeWorkspace();
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, "solutions", path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
  }
  return dir;
}

const PASS = [
  "version: 1",
  "setup: echo ready > notes.txt",
  "steps:",
  "  - prompt: Create hello.txt",
  "    model:",
  "      - tool: write",
  '        args: { path: hello.txt, content: "hello\\n" }',
  "      - text: Done.",
  "  - bash: git add -A",
  "  - bash: git status",
  "    quiet: true",
  "  - command: /quest check",
  "  - confirm: { answer: true }",
  "  - shell: echo edit >> README.md",
  "",
].join("\n");

async function problems(files: Record<string, string>): Promise<string[]> {
  const dir = pack(files);
  const loaded = await loadPlays(dir, QUESTS);
  if (loaded.ok) throw new Error("expected problems");
  return loaded.diagnostics.map((d) => `${d.file.slice(dir.length + 1)}:${d.line}:${d.column}: ${d.message}`);
}

describe("loadPlays", () => {
  it("reads every step kind and the replies of a prompt", async () => {
    const loaded = await loadPlays(pack({ "first-file/pass.yaml": PASS }), QUESTS);
    expect(loaded.ok && loaded.value).toEqual([
      {
        version: 1,
        setup: "echo ready > notes.txt",
        steps: [
          {
            kind: "prompt",
            prompt: "Create hello.txt",
            wait: "settled",
            model: [{ tool: "write", args: { path: "hello.txt", content: "hello\n" } }, { text: "Done." }],
          },
          { kind: "bash", bash: "git add -A", quiet: false },
          { kind: "bash", bash: "git status", quiet: true },
          { kind: "command", command: "/quest check" },
          { kind: "confirm", answer: true },
          { kind: "shell", shell: "echo edit >> README.md" },
        ],
        quest: "first-file",
        name: "pass",
        expected: "complete",
        source: expect.stringMatching(/solutions\/first-file\/pass\.yaml$/),
      },
    ]);
  });

  it("gives the plays in pack order, each quest's pass play first", async () => {
    const steps = "version: 1\nsteps: []\n";
    const loaded = await loadPlays(
      pack({
        "first-file/fail-claim.yaml": steps,
        "first-file/pass.yaml": steps,
        "first-prompt/fail-silent.yaml": steps,
      }),
      QUESTS,
    );
    expect(loaded.ok && loaded.value.map((play) => [play.quest, play.name, play.expected])).toEqual([
      ["first-prompt", "fail-silent", "not complete"],
      ["first-file", "pass", "complete"],
      ["first-file", "fail-claim", "not complete"],
    ]);
  });

  it("reads pass-<name> plays as other honest ways: each must complete its quest, after the pass play", async () => {
    const steps = "version: 1\nsteps: []\n";
    const loaded = await loadPlays(
      pack({
        "first-file/fail-claim.yaml": steps,
        "first-file/pass-heredoc.yaml": steps,
        "first-file/pass-absolute-path.yaml": steps,
        "first-file/pass.yaml": steps,
      }),
      QUESTS,
    );
    expect(loaded.ok && loaded.value.map((play) => [play.name, play.expected])).toEqual([
      ["pass", "complete"],
      ["fail-claim", "not complete"],
      ["pass-absolute-path", "complete"],
      ["pass-heredoc", "complete"],
    ]);
  });

  it("a pack without a solutions folder has no plays", async () => {
    expect(await loadPlays(makeWorkspace(), QUESTS)).toEqual({ ok: true, value: [] });
  });

  it("refuses a folder for a quest the pack does not have, and a file that is not a play", async () => {
    expect(
      await problems({
        "frist-file/pass.yaml": "version: 1\nsteps: []\n",
        "first-file/notes.md": "x",
        "first-file/Pass.yaml": "version: 1\nsteps: []\n",
        "first-file/pass-.yaml": "version: 1\nsteps: []\n",
        "first-file/passed.yaml": "version: 1\nsteps: []\n",
      }),
    ).toEqual([
      "solutions/first-file/Pass.yaml:0:0: is not a play: a quest's plays are pass.yaml, pass-<name>.yaml and fail-<name>.yaml (a-z, 0-9 and - in the name)",
      "solutions/first-file/notes.md:0:0: is not a play: a quest's plays are pass.yaml, pass-<name>.yaml and fail-<name>.yaml (a-z, 0-9 and - in the name)",
      "solutions/first-file/pass-.yaml:0:0: is not a play: a quest's plays are pass.yaml, pass-<name>.yaml and fail-<name>.yaml (a-z, 0-9 and - in the name)",
      "solutions/first-file/passed.yaml:0:0: is not a play: a quest's plays are pass.yaml, pass-<name>.yaml and fail-<name>.yaml (a-z, 0-9 and - in the name)",
      "solutions/frist-file:0:0: names no quest of this pack; quests: first-prompt, first-file",
    ]);
  });

  it("says where a play breaks the schema, and how to fix it", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - prompt: Write it",
      "    model:",
      "      - tool: write",
      "      - text: Done.",
      "      - text: More.",
      "  - bash: ls",
      "    shell: ls",
      "  - command: quest check",
      "  - promt: typo",
      "  - confirm: { answer: yes please }",
      "",
    ].join("\n");
    expect(await problems({ "first-file/pass.yaml": play })).toEqual([
      "solutions/first-file/pass.yaml:5:9: steps[0].model[0]: a tool reply needs args ({} for none)",
      "solutions/first-file/pass.yaml:7:9: steps[0].model[2]: a text reply ends the model's run: the replies after it would never be used",
      "solutions/first-file/pass.yaml:8:5: steps[1]: a step is exactly one of prompt, steer, follow_up, abort, bash, command, confirm, shell (found bash and shell); make each its own step",
      "solutions/first-file/pass.yaml:10:14: steps[2].command: a command starts with /, e.g. /quest check",
      'solutions/first-file/pass.yaml:11:5: steps[3]: unknown field "promt" (did you mean prompt?)',
      'solutions/first-file/pass.yaml:12:24: steps[4].confirm.answer: must be boolean, not string "yes please"',
    ]);
  });

  it("needs version 1 and steps, and refuses an empty file", async () => {
    expect(await problems({ "first-file/pass.yaml": "setup: ls\n", "first-file/fail-x.yaml": "\n" })).toEqual(
      [
        "solutions/first-file/fail-x.yaml:0:0: is empty; a play needs version and steps",
        expect.stringMatching(/^solutions\/first-file\/pass\.yaml:1:1: version/),
        expect.stringMatching(/^solutions\/first-file\/pass\.yaml:1:1: steps/),
      ],
    );
  });

  it("reads a prompt left running, then a steer, a follow-up and an abort, each message with its replies", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - prompt: Run the tests",
      "    wait: started",
      "    model: [{ tool: bash, args: { command: sleep 1 } }]",
      "  - steer: Use npm",
      "    model: [{ text: Using npm. }]",
      "  - follow_up: Then commit",
      "  - abort: true",
      "",
    ].join("\n");
    const loaded = await loadPlays(pack({ "first-file/pass.yaml": play }), QUESTS);
    expect(loaded.ok && loaded.value[0]?.steps).toEqual([
      {
        kind: "prompt",
        prompt: "Run the tests",
        wait: "started",
        model: [{ tool: "bash", args: { command: "sleep 1" } }],
      },
      { kind: "steer", steer: "Use npm", model: [{ text: "Using npm." }] },
      { kind: "follow_up", follow_up: "Then commit", model: [] },
      { kind: "abort" },
    ]);
  });

  it("keeps wait with a prompt and replies with a message", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - bash: ls",
      "    wait: started",
      "  - abort: true",
      "    model: []",
      "",
    ].join("\n");
    expect(await problems({ "first-file/pass.yaml": play })).toEqual([
      "solutions/first-file/pass.yaml:4:11: steps[0].wait: wait goes with prompt",
      "solutions/first-file/pass.yaml:6:12: steps[1].model: model gives the replies to a message: it goes with prompt, steer or follow_up",
    ]);
  });

  it("reads a command's review: the replies of the reviewer session it starts", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - command: /quest check",
      "    review:",
      "      - tool: read",
      "        args: { path: NOTES.md }",
      "      - tool: submit_review",
      '        args: { verdict: pass, evidence: [{ path: NOTES.md, quote: "a - b" }] }',
      "",
    ].join("\n");
    const loaded = await loadPlays(pack({ "first-file/pass.yaml": play }), QUESTS);
    expect(loaded.ok && loaded.value[0]?.steps).toEqual([
      {
        kind: "command",
        command: "/quest check",
        review: [
          { tool: "read", args: { path: "NOTES.md" } },
          {
            tool: "submit_review",
            args: { verdict: "pass", evidence: [{ path: "NOTES.md", quote: "a - b" }] },
          },
        ],
      },
    ]);
  });

  it("keeps review with a command, and says where it is misplaced", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - prompt: Write NOTES.md",
      "    review: [{ text: pass }]",
      "  - command: /quest check",
      "    review: [{ text: early }, { tool: read, args: {} }]",
      "",
    ].join("\n");
    expect(await problems({ "first-file/pass.yaml": play })).toEqual([
      "solutions/first-file/pass.yaml:4:13: steps[0].review: review gives a reviewer's replies: it goes with the command that starts the review (/quest check)",
      "solutions/first-file/pass.yaml:6:31: steps[1].review[1]: a text reply ends the model's run: the replies after it would never be used",
    ]);
  });

  it("keeps quiet (!!) with bash, and says where it is misplaced", async () => {
    const play = [
      "version: 1",
      "steps:",
      "  - command: /quest check",
      "    quiet: true",
      "  - bash: ls",
      "    quiet: yes",
      "",
    ].join("\n");
    expect(await problems({ "first-file/pass.yaml": play })).toEqual([
      "solutions/first-file/pass.yaml:4:12: steps[0].quiet: quiet goes with bash (quiet: true is !!, the output kept from the model)",
      'solutions/first-file/pass.yaml:6:12: steps[1].quiet: must be boolean, not string "yes"',
    ]);
  });
});
