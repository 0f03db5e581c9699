import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../src/core/diagnostics.ts";
import { createEventLog } from "../../src/events/log-writer.ts";
import { startQuestController } from "../../src/extension/controller.ts";
import { practiceFilesNote, questRunsInTaskVerifier } from "../../src/extension/quest-activation.ts";
import { openProgressStore } from "../../src/runtime/progress.ts";
import { prepareSandbox } from "../../src/runtime/sandbox.ts";
import { loadQuestPack } from "../../src/verifier/loader.ts";
import { type Quest, QuestFileSchema } from "../../src/verifier/quest.ts";
import { fakeQuestUi } from "../support/fake-quest-ui.ts";
import { testSealer } from "../support/seal.ts";
import { git, makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

function quest(checks: unknown[]): Quest {
  const file = QuestFileSchema.parse({ version: 1, id: "q", title: "Q", goal: "g", checks });
  return {
    ...file,
    checks: file.checks.map((check, index) => ({ ...check, id: check.id ?? `check-${index + 1}` })),
    source: "/pack/q.yaml",
  };
}

describe("which quests pin node_modules at activation", () => {
  it("a quest with a command check in the isolated task verifier", () => {
    expect(
      questRunsInTaskVerifier(quest([{ type: "command", run: "npm test", isolation: "worktree" }])),
    ).toBe(true);
  });

  it("not a quest whose command checks run in the workspace, nor one without command checks", () => {
    expect(questRunsInTaskVerifier(quest([{ type: "command", run: "npm test", isolation: "none" }]))).toBe(
      false,
    );
    expect(questRunsInTaskVerifier(quest([{ type: "event", match: { event: "input" } }]))).toBe(false);
  });
});

const PACK_DIR = join(import.meta.dirname, "../../fixtures/packs/sandbox-upgrade");

/** The sandbox-upgrade pack's controller in an empty folder: its first quest starts by itself. */
async function startUpgradePack() {
  const setUps: string[] = [];
  const pack = await loadQuestPack(PACK_DIR);
  if (!pack.ok) throw new Error(pack.diagnostics.map(formatDiagnostic).join("\n"));
  const home = makeWorkspace({ ".gitconfig": "[user]\n\tname = Ada\n\temail = ada@example.com\n" });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const workspace = makeWorkspace();
  const data = makeWorkspace();
  const ui = fakeQuestUi();
  const sealer = testSealer();
  const progress = openProgressStore(join(data, "progress.json"), sealer);
  const controller = await startQuestController({
    pack: pack.value,
    progress,
    events: createEventLog(join(data, "events.jsonl"), [], 0, { sealer: testSealer() }),
    ui,
    createEvaluator: async (quest) => async () => ({
      quest: quest.id,
      status: "pending",
      counts: { passed: 0, failed: 0, pending: 0 },
      checks: [],
    }),
    prepareSandbox: (quest, recorded) => {
      setUps.push(quest.id);
      return prepareSandbox({
        template: quest.sandboxDir,
        workspace,
        questId: quest.id,
        env,
        ...(recorded ? { recorded } : {}),
      });
    },
    headCommit: async () => git(workspace, "rev-parse", "HEAD").trim(),
    sessionId: () => "s-1",
    debounceMs: 5,
  });
  return { controller, workspace, progress, ui, setUps };
}

describe("a sandbox quest in an empty folder", () => {
  it("tells the learner the practice files were set up, which and where: nothing appears silently", async () => {
    const { controller, workspace, ui } = await startUpgradePack();
    try {
      await controller.idle();
      const files = readdirSync(workspace)
        .filter((entry) => entry !== ".git")
        .sort();
      const told = ui.notes().find((note) => note.message.includes("Practice files set up"));
      expect(told?.message).toContain(
        `Practice files set up for this quest in ${workspace}, the folder Pi runs in: ${files.join(", ")}, in a new git repository (one commit). Nothing outside this folder was touched.`,
      );
    } finally {
      await controller.dispose();
    }
  });

  it("names four of the files, then how many more, and points to the folder's README", () => {
    const entries = ["README.md", "notes", "package.json", "src", "test", "tools"];
    expect(practiceFilesNote({ into: "/home/ada/pi-quests-practice", entries })).toBe(
      "Practice files set up for this quest in /home/ada/pi-quests-practice, the folder Pi runs in: README.md, notes, package.json, src and 2 more, in a new git repository (one commit). Nothing outside this folder was touched. README.md there says what the files are for.",
    );
  });
});

describe("a sandbox quest in a folder set up from another template", () => {
  it("adds its files on top, in pi-quests' commit, announces it, and takes that commit as the oracle", async () => {
    const { controller, workspace, progress, ui } = await startUpgradePack();
    try {
      await controller.idle();
      // The old quest started by itself in the empty folder; the learner then made a file of theirs.
      const loaded = async () => {
        const read = await progress.load();
        if (read.kind !== "loaded") throw new Error(read.kind);
        return read.progress;
      };
      expect((await loaded()).sandbox?.template).toBe(join(PACK_DIR, "sandboxes/old"));
      writeFileSync(join(workspace, "hello.txt"), "hello\n");
      git(workspace, "add", "hello.txt");
      git(workspace, "commit", "-q", "-m", "mine");

      await controller.command("start new");
      await controller.idle();
      const head = git(workspace, "rev-parse", "HEAD").trim();
      expect(git(workspace, "log", "-1", "--format=%s").trim()).toBe("Quest sandbox: new (on top of old)");
      expect(readFileSync(join(workspace, "notes/meeting.md"), "utf8")).toContain("Ship the calculator");
      expect(readFileSync(join(workspace, "hello.txt"), "utf8")).toBe("hello\n");
      const now = await loaded();
      expect(now.sandbox).toMatchObject({ template: join(PACK_DIR, "sandboxes/new"), baseline: head });
      expect(now.active).toMatchObject({ questId: "new", baseline: head, oracleBaseline: head });
      const announced = ui.notes().find((note) => note.message.includes("on top of old"));
      expect(announced?.message).toContain(
        `This folder had the old files; the new files were added on top, in a commit of pi-quests' own ("Quest sandbox: new (on top of old)"). Nothing of yours changed.`,
      );
    } finally {
      await controller.dispose();
    }
  });
});

describe("two activations at once", () => {
  it("a quest started twice while its sandbox is set up is set up once, and both are told it started", async () => {
    const { controller, workspace, setUps } = await startUpgradePack();
    try {
      await controller.idle();
      // A completion's next quest and a /quest start typed meanwhile activate the same quest.
      const said = await Promise.all([controller.command("start new"), controller.command("start new")]);
      await controller.idle();
      expect(setUps).toEqual(["old", "new"]);
      expect(said.map(String).join("\n")).not.toMatch(/could not|already exists/);
      expect(readFileSync(join(workspace, "notes/meeting.md"), "utf8")).toContain("Ship the calculator");
    } finally {
      await controller.dispose();
    }
  });
});
