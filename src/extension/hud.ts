/**
 * What the HUD shows, as data: the lines of the widget above the editor, each with a tone the TUI
 * colors from the theme (RPC gets the same lines as plain text), and the footer status. Pure.
 */
import type { CheckStatus } from "../verifier/results.ts";

export type HudTone = "title" | "pass" | "fail" | "pending" | "unchecked" | "muted" | "notice";
export type HudLine = { tone: HudTone; text: string };

export type HudCheck = { describe: string; status: CheckStatus | "unchecked"; reason?: string };

export type HudState =
  | {
      kind: "active";
      title: string;
      /** 1-based position of the quest in the pack, and the pack's size. */
      position: number;
      total: number;
      checks: HudCheck[];
      evaluating: boolean;
      /** A review running now, with its model: a model reads the learner's files meanwhile. */
      reviewing?: string;
      /** A warning that pi-quests ignored altered records or blocked the agent (integrity-alerts.ts). */
      integrity?: string;
      /** That code Pi wrote runs inside Pi (agent-code.ts). */
      agentCode?: string;
      /** The active pack's name, when it is not the built-in pack. */
      pack?: string;
    }
  /**
   * No quest active: everything done, the next one waits on something (`notice`), or none is left
   * to start by itself (skipped quests, and what requires them; `PI_QUESTS_START=off`).
   */
  | {
      kind: "idle";
      done: number;
      total: number;
      skipped?: number;
      notice?: string;
      integrity?: string;
      agentCode?: string;
      pack?: string;
    }
  /** The pack could not be loaded, or progress could not be read. */
  | { kind: "broken"; notice: string };

export const MARK: Record<HudCheck["status"], string> = {
  pass: "✓",
  fail: "✗",
  pending: "…",
  unchecked: "○",
};
const REASON_CHARS = 72;

export function hudLines(state: HudState): HudLine[] {
  const lines = questLines(state);
  if (state.kind === "broken") return lines;
  return [
    ...lines,
    ...(state.integrity ? [{ tone: "fail" as const, text: state.integrity }] : []),
    ...(state.agentCode ? [{ tone: "notice" as const, text: state.agentCode }] : []),
  ];
}

function questLines(state: HudState): HudLine[] {
  switch (state.kind) {
    case "active": {
      const checking = activity(state);
      return [
        {
          tone: "title",
          text: `${packPrefix(state)}Quest ${state.position}/${state.total}: ${state.title}${checking}`,
        },
        ...state.checks.map(checkLine),
        { tone: "muted", text: "  /quest hint · /quest status · /quest list" },
      ];
    }
    case "idle": {
      const count = `${packPrefix(state)}Quests ${state.done}/${state.total}`;
      if (state.notice) return [{ tone: "notice", text: `${count} · ${state.notice}` }];
      if (state.done === state.total) return [{ tone: "pass", text: `${count} done. Well played!` }];
      const skipped = state.skipped ? ` · ${state.skipped} skipped` : "";
      return [{ tone: "notice", text: `${count} done${skipped} · /quest list` }];
    }
    case "broken":
      return [{ tone: "fail", text: `pi-quests: ${state.notice}` }];
    default:
      return unreachable(state);
  }
}

export function hudStatus(state: HudState): string {
  switch (state.kind) {
    case "active":
      return `quest ${state.position}/${state.total}${activity(state)}`;
    case "idle":
      return `quests ${state.done}/${state.total}${state.done === state.total ? " ✓" : ""}`;
    case "broken":
      return "quests: error";
    default:
      return unreachable(state);
  }
}

/** The pack's name before the quest count, for a pack other than the built-in one. */
const packPrefix = (state: { pack?: string }): string => (state.pack ? `${state.pack} · ` : "");

/** What the active quest's title says is going on: a review (it costs a model run), a check, or nothing. */
function activity(state: { evaluating: boolean; reviewing?: string }): string {
  if (state.reviewing !== undefined) return ` · reviewing with ${state.reviewing}…`;
  return state.evaluating ? " · checking…" : "";
}

function checkLine(check: HudCheck): HudLine {
  const reason = check.reason && check.status !== "pass" ? `: ${shorten(check.reason)}` : "";
  return { tone: check.status, text: `  ${MARK[check.status]} ${check.describe}${reason}` };
}

function shorten(text: string): string {
  const [firstLine = ""] = text.split("\n");
  return firstLine.length > REASON_CHARS ? `${firstLine.slice(0, REASON_CHARS - 1)}…` : firstLine;
}

function unreachable(value: never): never {
  throw new Error(`unexpected HUD state ${JSON.stringify(value)}`);
}
