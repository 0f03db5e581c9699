import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillProbe, frontmatterViolations } from "../../src/probes/skill.ts";
import { PI_SDK_SOURCE } from "../support/pi-sdk.ts";

// Every test gets its own workspace (a git root, so Pi's `.agents/skills` walk stops there), agent
// folder and home folder: the real ~/.agents/skills and ~/.pi/agent never come into play.
let root: string;
let workspace: string;
let agentDir: string;
let homeDir: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "pi-quests-skill-"));
  workspace = path.join(root, "workspace");
  agentDir = path.join(root, "agent");
  homeDir = path.join(root, "home");
  await mkdir(path.join(workspace, ".git"), { recursive: true });
  await mkdir(agentDir, { recursive: true });
  await mkdir(homeDir, { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const probe = (request: { name?: string; path?: string }) =>
  createSkillProbe({ homeDir, pi: PI_SDK_SOURCE })({ ...request, workspace, agentDir });

/** Writes `<folder>/SKILL.md` and returns its path. */
async function writeSkill(
  folder: string,
  frontmatter: string,
  body = "# Steps\n\nDo the thing.\n",
): Promise<string> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, "SKILL.md");
  await writeFile(file, `---\n${frontmatter}\n---\n\n${body}`);
  return file;
}

const projectSkill = (name: string) => path.join(workspace, ".pi", "skills", name);
const valid = (name: string) => `name: ${name}\ndescription: Greets the user. Use when asked to say hello.`;

describe("skill probe: discovery", () => {
  it("finds a valid project skill in .pi/skills by name", async () => {
    const file = await writeSkill(projectSkill("greeter"), valid("greeter"));
    expect(await probe({ name: "greeter" })).toEqual({
      ok: true,
      found: { name: "greeter", filePath: file },
      violations: [],
      diagnostics: [],
    });
  });

  it("finds a valid user skill in <agentDir>/skills", async () => {
    const file = await writeSkill(path.join(agentDir, "skills", "greeter"), valid("greeter"));
    expect(await probe({ name: "greeter" })).toEqual({
      ok: true,
      found: { name: "greeter", filePath: file },
      violations: [],
      diagnostics: [],
    });
  });

  it("finds skills in the workspace's .agents/skills and in the home folder's .agents/skills", async () => {
    const project = await writeSkill(path.join(workspace, ".agents", "skills", "local"), valid("local"));
    const user = await writeSkill(path.join(homeDir, ".agents", "skills", "global"), valid("global"));
    expect(await probe({ name: "local" })).toMatchObject({ ok: true, found: { filePath: project } });
    expect(await probe({ name: "global" })).toMatchObject({ ok: true, found: { filePath: user } });
  });

  it("finds a skill at an explicit path: a workspace-relative folder or an absolute SKILL.md", async () => {
    const file = await writeSkill(path.join(workspace, "skills-src", "greeter"), valid("greeter"));
    const expected = {
      ok: true,
      found: { name: "greeter", filePath: file },
      violations: [],
      diagnostics: [],
    };
    expect(await probe({ path: "skills-src/greeter" })).toEqual(expected);
    expect(await probe({ path: file })).toEqual(expected);
    // Not in a folder Pi scans, so Pi does not know it by name alone.
    expect(await probe({ name: "greeter" })).toEqual(notFound(["skills-src/greeter/SKILL.md", NOT_SEARCHED]));
  });

  it("reports a skill that is not there as not found, with nothing to blame but the skills around it", async () => {
    await writeSkill(projectSkill("other"), valid("other"));
    expect(await probe({ name: "greeter" })).toEqual(
      notFound([".pi/skills/other/SKILL.md", loadedAs("other", "greeter")]),
    );
  });

  it("reports a missing path as not found, with Pi's warning", async () => {
    expect(await probe({ path: ".pi/skills/greeter" })).toEqual({
      ok: true,
      violations: [],
      diagnostics: ["Pi warning: skill path does not exist (.pi/skills/greeter)."],
    });
  });

  it("keeps the project skill when the user folder has one with the same name, as Pi does", async () => {
    const project = await writeSkill(projectSkill("greeter"), valid("greeter"));
    await writeSkill(path.join(agentDir, "skills", "greeter"), valid("greeter"));
    const user = path.join(agentDir, "skills", "greeter", "SKILL.md");
    expect(await probe({ name: "greeter" })).toEqual({
      ok: true,
      found: { name: "greeter", filePath: project },
      violations: [],
      diagnostics: [
        `Pi found two skills named "greeter": it keeps .pi/skills/greeter/SKILL.md and skips ${user}.`,
      ],
    });
  });

  it("accepts a name that differs from the folder (Pi does not require them to match)", async () => {
    const file = await writeSkill(projectSkill("folder-name"), valid("skill-name"));
    const expected = {
      ok: true,
      found: { name: "skill-name", filePath: file },
      violations: [],
      diagnostics: [],
    };
    expect(await probe({ name: "skill-name" })).toEqual(expected);
    expect(await probe({ path: ".pi/skills/folder-name" })).toEqual(expected);
    expect(await probe({ name: "folder-name" })).toEqual(
      notFound([".pi/skills/folder-name/SKILL.md", loadedAs("skill-name", "folder-name")]),
    );
  });
});

describe("skill probe: frontmatter rules", () => {
  it("flags an uppercase name; Pi still loads the skill, with a warning", async () => {
    const file = await writeSkill(projectSkill("Greeter"), valid("Greeter"));
    expect(await probe({ name: "Greeter" })).toEqual({
      ok: true,
      found: { name: "Greeter", filePath: file },
      violations: ['The name "Greeter" may only use lowercase letters (a-z), digits and hyphens.'],
      diagnostics: [
        "Pi warning: name contains invalid characters (must be lowercase a-z, 0-9, hyphens only) (.pi/skills/Greeter/SKILL.md).",
      ],
    });
  });

  it("flags consecutive hyphens", async () => {
    const file = await writeSkill(projectSkill("say--hello"), valid("say--hello"));
    expect(await probe({ path: file })).toEqual({
      ok: true,
      found: { name: "say--hello", filePath: file },
      violations: ['The name "say--hello" must not contain two hyphens in a row.'],
      diagnostics: [
        "Pi warning: name must not contain consecutive hyphens (.pi/skills/say--hello/SKILL.md).",
      ],
    });
  });

  it("flags a name longer than 64 characters", async () => {
    const name = "a".repeat(65);
    const outcome = await probe({ path: await writeSkill(projectSkill("long"), valid(name)) });
    expect(outcome).toMatchObject({
      ok: true,
      found: { name },
      violations: ["The name is 65 characters long; at most 64 are allowed."],
      diagnostics: ["Pi warning: name exceeds 64 characters (65) (.pi/skills/long/SKILL.md)."],
    });
  });

  it("flags a missing description; Pi does not load the skill", async () => {
    await writeSkill(projectSkill("greeter"), "name: greeter");
    expect(await probe({ name: "greeter" })).toEqual({
      ok: true,
      violations: ["The frontmatter has no description field; Pi does not load a skill without one."],
      diagnostics: ["Pi warning: description is required (.pi/skills/greeter/SKILL.md)."],
    });
  });

  it("flags malformed YAML; Pi does not load the skill", async () => {
    await writeSkill(projectSkill("greeter"), "name: greeter\ndescription: [unclosed");
    const outcome = await probe({ name: "greeter" });
    if (!outcome.ok) throw new Error("expected an answer");
    expect(outcome.found).toBeUndefined();
    expect(outcome.violations).toHaveLength(1);
    expect(outcome.violations[0]).toMatch(
      /^The frontmatter is not valid YAML: .+ \(SKILL\.md line 3, column \d+\)\.$/,
    );
    expect(outcome.diagnostics).toHaveLength(1);
    expect(outcome.diagnostics[0]).toMatch(/^Pi warning: .+ \(\.pi\/skills\/greeter\/SKILL\.md\)\.$/);
  });

  it("does not count unknown or optional fields as violations", async () => {
    const fields = `${valid("greeter")}\nlicense: MIT\nmetadata:\n  author: me\nversion: 2\ndisable-model-invocation: true`;
    const file = await writeSkill(projectSkill("greeter"), fields);
    expect(await probe({ name: "greeter" })).toEqual({
      ok: true,
      found: { name: "greeter", filePath: file },
      violations: [],
      diagnostics: [],
    });
  });
});

describe("skill probe: errors", () => {
  it("is unavailable, saying why, where Pi's skill loader is not given or not found", async () => {
    const request = { name: "greeter", workspace, agentDir };
    expect(await createSkillProbe({ homeDir })(request)).toEqual({
      ok: false,
      unavailable: true,
      message:
        "Pi's skill loader is not available: Pi's modules were not given to pi-quests here (it needs a running Pi or an installed one)",
    });
    const missing = async () => ({ ok: false as const, message: "Pi was not found (no pi on PATH)" });
    expect(await createSkillProbe({ homeDir, pi: missing })(request)).toMatchObject({
      unavailable: true,
      message: "Pi's skill loader is not available: Pi was not found (no pi on PATH)",
    });
  });

  it("answers ok:false when neither a name nor a path is given", async () => {
    expect(await probe({})).toEqual({ ok: false, message: "The skill check needs a name or a path." });
  });

  it("answers ok:false when the path cannot be read", async () => {
    const outcome = await probe({ path: "bad\0path" });
    expect(outcome.ok).toBe(false);
    expect(outcome).toMatchObject({ message: expect.stringMatching(/^Could not check the skill: /) });
  });
});

describe("frontmatterViolations", () => {
  const file = "/skills/greeter/SKILL.md";

  it("wants a frontmatter block, closed", () => {
    expect(frontmatterViolations("# Greeter\n", file)).toEqual([
      "SKILL.md must start with a frontmatter block: a line with ---, the fields, and another ---.",
    ]);
    expect(frontmatterViolations("---\nname: greeter\n", file)).toEqual([
      "The frontmatter block is never closed: add a line with --- after the fields.",
    ]);
  });

  it("wants YAML fields, not a list", () => {
    expect(frontmatterViolations("---\n- name\n---\n", file)).toEqual([
      "The frontmatter must be YAML fields (`key: value` lines), not a list or a text.",
    ]);
  });

  it("wants a name and a non-empty description of at most 1024 characters", () => {
    expect(frontmatterViolations(`---\ndescription: ${"d".repeat(1025)}\n---\n`, file)).toEqual([
      'The frontmatter has no name field; the spec requires one (Pi falls back to the folder name "greeter").',
      "The description is 1025 characters long; at most 1024 are allowed.",
    ]);
    expect(frontmatterViolations('---\nname: -greeter\ndescription: "  "\n---\n', file)).toEqual([
      'The name "-greeter" must not start or end with a hyphen.',
      "The description is empty; Pi does not load a skill without one.",
    ]);
    expect(frontmatterViolations("---\nname: 42\ndescription: Greets.\n---\n", file)).toEqual([
      "The name must be text, not the number 42.",
    ]);
  });

  it("reads Windows line endings and a byte order mark like Pi does", () => {
    expect(
      frontmatterViolations("\uFEFF---\r\nname: greeter\r\ndescription: Greets.\r\n---\r\n", file),
    ).toEqual([]);
  });
});

describe("skill probe: the SKILL.md files around a skill Pi does not find", () => {
  it("names each one and why it is not the skill: another name, Pi's warning, a hidden folder, not searched", async () => {
    await writeSkill(path.join(workspace, "skills", "greet"), valid("greet"));
    await writeSkill(projectSkill("hello"), valid("hello"));
    await writeSkill(projectSkill("broken"), "name: broken");
    await writeSkill(path.join(workspace, ".pi", "skills", ".drafts", "greet"), valid("greet"));
    await writeSkill(path.join(workspace, "node_modules", "pkg", "greet"), valid("greet"));
    const outcome = await probe({ name: "greet" });
    expect(outcome).toMatchObject({ ok: true, violations: [] });
    expect(outcome.ok && outcome.found).toBeFalsy();
    expect(outcome.ok && outcome.candidates).toEqual([
      {
        filePath: ".pi/skills/.drafts/greet/SKILL.md",
        reason: "Pi does not look into hidden folders (.drafts) of .pi/skills",
      },
      {
        filePath: ".pi/skills/broken/SKILL.md",
        reason: expect.stringMatching(/^Pi skips it: .*description/),
      },
      { filePath: ".pi/skills/hello/SKILL.md", reason: 'Pi loads it as the skill "hello", not "greet"' },
      {
        filePath: "skills/greet/SKILL.md",
        reason: expect.stringMatching(/^it is not in a folder Pi searches for skills \(\.pi\/skills, /),
      },
    ]);
  });

  it("names none when Pi finds the skill, or when there is no SKILL.md anywhere", async () => {
    await writeSkill(projectSkill("greet"), valid("greet"));
    await writeSkill(path.join(workspace, "skills", "other"), valid("other"));
    expect(await probe({ name: "greet" })).not.toHaveProperty("candidates");
    await rm(path.join(workspace, ".pi"), { recursive: true });
    await rm(path.join(workspace, "skills"), { recursive: true });
    expect(await probe({ name: "greet" })).not.toHaveProperty("candidates");
  });
});

const NOT_SEARCHED = expect.stringMatching(/^it is not in a folder Pi searches for skills/);

function loadedAs(name: string, wanted: string): string {
  return `Pi loads it as the skill "${name}", not "${wanted}"`;
}

/** A probe's answer for a skill Pi does not find, with the SKILL.md files around it and why each is not it. */
function notFound(...candidates: [string, unknown][]) {
  return {
    ok: true,
    violations: [],
    diagnostics: [],
    candidates: candidates.map(([filePath, reason]) => ({ filePath, reason })),
  };
}
