/**
 * A learner's progress in one workspace: the active quest (pinned), the completed ones, confirm
 * answers, the last result. One JSON file in the workspace's data folder, written atomically. A
 * file that cannot be read back is moved aside (never deleted) and progress starts over.
 */
import { mkdir, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeAtomically } from "../core/atomic-file.ts";

const ActiveQuestSchema = z.strictObject({
  questId: z.string(),
  /** The quest's definition as it was at activation; later edits to quest files do not count. */
  definition: z.record(z.string(), z.unknown()),
  definitionHash: z.string(),
  /** HEAD at activation: what git checks and "commits since the quest started" compare against. */
  baseline: z.string().optional(),
  /**
   * A sandbox quest's oracle: the template's own commit (from `sandbox.baseline`), where command
   * checks restore tests and other protected files from. Absent without a sandbox (then `baseline`).
   */
  oracleBaseline: z.string().optional(),
  activatedAt: z.string(),
  /** The first event this activation sees: earlier work belongs to earlier attempts. */
  fromSeq: z.int().min(0),
  hintsShown: z.int().min(0).default(0),
});
export type ActiveQuest = z.infer<typeof ActiveQuestSchema>;

const StatusSchema = z.enum(["pass", "fail", "pending"]);
/** A QuestResult as far as the HUD and /quest status read it; evidence beyond its summary is kept as is. */
const LastResultSchema = z.looseObject({
  quest: z.string(),
  status: StatusSchema,
  counts: z.strictObject({ passed: z.int(), failed: z.int(), pending: z.int() }),
  checks: z.array(
    z.looseObject({
      id: z.string(),
      type: z.string(),
      status: StatusSchema,
      evidence: z.looseObject({ kind: z.string(), summary: z.string() }),
    }),
  ),
});

const ConfirmationSchema = z.strictObject({ answer: z.boolean(), at: z.string() });

const ProgressSchema = z.strictObject({
  version: z.literal(1),
  active: ActiveQuestSchema.optional(),
  completed: z.record(z.string(), z.strictObject({ at: z.string(), definitionHash: z.string() })).default({}),
  /** Confirm answers per quest and check id. */
  confirmations: z.record(z.string(), z.record(z.string(), ConfirmationSchema)).default({}),
  /** The last published result of the active quest (its checks and evidence). */
  lastResult: LastResultSchema.optional(),
  /** Events before this seq belong to progress that was reset. */
  epochSeq: z.int().min(0).default(0),
  /** The sandbox template this workspace was made from, so quests that share it reuse it. */
  sandbox: z.strictObject({ template: z.string(), baseline: z.string(), at: z.string() }).optional(),
});
export type Progress = z.infer<typeof ProgressSchema>;

export const emptyProgress = (): Progress => ({ version: 1, completed: {}, confirmations: {}, epochSeq: 0 });

export type ProgressLoad =
  | { kind: "fresh"; progress: Progress }
  | { kind: "loaded"; progress: Progress }
  /** The file was unreadable; it now lives at `backup` and progress starts over. */
  | { kind: "recovered"; progress: Progress; backup: string; problem: string };

export type ProgressStore = {
  readonly file: string;
  load(): Promise<ProgressLoad>;
  save(progress: Progress): Promise<void>;
};

export function openProgressStore(file: string, now: () => Date = () => new Date()): ProgressStore {
  // Saves run one after another, so an older state never lands after a newer one.
  let queue: Promise<void> = Promise.resolve();
  return {
    file,
    async load() {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
          return { kind: "fresh", progress: emptyProgress() };
        throw error;
      }
      const problem = parseProblem(text);
      if (problem === undefined) return { kind: "loaded", progress: ProgressSchema.parse(JSON.parse(text)) };
      const backup = `${file}.corrupt-${now().toISOString().replaceAll(":", "-")}`;
      await rename(file, backup);
      return { kind: "recovered", progress: emptyProgress(), backup, problem };
    },
    save(progress) {
      const text = `${JSON.stringify(ProgressSchema.parse(progress), null, 2)}\n`;
      queue = queue
        .catch(() => {})
        .then(async () => {
          await mkdir(dirname(file), { recursive: true });
          await writeAtomically(file, text);
        });
      return queue;
    },
  };
}

/** Why the text is not a progress file, or undefined when it is one. */
function parseProblem(text: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const parsed = ProgressSchema.safeParse(json);
  if (parsed.success) return undefined;
  const [issue] = parsed.error.issues;
  return issue ? `${issue.path.join(".") || "the file"}: ${issue.message}` : "not a progress file";
}
