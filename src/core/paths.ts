import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";

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

/**
 * Which templates a path field may start with. `any`: `{sandbox}`, `{workspace}`, `{agent_dir}`
 * or `{home}`; `workspace`: only `{workspace}` or `{sandbox}` (the path stays in the workspace);
 * `none`: no template (the path is relative, and a known template name anywhere in it is a
 * mistake; other braces are part of a file name).
 */
export type TemplateRule = "any" | "workspace" | "none";

/** The rule a path field of a quest follows, lexically: the same for lint and at run time. */
export type QuestPathRule = {
  templates: TemplateRule;
  /** What a path without a template is relative to, for messages (default "the workspace"). */
  relativeTo?: string;
};

/** A path field that takes any template: `file_exists.path`, `json_path.file`, `skill_valid.path`. */
export const ANY_TEMPLATE: QuestPathRule = { templates: "any" };

export type QuestPathParse =
  | { ok: true; template?: PathTemplate; rest: string }
  | {
      ok: false;
      /** `escape`: it goes up out of its root through `..`; `written`: it can never name a path (absolute, a template where it cannot be). */
      problem: "escape" | "written";
      /** Said after the path: `../x leaves the workspace through ".."; ...`. */
      reason: string;
      /** The template that picked the root it leaves, for an escape. */
      template?: PathTemplate;
    };

const LEADING_TEMPLATE = /^\{([a-z_]+)\}/;

/**
 * A quest path split into the template that picks its root and the rest (normalized, relative),
 * or why it can never resolve inside its root, whatever the roots are: an absolute path, a
 * template the field does not take or not at the start, `..` out of the root. These rules are
 * lexical, so the loader can refuse such a path before anything runs and the runtime
 * (src/verifier/paths.ts) refuses the same paths.
 */
export function parseQuestPath(written: string, rule: QuestPathRule = ANY_TEMPLATE): QuestPathParse {
  const relativeTo = rule.relativeTo ?? "the workspace";
  const bad = (reason: string): QuestPathParse => ({ ok: false, problem: "written", reason });
  const leading = LEADING_TEMPLATE.exec(written);
  let template: PathTemplate | undefined;
  let rest = written;
  if (leading && (rule.templates !== "none" || isTemplate(leading[1]))) {
    const name = leading[1] ?? "";
    if (!isTemplate(name))
      return bad(`starts with {${name}}, which is not a template: use {${PATH_TEMPLATES.join("}, {")}}`);
    if (rule.templates === "none") {
      const plain = written.slice(leading[0].length).replace(/^[/\\]+/, "");
      const instead = (name === "workspace" || name === "sandbox") && plain !== "" ? ` (${plain})` : "";
      return bad(
        `starts with {${name}}; this path takes no template: write it relative to ${relativeTo}${instead}`,
      );
    }
    if (rule.templates === "workspace" && name !== "workspace" && name !== "sandbox")
      return bad(
        `starts with {${name}}, outside the workspace; this path stays in the workspace: write it relative to it (or start it with {workspace})`,
      );
    rest = written.slice(leading[0].length);
    if (rest !== "" && !/^[/\\]/.test(rest)) return bad(`has no / after {${name}}; write {${name}}/${rest}`);
    template = name;
  } else if (isAbsolute(written)) {
    return bad(
      rule.templates === "any"
        ? "is an absolute path; start it with {workspace}, {agent_dir} or {home}"
        : `is an absolute path; write it relative to ${relativeTo}`,
    );
  }
  const inside = [...rest.matchAll(TEMPLATE_PATTERN)].find((match) => isTemplate(match[1]));
  if (inside) return bad(`has ${inside[0]} in the middle; a template may only start a path`);
  if (rule.templates !== "none" && rest.includes("{"))
    return bad("has a { in it; a template may only start a path");
  const normalized = posix.normalize(rest.replace(/^[/\\]+/, "") || ".");
  if (normalized === ".." || normalized.startsWith("../")) {
    const root = template === undefined ? relativeTo : `{${template}}`;
    return {
      ok: false,
      problem: "escape",
      reason: `leaves ${root} through ".."; a quest path stays inside its root`,
      ...(template !== undefined ? { template } : {}),
    };
  }
  return { ok: true, ...(template !== undefined ? { template } : {}), rest: normalized };
}

function isTemplate(name: string | undefined): name is PathTemplate {
  return (PATH_TEMPLATES as readonly (string | undefined)[]).includes(name);
}
