/**
 * The play controls: what a play's runner asks the play-only extension
 * (src/extension/play-controls.ts) to do for the Pi commands that exist only in the terminal UI
 * (`/tree`, `/reload`, `/trust`, `/resume`). The runner sends the prompt
 * `/pi-quests-play ACTION JSON`; the extension does it with the same Pi function the terminal
 * UI's command calls and answers with one notification, `pi-quests-play: done` or
 * `pi-quests-play: failed: WHY`. Shared here because the runner (src/cli) and the extension
 * (src/extension) are sibling layers.
 */

/** The extension command's name, as typed after `/`. */
export const PLAY_CONTROL_COMMAND = "pi-quests-play";

/** What each notification of the command starts with. */
export const PLAY_CONTROL_PREFIX = `${PLAY_CONTROL_COMMAND}:`;
export const PLAY_CONTROL_DONE = `${PLAY_CONTROL_PREFIX} done`;
export const PLAY_CONTROL_FAILED = `${PLAY_CONTROL_PREFIX} failed: `;

/** A trust selector's choice: Trust, Do not trust, Trust (this session only). */
export type TrustDecision = "yes" | "no" | "session";

/** One action and its arguments. */
export type PlayControl =
  | {
      action: "tree";
      args: { target: string; summarize?: boolean; label?: string; instructions?: string };
    }
  | { action: "reload"; args: Record<string, never> }
  | { action: "trust"; args: { decision: TrustDecision } }
  | { action: "resume"; args: { name: string } };

export type PlayControlAction = PlayControl["action"];

/** The prompt that asks the extension for `control`. */
export function playControlPrompt(control: PlayControl): string {
  return `/${PLAY_CONTROL_COMMAND} ${control.action} ${JSON.stringify(control.args)}`;
}

/** What the command was asked, from its arguments (`ACTION JSON`); a reason when it cannot be read. */
export function parsePlayControl(
  text: string,
): { ok: true; control: PlayControl } | { ok: false; reason: string } {
  const trimmed = text.trim();
  const space = trimmed.indexOf(" ");
  const action = space < 0 ? trimmed : trimmed.slice(0, space);
  const json = space < 0 ? "{}" : trimmed.slice(space + 1);
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return { ok: false, reason: `the arguments of ${action || "the action"} are not JSON: ${json}` };
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return { ok: false, reason: `the arguments of ${action} are not a JSON object` };
  const given = args as Record<string, unknown>;
  switch (action) {
    case "tree":
      return treeControl(given);
    case "reload":
      return { ok: true, control: { action, args: {} } };
    case "trust":
      return given.decision === "yes" || given.decision === "no" || given.decision === "session"
        ? { ok: true, control: { action, args: { decision: given.decision } } }
        : { ok: false, reason: "trust needs decision: yes, no or session" };
    case "resume":
      return typeof given.name === "string" && given.name !== ""
        ? { ok: true, control: { action, args: { name: given.name } } }
        : { ok: false, reason: "resume needs the session's name" };
    default:
      return { ok: false, reason: `no action "${action}" (tree, reload, trust, resume)` };
  }
}

function treeControl(
  given: Record<string, unknown>,
): { ok: true; control: PlayControl } | { ok: false; reason: string } {
  if (typeof given.target !== "string" || given.target === "")
    return { ok: false, reason: "tree needs target: the text of the message to go back to" };
  if (given.summarize !== undefined && typeof given.summarize !== "boolean")
    return { ok: false, reason: "tree's summarize is true or false" };
  for (const key of ["label", "instructions"] as const)
    if (given[key] !== undefined && typeof given[key] !== "string")
      return { ok: false, reason: `tree's ${key} is a text` };
  return {
    ok: true,
    control: {
      action: "tree",
      args: {
        target: given.target,
        ...(given.summarize === true ? { summarize: true } : {}),
        ...(typeof given.label === "string" ? { label: given.label } : {}),
        ...(typeof given.instructions === "string" ? { instructions: given.instructions } : {}),
      },
    },
  };
}
