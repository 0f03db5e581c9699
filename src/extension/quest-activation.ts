/**
 * Quest transitions that reach outside the session's memory: activating a quest (its sandbox set
 * up, HEAD and node_modules pinned, `quest_activated` recorded), completing one (recorded, its
 * debrief shown, and the next available quest activated) and skipping one (the next available
 * quest activated), each shown on the HUD and told to the learner.
 */

import { basename } from "node:path";
import type { EventLog } from "../events/log-writer.ts";
import { QUEST_ACTIVATED_EVENT, QUEST_COMPLETED_EVENT, type QuestActivation } from "../events/names.ts";
import type { CarryOverStore } from "../runtime/carry-over.ts";
import type { SandboxOutcome, SandboxRecord } from "../runtime/sandbox.ts";
import type { DependencyPin } from "../task-verifier/dependencies.ts";
import { runsInTaskVerifier } from "../verifier/checks/registry.ts";
import type { Quest } from "../verifier/quest.ts";
import { emptyFolderAdvice } from "./carried-progress.ts";
import { debriefOf, goalOf, type MessagePart, message, type QuestMessage } from "./quest-message.ts";
import type { ActiveQuestState, QuestSessionState } from "./quest-session-state.ts";
import type { QuestUi } from "./quest-ui.ts";
import { chapterCompleteNote, skippedWorkNote } from "./quest-way-forward.ts";

export type Activation = { ok: true } | { ok: false; message: string };

/**
 * Which quest a session starts by itself (`PI_QUESTS_START`): unset, the first available one at
 * open and the next available one after a completion; `"off"`, none (a quest starts only by
 * `/quest start`, and a pinned one still resumes); `{ quest }`, that quest at open (as
 * `/quest start ID` would start it), then as unset.
 */
export type QuestStart = undefined | "off" | { quest: string };

/** `PI_QUESTS_START` read: empty or unset is today's behaviour, `off` none, anything else a quest id. */
export function questStartOf(value: string | undefined): QuestStart {
  const trimmed = value?.trim() ?? "";
  if (trimmed === "") return undefined;
  return trimmed === "off" ? "off" : { quest: trimmed };
}

export type QuestActivationOptions = {
  session: QuestSessionState;
  events: EventLog;
  ui: Pick<QuestUi, "notify">;
  sessionId(): string | undefined;
  /**
   * Sets up the workspace from a sandbox quest's template; `recorded` is the sandbox it was set
   * up from before, on top of which another template's files may be added.
   */
  prepareSandbox(quest: Quest & { sandboxDir: string }, recorded?: SandboxRecord): Promise<SandboxOutcome>;
  /** The workspace's HEAD commit (a full object id), if it is a git repository with one. */
  headCommit(): Promise<string | undefined>;
  /** Pins the workspace's node_modules, for a quest whose command checks run in the task verifier. */
  pinDependencies?(): Promise<DependencyPin>;
  render(): void;
  /** Schedules the first evaluation of a quest just activated. */
  evaluateActivated(): void;
  /** Whether a completion activates the next available quest (default true; `PI_QUESTS_START=off`). */
  startNext?: boolean;
  /** Where what was done here is left for an empty folder, when a quest needs one (carry-over.ts). */
  carryOver?: Pick<CarryOverStore, "leave">;
  /** How another folder reaches this pack (`/quest pack ID`), when a new folder opens on another. */
  packCommand?: string;
};

export type QuestActivator = {
  /**
   * Makes `quest` the active one: sandbox, baseline and definition pinned now. `announce` tells
   * the learner its goal (a quest that starts by itself; `/quest start` says it its own way).
   */
  activate(quest: Quest, announce?: boolean): Promise<Activation>;
  /** Records the quest as done, then activates the next available one (unless `startNext` is false). */
  complete(done: ActiveQuestState): Promise<void>;
  /**
   * Marks `quest` skipped; when it was the active one, activates the next available one (unless
   * `startNext` is false). Resolves to what to tell the learner. The caller stops a running
   * evaluation of the skipped quest first.
   */
  skip(quest: Quest): Promise<QuestMessage>;
};

/** Whether the quest has a command check that runs in the isolated task verifier. */
export function questRunsInTaskVerifier(quest: Quest): boolean {
  return quest.checks.some(runsInTaskVerifier);
}

/** What the learner is told when a sandbox's files were added on top of another's. */
function upgradeNote(template: string, upgraded: { from: string; commit: string }): string {
  return `This folder had the ${upgraded.from} files; the ${basename(template)} files were added on top, in a commit of pi-quests' own ("${upgraded.commit}"). Nothing of yours changed.`;
}

/** How many of the practice files the note about them names, before "and N more". */
const FILES_NAMED = 4;

/**
 * What the learner is told when a quest's practice files were copied into their folder: nothing
 * appears silently. The folder's own README (when the template has one) says what they are for.
 */
export function practiceFilesNote(copied: { into: string; entries: readonly string[] }): string {
  const { into, entries } = copied;
  const named = entries.slice(0, FILES_NAMED).join(", ");
  const more = entries.length > FILES_NAMED ? ` and ${entries.length - FILES_NAMED} more` : "";
  const readme = entries.includes("README.md") ? " README.md there says what the files are for." : "";
  return `Practice files set up for this quest in ${into}, the folder Pi runs in: ${named}${more}, in a new git repository (one commit). Nothing outside this folder was touched.${readme}`;
}

export function createQuestActivator(options: QuestActivationOptions): QuestActivator {
  const { session, events, ui } = options;

  const announcement = (quest: Quest): MessagePart[] => [
    { title: `Quest ${session.positionOf(quest)}/${session.pack.length}: ${quest.title}` },
    goalOf(quest),
    ...skippedWorkNote(session, quest),
    "(/quest hint if you are stuck)",
  ];

  /**
   * The sandbox a quest works in, set up unless the last one came from the same template (or
   * another template's files added on top of the last one: then `added` says so).
   */
  const setUpSandbox = async (
    quest: Quest,
    template: string,
  ): Promise<{ ok: true; added?: string } | { ok: false; message: string }> => {
    const recorded = session.progress.sandbox;
    if (recorded?.template === template) return { ok: true };
    const prepared = await options.prepareSandbox({ ...quest, sandboxDir: template }, recorded);
    if (prepared.ok) {
      session.recordSandbox(template, prepared.baseline);
      if (prepared.upgraded) return { ok: true, added: upgradeNote(template, prepared.upgraded) };
      return prepared.copied ? { ok: true, added: practiceFilesNote(prepared.copied) } : { ok: true };
    }
    // A quest that is active stays active; only with none is the next one's problem shown.
    if (!session.active) {
      session.waitWith(
        prepared.kind === "not_empty"
          ? `next: "${quest.title}" needs an empty folder (/quest start ${quest.id})`
          : `next: "${quest.title}" could not be set up (/quest start ${quest.id})`,
      );
      await session.save();
      options.render();
    }
    if (prepared.kind === "failed") return { ok: false, message: prepared.message };
    const { completed, skipped = {} } = session.progress;
    const carried = (await options.carryOver?.leave({ quest: quest.id, completed, skipped })) ?? false;
    return {
      ok: false,
      message: `${prepared.message} ${emptyFolderAdvice(quest, carried, options.packCommand)}`,
    };
  };

  /**
   * One activation at a time: a completion's next quest and a `/quest start` typed meanwhile
   * would otherwise both copy the sandbox into the folder (the second finds the first's files).
   * A quest that became active while this one waited is not activated again.
   */
  let activating: Promise<unknown> = Promise.resolve();
  const activate = (quest: Quest, announce = true): Promise<Activation> => {
    const turn = activating.then(() =>
      session.active?.quest.id === quest.id ? { ok: true as const } : activateNow(quest, announce),
    );
    activating = turn.catch(() => undefined);
    return turn;
  };

  const activateNow = async (quest: Quest, announce: boolean): Promise<Activation> => {
    const sandbox = quest.sandboxDir ? await setUpSandbox(quest, quest.sandboxDir) : { ok: true as const };
    if (!sandbox.ok) return sandbox;
    const baseline = await options.headCommit();
    // Tests come from the template's own commit, never from one made since (say, in an earlier
    // quest on the same sandbox); commits are still counted from HEAD now.
    const oracleBaseline = quest.sandboxDir ? session.progress.sandbox?.baseline : undefined;
    const dependencies = questRunsInTaskVerifier(quest) ? await options.pinDependencies?.() : undefined;
    const record = session.newActiveRecord(quest, { baseline, oracleBaseline, dependencies });
    const activation: QuestActivation = {
      quest: quest.id,
      baseline: baseline ?? null,
      ...(oracleBaseline ? { oracleBaseline } : {}),
    };
    events.record({ name: QUEST_ACTIVATED_EVENT, payload: activation }, options.sessionId());
    session.makeActive({ record, quest });
    await session.save();
    options.render();
    const added = "added" in sandbox && sandbox.added ? [sandbox.added] : [];
    if (announce) ui.notify(message(...announcement(quest), ...added), "info");
    else if (added.length > 0) ui.notify(message(...added), "info");
    options.evaluateActivated();
    return { ok: true };
  };

  /** What comes after a quest is done or skipped: the next one activated, or why none is. */
  const goOn = async (): Promise<{ parts: MessagePart[]; problem?: string; next?: Quest }> => {
    const next = session.nextAvailable();
    if (!next) {
      await session.save();
      const left = session.pack.filter((quest) => !session.isDone(quest.id)).length;
      return {
        parts: [
          left === 0
            ? "Every quest is done. Well played!"
            : "No other quest can be started now: /quest list shows where you stand.",
        ],
      };
    }
    if (options.startNext === false) {
      // Nothing starts by itself: the completed quest's last result stays the last one.
      await session.save();
      return { parts: [`Next: /quest start ${next.id}`], next };
    }
    const started = await activate(next, false);
    return started.ok
      ? { parts: ["", ...announcement(next)], next }
      : { parts: [], problem: started.message, next };
  };

  const complete = async (done: ActiveQuestState) => {
    session.markCompleted(done);
    events.record({ name: QUEST_COMPLETED_EVENT, payload: { quest: done.quest.id } }, options.sessionId());
    // One notification: Pi's TUI shows only the last of several sent back to back.
    // The debrief of the definition played (pinned), else the pack's.
    const debrief = debriefOf(done.quest.debrief ? done.quest : (session.byId(done.quest.id) ?? done.quest));
    const { parts, problem, next } = await goOn();
    const chapter = chapterCompleteNote(session, done.quest, next);
    // After a debrief, the chapter and what comes next start after a blank line.
    const after = [...(chapter.length > 0 ? ["", ...chapter] : []), ...parts];
    const gap = debrief.length > 0 && after.length > 0 && after[0] !== "" ? [""] : [];
    ui.notify(
      message({ title: `Quest complete: ${done.quest.title} ✓` }, ...debrief, ...gap, ...after),
      "info",
    );
    if (problem) ui.notify(problem, "warning");
  };

  const skip = async (quest: Quest): Promise<QuestMessage> => {
    const wasActive = session.active?.quest.id === quest.id;
    session.markSkipped(quest);
    const skipped = `Skipped: ${quest.title}. It is not done, but quests that build on it open now and say what they need from it; /quest start ${quest.id} takes it up again.`;
    if (!wasActive) {
      await session.save();
      return message(skipped);
    }
    options.render();
    const { parts, problem } = await goOn();
    return message(skipped, ...parts, ...(problem ? ["", problem] : []));
  };

  return { activate, complete, skip };
}
