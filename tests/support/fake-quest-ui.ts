import type { HudState } from "../../src/extension/hud.ts";
import { plainText, type QuestMessage, type QuestText } from "../../src/extension/quest-message.ts";
import type { ConfirmOptions, NotifyLevel, QuestUi } from "../../src/extension/quest-ui.ts";

/** A notification or an answer: its plain text, and the message with its parts when it had them. */
export type UiCall =
  | { kind: "hud"; state: HudState }
  | { kind: "notify"; message: string; level: NotifyLevel; parts?: QuestMessage["parts"] }
  | { kind: "say"; text: string; parts?: QuestMessage["parts"] }
  | { kind: "confirm"; title: string; message: string; options?: ConfirmOptions };

export type FakeQuestUi = QuestUi & {
  /** Every call, in order. */
  readonly calls: UiCall[];
  huds(): HudState[];
  lastHud(): HudState | undefined;
  notes(): Array<{ message: string; level: NotifyLevel }>;
  said(): string[];
  lastSaid(): string | undefined;
  confirms(): Array<{ title: string; message: string; options?: ConfirmOptions }>;
  /** The parts of the last notification or answer that had them. */
  lastMessage(): QuestMessage["parts"] | undefined;
  /** Queues the answers the next `confirm` calls give; with none queued, `confirm` answers undefined. */
  answer(...answers: Array<boolean | undefined>): void;
  /** Resolves with the first call, made already or later, that `matches`. */
  waitFor(matches: (call: UiCall) => boolean): Promise<UiCall>;
};

/** A QuestUi that records what the controller shows and answers confirmations from a script. */
export function fakeQuestUi(options: { hasUI?: boolean } = {}): FakeQuestUi {
  const calls: UiCall[] = [];
  const answers: Array<boolean | undefined> = [];
  let waiters: Array<{ matches: (call: UiCall) => boolean; resolve: (call: UiCall) => void }> = [];
  const push = (call: UiCall) => {
    calls.push(call);
    const ready = waiters.filter((waiter) => waiter.matches(call));
    waiters = waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve(call);
  };
  const only = <K extends UiCall["kind"]>(kind: K) =>
    calls.filter((call): call is Extract<UiCall, { kind: K }> => call.kind === kind);
  return {
    hasUI: options.hasUI ?? true,
    calls,
    showHud: (state) => push({ kind: "hud", state: structuredClone(state) }),
    notify: (message, level) =>
      push({ kind: "notify", message: plainText(message), level, ...partsOf(message) }),
    say: (text) => push({ kind: "say", text: plainText(text), ...partsOf(text) }),
    async confirm(title, message, options) {
      push({ kind: "confirm", title, message, ...(options ? { options } : {}) });
      return answers.shift();
    },
    huds: () => only("hud").map((call) => call.state),
    lastHud: () => only("hud").at(-1)?.state,
    notes: () => only("notify").map(({ message, level }) => ({ message, level })),
    said: () => only("say").map((call) => call.text),
    lastSaid: () => only("say").at(-1)?.text,
    confirms: () =>
      only("confirm").map(({ title, message, options }) => ({
        title,
        message,
        ...(options ? { options } : {}),
      })),
    lastMessage: () =>
      calls.findLast((call): call is Extract<UiCall, { parts?: unknown }> => "parts" in call && !!call.parts)
        ?.parts,
    answer: (...given) => {
      answers.push(...given);
    },
    waitFor(matches) {
      const found = calls.find(matches);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ matches, resolve }));
    },
  };
}

const partsOf = (text: QuestText) => (typeof text === "string" ? {} : { parts: text.parts });
