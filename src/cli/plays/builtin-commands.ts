/**
 * Pi's own slash commands in a play. Over RPC, a prompt runs extension commands (`/quest`) and
 * prompt templates, but Pi's built-in commands are terminal-UI code: `/name x` would reach the
 * model as text. So a play's `command` step that types a built-in is sent as the RPC command that
 * does the same (`/name x` is `set_session_name`), and one that RPC has no equivalent for is
 * refused with a reason: the play file says what the learner types, the runner how to do it.
 * The terminal-only commands a play needs (`/tree`, `/reload`, `/trust`, `/resume`) go to the
 * play controls (control-commands.ts), which call the same Pi functions as the terminal UI.
 */
import type { PlayControl } from "../../core/play-controls.ts";
import { readControlCommand } from "./control-commands.ts";

/** What a `command` step is sent as. */
export type CommandRoute =
  /** A prompt: an extension command or a prompt template. */
  | { kind: "prompt" }
  /** One RPC command, or two when the first asks Pi something the second needs (`/fork`). */
  | { kind: "rpc"; command: Record<string, unknown> }
  | { kind: "fork" }
  /** A play control: the play-only extension does it (`/pi-quests-play ACTION JSON`). */
  | { kind: "control"; control: PlayControl }
  | { kind: "refused"; reason: string };

/** Pi 1.6's built-in commands (dist/core/slash-commands.js). */
const BUILT_INS = new Set([
  "settings",
  "model",
  "tree",
  "thinking",
  "scoped-models",
  "export",
  "import",
  "share",
  "bug",
  "copy",
  "name",
  "session",
  "changelog",
  "hotkeys",
  "fork",
  "clone",
  "trust",
  "login",
  "logout",
  "new",
  "compact",
  "resume",
  "reload",
  "quit",
]);

export function routeCommand(text: string): CommandRoute {
  const [word = "", ...words] = text.trim().slice(1).split(/\s+/);
  const rest = words.join(" ");
  if (!BUILT_INS.has(word)) return { kind: "prompt" };
  // The words as typed (quotes and spaces kept): /tree "TEXT" needs them.
  const control = readControlCommand(
    word,
    text
      .trim()
      .slice(1 + word.length)
      .trim(),
  );
  if (control) return control.ok ? { kind: "control", control: control.control } : refuse(word, control.why);
  switch (word) {
    case "name":
      return rest
        ? { kind: "rpc", command: { type: "set_session_name", name: rest } }
        : refuse(word, "it needs a name: /name NAME");
    case "model": {
      const slash = rest.indexOf("/");
      return slash > 0
        ? {
            kind: "rpc",
            command: { type: "set_model", provider: rest.slice(0, slash), modelId: rest.slice(slash + 1) },
          }
        : refuse(
            word,
            "over RPC it needs the model as provider/id, e.g. /model pi-quests-play/scripted-thinking",
          );
    }
    case "thinking":
      return rest
        ? { kind: "rpc", command: { type: "set_thinking_level", level: rest } }
        : refuse(word, "it needs a level: /thinking high");
    case "compact":
      return { kind: "rpc", command: { type: "compact", ...(rest ? { customInstructions: rest } : {}) } };
    case "new":
      return { kind: "rpc", command: { type: "new_session" } };
    case "clone":
      return { kind: "rpc", command: { type: "clone" } };
    case "fork":
      return { kind: "fork" };
    case "export":
      return rest.endsWith(".html") || rest === ""
        ? { kind: "rpc", command: { type: "export_html", ...(rest ? { outputPath: rest } : {}) } }
        : refuse(word, "over RPC Pi exports HTML only (/export FILE.html)");
    default:
      return refuse(
        word,
        "Pi runs it only in its terminal UI; a play cannot type it over RPC (prove it under tmux)",
      );
  }
}

function refuse(word: string, why: string): CommandRoute {
  return { kind: "refused", reason: `/${word}: ${why}` };
}
