/**
 * `pi-quests test PACK_DIR`: every quest of a pack proven in the real Pi. Each play under
 * `solutions/<quest>/` is played (plays.ts has how), then reported: exit 0 when every play ended
 * as its name says, 1 when one did not, 3 on invalid input (the pack's or a play's errors with
 * file:line:col, nothing played).
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "../core/version.ts";
import { loadQuests } from "../verifier/loader.ts";
import { loadPlays } from "../verifier/play-loader.ts";
import type { Quest } from "../verifier/quest.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, printDiagnostics, tryParse } from "./io.ts";
import { EXTENSION_FILES, PLAY_TIMEOUTS } from "./plays/defaults.ts";
import { packDigest } from "./plays/pack-digest.ts";
import { findPi } from "./plays/pi-binary.ts";
import { planAdvisedOrder, planChains } from "./plays/plan.ts";
import { type TestReport, testExitCode } from "./plays/report.ts";
import { isReporterName, REPORTER_NAMES, REPORTERS } from "./plays/reporters.ts";
import { type PlayRun, runPlays, shareRequirements } from "./plays/runner.ts";
import { chainsOfShard, parseShard } from "./plays/shard.ts";
import { TEST_USAGE } from "./usage.ts";

const TEST_OPTIONS = {
  quest: { type: "string", multiple: true },
  chapter: { type: "string", multiple: true },
  reporter: { type: "string" },
  jobs: { type: "string" },
  strict: { type: "boolean" },
  "advised-order": { type: "boolean" },
  keep: { type: "boolean" },
  shard: { type: "string" },
  merge: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** What a merge refuses: each belongs to the runs of the shards it joins. */
const MERGE_ALONE = ["quest", "chapter", "jobs", "strict", "advised-order", "keep", "shard"] as const;

const invalid = (io: CliIo, message: string): number => {
  io.stderr(`pi-quests test: ${message}\n`);
  return EXIT.invalid;
};

export async function test(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () => parseArgs({ args, options: TEST_OPTIONS, allowPositionals: true, strict: true }),
    TEST_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(TEST_USAGE);
    return EXIT.pass;
  }
  const reporter = values.reporter ?? "text";
  if (!isReporterName(reporter))
    return invalid(io, `--reporter is one of ${REPORTER_NAMES.join(", ")}, not "${reporter}"`);
  if (values.merge) {
    const alone = MERGE_ALONE.find((option) => values[option] !== undefined);
    if (alone !== undefined)
      return invalid(io, `--merge joins the shards' reports: --${alone} belongs to the shards' runs`);
    return (await import("./test-merge.ts")).testMerge(positionals, reporter, io);
  }
  if (positionals.length !== 1)
    return invalid(io, `give exactly one pack folder (got ${positionals.length})`);
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (shard && !shard.ok) return invalid(io, shard.message);
  const jobs = values.jobs === undefined ? availableParallelism() : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64)
    return invalid(io, `--jobs is a whole number from 1 to 64, not "${values.jobs}"`);

  const pack = resolve(io.cwd, positionals[0] ?? "");
  const quests = await loadQuests(pack);
  if (!quests.ok) return printDiagnostics(io, quests.diagnostics);
  const ids = quests.value.map((quest) => quest.id);
  const plays = await loadPlays(pack, ids);
  if (!plays.ok) return printDiagnostics(io, plays.diagnostics);
  const askedQuests = values.quest ?? [];
  const unknown = askedQuests.find((id) => !ids.includes(id));
  if (unknown !== undefined)
    return invalid(io, `no quest "${unknown}" in ${positionals[0]}; its quests: ${ids.join(", ")}`);
  const inChapters = questsOfChapters(quests.value, values.chapter ?? []);
  if (!inChapters.ok) return invalid(io, inChapters.message);
  const pi = findPi({ env: io.env, cwd: io.cwd });
  if (!pi.ok) return invalid(io, pi.message);

  const asked = (quest: string) =>
    (askedQuests.length === 0 || askedQuests.includes(quest)) && (inChapters.ids?.has(quest) ?? true);
  const advised = values["advised-order"] === true;
  const sequence = planAdvisedOrder(quests.value, plays.value, asked);
  const chosen = advised
    ? sequence.filter((play) => asked(play.quest))
    : plays.value.filter((play) => asked(play.quest));
  const mine = shard?.shard;
  // Planned with every play: a chosen quest's requirements are set up by their own pass plays.
  const chains = planChains(quests.value, plays.value).filter((chain) => chosen.includes(chain.play));
  // The advised order is one chain: a shard's run plays it whole in shard 1.
  const runs: PlayRun[] = advised
    ? mine && mine.index !== 1
      ? []
      : [{ kind: "sequence", plays: sequence }]
    : shareRequirements(mine ? chainsOfShard(chains, mine) : chains, jobs);
  const { reports: played, kept } = await runPlays(runs, {
    pack,
    piCli: pi.pi.cli,
    extensions: EXTENSION_FILES,
    sandboxed: new Set(quests.value.filter((quest) => quest.sandboxDir).map((quest) => quest.id)),
    env: io.env,
    jobs,
    keep: values.keep === true,
    timeouts: PLAY_TIMEOUTS,
  });
  // In the advised order the quests before the ones asked are played too, to get there; only the asked are reported.
  const order = (report: { quest: string; play: string }) =>
    chosen.findIndex((play) => play.quest === report.quest && play.name === report.play);
  const reports = played.filter((play) => asked(play.quest)).sort((a, b) => order(a) - order(b));
  const report: TestReport = {
    pack: positionals[0] ?? "",
    plays: reports,
    // A shard's run leaves the unproven quests to shard 1, so that merged they are said once.
    unproven:
      mine && mine.index !== 1
        ? []
        : unproven(
            quests.value.filter((quest) => asked(quest.id)),
            chosen,
          ),
    strict: values.strict === true,
    piVersion: pi.pi.version,
    ...(mine
      ? {
          shard: {
            ...mine,
            planned: chosen.map((play) => `${play.quest}/${play.name}`),
            packDigest: await packDigest({ pack, quests: quests.value, plays: plays.value }),
            piQuestsVersion: VERSION,
          },
        }
      : {}),
  };
  io.stdout(await REPORTERS[reporter](report));
  if (kept) io.stderr(`pi-quests test: the plays' folders are kept in ${kept}\n`);
  return testExitCode(report);
}

/** The quests (those asked for) that no pass play proves. */
function unproven(quests: readonly Quest[], plays: readonly { quest: string; name: string }[]): string[] {
  return quests
    .filter((quest) => !plays.some((play) => play.quest === quest.id && play.name === "pass"))
    .map((quest) => quest.id);
}

/**
 * The ids of the quests in the chapters `asked` (titles, or numbers in the order the chapters
 * first appear in the pack); undefined ids when none was asked (every quest).
 */
export function questsOfChapters(
  quests: readonly Pick<Quest, "id" | "chapter">[],
  asked: readonly string[],
): { ok: true; ids?: Set<string> } | { ok: false; message: string } {
  if (asked.length === 0) return { ok: true };
  const chapters = [...new Set(quests.flatMap((quest) => (quest.chapter ? [quest.chapter] : [])))];
  const titles = new Set<string>();
  for (const word of asked) {
    const number = /^[1-9][0-9]*$/.test(word) ? Number(word) : undefined;
    const title = chapters.includes(word) ? word : number !== undefined ? chapters[number - 1] : undefined;
    if (title === undefined) {
      const listed = chapters.map((chapter, index) => `${index + 1} "${chapter}"`).join(", ");
      return {
        ok: false,
        message: `no chapter "${word}" in this pack; its chapters: ${listed || "none (no quest has a chapter)"}`,
      };
    }
    titles.add(title);
  }
  return {
    ok: true,
    ids: new Set(
      quests.filter((quest) => quest.chapter && titles.has(quest.chapter)).map((quest) => quest.id),
    ),
  };
}
