/**
 * `node bench/against.ts REV [--only GROUP,...]`: what a change costs, measured side by
 * side with another commit in one run: the engine, one CLI process, Pi's start with the extension,
 * the isolated verifier, fingerprints and receipts. REV's tree is checked out in a temporary worktree (this
 * checkout's node_modules linked in, or its own installed when the lock files differ), and the same benchmarks of both trees run in turns, A B B A,
 * so load on the machine falls on both alike. Each figure is the mean of a tree's two medians;
 * the ratio is this tree's figure over REV's.
 *
 * Groups (all by default): engine, cli, pi, verifier, fingerprint, receipts, and `unchanged`:
 * a 10,000-file workspace left alone past the racy window, answered from its receipt by a whole
 * `pi-quests check` process and in process (bench/receipts.ts benchUnchanged), beside `git
 * status --porcelain` on it, the load's yardstick. `--only` runs the groups it names.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ms } from "./measure.ts";

const GROUPS = ["engine", "cli", "pi", "verifier", "fingerprint", "receipts", "unchanged"] as const;
type Group = (typeof GROUPS)[number];
const args = process.argv.slice(2);
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? "").split(",") : [...GROUPS];
const revision = args.find((arg, at) => !arg.startsWith("--") && (onlyAt < 0 || at !== onlyAt + 1));
const unknown = only.filter((group) => !(GROUPS as readonly string[]).includes(group));
if (!revision || unknown.length > 0) {
  process.stderr.write(
    `usage: node bench/against.ts REV [--only ${GROUPS.join(",")}]   (a commit to compare this tree with)\n`,
  );
  process.exit(3);
}
const runs = (group: Group) => only.includes(group);
const here = resolve(import.meta.dirname, "..");
const other = join(mkdtempSync(join(tmpdir(), "pi-quests-against-")), "tree");
execFileSync("git", ["worktree", "add", "--detach", "--quiet", other, revision], { cwd: here });
// The same dependencies: linked. Others (a dependency added or dropped since): installed there.
const sameLock =
  readFileSync(join(here, "package-lock.json"), "utf8") ===
  readFileSync(join(other, "package-lock.json"), "utf8");
if (sameLock) symlinkSync(join(here, "node_modules"), join(other, "node_modules"));
else
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: other,
    stdio: "inherit",
  });

type Figure = { name: string; median: number };
type Tree = { label: string; root: string };

/** One pass of the benchmarks of `tree`, as named medians (ms). */
async function pass(tree: Tree, base: string): Promise<Figure[]> {
  const verifier = await import(join(tree.root, "bench/task-verifier.ts"));
  const fingerprint = await import(join(tree.root, "bench/fingerprint.ts"));
  const receipts = await import(join(tree.root, "bench/receipts.ts"));
  const engine = await import(join(tree.root, "bench/engine.ts"));
  const cli = await import(join(tree.root, "bench/cli.ts"));
  const extension = await import(join(tree.root, "bench/extension.ts"));
  const figures: Figure[] = [];
  if (runs("engine"))
    for (const row of await engine.benchEngine([10_000])) {
      figures.push({
        name: `evaluateQuest, 50 checks, ${row.events} events (ms)`,
        median: row.engine.median,
      });
    }
  // From the sources in both trees: a tree before the built package's rows has only `check`.
  if (runs("cli")) {
    const cliRun = await cli.benchCli(9);
    figures.push({
      name: "one `pi-quests check` process (ms)",
      median: (cliRun.checkSources ?? cliRun.check).median,
    });
  }
  if (runs("pi"))
    for (const row of await extension.benchPiStart(join(base, "pi"), 7, 1, 1)) {
      if (!row.label.includes("without") && !row.label.includes("first run"))
        figures.push({ name: `${row.label.replaceAll("|", "/")} (ms)`, median: row.stats.median });
    }
  const cases = [
    { files: 100, label: "no-op", content: "true", runs: 15 },
    { files: 10_000, label: "no-op", content: "true", runs: 7 },
  ];
  if (runs("verifier"))
    for (const row of await verifier.benchTaskVerifier(join(base, "verifier"), cases)) {
      figures.push({
        name: `verifier overhead, ${row.files} files (ms)`,
        median: row.isolated.median - row.direct.median,
      });
    }
  if (runs("fingerprint"))
    for (const row of await fingerprint.benchFingerprint(join(base, "fingerprint"))) {
      figures.push({
        name: `fingerprint ${row.path}, ${row.objects} objects (ms)`,
        median: row.timing.median,
      });
    }
  if (runs("receipts"))
    for (const row of await receipts.benchReceipts(join(base, "receipts"))) {
      figures.push({
        name: `unchanged re-evaluation from the receipt, ${row.files} files (ms)`,
        median: row.reused.median,
      });
    }
  if (runs("unchanged")) {
    const row = await receipts.benchUnchanged(join(base, "unchanged"), 10_000, 9);
    figures.push(
      { name: "`git status --porcelain`, 10000 files (the load's yardstick) (ms)", median: row.gitStatus },
      {
        name: "`pi-quests check` process answered from its receipt, 10000 files (ms)",
        median: row.processes[0]?.median ?? Number.NaN,
      },
      { name: "the same in process (the extension's evaluator) (ms)", median: row.inProcess },
    );
  }
  return figures;
}

const trees: Tree[] = [
  { label: revision, root: other },
  { label: "this tree", root: here },
];
// Under the home folder (not /tmp, often tmpfs, where no stat record is kept), and a folder of
// this run's own: two runs on one machine never remove each other's files.
mkdirSync(join(homedir(), ".cache"), { recursive: true });
const base = mkdtempSync(join(homedir(), ".cache", "pi-quests-against-"));
const results = new Map<string, Figure[][]>();
try {
  for (const tree of [trees[0], trees[1], trees[1], trees[0]] as Tree[]) {
    process.stderr.write(`measuring ${tree.label}…\n`);
    const figures = await pass(tree, base);
    results.set(tree.label, [...(results.get(tree.label) ?? []), figures]);
    rmSync(base, { recursive: true, force: true });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
  execFileSync("git", ["worktree", "remove", "--force", other], { cwd: here });
}

const mean = (label: string, name: string) => {
  const medians = (results.get(label) ?? []).map((figures) => figures.find((f) => f.name === name)?.median);
  const found = medians.filter((value): value is number => value !== undefined);
  return found.reduce((sum, value) => sum + value, 0) / found.length;
};
const names = (results.get("this tree") ?? [])[0]?.map((figure) => figure.name) ?? [];
process.stdout.write(`| figure | ${revision} | this tree | ratio |\n|---|---:|---:|---:|\n`);
for (const name of names) {
  const before = mean(revision, name);
  const after = mean("this tree", name);
  process.stdout.write(`| ${name} | ${ms(before)} | ${ms(after)} | ${(after / before).toFixed(2)} |\n`);
}
