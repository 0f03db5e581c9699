/**
 * Every registered check type comes with what a reader and an author need: a section in
 * docs/quest-format.md, a bad-input fixture and its own tests (as ESLint's build checks that each
 * rule has its docs). The module of a type is `src/verifier/checks/<type with - for _>.ts`, its
 * tests `tests/verifier/checks/<the same name>.test.ts`, and its bad-input fixtures
 * `fixtures/bad/quests/<the same name>-*.yaml`, whose first check has that type.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  CHECK_TYPES,
  CheckSchema,
  checkTypeOf,
  confirmationPrompt,
  leavesReceipts,
  pathFieldsOf,
  runsInTaskVerifier,
  taskVerifierChecks,
  withQuestDefaults,
} from "../../../src/verifier/checks/registry.ts";
import { check } from "../../support/checks.ts";
import { REPO } from "../../support/cli.ts";

const FORMAT = readFileSync(join(REPO, "docs/quest-format.md"), "utf8");
const BAD_QUESTS = join(REPO, "fixtures/bad/quests");
const moduleName = (type: string) => type.replaceAll("_", "-");

/** The `### ` headings of docs/quest-format.md that name a type in backticks, in order. */
function documentedTypes(): string[] {
  const headings = FORMAT.split("\n").filter((line) => line.startsWith("### "));
  return headings.flatMap((heading) =>
    [...heading.matchAll(/`([a-z_]+)`/g)].flatMap(([, name]) =>
      name && CHECK_TYPES.some((type) => type === name) ? [name] : [],
    ),
  );
}

/** The type of the first check of a fixture, when it parses far enough to have one. */
function firstCheckType(file: string): unknown {
  try {
    const quest: unknown = parse(readFileSync(file, "utf8"));
    if (typeof quest !== "object" || quest === null || !("checks" in quest)) return undefined;
    const [first] = Array.isArray(quest.checks) ? quest.checks : [];
    return typeof first === "object" && first !== null && "type" in first ? first.type : undefined;
  } catch {
    return undefined;
  }
}

describe("the check type registry", () => {
  it.each(CHECK_TYPES)("%s has a section in docs/quest-format.md", (type) => {
    expect(documentedTypes(), `a "### \`${type}\`" heading in docs/quest-format.md`).toContain(type);
  });

  it("the docs list the types in the registry's order", () => {
    expect(documentedTypes()).toEqual([...CHECK_TYPES]);
  });

  it.each(CHECK_TYPES)("%s has a bad-input fixture whose first check has that type", (type) => {
    const fixtures = readdirSync(BAD_QUESTS).filter(
      (name) =>
        name.startsWith(`${moduleName(type)}-`) &&
        name.endsWith(".yaml") &&
        firstCheckType(join(BAD_QUESTS, name)) === type,
    );
    expect(fixtures, `fixtures/bad/quests/${moduleName(type)}-*.yaml with a ${type} check`).not.toEqual([]);
  });

  it.each(CHECK_TYPES)("%s has its own tests", (type) => {
    const tests = join(REPO, "tests/verifier/checks", `${moduleName(type)}.test.ts`);
    expect(existsSync(tests), `${tests} exists`).toBe(true);
  });

  it.each(CHECK_TYPES)("%s is the module its name says", async (type) => {
    const module: Record<string, unknown> = await import(
      join(REPO, "src/verifier/checks", `${moduleName(type)}.ts`)
    );
    const registered = checkTypeOf(type);
    expect(Object.values(module)).toContain(registered);
    expect(registered.type).toBe(type);
  });

  it("an unknown type is refused with the list of types", () => {
    const parsed = CheckSchema.safeParse({ type: "telepathy" });
    expect(parsed.error?.issues[0]?.message).toBe(
      `type "telepathy" is not a check type; the types are: ${CHECK_TYPES.join(", ")}`,
    );
  });
});

describe("what a check needs from the runtime", () => {
  const worktree = check({ type: "command", run: "npm test" });
  const inPlace = check({ type: "command", run: "npm test", isolation: "none" });
  const confirm = check({ type: "confirm", prompt: "Done?" });
  const event = check({ type: "event", match: { event: "turn_end" } });

  it("only a command check with isolation: worktree runs in the task verifier", () => {
    expect([worktree, inPlace, confirm, event].map(runsInTaskVerifier)).toEqual([true, false, false, false]);
    expect(taskVerifierChecks([event, worktree, inPlace, confirm])).toEqual([worktree]);
  });

  it("command checks leave receipts; confirm checks ask the learner their prompt", () => {
    expect([worktree, inPlace, confirm, event].map(leavesReceipts)).toEqual([true, true, false, false]);
    expect([worktree, inPlace, confirm, event].map(confirmationPrompt)).toEqual([
      undefined,
      undefined,
      "Done?",
      undefined,
    ]);
  });

  it("a command check takes the quest's editable unless it names its own", () => {
    expect(withQuestDefaults(worktree, { editable: ["src/**"] })).toMatchObject({ editable: ["src/**"] });
    const own = check({ type: "command", run: "npm test", editable: ["lib/**"] });
    expect(withQuestDefaults(own, { editable: ["src/**"] })).toMatchObject({ editable: ["lib/**"] });
    expect(withQuestDefaults(confirm, { editable: ["src/**"] })).toEqual(confirm);
  });
});

describe("the path fields each check type names", () => {
  const fields = (input: Record<string, unknown>) =>
    pathFieldsOf(CheckSchema.parse(input)).map(({ field, written, rule }) => ({ field, written, rule }));

  it("file, JSON/YAML, skill and git paths, each with the templates it may start with", () => {
    expect(fields({ type: "file_exists", path: "a" })).toEqual([
      { field: ["path"], written: "a", rule: { templates: "any" } },
    ]);
    for (const type of ["json_path", "yaml_path"])
      expect(fields({ type, file: "f", path: "$", assert: "exists" })).toEqual([
        { field: ["file"], written: "f", rule: { templates: "any" } },
      ]);
    expect(fields({ type: "skill_valid", path: "s" })).toEqual([
      { field: ["path"], written: "s", rule: { templates: "any" } },
    ]);
    expect(fields({ type: "skill_valid", name: "s" })).toEqual([]);
    expect(fields({ type: "git", assert: "file_restored", path: "a" })).toEqual([
      { field: ["path"], written: "a", rule: { templates: "none", relativeTo: "the repository" } },
    ]);
    expect(fields({ type: "git", assert: "clean_tree" })).toEqual([]);
  });

  it("a command's cwd stays in the workspace with isolation: worktree; its oracle paths and editable take no template", () => {
    const repository = { templates: "none", relativeTo: "the workspace's repository" };
    expect(
      fields({ type: "command", run: "x", cwd: "app", oracle_paths: ["t/a"], editable: ["src/**"] }),
    ).toEqual([
      { field: ["cwd"], written: "app", rule: { templates: "workspace" } },
      { field: ["oracle_paths", 0], written: "t/a", rule: repository },
      { field: ["editable", 0], written: "src/**", rule: repository },
    ]);
    expect(fields({ type: "command", run: "x", cwd: "{home}", isolation: "none" })).toEqual([
      { field: ["cwd"], written: "{home}", rule: { templates: "any" } },
    ]);
  });

  it("event, mcp_handshake and confirm name no path", () => {
    expect(fields({ type: "event", match: { event: "a" } })).toEqual([]);
    expect(fields({ type: "mcp_handshake", command: "srv" })).toEqual([]);
    expect(fields({ type: "confirm", prompt: "ok?" })).toEqual([]);
  });
});
