import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** The templates a quest path may use; see docs/quest-format.md. */
export const PATH_TEMPLATES = ["sandbox", "workspace", "agent_dir", "home"] as const;
export type PathTemplate = (typeof PATH_TEMPLATES)[number];

const TEMPLATE_PATTERN = /\{([a-z_]+)\}/g;

/** The names in braces that are not known templates (empty when the path is fine). */
export function unknownTemplates(path: string): string[] {
  const names = [...path.matchAll(TEMPLATE_PATTERN)].map((match) => match[1] ?? "");
  return names.filter((name) => !(PATH_TEMPLATES as readonly string[]).includes(name));
}

/** Pi's agent dir: PI_CODING_AGENT_DIR (relative to `cwd`), else ~/.pi/agent. */
export function agentDirFrom(env: Record<string, string | undefined>, cwd: string, home: string): string {
  return env.PI_CODING_AGENT_DIR ? resolve(cwd, env.PI_CODING_AGENT_DIR) : join(home, ".pi", "agent");
}

/**
 * Whether `path` is `root` or below it, by name alone: `..` is resolved, symbolic links are not
 * (src/probes/path-containment.ts follows them). Both paths absolute, or both relative to one folder.
 */
export function isInside(path: string, root: string): boolean {
  const fromRoot = relative(root, path);
  return fromRoot === "" || (!fromRoot.startsWith(`..${sep}`) && fromRoot !== ".." && !isAbsolute(fromRoot));
}
