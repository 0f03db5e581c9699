import { z } from "zod";
import { globProblem } from "./glob.ts";
import { unknownTemplates } from "./paths.ts";
import { IntPredicateSchema, refineRegexPredicate, StringPredicateSchema } from "./predicates.ts";
import { regexProblem } from "./quest-regex.ts";

/** The closed set of check types, in the order the contract lists them. */
export const CHECK_TYPES = [
  "event",
  "file_exists",
  "json_path",
  "yaml_path",
  "command",
  "git",
  "mcp_handshake",
  "skill_valid",
  "confirm",
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const CHECK_ID_PATTERN = /^[a-z0-9-]+$/;

/** A path that may use the `{sandbox}`, `{workspace}`, `{agent_dir}` and `{home}` templates. */
const PathSchema = z
  .string()
  .min(1, "a path must not be empty")
  .superRefine((path, ctx) => {
    const unknown = unknownTemplates(path);
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `unknown path template {${unknown.join("}, {")}}: use {sandbox}, {workspace}, {agent_dir} or {home}`,
      });
    }
  });

const base = {
  id: z.string().regex(CHECK_ID_PATTERN, "a check id uses only a-z, 0-9 and -").optional(),
  describe: z.string().min(1).optional(),
};

// --- event ---------------------------------------------------------------------------------

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** What a payload field must be: a literal, or one string or integer operator. */
export const FieldPredicateSchema = z
  .union([
    Scalar,
    z.strictObject({ equals: Scalar }),
    z.strictObject({ contains: z.string() }),
    z.strictObject({ starts_with: z.string() }),
    z.strictObject({ ends_with: z.string() }),
    z.strictObject({ regex: z.string(), flags: z.string().optional() }),
    z.strictObject({ one_of: z.array(Scalar).min(1) }),
    z
      .strictObject({ min: z.number().optional(), max: z.number().optional() })
      .refine((value) => value.min !== undefined || value.max !== undefined, "give min, max or both"),
  ])
  // Judged after the union picked its shape: inside the union, a regex the engine refuses would
  // leave two failed options and only zod's "Invalid input".
  .superRefine((value, ctx) => {
    if (typeof value === "object" && value !== null && "regex" in value) refineRegexPredicate(value, ctx);
  });
export type FieldPredicate = z.infer<typeof FieldPredicateSchema>;

export const EventMatchSchema = z.strictObject({
  event: z.string().min(1),
  tool: StringPredicateSchema.optional(),
  outcome: z.enum(["success", "error"]).optional(),
  min_assistant_turns: z.int().min(0).optional(),
  fields: z.record(z.string().min(1), FieldPredicateSchema).optional(),
});
export type EventMatch = z.infer<typeof EventMatchSchema>;

/** `after: quest-id` is `{ref: quest-id, event: "quest_completed"}`. */
export const EventAfterSchema = z.union([
  z.string().min(1),
  z.strictObject({ ref: z.string().min(1), event: z.string().min(1) }),
]);
export type EventAfter = z.infer<typeof EventAfterSchema>;

export const EventCheckSchema = z.strictObject({
  ...base,
  type: z.literal("event"),
  match: EventMatchSchema,
  after: EventAfterSchema.optional(),
  same_session: z.boolean().default(false),
  count: IntPredicateSchema.optional(),
});

// --- files ---------------------------------------------------------------------------------

export const FileExistsCheckSchema = z.strictObject({
  ...base,
  type: z.literal("file_exists"),
  path: PathSchema,
  kind: z.enum(["file", "dir", "any"]).default("file"),
});

export const ASSERTIONS = ["exists", "missing", "non_empty", "equals", "contains", "matches"] as const;
export type Assertion = (typeof ASSERTIONS)[number];

function structuredPathCheck<T extends "json_path" | "yaml_path">(type: T) {
  return z
    .strictObject({
      ...base,
      type: z.literal(type),
      file: PathSchema,
      path: z.string().startsWith("$", "a JSONPath starts with $"),
      assert: z.enum(ASSERTIONS),
      value: z.unknown().optional(),
    })
    .superRefine((check, ctx) => {
      const needsValue =
        check.assert === "equals" || check.assert === "contains" || check.assert === "matches";
      if (needsValue && check.value === undefined) {
        ctx.addIssue({ code: "custom", path: ["assert"], message: `assert: ${check.assert} needs a value` });
      }
      if (!needsValue && check.value !== undefined) {
        ctx.addIssue({ code: "custom", path: ["value"], message: `assert: ${check.assert} takes no value` });
      }
      if (check.assert === "matches") {
        const problem =
          typeof check.value === "string" ? regexProblem(check.value) : "value must be a string";
        if (problem) ctx.addIssue({ code: "custom", path: ["value"], message: `invalid regex: ${problem}` });
      }
    });
}
export const JsonPathCheckSchema = structuredPathCheck("json_path");
export const YamlPathCheckSchema = structuredPathCheck("yaml_path");

// --- command and git -----------------------------------------------------------------------

/** `editable` (version 2): the paths the learner's work may change, as globs (src/core/glob.ts). */
export const EditableSchema = z
  .array(
    z.string().superRefine((glob, ctx) => {
      const problem = globProblem(glob);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  )
  .min(1, "editable lists at least one path; leave it out to let the work change any path");

export const CommandCheckSchema = z.strictObject({
  ...base,
  type: z.literal("command"),
  run: z.string().min(1, "run must not be empty"),
  cwd: z.string().min(1).optional(),
  timeout_ms: z.int().positive().max(3_600_000).default(60_000),
  exit_code: IntPredicateSchema.default(0),
  stdout: StringPredicateSchema.optional(),
  stderr: StringPredicateSchema.optional(),
  oracle_paths: z.array(z.string().min(1)).default([]),
  isolation: z.enum(["worktree", "none"]).default("worktree"),
  /** Version 2: the paths this check lets the candidate change; wins over the quest's list. */
  editable: EditableSchema.optional(),
});

const gitBase = { ...base, type: z.literal("git") };
export const GitCheckSchema = z.discriminatedUnion(
  "assert",
  [
    z.strictObject({ ...gitBase, assert: z.literal("commit_count"), count: IntPredicateSchema }),
    z.strictObject({ ...gitBase, assert: z.literal("clean_tree") }),
    z.strictObject({ ...gitBase, assert: z.literal("dirty") }),
    z.strictObject({ ...gitBase, assert: z.literal("branch_exists"), branch: z.string().min(1) }),
    z.strictObject({
      ...gitBase,
      assert: z.literal("diff_contains"),
      text: z.string().min(1),
      path: z.string().min(1).optional(),
    }),
    z.strictObject({ ...gitBase, assert: z.literal("file_restored"), path: z.string().min(1) }),
  ],
  {
    error:
      "assert must be one of: commit_count, clean_tree, dirty, branch_exists, diff_contains, file_restored",
  },
);
export const GIT_ASSERTIONS = [
  "commit_count",
  "clean_tree",
  "dirty",
  "branch_exists",
  "diff_contains",
  "file_restored",
] as const;

// --- integrations --------------------------------------------------------------------------

export const McpHandshakeCheckSchema = z
  .strictObject({
    ...base,
    type: z.literal("mcp_handshake"),
    server: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, "a server name uses letters, digits, _ and -")
      .optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    expect_tools: z.array(z.string().min(1)).default([]),
    timeout_ms: z.int().positive().max(600_000).default(15_000),
  })
  .superRefine((check, ctx) => {
    const given = [check.server, check.command, check.url].filter((value) => value !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({ code: "custom", message: "give exactly one of server, command (with args) or url" });
    }
    if (check.args && check.command === undefined) {
      ctx.addIssue({ code: "custom", path: ["args"], message: "args go with command" });
    }
    if (check.env && check.command === undefined) {
      ctx.addIssue({ code: "custom", path: ["env"], message: "env goes with command" });
    }
    if (check.headers && check.url === undefined) {
      ctx.addIssue({ code: "custom", path: ["headers"], message: "headers go with url" });
    }
  });

export const SkillValidCheckSchema = z
  .strictObject({
    ...base,
    type: z.literal("skill_valid"),
    name: z.string().min(1).optional(),
    path: PathSchema.optional(),
  })
  .refine(
    (check) => (check.name === undefined) !== (check.path === undefined),
    "give exactly one of name or path",
  );

export const ConfirmCheckSchema = z.strictObject({
  ...base,
  type: z.literal("confirm"),
  prompt: z.string().min(1),
});

export const CheckSchema = z.discriminatedUnion(
  "type",
  [
    EventCheckSchema,
    FileExistsCheckSchema,
    JsonPathCheckSchema,
    YamlPathCheckSchema,
    CommandCheckSchema,
    GitCheckSchema,
    McpHandshakeCheckSchema,
    SkillValidCheckSchema,
    ConfirmCheckSchema,
  ],
  { error: `type must be one of: ${CHECK_TYPES.join(", ")}` },
);

/** A parsed check, defaults applied, before it gets its id. */
export type ParsedCheck = z.infer<typeof CheckSchema>;
/** A check as the engine sees it: every check has an id. */
export type Check = ParsedCheck & { id: string };

export type EventCheck = Extract<Check, { type: "event" }>;
export type FileExistsCheck = Extract<Check, { type: "file_exists" }>;
export type StructuredPathCheck = Extract<Check, { type: "json_path" | "yaml_path" }>;
export type CommandCheck = Extract<Check, { type: "command" }>;
export type GitCheck = Extract<Check, { type: "git" }>;
export type McpHandshakeCheck = Extract<Check, { type: "mcp_handshake" }>;
export type SkillValidCheck = Extract<Check, { type: "skill_valid" }>;
export type ConfirmCheck = Extract<Check, { type: "confirm" }>;
