import { resolve } from "node:path";
import {
  ANY_TEMPLATE,
  isInside,
  type PathTemplate,
  parseQuestPath,
  type QuestPathRule,
} from "../core/paths.ts";
import type { QuestPaths } from "./context.ts";
import type { ResolvedPath } from "./probes.ts";

/** The rule is core's (the Node adapters share it); the CLI and the task verifier import it from here. */

export type PathResolution =
  | { ok: true; path: ResolvedPath }
  | { ok: false; written: string; reason: string };

/**
 * Resolves a quest path: a leading template picks the root (`{agent_dir}/skills`), anything
 * else is relative to the workspace. What can never resolve (core's `parseQuestPath`, the rule
 * the loader lints with) is refused here too, before any probe runs: a definition pinned before
 * that lint existed is not linted again. Escapes through symbolic links are the file probe's to
 * refuse (src/probes/path-containment.ts).
 */
export function resolveQuestPath(
  written: string,
  paths: QuestPaths,
  rule: QuestPathRule = ANY_TEMPLATE,
): PathResolution {
  const parsed = parseQuestPath(written, rule);
  if (!parsed.ok) {
    if (parsed.problem !== "escape") return { ok: false, written, reason: parsed.reason };
    const root = parsed.template === undefined ? paths.workspace : templateRoot(parsed.template, paths);
    return { ok: false, written, reason: `leaves ${root} through ".."; it was not read` };
  }
  const root = parsed.template === undefined ? paths.workspace : templateRoot(parsed.template, paths);
  const absolute = resolve(root, parsed.rest);
  if (!isInside(absolute, root)) {
    return { ok: false, written, reason: `leaves ${root} through ".."; it was not read` };
  }
  return { ok: true, path: { written, absolute, root } };
}

function templateRoot(name: PathTemplate, paths: QuestPaths): string {
  switch (name) {
    case "sandbox":
      return paths.sandbox ?? paths.workspace;
    case "workspace":
      return paths.workspace;
    case "agent_dir":
      return paths.agentDir;
    case "home":
      return paths.home;
  }
}
