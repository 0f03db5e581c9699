/**
 * The `/quest` subcommands, one entry each: its name, its help line, what completes its argument
 * on Tab, how the words after its name are read, and what it does. The parser, the help and the
 * completion (quest-command.ts) all read this table: a new subcommand is one more entry.
 */
import type { Check } from "../verifier/checks/registry.ts";
import type { Quest } from "../verifier/quest.ts";
import type { QuestResult } from "../verifier/results.ts";
import type { Activation } from "./quest-activation.ts";
import type { QuestEvaluation } from "./quest-evaluation.ts";
import { type QuestSummary, questListText, standingText } from "./quest-list.ts";
import { debriefOf, goalOf, message, type QuestMessage } from "./quest-message.ts";
import type { QuestSessionState } from "./quest-session-state.ts";
import type { QuestUi } from "./quest-ui.ts";
import { skippedWorkNote } from "./quest-way-forward.ts";

export type { QuestSummary } from "./quest-list.ts";
export type Completion = { value: string; label: string; description?: string };

/** What a subcommand's words after its name ask for (`/quest start ID` gives `{ questId }`). */
export type SubcommandArguments = Readonly<Record<string, string | undefined>>;

/** A pack on Tab after `/quest pack `: its id, title and where it comes from. */
export type PackChoice = { id: string; title: string; source: string; active: boolean };

/** What `/quest packs` and `/quest pack ID` do, wired where the quest session is opened (quest-packs.ts). */
export type PackCommands = {
  /** `/quest packs`: every pack offered, and why the others are not. */
  list(): Promise<string>;
  /** Makes the pack active (asking first for one not used before); what is left to tell the learner. */
  switchTo(id: string): Promise<string>;
};

/** What a subcommand can see and do. */
export type QuestCommandContext = {
  /** The packs; absent where the session was opened without them (tests of one pack). */
  packs?: PackCommands;
  /** The active pack's name, when it is not the built-in pack: `/quest list` says it. */
  packName?: string;
  session: QuestSessionState;
  ui: Pick<QuestUi, "say" | "confirm">;
  evaluation: Pick<QuestEvaluation, "manualCheck" | "idle" | "restart">;
  activate(quest: Quest, announce?: boolean): Promise<Activation>;
  /** Marks the quest skipped and, when it was the active one, starts the next (quest-activation.ts). */
  skip(quest: Quest): Promise<QuestMessage>;
  /** What `/quest status` adds about altered records and blocked tool calls (empty: nothing). */
  integrityText(): string;
  /** What `/quest status` says about how the agent's bash is kept from the records (empty: nothing). */
  protectionText(): string;
  /** What `/quest status` says about code Pi wrote that runs inside Pi (agent-code.ts); "" when none. */
  agentCodeText(): string;
  /**
   * The engine's answers, given by the controller: this table is read when Pi starts (for Tab),
   * before the engine and its schema library are loaded.
   */
  confirmationPrompt(check: Check): string | undefined;
  formatResult(result: QuestResult, title: string): string;
  /** `/quest status` for the learner: each check and its reason in words (quest-status.ts). */
  learnerStatus(quest: Quest, result: QuestResult | undefined, acted: boolean): string;
  /** What `/quest check` says once it has checked (quest-status.ts). */
  checkSummary(quest: Quest, result: QuestResult, acted: boolean): string;
  /** `/quest solution`: the reference play's steps in words (quest-solution.ts). */
  solution(quest: Quest): Promise<QuestMessage>;
  /** The play a `pi-quests play --solution` Pi follows, in words; undefined outside such a Pi. */
  playedSolution(): Promise<QuestMessage> | undefined;
  /** `/quest check all`: every completed quest checked again, progress unchanged (quest-recheck.ts). */
  recheckCompleted(): Promise<string>;
  render(): void;
};

export type QuestSubcommand<Name extends string = string> = {
  readonly name: Name;
  /** Its line in `/quest help` and its description on Tab. */
  readonly help: string;
  /** Completions for the word after the name, each value that word; absent when it takes none. */
  complete?(typed: string, quests: readonly QuestSummary[], packs: readonly PackChoice[]): Completion[];
  parse(rest: readonly string[]): SubcommandArguments;
  run(context: QuestCommandContext, rest: readonly string[]): Promise<void> | void;
};

type SubcommandDefinition<Name extends string, Args extends SubcommandArguments> = {
  name: Name;
  help: string;
  complete?(typed: string, quests: readonly QuestSummary[], packs: readonly PackChoice[]): Completion[];
  parse(rest: readonly string[]): Args;
  run(context: QuestCommandContext, args: Args): Promise<void> | void;
};

/** An entry of the table: its own argument type stays inside, so entries of every kind fit one list. */
function subcommand<const Name extends string, Args extends SubcommandArguments>(
  definition: SubcommandDefinition<Name, Args>,
): QuestSubcommand<Name> {
  const { name, help, complete, parse } = definition;
  return {
    name,
    help,
    ...(complete ? { complete } : {}),
    parse,
    run: (context, rest) => definition.run(context, parse(rest)),
  };
}

type NoArguments = Readonly<Record<string, never>>;
const noArguments = (): NoArguments => ({});

const noActiveQuest = ({ notice }: QuestSessionState) =>
  notice ? `No active quest: ${notice}.` : "No active quest. See /quest list, then /quest start ID.";

const list = subcommand({
  name: "list",
  help: "all quests by chapter, where you stand, and the minutes left",
  parse: noArguments,
  run({ session, ui, packName }) {
    const list = questListText(session);
    ui.say(packName ? `Pack: ${packName} (/quest packs lists the others)\n${list}` : list);
  },
});

/** A quest on Tab: its title and minutes, after where it stands unless it is simply available. */
function completion(quest: QuestSummary): Completion {
  const standing = quest.standing === "available" ? [] : [standingText(quest)];
  const minutes = quest.minutes !== undefined ? [`${quest.minutes} min`] : [];
  return {
    value: quest.id,
    label: quest.id,
    description: [...standing, quest.title, ...minutes].join(" · "),
  };
}

const startsWith = (typed: string) => (quest: QuestSummary) => quest.id.startsWith(typed);

/** The ids `/quest start` lists when it is not told which. */
const questIds = (session: QuestSessionState) => session.pack.map((quest) => quest.id).join(", ");

const start = subcommand({
  name: "start",
  help: "start a quest: /quest start ID",
  // What can be started first; locked quests last, saying what they need.
  complete: (typed, quests) => {
    const matching = quests.filter(startsWith(typed));
    return [
      ...matching.filter((quest) => quest.standing !== "locked"),
      ...matching.filter((quest) => quest.standing === "locked"),
    ].map(completion);
  },
  parse: ([questId]) => ({ questId }),
  async run({ session, ui, evaluation, activate }, { questId }) {
    const ids = questIds(session);
    if (!questId) return ui.say(`Which quest? /quest start ID, one of: ${ids}`);
    const quest = session.byId(questId);
    if (!quest) return ui.say(`No quest "${questId}". The quests are: ${ids}`);
    const missing = session.missingRequirements(quest);
    if (missing.length > 0) {
      return ui.say(`"${quest.title}" needs ${missing.join(", ")} first (/quest start ${missing[0]}).`);
    }
    if (session.active?.quest.id === quest.id) {
      ui.say(`"${quest.title}" is already the active quest; checking it now.`);
      evaluation.manualCheck();
      return evaluation.idle();
    }
    const started = await activate(quest, false);
    if (!started.ok) return ui.say(started.message);
    ui.say(
      message(
        { title: `Quest started: ${quest.title}` },
        "",
        goalOf(quest),
        ...skippedWorkNote(session, quest),
      ),
    );
    return evaluation.idle();
  },
});

/** Asks each confirm check of the quest not yet answered yes; an answer is saved at once. */
async function askConfirmations(
  { session, ui, confirmationPrompt }: QuestCommandContext,
  quest: Quest,
): Promise<void> {
  const confirmed = session.confirmedFor(quest.id);
  for (const check of quest.checks) {
    const prompt = confirmationPrompt(check);
    if (prompt === undefined || confirmed(check.id) === true) continue;
    const answer = await ui.confirm(quest.title, prompt);
    if (answer === undefined) continue;
    session.recordConfirmation(quest.id, check.id, answer);
    await session.save();
  }
}

/** The word after `/quest check` that re-checks every completed quest. */
const ALL = "all";

const check = subcommand({
  name: "check",
  help: `check the active quest now (${ALL}: re-check every completed quest)`,
  complete: (typed) =>
    ALL.startsWith(typed) ? [{ value: ALL, label: ALL, description: "re-check every completed quest" }] : [],
  parse: ([word]) => ({ all: word === ALL ? "yes" : undefined }),
  async run(context, { all }) {
    const { session, ui, evaluation } = context;
    // An evaluation in flight may be completing the quest and starting the next: it settles first.
    await evaluation.idle();
    if (all !== undefined) return ui.say(await context.recheckCompleted());
    if (!session.active) return ui.say(noActiveQuest(session));
    const { quest } = session.active;
    await askConfirmations(context, quest);
    evaluation.manualCheck();
    await evaluation.idle();
    const result = session.lastResultOf(quest.id);
    const active = session.active;
    if (active?.quest.id === quest.id && result)
      ui.say(context.checkSummary(quest, result, session.learnerActed(active.record)));
  },
});

const hint = subcommand({
  name: "hint",
  help: "the next hint for the active quest",
  parse: noArguments,
  async run({ session, ui }) {
    if (!session.active) return ui.say(noActiveQuest(session));
    const { quest, record } = session.active;
    if (quest.hints.length === 0)
      return ui.say(message(`"${quest.title}" has no hints. Its goal:`, goalOf(quest)));
    const index = Math.min(record.hintsShown, quest.hints.length - 1);
    const last = index === quest.hints.length - 1 ? " (the last one)" : "";
    ui.say(`Hint ${index + 1}/${quest.hints.length}${last}: ${quest.hints[index]}`);
    session.recordHintShown(record, quest.hints.length);
    await session.save();
  },
});

/** The flag that asks `/quest status` for the checker's own report (ids, evidence, output). */
const DETAILS_FLAG = "--details";

const status = subcommand({
  name: "status",
  help: `why each check is not done yet (${DETAILS_FLAG}: the evidence)`,
  parse: ([flag]) => ({ details: flag === DETAILS_FLAG ? "yes" : undefined }),
  run(
    { session, ui, integrityText, protectionText, agentCodeText, formatResult, learnerStatus },
    { details },
  ) {
    const after = [integrityText().trimEnd(), agentCodeText(), protectionText()].flatMap((text) =>
      text ? ["", text] : [],
    );
    if (!session.active) return ui.say([noActiveQuest(session), ...after].join("\n"));
    const { quest, record } = session.active;
    const result = session.lastResultOf(quest.id);
    const report =
      details === undefined
        ? learnerStatus(quest, result, session.learnerActed(record))
        : result
          ? formatResult(result, quest.title)
          : `${quest.title}: not checked yet`;
    ui.say(message(report.trimEnd(), "", "Goal:", goalOf(quest), ...after));
  },
});

const reset = subcommand({
  name: "reset",
  help: "start over (asks first; your files are kept)",
  parse: noArguments,
  async run({ session, ui, evaluation, activate, render }) {
    const ok = await ui.confirm(
      "Reset quest progress?",
      "Every quest in this folder starts over. Your files are kept.",
      { defaultAnswer: false },
    );
    if (ok !== true) {
      return ui.say(ok === undefined ? "Reset needs Pi's interactive UI to confirm." : "Reset cancelled.");
    }
    // The running evaluation is cancelled: its result belongs to the progress being dropped.
    await evaluation.restart();
    session.startOver();
    ui.say("Quest progress reset.");
    const next = session.nextAvailable();
    const started = next ? await activate(next) : { ok: true as const };
    if (!started.ok) ui.say(started.message);
    await session.save();
    render();
    await evaluation.idle();
  },
});

const skip = subcommand({
  name: "skip",
  help: "skip the active quest (or ID); not done, but what builds on it opens, and the next one starts",
  complete: (typed, quests) =>
    [
      ...quests.filter((quest) => quest.standing === "active"),
      ...quests.filter((quest) => quest.standing === "available" || quest.standing === "locked"),
    ]
      .filter(startsWith(typed))
      .map(completion),
  parse: ([questId]) => ({ questId }),
  async run({ session, ui, evaluation, skip: skipQuest }, { questId }) {
    const quest = questId === undefined ? session.active?.quest : session.byId(questId);
    if (questId !== undefined && !quest)
      return ui.say(`No quest "${questId}". The quests are: ${questIds(session)}`);
    if (!quest) return ui.say("No active quest to skip. /quest skip ID skips another one (see /quest list).");
    if (session.isDone(quest.id))
      return ui.say(`"${quest.title}" is done already: there is nothing to skip.`);
    if (session.isSkipped(quest.id)) {
      return ui.say(`"${quest.title}" is skipped already (/quest start ${quest.id} takes it up again).`);
    }
    // A check of the quest being skipped is stopped: its result would complete a skipped quest.
    if (session.active?.quest.id === quest.id) await evaluation.restart();
    ui.say(await skipQuest(quest));
    return evaluation.idle();
  },
});

/** The done quest completed last (the later in the pack of two done at once), if any. */
function lastDone(session: QuestSessionState): Quest | undefined {
  let last: { quest: Quest; at: string } | undefined;
  for (const quest of session.pack) {
    const at = session.progress.completed[quest.id]?.at;
    if (at !== undefined && (last === undefined || at >= last.at)) last = { quest, at };
  }
  return last?.quest;
}

const debrief = subcommand({
  name: "debrief",
  help: "what a done quest was about: /quest debrief [ID], the last one done by default",
  complete: (typed, quests) =>
    quests
      .filter((quest) => quest.standing === "done" && quest.debrief)
      .filter(startsWith(typed))
      .map(completion),
  parse: ([questId]) => ({ questId }),
  run({ session, ui }, { questId }) {
    const quest = questId === undefined ? lastDone(session) : session.byId(questId);
    if (questId !== undefined && !quest)
      return ui.say(`No quest "${questId}". The quests are: ${questIds(session)}`);
    if (!quest) return ui.say("No quest is done yet: a quest's debrief comes when you complete it.");
    if (!session.isDone(quest.id)) {
      return ui.say(`"${quest.title}" is not done yet: its debrief comes when you complete it.`);
    }
    const parts = debriefOf(quest);
    if (parts.length === 0) return ui.say(`"${quest.title}" has no debrief.`);
    return ui.say(message({ title: `Debrief: ${quest.title}` }, ...parts));
  },
});

const NO_PACKS = "Only one quest pack is played in this session.";

const packs = subcommand({
  name: "packs",
  help: "the quest packs: id, title, source, quests done, the active one",
  parse: noArguments,
  async run({ ui, packs: commands }) {
    ui.say(commands ? await commands.list() : NO_PACKS);
  },
});

const pack = subcommand({
  name: "pack",
  help: "play another pack: /quest pack ID (your progress in each is kept)",
  complete: (typed, _quests, choices) =>
    choices
      .filter((choice) => choice.id.startsWith(typed))
      .map((choice) => ({
        value: choice.id,
        label: choice.id,
        description: [choice.title, choice.source, ...(choice.active ? ["active"] : [])].join(" · "),
      })),
  parse: ([packId]) => ({ packId }),
  async run({ ui, packs: commands }, { packId }) {
    if (!commands) return ui.say(NO_PACKS);
    if (!packId) return ui.say(`Which pack? /quest pack ID.\n${await commands.list()}`);
    const said = await commands.switchTo(packId);
    if (said) ui.say(said);
  },
});

const solution = subcommand({
  name: "solution",
  help: "how the reference solution did a quest: /quest solution [ID], once it is done or skipped",
  complete: (typed, quests) =>
    quests
      .filter((quest) => quest.standing === "done" || quest.standing === "skipped")
      .filter(startsWith(typed))
      .map(completion),
  parse: ([questId]) => ({ questId }),
  async run({ session, ui, solution: solutionOf, playedSolution }, { questId }) {
    const played = questId === undefined ? playedSolution() : undefined;
    if (played) return ui.say(await played);
    const quest =
      questId === undefined ? (session.active?.quest ?? lastDone(session)) : session.byId(questId);
    if (questId !== undefined && !quest)
      return ui.say(`No quest "${questId}". The quests are: ${questIds(session)}`);
    if (!quest) return ui.say("No quest is done yet: a quest's solution opens once you complete or skip it.");
    if (!session.isDone(quest.id) && !session.isSkipped(quest.id)) {
      return ui.say(
        `The solution of "${quest.title}" opens once you complete it (or skip it: /quest skip). Until then: /quest hint.`,
      );
    }
    return ui.say(await solutionOf(quest));
  },
});

/** In the order `/quest help` and Tab list them. */
export const QUEST_SUBCOMMANDS = [
  list,
  start,
  check,
  hint,
  status,
  skip,
  debrief,
  solution,
  reset,
  packs,
  pack,
] as const;
