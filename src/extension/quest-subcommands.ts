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
import type { QuestSessionState } from "./quest-session-state.ts";
import type { QuestUi } from "./quest-ui.ts";

export type QuestSummary = { id: string; title: string };
export type Completion = { value: string; label: string; description?: string };

/** What a subcommand's words after its name ask for (`/quest start ID` gives `{ questId }`). */
export type SubcommandArguments = Readonly<Record<string, string | undefined>>;

/** What a subcommand can see and do. */
export type QuestCommandContext = {
  session: QuestSessionState;
  ui: Pick<QuestUi, "say" | "confirm">;
  evaluation: Pick<QuestEvaluation, "manualCheck" | "idle" | "restart">;
  activate(quest: Quest, announce?: boolean): Promise<Activation>;
  /** What `/quest status` adds about altered records and blocked tool calls (empty: nothing). */
  integrityText(): string;
  /**
   * The engine's answers, given by the controller: this table is read when Pi starts (for Tab),
   * before the engine and its schema library are loaded.
   */
  confirmationPrompt(check: Check): string | undefined;
  formatResult(result: QuestResult, title: string): string;
  render(): void;
};

export type QuestSubcommand<Name extends string = string> = {
  readonly name: Name;
  /** Its line in `/quest help` and its description on Tab. */
  readonly help: string;
  /** Completions for the word after the name, each value that word; absent when it takes none. */
  complete?(typed: string, quests: readonly QuestSummary[]): Completion[];
  parse(rest: readonly string[]): SubcommandArguments;
  run(context: QuestCommandContext, rest: readonly string[]): Promise<void> | void;
};

type SubcommandDefinition<Name extends string, Args extends SubcommandArguments> = {
  name: Name;
  help: string;
  complete?(typed: string, quests: readonly QuestSummary[]): Completion[];
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

/** Where the learner stands with a quest, as `/quest list` says it. */
function standing(session: QuestSessionState, quest: Quest): string {
  if (session.isDone(quest.id)) return "✓ done";
  if (session.active?.quest.id === quest.id) return "▶ active";
  const missing = session.missingRequirements(quest);
  return missing.length > 0 ? `locked: needs ${missing.join(", ")}` : "○ available";
}

const list = subcommand({
  name: "list",
  help: "all quests and where you stand",
  parse: noArguments,
  run({ session, ui }) {
    const lines = session.pack.map(
      (quest, index) => `${index + 1}. ${quest.id}: ${quest.title} (${standing(session, quest)})`,
    );
    ui.say(["Quests:", ...lines, "Start one with /quest start ID."].join("\n"));
  },
});

const start = subcommand({
  name: "start",
  help: "start a quest: /quest start ID",
  complete: (typed, quests) =>
    quests
      .filter((quest) => quest.id.startsWith(typed))
      .map((quest) => ({ value: quest.id, label: quest.id, description: quest.title })),
  parse: ([questId]) => ({ questId }),
  async run({ session, ui, evaluation, activate }, { questId }) {
    const ids = session.pack.map((quest) => quest.id).join(", ");
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
    ui.say(`Quest started: ${quest.title}\n\n${quest.goal.trim()}`);
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

const check = subcommand({
  name: "check",
  help: "check the active quest now",
  parse: noArguments,
  async run(context) {
    const { session, ui, evaluation } = context;
    if (!session.active) return ui.say(noActiveQuest(session));
    const { quest } = session.active;
    await askConfirmations(context, quest);
    evaluation.manualCheck();
    await evaluation.idle();
    const result = session.lastResultOf(quest.id);
    if (session.active?.quest.id === quest.id && result) {
      const { passed, failed, pending } = result.counts;
      ui.say(`${quest.title}: ${passed} passed, ${failed} failed, ${pending} pending.`);
    }
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
      return ui.say(`"${quest.title}" has no hints. Its goal:\n${quest.goal.trim()}`);
    const index = Math.min(record.hintsShown, quest.hints.length - 1);
    const last = index === quest.hints.length - 1 ? " (the last one)" : "";
    ui.say(`Hint ${index + 1}/${quest.hints.length}${last}: ${quest.hints[index]}`);
    session.recordHintShown(record, quest.hints.length);
    await session.save();
  },
});

const status = subcommand({
  name: "status",
  help: "the last result, with evidence",
  parse: noArguments,
  run({ session, ui, integrityText, formatResult }) {
    const integrity = integrityText();
    if (!session.active) {
      return ui.say(integrity ? `${noActiveQuest(session)}\n\n${integrity}` : noActiveQuest(session));
    }
    const { quest } = session.active;
    const result = session.lastResultOf(quest.id);
    const report = result ? formatResult(result, quest.title) : `${quest.title}: not checked yet\n`;
    ui.say(`${report}\nGoal: ${quest.goal.trim()}${integrity ? `\n\n${integrity}` : ""}`);
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

/** In the order `/quest help` and Tab list them. */
export const QUEST_SUBCOMMANDS = [list, start, check, hint, status, reset] as const;
