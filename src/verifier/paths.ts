import { isAbsolute, normalize, resolve } from "node:path";
import { isInside, PATH_TEMPLATES, type PathTemplate } from "../core/paths.ts";
import type { QuestPaths } from "./context.ts";
import type { ResolvedPath } from "./probes.ts";

/** The rule is core's (the Node adapters share it); the CLI and the task verifier import it from here. */

export type PathResolution =
  | { ok: true; path: ResolvedPath }
  | { ok: false; written: string; reason: string };

const LEADING_TEMPLATE = /^\{([a-z_]+)\}(?:[/\\]|$)/;

/**
 * Resolves a quest path: a leading template picks the root (`{agent_dir}/skills`), anything
 * else is relative to the workspace. Escapes through `..` are refused here, before any probe
 * runs; escapes through symbolic links are the file probe's to refuse
 * (src/probes/path-containment.ts).
 */
export function resolveQuestPath(written: string, paths: QuestPaths): PathResolution {
  const template = LEADING_TEMPLATE.exec(written);
  let root = paths.workspace;
  let rest = written;
  if (template) {
    const name = template[1] as PathTemplate;
    if (!PATH_TEMPLATES.includes(name)) return { ok: false, written, reason: `unknown template {${name}}` };
    root = templateRoot(name, paths);
    rest = written.slice(template[0].length);
  } else if (isAbsolute(written)) {
    return {
      ok: false,
      written,
      reason: "an absolute path; start it with {workspace}, {agent_dir} or {home}",
    };
  } else if (written.includes("{")) {
    return { ok: false, written, reason: "a template may only start a path" };
  }
  const absolute = resolve(root, normalize(rest || "."));
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
