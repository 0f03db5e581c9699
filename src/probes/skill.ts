/**
 * The skill probe: does Pi find the skill, and does its frontmatter follow the Agent Skills spec?
 *
 * Discovery is Pi's own `loadSkills`, given the folders Pi's startup would give it, in Pi's order
 * (the first skill with a name wins a collision):
 *   1. the requested path, if any (like `pi --skill <path>`),
 *   2. `<workspace>/.pi/skills`,
 *   3. `.agents/skills` in the workspace and each parent up to the git root,
 *   4. `<agentDir>/skills`,
 *   5. `~/.agents/skills` (`homeDir` option; tests pass a temporary folder so nothing leaks in).
 * `loadSkills` itself only knows 2 and 4 (and lets the user ones win), so the probe lists the
 * folders itself and passes `includeDefaults: false`, the way Pi's resource loader does.
 *
 * Differences from a real Pi start, on purpose or for simplicity:
 * - Pi loads 2 and 3 only once the project is trusted; the probe checks them as if it were.
 * - Skills from settings (`skills` entries) and Pi packages are not looked at.
 * - Loose `.md` files directly in an `.agents/skills` folder load here but not in Pi.
 *
 * The frontmatter rules are those of docs/skills.md: a name (at most 64 lowercase letters, digits
 * and single hyphens inside) and a non-empty description of at most 1024 characters. The spec
 * lists the known fields but does not forbid others, and Pi accepts a name that differs from its
 * folder, so neither is a violation.
 */
import { realpathSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { SkillOutcome, SkillRequest } from "../verifier/probes.ts";
import { NO_PI_SDK, type PiSdk, type PiSdkSource } from "./pi-sdk.ts";
import { skillCandidates } from "./skill-candidates.ts";
import { type DiscoveryFolder, linkEscape, rootOf } from "./skill-containment.ts";

type LoadResult = ReturnType<PiSdk["loadSkills"]>;
type Diagnostic = LoadResult["diagnostics"][number];

export type SkillProbeOptions = {
  /** Whose `~/.agents/skills` Pi would read; defaults to `$HOME`, as in Pi. */
  homeDir?: string;
  /** Pi's SDK, whose `loadSkills` discovers the skill; without it every skill check is pending. */
  pi?: PiSdkSource;
};

const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;

export function createSkillProbe(
  options: SkillProbeOptions = {},
): (request: SkillRequest) => Promise<SkillOutcome> {
  const homeDir = options.homeDir ?? (process.env.HOME || homedir());
  const pi = options.pi ?? NO_PI_SDK;
  return async (request) => {
    try {
      const found = await pi();
      if (!found.ok) {
        return {
          ok: false,
          unavailable: true,
          message: `Pi's skill loader is not available: ${found.message}`,
        };
      }
      return await probeSkill(found.sdk.loadSkills, request, homeDir);
    } catch (error) {
      return { ok: false, message: `Could not check the skill: ${errorMessage(error)}` };
    }
  };
}

async function probeSkill(
  loadSkills: PiSdk["loadSkills"],
  request: SkillRequest,
  homeDir: string,
): Promise<SkillOutcome> {
  if (request.name === undefined && request.path === undefined) {
    return { ok: false, message: "The skill check needs a name or a path." };
  }
  const workspace = path.resolve(request.workspace);
  const agentDir = path.resolve(workspace, request.agentDir);
  const requested = request.path === undefined ? undefined : path.resolve(workspace, request.path);
  if (requested !== undefined) {
    // Refused before Pi's loader is given the path, so a skill behind the link is never read.
    const targets = [requested, path.join(requested, "SKILL.md")];
    const leaves = await linkEscape(targets, path.resolve(request.root ?? workspace));
    if (leaves) return { ok: false, problem: "escape", path: request.path ?? requested, message: leaves };
  }
  const discovery = await discoveryFolders(workspace, agentDir, homeDir);
  const searched = discovery.map(({ folder }) => folder);
  const result = loadSkills({
    cwd: workspace,
    agentDir,
    skillPaths: requested === undefined ? searched : [requested, ...searched],
    includeDefaults: false,
  });

  // Pi's discovery follows links; a skill it found through one that leaves its folder's root is
  // refused here, and pi-quests does not read it.
  const escapeOf = (file: string) =>
    linkEscape([path.dirname(file), file], rootOf(file, discovery, request.root ?? workspace));
  const { file, found } =
    requested === undefined
      ? await locateByName(request.name ?? "", result, escapeOf)
      : await locateByPath(requested, result);
  if (file !== undefined && requested === undefined) {
    const leaves = await escapeOf(file);
    if (leaves) {
      return { ok: false, problem: "escape", path: file, message: `Pi's discovery finds it, but ${leaves}` };
    }
  }
  const violations = file === undefined ? [] : frontmatterViolations(await readFile(file, "utf8"), file);
  const related = result.diagnostics.filter((diagnostic) => concerns(diagnostic, [file, requested]));
  const candidates = found
    ? []
    : await skillCandidates({
        workspace,
        discovery,
        discovered: result,
        wanted: request.path !== undefined ? { path: request.path } : { name: request.name ?? "" },
        ...(file !== undefined ? { reported: file } : {}),
        samePath,
        shown: (shownFile) => shown(shownFile, workspace),
      });
  return {
    ok: true,
    ...(found && { found: { name: found.name, filePath: found.filePath } }),
    violations,
    // A requested path inside a scanned folder is read twice, and warned about twice.
    diagnostics: [...new Set(related.map((diagnostic) => diagnosticSentence(diagnostic, workspace)))],
    ...(candidates.length > 0 ? { candidates } : {}),
  };
}

type Located = { file?: string; found?: { name: string; filePath: string } };

/** The skill file at the path (the file itself, or `SKILL.md` in a folder), and Pi's skill for it. */
async function locateByPath(requested: string, result: LoadResult): Promise<Located> {
  const kind = await kindOf(requested);
  const file = kind === "dir" ? path.join(requested, "SKILL.md") : requested;
  if ((await kindOf(file)) !== "file") return {};
  return { file, found: result.skills.find((skill) => samePath(skill.filePath, file)) };
}

/**
 * The skill Pi knows by that name. A skill Pi refused (no description, broken YAML) is not among
 * them, so its file is found through the warning Pi gave about it.
 */
async function locateByName(
  name: string,
  result: LoadResult,
  escapeOf: (file: string) => Promise<string | undefined>,
): Promise<Located> {
  const found = result.skills.find((skill) => skill.name === name);
  if (found) return { file: found.filePath, found };
  for (const diagnostic of result.diagnostics) {
    if (diagnostic.type === "collision" || !diagnostic.path?.endsWith(".md")) continue;
    // Its name is in the file: a file behind an escaping link is not opened to learn it.
    if ((await escapeOf(diagnostic.path)) !== undefined) continue;
    if ((await declaredName(diagnostic.path)) === name) return { file: diagnostic.path };
  }
  return {};
}

/**
 * The existing folders Pi scans at startup, in Pi's order (see the top comment), each with the
 * folder that holds it as its root: the workspace, a parent, the agent dir or the home folder.
 */
async function discoveryFolders(
  workspace: string,
  agentDir: string,
  homeDir: string,
): Promise<DiscoveryFolder[]> {
  const home = path.resolve(homeDir);
  const userAgentsSkills = path.join(home, ".agents", "skills");
  const projectAgentsSkills: DiscoveryFolder[] = [];
  const gitRoot = await findGitRoot(workspace);
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ".agents", "skills");
    // Pi reads the home one as a user folder, last, even when the workspace is under $HOME.
    if (candidate !== userAgentsSkills) projectAgentsSkills.push({ folder: candidate, root: dir });
    if (dir === gitRoot || path.dirname(dir) === dir) break;
  }
  const folders: DiscoveryFolder[] = [
    { folder: path.join(workspace, ".pi", "skills"), root: workspace },
    ...projectAgentsSkills,
    { folder: path.join(agentDir, "skills"), root: agentDir },
    { folder: userAgentsSkills, root: home },
  ];
  const existing: DiscoveryFolder[] = [];
  for (const entry of folders) {
    if ((await quietKindOf(entry.folder)) === "dir") existing.push(entry);
  }
  return existing;
}

/** Like Pi: the nearest folder holding a `.git` entry, or undefined outside a repository. */
async function findGitRoot(start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if ((await quietKindOf(path.join(dir, ".git"))) !== "missing") return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The name Pi gives a skill file: its frontmatter name, or else its folder's name. */
async function declaredName(file: string): Promise<string> {
  const folderName = path.basename(path.dirname(file));
  try {
    const block = frontmatterBlock(await readFile(file, "utf8"));
    const fields: unknown = block === undefined ? undefined : parseYaml(block);
    const name = isRecord(fields) ? fields.name : undefined;
    return typeof name === "string" && name !== "" ? name : folderName;
  } catch {
    return folderName;
  }
}

/**
 * The rules of docs/skills.md, each broken rule as a sentence. `file` names the folder Pi falls
 * back to for a missing name.
 */
export function frontmatterViolations(content: string, file: string): string[] {
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!text.startsWith("---")) {
    return ["SKILL.md must start with a frontmatter block: a line with ---, the fields, and another ---."];
  }
  const block = frontmatterBlock(text);
  if (block === undefined)
    return ["The frontmatter block is never closed: add a line with --- after the fields."];

  let fields: unknown;
  try {
    fields = parseYaml(block) ?? {};
  } catch (error) {
    // The YAML starts on the file's second line; say where in SKILL.md the learner should look.
    const message = firstLine(errorMessage(error)).replace(
      / at line (\d+), column (\d+)$/,
      (_, line: string, column: string) => ` (SKILL.md line ${Number(line) + 1}, column ${column})`,
    );
    return [`The frontmatter is not valid YAML: ${message}.`];
  }
  if (!isRecord(fields))
    return ["The frontmatter must be YAML fields (`key: value` lines), not a list or a text."];
  return [
    ...nameViolations(fields.name, path.basename(path.dirname(file))),
    ...descriptionViolations(fields.description),
  ];
}

function nameViolations(name: unknown, folderName: string): string[] {
  if (name === undefined || name === null) {
    return [
      `The frontmatter has no name field; the spec requires one (Pi falls back to the folder name "${folderName}").`,
    ];
  }
  if (typeof name !== "string") return [`The name must be text, not ${describe(name)}.`];
  if (name.trim() === "") return ["The name is empty."];
  const violations: string[] = [];
  if (name.length > MAX_NAME_LENGTH) {
    violations.push(`The name is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed.`);
  }
  if (!/^[a-z0-9-]+$/.test(name)) {
    violations.push(`The name "${name}" may only use lowercase letters (a-z), digits and hyphens.`);
  }
  if (name.startsWith("-") || name.endsWith("-")) {
    violations.push(`The name "${name}" must not start or end with a hyphen.`);
  }
  if (name.includes("--")) violations.push(`The name "${name}" must not contain two hyphens in a row.`);
  return violations;
}

function descriptionViolations(description: unknown): string[] {
  if (description === undefined || description === null) {
    return ["The frontmatter has no description field; Pi does not load a skill without one."];
  }
  if (typeof description !== "string") return [`The description must be text, not ${describe(description)}.`];
  if (description.trim() === "") return ["The description is empty; Pi does not load a skill without one."];
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return [
      `The description is ${description.length} characters long; at most ${MAX_DESCRIPTION_LENGTH} are allowed.`,
    ];
  }
  return [];
}

/** The YAML between the `---` lines, cut the way Pi's frontmatter parser cuts it. */
function frontmatterBlock(content: string): string | undefined {
  const text = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!text.startsWith("---")) return undefined;
  const end = text.indexOf("\n---", 3);
  return end === -1 ? undefined : text.slice(4, end);
}

/** Whether a Pi diagnostic is about the file or path the answer is about. */
function concerns(diagnostic: Diagnostic, paths: (string | undefined)[]): boolean {
  const about = [diagnostic.path, diagnostic.collision?.winnerPath, diagnostic.collision?.loserPath];
  return paths.some(
    (wanted) => wanted !== undefined && about.some((p) => p !== undefined && samePath(p, wanted)),
  );
}

function diagnosticSentence(diagnostic: Diagnostic, workspace: string): string {
  const collision = diagnostic.collision;
  if (collision) {
    const winner = shown(collision.winnerPath, workspace);
    const loser = shown(collision.loserPath, workspace);
    return `Pi found two skills named "${collision.name}": it keeps ${winner} and skips ${loser}.`;
  }
  const where = diagnostic.path === undefined ? "" : ` (${shown(diagnostic.path, workspace)})`;
  return `Pi ${diagnostic.type}: ${firstLine(diagnostic.message)}${where}.`;
}

/** Workspace-relative when inside the workspace, so reports stay short. */
function shown(file: string, workspace: string): string {
  const relative = path.relative(workspace, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b) || realOrSelf(a) === realOrSelf(b);
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

async function kindOf(file: string): Promise<"file" | "dir" | "other" | "missing"> {
  try {
    const stats = await stat(file);
    return stats.isFile() ? "file" : stats.isDirectory() ? "dir" : "other";
  } catch (error) {
    if (isRecord(error) && (error.code === "ENOENT" || error.code === "ENOTDIR")) return "missing";
    throw error;
  }
}

/** For scanning parents, where Pi's `existsSync` takes an unreadable folder as absent. */
async function quietKindOf(file: string): Promise<"file" | "dir" | "other" | "missing"> {
  return kindOf(file).catch(() => "missing" as const);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return Array.isArray(value)
    ? "a list"
    : isRecord(value)
      ? "a mapping"
      : `the ${typeof value} ${String(value)}`;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim().replace(/[.:]$/, "");
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
