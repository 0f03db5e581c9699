/**
 * `pi-quests sandbox`: the workspace a learner would start a quest in, made in a folder of the
 * author's choosing (the quest's sandbox template copied, a git repository, the baseline
 * committed, as `/quest start` makes it), for trying things by hand. Required quests are not
 * played.
 */
import { mkdir, readdir, rmdir, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeFsError, formatDiagnostic } from "../core/diagnostics.ts";
import { prepareSandbox } from "../runtime/sandbox.ts";
import { loadQuests } from "../verifier/loader.ts";
import type { Quest } from "../verifier/quest.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, tryParse } from "./io.ts";
import { SANDBOX_USAGE } from "./usage.ts";

const SANDBOX_OPTIONS = {
  quest: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const invalid = (io: CliIo, message: string): number => {
  io.stderr(`pi-quests sandbox: ${message}\n`);
  return EXIT.invalid;
};

export async function sandbox(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () => parseArgs({ args, options: SANDBOX_OPTIONS, allowPositionals: true, strict: true }),
    SANDBOX_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(SANDBOX_USAGE);
    return EXIT.pass;
  }
  const [source, target] = positionals;
  if (positionals.length !== 2 || source === undefined || target === undefined) {
    return invalid(
      io,
      `give a quest file or pack folder, then the folder to set up (got ${positionals.length} argument(s))`,
    );
  }
  const loaded = await loadQuests(resolve(io.cwd, source));
  if (!loaded.ok) {
    for (const diagnostic of loaded.diagnostics) io.stderr(`${formatDiagnostic(diagnostic)}\n`);
    return EXIT.invalid;
  }
  const quest = chooseQuest(loaded.value, values.quest);
  if (!quest.ok) return invalid(io, quest.message);
  const dir = resolve(io.cwd, target);
  const made = await emptyFolder(dir);
  if (!made.ok) return invalid(io, made.message);
  return setUp(quest.quest, dir, made.created, io);
}

function chooseQuest(
  quests: readonly Quest[],
  wanted: string | undefined,
): { ok: true; quest: Quest } | { ok: false; message: string } {
  const ids = quests.map((quest) => quest.id).join(", ");
  const quest =
    wanted !== undefined
      ? quests.find((candidate) => candidate.id === wanted)
      : quests.length === 1
        ? quests[0]
        : undefined;
  if (quest) return { ok: true, quest };
  return {
    ok: false,
    message:
      wanted !== undefined
        ? `no quest "${wanted}" here; the quests are: ${ids}`
        : `this pack has ${quests.length} quests; choose one with --quest ID (${ids})`,
  };
}

/** `dir` as an empty folder: made when absent (with its parents), refused when it holds anything. */
async function emptyFolder(
  dir: string,
): Promise<{ ok: true; created: boolean } | { ok: false; message: string }> {
  try {
    if (!(await stat(dir)).isDirectory()) return { ok: false, message: `${dir} is not a folder` };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return { ok: false, message: `${dir}: ${describeFsError(error)}` };
    try {
      await mkdir(dir, { recursive: true });
      return { ok: true, created: true };
    } catch (made) {
      return { ok: false, message: `${dir}: ${describeFsError(made)}` };
    }
  }
  const entries = await readdir(dir);
  if (entries.length === 0) return { ok: true, created: false };
  const shown = entries.slice(0, 3).join(", ") + (entries.length > 3 ? ", …" : "");
  return { ok: false, message: `${dir} is not empty (${shown}); give a folder that is absent or empty` };
}

async function setUp(quest: Quest, dir: string, created: boolean, io: CliIo): Promise<number> {
  if (!quest.sandboxDir) {
    io.stdout(`${quest.id} has no sandbox: a learner starts it in any folder, so ${dir} is left empty.\n`);
    return EXIT.pass;
  }
  const prepared = await prepareSandbox({
    template: quest.sandboxDir,
    workspace: dir,
    questId: quest.id,
    env: io.env,
  });
  if (!prepared.ok) {
    // The setup empties the folder again; one this command made goes too.
    if (created) await rmdir(dir).catch(() => {});
    io.stderr(`pi-quests sandbox: ${prepared.message}\n`);
    return EXIT.fail;
  }
  io.stdout(
    [
      `${dir}: the workspace of ${quest.id} (${quest.title})`,
      `  template: ${quest.sandboxDir}`,
      `  baseline: ${prepared.baseline}`,
      "",
    ].join("\n"),
  );
  return EXIT.pass;
}
