/**
 * The reviewer's tools: Pi's own `read`, `grep`, `find` and `ls`, confined to the snapshot under
 * review, and `submit_review`. Pi's file tools accept absolute paths, `~` and `..`; here every
 * path is resolved against the snapshot and refused when it (or a link on its way) leads out of
 * it. Nothing here writes, runs a command or starts a child. `find` globs with pi-quests' own
 * walk, so it needs no fd; `grep` is Pi's (ripgrep), its folder checked first.
 */
import type { Dirent } from "node:fs";
import { access, constants, readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import type * as PiSdk from "@earendil-works/pi-coding-agent";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { globMatcher } from "../core/glob.ts";
import { locateInside } from "./path-containment.ts";

/** What the reviewer needs of Pi's SDK (handed in: this module never loads Pi). */
export type ReviewToolKit = Pick<
  typeof PiSdk,
  | "createReadToolDefinition"
  | "createGrepToolDefinition"
  | "createFindToolDefinition"
  | "createLsToolDefinition"
>;

export const SUBMIT_REVIEW = "submit_review";

/** The reviewer's tools, by name: exactly these, no others. */
export const REVIEWER_TOOL_NAMES = ["read", "grep", "find", "ls", SUBMIT_REVIEW] as const;

/** The path the reviewer asked for as the snapshot names it (for refusals). */
function shown(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === "" ? "." : rel;
}

/** `absolute` when it stays inside `root` (links followed); else throws the refusal the model sees. */
async function confined(root: string, absolute: string): Promise<string> {
  const located = await locateInside(root, absolute);
  if (located.kind === "inside") return located.real;
  if (located.kind === "missing") throw new Error(`${shown(root, absolute)}: no such file`);
  throw new Error(`${absolute} is outside the workspace under review; only files inside it can be read`);
}

/** A path argument resolved against the snapshot, refused when it leaves it. */
async function confinedArgument(root: string, path: unknown): Promise<void> {
  if (path === undefined || path === null || path === "") return;
  if (typeof path !== "string") throw new Error("path must be a string");
  if (path.startsWith("~") || isAbsolute(path)) {
    throw new Error(`${path} is outside the workspace under review; give a path relative to it`);
  }
  await confined(root, resolve(root, path));
}

function confinedRead(kit: ReviewToolKit, root: string): ToolDefinition {
  return kit.createReadToolDefinition(root, {
    // No detectImageMimeType: every file is read as text, so no image goes to the provider.
    operations: {
      readFile: async (absolute) => readFile(await confined(root, absolute)),
      access: async (absolute) => access(await confined(root, absolute), constants.R_OK),
    },
  }) as unknown as ToolDefinition;
}

/** Whether `absolute` is there and inside `root` (a path out of it is as good as absent). */
async function existsInside(root: string, absolute: string): Promise<boolean> {
  try {
    await confined(root, absolute);
    return true;
  } catch {
    return false;
  }
}

function confinedLs(kit: ReviewToolKit, root: string): ToolDefinition {
  return kit.createLsToolDefinition(root, {
    operations: {
      exists: (absolute) => existsInside(root, absolute),
      stat: async (absolute) => stat(await confined(root, absolute)),
      readdir: async (absolute) => readdir(await confined(root, absolute)),
    },
  }) as unknown as ToolDefinition;
}

/** Every file below `folder` (links not followed), relative to it. */
async function walkFiles(folder: string, limit: number): Promise<string[]> {
  const found: string[] = [];
  const visit = async (sub: string): Promise<void> => {
    let children: Dirent[];
    try {
      children = await readdir(join(folder, sub), { withFileTypes: true });
    } catch {
      return;
    }
    for (const child of children) {
      if (found.length >= limit) return;
      const path = sub === "" ? child.name : `${sub}/${child.name}`;
      if (child.isDirectory()) await visit(path);
      else found.push(path);
    }
  };
  await visit("");
  return found;
}

function confinedFind(kit: ReviewToolKit, root: string): ToolDefinition {
  return kit.createFindToolDefinition(root, {
    operations: {
      exists: (absolute) => existsInside(root, absolute),
      glob: async (pattern, cwd, { limit }) => {
        const folder = await confined(root, cwd);
        const matches = globMatcher([pattern.includes("/") ? pattern : `**/${pattern}`]);
        return (await walkFiles(folder, 10_000)).filter(matches).slice(0, limit);
      },
    },
  }) as unknown as ToolDefinition;
}

function confinedGrep(kit: ReviewToolKit, root: string): ToolDefinition {
  const grep = kit.createGrepToolDefinition(root) as unknown as ToolDefinition;
  return {
    ...grep,
    async execute(id, params, signal, onUpdate, ctx) {
      await confinedArgument(root, (params as { path?: unknown }).path);
      return grep.execute(id, params, signal, onUpdate, ctx);
    },
  };
}

/** Told of each `submit_review` call; the tool ends the reviewer's run. */
function submitReview(onSubmit: (args: unknown) => void): ToolDefinition {
  return {
    name: SUBMIT_REVIEW,
    label: "Submit review",
    description:
      "Record your judgment of the criterion, once: verdict pass or fail, and evidence, for each file your judgment rests on, its path (relative to the workspace) and a short passage copied exactly from what read returned of it.",
    // A plain JSON Schema: Pi validates it like a TypeBox one.
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["verdict", "evidence"],
      properties: {
        verdict: { type: "string", enum: ["pass", "fail"] },
        evidence: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["path", "quote"],
            properties: { path: { type: "string" }, quote: { type: "string" } },
          },
        },
      },
    } as unknown as ToolDefinition["parameters"],
    async execute(_id, params) {
      onSubmit(params);
      return { content: [{ type: "text", text: "Judgment recorded." }], details: undefined, terminate: true };
    },
  };
}

/** The five tools of a reviewer rooted at `root`. */
export function reviewerTools(
  kit: ReviewToolKit,
  root: string,
  onSubmit: (args: unknown) => void,
): ToolDefinition[] {
  return [
    confinedRead(kit, root),
    confinedGrep(kit, root),
    confinedFind(kit, root),
    confinedLs(kit, root),
    submitReview(onSubmit),
  ];
}
