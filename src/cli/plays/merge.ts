/**
 * `pi-quests test --merge`: the JSON reports of the N shards of one run (`--shard K/N
 * --reporter json`) read back and joined into the report one run would have made. Reports that
 * are not of one run are refused, each problem a sentence naming the file: another pack (its
 * quests, plays or sandboxes differ), another pi-quests or Pi, another `--strict`, other plays
 * planned (another `--quest`, `--chapter` or `--advised-order`), a shard given twice or missing,
 * a play in two reports or in none.
 */
import { z } from "zod";
import type { QuestResult } from "../../verifier/results.ts";
import type { PlayReport, TestReport } from "./report.ts";

/** One report as read: its file (as given, for messages) and its text. */
export type ReportFile = { file: string; text: string };

type Merged = { ok: true; report: TestReport } | { ok: false; message: string };

const Status = z.enum(["pass", "fail", "pending"]);
const Count = z.number().int().min(0);

/** What the reporters read of a quest's result: the rest of the evidence is kept as it was. */
const ResultSchema = z.looseObject({
  quest: z.string(),
  status: Status,
  counts: z.strictObject({ passed: Count, failed: Count, pending: Count }),
  checks: z.array(
    z.looseObject({
      id: z.string(),
      type: z.string(),
      status: Status,
      evidence: z.looseObject({ kind: z.string(), summary: z.string() }),
    }),
  ),
});

const PlaySchema = z.looseObject({
  quest: z.string(),
  play: z.string(),
  expected: z.enum(["complete", "not complete"]),
  outcome: z.enum(["complete", "not complete", "error"]),
  ok: z.boolean(),
  reason: z.string().optional(),
  durationMs: z.number().min(0),
  containment: z.enum(["pid-namespace", "process-group"]).optional(),
  failedTools: z.array(z.strictObject({ step: z.string(), tool: z.string(), error: z.string() })).optional(),
  result: ResultSchema.nullable(),
});

const ShardSchema = z.looseObject({
  index: z.number().int().min(1),
  count: z.number().int().min(1),
  planned: z.array(z.string()),
  packDigest: z.string(),
  piQuestsVersion: z.string(),
  pack: z.string(),
  piVersion: z.string().optional(),
  strict: z.boolean(),
});

const ReportSchema = z.looseObject({
  plays: z.array(PlaySchema),
  unproven: z.array(z.string()),
  shard: ShardSchema.optional(),
});

type ShardReport = { file: string; shard: z.infer<typeof ShardSchema>; report: z.infer<typeof ReportSchema> };

/** One file's report, or a sentence naming the file and what is wrong with it. */
export function readShardReport({
  file,
  text,
}: ReportFile): { ok: true; value: ShardReport } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${file} is not JSON (${(error as Error).message})` };
  }
  const parsed = ReportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    return {
      ok: false,
      message: `${file} is not a report of pi-quests test --reporter json${at}: ${issue?.message ?? "invalid"}`,
    };
  }
  const { shard } = parsed.data;
  if (!shard)
    return {
      ok: false,
      message: `${file} is not a shard's report: make each with pi-quests test PACK --shard K/N --reporter json`,
    };
  if (shard.index > shard.count)
    return { ok: false, message: `${file} says it is shard ${shard.index}/${shard.count}, which cannot be` };
  return { ok: true, value: { file, shard, report: parsed.data } };
}

/** The shards' reports as one run's report, or why they cannot be joined. */
export function mergeShardReports(files: readonly ReportFile[]): Merged {
  const shards: ShardReport[] = [];
  for (const file of files) {
    const read = readShardReport(file);
    if (!read.ok) return read;
    shards.push(read.value);
  }
  const [first] = shards;
  if (!first) return { ok: false, message: "give the JSON reports of the shards to merge" };
  const problem =
    shards.map((other) => sameRun(first, other)).find((message) => message !== undefined) ??
    shardsProblem(shards) ??
    playsProblem(shards, first.shard.planned);
  if (problem !== undefined) return { ok: false, message: problem };
  return { ok: true, report: joined(shards, first) };
}

/** Why `other` is not a shard of the run `first` is one of, if it is not. */
function sameRun(first: ShardReport, other: ShardReport): string | undefined {
  const a = first.shard;
  const b = other.shard;
  const than = `than ${first.file}`;
  if (b.packDigest !== a.packDigest)
    return `${other.file} is a report of another pack ${than} (${b.pack} against ${a.pack}: their quests, plays or sandboxes differ); merge the shards of one run`;
  if (b.piQuestsVersion !== a.piQuestsVersion)
    return `${other.file} was played by pi-quests ${b.piQuestsVersion}, ${first.file} by pi-quests ${a.piQuestsVersion}; merge the shards of one run`;
  if (b.piVersion !== a.piVersion)
    return `${other.file} was played on Pi ${b.piVersion ?? "(unknown)"}, ${first.file} on Pi ${a.piVersion ?? "(unknown)"}; merge the shards of one run`;
  if (b.count !== a.count)
    return `${other.file} is shard ${b.index}/${b.count}, ${first.file} shard ${a.index}/${a.count}: the shards of one run share N`;
  if (b.strict !== a.strict)
    return `${other.file} ran ${b.strict ? "with" : "without"} --strict, ${first.file} did not`;
  if (b.planned.join("\n") !== a.planned.join("\n"))
    return `${other.file} planned other plays ${than} (another --quest, --chapter or --advised-order); merge the shards of one run`;
  return undefined;
}

/** A shard given twice, or missing. */
function shardsProblem(shards: readonly ShardReport[]): string | undefined {
  const seen = new Map<number, string>();
  for (const { file, shard } of shards) {
    const earlier = seen.get(shard.index);
    if (earlier !== undefined) return `${earlier} and ${file} are both shard ${shard.index}/${shard.count}`;
    seen.set(shard.index, file);
  }
  const count = shards[0]?.shard.count ?? 0;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !seen.has(index));
  if (missing.length === 0) return undefined;
  const which = missing.map((index) => `${index}/${count}`).join(", ");
  return `shard ${which} ${missing.length === 1 ? "is" : "are"} missing: give the reports of all ${count} shards`;
}

/** A play in two reports, one no plan has, or a planned play in none. */
function playsProblem(shards: readonly ShardReport[], planned: readonly string[]): string | undefined {
  const where = new Map<string, string>();
  for (const { file, report } of shards)
    for (const play of report.plays) {
      const name = `${play.quest}/${play.play}`;
      const earlier = where.get(name);
      if (earlier !== undefined)
        return `the play ${name} is in ${earlier} and in ${file}: the shards overlap`;
      if (!planned.includes(name)) return `the play ${name} in ${file} is not one the shards planned`;
      where.set(name, file);
    }
  const lost = planned.filter((name) => !where.has(name));
  if (lost.length > 0)
    return `the planned play ${lost[0]} is in no report${lost.length > 1 ? ` (nor ${lost.length - 1} more)` : ""}`;
  return undefined;
}

/** The plays in planned order, the unproven quests once each, as one run's report. */
function joined(shards: readonly ShardReport[], first: ShardReport): TestReport {
  const order = first.shard.planned;
  const plays = shards
    .flatMap(({ report }) => report.plays.map(playReport))
    .sort((a, b) => order.indexOf(`${a.quest}/${a.play}`) - order.indexOf(`${b.quest}/${b.play}`));
  return {
    pack: first.shard.pack,
    plays,
    unproven: [...new Set(shards.flatMap(({ report }) => report.unproven))],
    strict: first.shard.strict,
    ...(first.shard.piVersion !== undefined ? { piVersion: first.shard.piVersion } : {}),
  };
}

function playReport(play: z.infer<typeof PlaySchema>): PlayReport {
  return {
    quest: play.quest,
    play: play.play,
    expected: play.expected,
    outcome: play.outcome,
    ok: play.ok,
    ...(play.reason !== undefined ? { reason: play.reason } : {}),
    durationMs: play.durationMs,
    // Written by pi-quests' JSON reporter, and checked above for what the reporters read.
    ...(play.result ? { result: play.result as unknown as QuestResult } : {}),
    ...(play.containment ? { containment: play.containment } : {}),
    ...(play.failedTools?.length ? { failedTools: play.failedTools } : {}),
  };
}
