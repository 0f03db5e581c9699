/**
 * Code Pi wrote, running inside Pi: at each session start (Pi's start, `/reload`, `/new`,
 * `/resume`, `/fork`) the code files Pi loads from its extension folders (extension-folders.ts)
 * that Pi's own tools created or changed. One process cannot stop code it loads (docs/security.md,
 * 14), so the learner is told: one line on the HUD and a paragraph in `/quest status`, naming
 * the files. A learner who had Pi write an extension on purpose (the extension quests) is told
 * too: it runs with their rights either way. Nothing here blocks a quest.
 *
 * What counts as written by Pi's tools, for a file there now:
 * - the workspace's recorded events (every session of it, sealed): a `write` or `edit` that did
 *   not fail, by its `input.path`; any call's `extensionFilesChanged` (the looks around each
 *   call, extension-code-looks.ts) and `changedPaths` (while a quest read them);
 * - what the looks saw in this Pi process (process-memory.ts), in any workspace.
 * A file a process the agent left running wrote, outside any call, is not among them; nor is a
 * file written in another workspace's session of an earlier Pi process (docs/security.md, 14).
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { CHANGED_PATHS_FIELD, EXTENSION_FILES_FIELD } from "../events/names.ts";
import type { VerifierEvent } from "../events/schema.ts";
import { realPathOf } from "./extension-code-looks.ts";

/** Pi's tools whose `input.path` is the file they write. */
const WRITING_TOOLS = new Set(["write", "edit"]);

export type AgentCodeOptions = {
  /** The code files Pi loads now (real paths): extension-code-looks.ts's `codeFilesIn`. */
  loaded: Iterable<string>;
  /** The workspace's recorded events. */
  events: readonly VerifierEvent[];
  /** What the looks saw in this process (real paths). */
  remembered: ReadonlySet<string>;
  /** The folder Pi runs in (its real path): the events' relative paths are relative to it. */
  workspace: string;
  home: string;
};

/** The loaded code files Pi's tools wrote or changed, sorted. */
export function codeWrittenByPi({ loaded, events, remembered, workspace, home }: AgentCodeOptions): string[] {
  const written = new Set(remembered);
  for (const path of writtenPaths(events, workspace, home)) written.add(realPathOf(path) ?? path);
  return [...loaded].filter((path) => written.has(path)).sort();
}

/** Every path a recorded tool call says it wrote, absolute (not yet through links). */
function writtenPaths(events: readonly VerifierEvent[], workspace: string, home: string): string[] {
  return events.flatMap((event) => {
    if (event.name !== "tool_result") return [];
    const { toolName, isError, input } = event.payload as {
      toolName?: unknown;
      isError?: unknown;
      input?: { path?: unknown };
    };
    const wrote =
      WRITING_TOOLS.has(String(toolName)) && isError !== true && typeof input?.path === "string"
        ? [pathFrom(input.path, workspace, home)]
        : [];
    const looked = stringsOf(event.payload[EXTENSION_FILES_FIELD]);
    const changed = stringsOf(event.payload[CHANGED_PATHS_FIELD]).map((path) => join(workspace, path));
    return [...wrote, ...looked, ...changed];
  });
}

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** A tool's path as Pi's tools resolve it: `~` is the home folder, else relative to the workspace. */
function pathFrom(path: string, workspace: string, home: string): string {
  if (path === "~" || path.startsWith("~/")) return join(home, path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

/** What the learner is shown about code Pi wrote: the HUD's line and `/quest status`'s paragraph. */
export type AgentCodeNotice = { hudLine: string; statusText: string };

/** How many files the HUD names before it says "and N more". */
const NAMED_ON_HUD = 2;

/** The notice for `files` (the loaded code Pi wrote); undefined when there is none. */
export function agentCodeNotice(
  files: readonly string[],
  where: { workspace: string; home: string },
): AgentCodeNotice | undefined {
  if (files.length === 0) return undefined;
  const shown = files.map((file) => shortPath(file, where));
  const more = shown.length - NAMED_ON_HUD;
  const named = shown.slice(0, NAMED_ON_HUD).join(", ") + (more > 0 ? ` and ${more} more` : "");
  return {
    hudLine: `⚠ Code Pi wrote is running inside Pi: ${named} — /quest status`,
    statusText: [
      "Code Pi wrote is running inside Pi:",
      ...shown.map((file) => `  ${file}`),
      "Pi's tools wrote or changed these files, and Pi loaded them as extensions when this session started. They run inside Pi with your rights: they can do anything you can, change what pi-quests records, and make a quest look done. Read them. If a quest should not depend on them, remove them and /reload before you start it.",
    ].join("\n"),
  };
}

/** A path as the learner knows it: relative to the workspace, or from `~`. */
function shortPath(path: string, { workspace, home }: { workspace: string; home: string }): string {
  if (path.startsWith(workspace + sep)) return relative(workspace, path);
  if (path.startsWith(home + sep)) return `~/${relative(home, path)}`;
  return path;
}
