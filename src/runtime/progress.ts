/**
 * A learner's progress in one workspace: the active quest (pinned), the completed ones, the
 * skipped ones, confirm answers, the last result. One JSON file in the workspace's data folder,
 * written atomically and sealed (src/core/seal.ts). A file that cannot be read back, or that pi-quests did not write as
 * it is, is moved aside (never deleted) and progress starts over. It is read once, when a
 * session opens: during a session the controller's own progress is the truth. With a watch
 * (`ProgressWatch`), a file that is no longer what this process last wrote (while a session is
 * open, or between two sessions of one Pi process: a `/reload`) is set aside as altered and put
 * back, at the next load or save.
 */
import { mkdir, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeAtomically } from "../core/atomic-file.ts";
import { type Sealer, sealRecord, verifyRecord } from "../core/seal.ts";

/** The task verifier's DependencyPin, as progress stores it (sealed with the rest of the file). */
const DependencyPinSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("pinned"),
    version: z.literal(1),
    takenAt: z.string(),
    folders: z.array(z.string()),
    entries: z.int().min(0),
    units: z.record(z.string(), z.string()),
  }),
  z.strictObject({
    kind: z.literal("unpinnable"),
    version: z.literal(1),
    takenAt: z.string(),
    reason: z.string(),
  }),
]);

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
  /** node_modules as they were at activation: a command check never runs on changed dependencies. */
  dependencies: DependencyPinSchema.optional(),
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

export const ProgressSchema = z.strictObject({
  version: z.literal(1),
  active: ActiveQuestSchema.optional(),
  completed: z
    .record(
      z.string(),
      z.strictObject({
        at: z.string(),
        definitionHash: z.string(),
        /** The folder it was done in, when it was carried here from another (src/runtime/carry-over.ts). */
        from: z.string().optional(),
      }),
    )
    .default({}),
  /**
   * Quests the learner skipped (`/quest skip`): not done, but what requires them opens.
   * Absent in files written before skipping existed, and until a quest is skipped.
   */
  skipped: z.record(z.string(), z.strictObject({ at: z.string() })).optional(),
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
  | { kind: "recovered"; progress: Progress; backup: string; problem: string }
  /** pi-quests did not write the file as it is (no seal, or one that does not verify): set aside at `backup`. */
  | { kind: "altered"; progress: Progress; backup: string; reason: "unsealed" | "altered" };

export type ProgressStore = {
  readonly file: string;
  load(): Promise<ProgressLoad>;
  save(progress: Progress): Promise<void>;
};

/**
 * What this process last wrote to each progress file (the extension keeps it across the
 * sessions of one Pi process, src/extension/process-memory.ts), and whom to tell when the file
 * is no longer that: something other than this process wrote it, or removed it.
 */
export type ProgressWatch = {
  written: Pick<Map<string, string>, "get" | "set">;
  /** The file was not what this process last wrote; it was moved to `backup` (none: it was gone). */
  changedOnDisk(backup: string | undefined): void;
};

export function openProgressStore(
  file: string,
  sealer: Sealer,
  now: () => Date = () => new Date(),
  watch?: ProgressWatch,
): ProgressStore {
  const stamp = () => now().toISOString().replaceAll(":", "-");
  // Saves run one after another, so an older state never lands after a newer one.
  let queue: Promise<void> = Promise.resolve();
  /**
   * The file's text, put back to what this process last wrote when it is not that any more (the
   * other one is kept aside as altered): this process's memory wins over the disk.
   */
  const ownText = async (): Promise<string | undefined> => {
    const text = await readText(file);
    const own = watch?.written.get(file);
    if (own === undefined || text === own) return text;
    const backup = text === undefined ? undefined : `${file}.altered-${stamp()}`;
    if (backup !== undefined) await rename(file, backup);
    watch?.changedOnDisk(backup);
    await writeAtomically(file, own);
    return own;
  };
  return {
    file,
    async load() {
      const text = await ownText();
      if (text === undefined) return { kind: "fresh", progress: emptyProgress() };
      const json = parseJson(text);
      if (json.ok && isObject(json.value)) {
        const verified = verifyRecord(sealer, json.value);
        if (!verified.ok) {
          const backup = `${file}.altered-${stamp()}`;
          await rename(file, backup);
          return { kind: "altered", progress: emptyProgress(), backup, reason: verified.reason };
        }
        const parsed = ProgressSchema.safeParse(verified.record);
        if (parsed.success) {
          watch?.written.set(file, text);
          return { kind: "loaded", progress: parsed.data };
        }
      }
      const problem = json.ok ? schemaProblem(json.value) : json.problem;
      const backup = `${file}.corrupt-${stamp()}`;
      await rename(file, backup);
      return { kind: "recovered", progress: emptyProgress(), backup, problem };
    },
    save(progress) {
      const text = `${JSON.stringify(sealRecord(sealer, ProgressSchema.parse(progress)), null, 2)}\n`;
      queue = queue
        .catch(() => {})
        .then(async () => {
          await mkdir(dirname(file), { recursive: true });
          // A file changed since this process wrote it is kept aside and told before it is replaced.
          await ownText();
          await writeAtomically(file, text);
          watch?.written.set(file, text);
        });
      return queue;
    },
  };
}

/**
 * A progress file as it stands, read without touching it (`/quest packs` counts another pack's
 * done quests): undefined when it is missing, unreadable or not sealed by pi-quests.
 */
export async function peekProgress(file: string, sealer: Sealer): Promise<Progress | undefined> {
  const text = await readText(file).catch(() => undefined);
  const json = text === undefined ? undefined : parseJson(text);
  if (!json?.ok || !isObject(json.value)) return undefined;
  const verified = verifyRecord(sealer, json.value);
  const parsed = verified.ok ? ProgressSchema.safeParse(verified.record) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** The file's text; undefined when there is no file. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
}

/** Why a sealed JSON value is not a progress file. */
function schemaProblem(json: unknown): string {
  const { seal: _seal, ...rest } = isObject(json) ? json : { json };
  const parsed = ProgressSchema.safeParse(isObject(json) ? rest : json);
  const [issue] = parsed.success ? [] : parsed.error.issues;
  return issue ? `${issue.path.join(".") || "the file"}: ${issue.message}` : "not a progress file";
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
