/**
 * `pi-quests play PACK_DIR`: try a pack while writing it, in the real Pi's terminal UI, in a
 * fresh workspace and agent dir of its own (removed when Pi exits, unless `--keep`). With
 * `--solution FILE`, Pi runs offline with pi-quests' scripted model giving that play's replies
 * (its steps are printed first: what to type); without, with the author's own model (Pi's
 * `auth.json`, `models.json` and `settings.json` are linked from the real agent dir; nothing
 * else of it is used, so progress never lands there). With `--quest ID`, the quests it requires
 * are completed first by their pass plays, headless, as `pi-quests test` does, and Pi opens on it.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  PLAY_DISPOSABLE_ENV,
  PLAY_MODEL,
  PLAY_PROVIDER,
  PLAY_REPLIES_ENV,
  PLAY_SOLUTION_ENV,
} from "../core/play-replies.ts";
import { loadQuests } from "../verifier/loader.ts";
import type { Play } from "../verifier/play.ts";
import { loadPlays, readPlayFile } from "../verifier/play-loader.ts";
import { playStepsInWords } from "../verifier/play-words.ts";
import { EXIT } from "./exit-codes.ts";
import { agentDirOf, type CliIo, printDiagnostics, tryParse } from "./io.ts";
import { playRepliesOf, playRequirements } from "./plays/chain-run.ts";
import { openPlayContainment } from "./plays/containment.ts";
import { EXTENSION_FILES, PLAY_TIMEOUTS } from "./plays/defaults.ts";
import { findPi } from "./plays/pi-binary.ts";
import { planChains } from "./plays/plan.ts";
import { chainSetting, makeChainFolders, playEnv } from "./plays/runner.ts";
import { PLAY_USAGE } from "./usage.ts";

const OPTIONS = {
  quest: { type: "string" },
  solution: { type: "string" },
  keep: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** What Pi needs of the author's own agent dir to reach their model. */
const AUTHOR_FILES = ["auth.json", "models.json", "settings.json"];

const invalid = (io: CliIo, message: string): number => {
  io.stderr(`pi-quests play: ${message}\n`);
  return EXIT.invalid;
};

export async function play(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () => parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true }),
    PLAY_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(PLAY_USAGE);
    return EXIT.pass;
  }
  if (positionals.length !== 1)
    return invalid(io, `give exactly one pack folder (got ${positionals.length})`);
  const pack = resolve(io.cwd, positionals[0] ?? "");
  const quests = await loadQuests(pack);
  if (!quests.ok) return printDiagnostics(io, quests.diagnostics);
  const ids = quests.value.map((quest) => quest.id);
  if (values.quest !== undefined && !ids.includes(values.quest))
    return invalid(io, `no quest "${values.quest}" in ${positionals[0]}; its quests: ${ids.join(", ")}`);
  const plays = await loadPlays(pack, ids);
  if (!plays.ok) return printDiagnostics(io, plays.diagnostics);
  const solution =
    values.solution === undefined
      ? undefined
      : await readPlayFile(resolve(io.cwd, values.solution), values.quest ?? ids[0] ?? "", "pass");
  if (solution && !solution.ok) return printDiagnostics(io, solution.diagnostics);
  const pi = findPi({ env: io.env, cwd: io.cwd });
  if (!pi.ok) return invalid(io, pi.message);

  const root = await realpath(await mkdtemp(join(tmpdir(), "pi-quests-play-")));
  const folders = await makeChainFolders(root, pi.pi.cli);
  const containment = await openPlayContainment();
  try {
    const env = { ...playEnv({ env: io.env, pack }, folders), ...containment.env };
    if (values.quest !== undefined) {
      const [chain] = planChains(quests.value, [...plays.value, placeholder(values.quest)]).slice(-1);
      if (chain?.kind === "unplayable") return invalid(io, chain.reason);
      const setting = chainSetting(
        {
          piCli: pi.pi.cli,
          extensions: EXTENSION_FILES,
          sandboxed: sandboxedOf(quests.value),
          timeouts: PLAY_TIMEOUTS,
        },
        folders,
        env,
        containment,
      );
      const failed = chain?.kind === "runnable" ? await playRequirements(setting, chain.before) : undefined;
      if (failed)
        return invalid(
          io,
          `the quests ${values.quest} requires could not be completed first: ${failed.reason}`,
        );
      env.PI_QUESTS_START = values.quest;
    } else {
      delete env.PI_QUESTS_START;
    }
    // The folders go when Pi exits: the play controls remove the session file as Pi quits.
    if (!values.keep) env[PLAY_DISPOSABLE_ENV] = "1";
    const piArgs = solution?.ok
      ? await offline(solution.value, folders.agentDir, env, io)
      : await withAuthorsModel(agentDirOf(io), folders.agentDir);
    const code = await openTui(pi.pi.cli, piArgs, folders.workspace, env);
    if (values.keep)
      io.stderr(
        `pi-quests play: kept the workspace ${folders.workspace} and agent dir ${folders.agentDir}\n`,
      );
    return code ?? EXIT.pass;
  } finally {
    await containment.close();
    if (!values.keep) await rm(root, { recursive: true, force: true });
  }
}

/** Pi's flags for the scripted model, with the play's replies written for it and its steps printed. */
async function offline(
  solution: Play,
  agentDir: string,
  env: Record<string, string>,
  io: CliIo,
): Promise<string[]> {
  const replies = join(agentDir, "replies.json");
  await writeFile(replies, playRepliesOf(solution));
  env[PLAY_REPLIES_ENV] = replies;
  env[PLAY_SOLUTION_ENV] = solution.source;
  io.stderr(`pi-quests play: the scripted model follows ${solution.source}; its steps:\n`);
  for (const [index, step] of playStepsInWords(solution.steps).entries())
    io.stderr(`  ${index + 1}. ${step.replaceAll("\n", "\n  ")}\n`);
  io.stderr("pi-quests play: Pi's screen covers these: /quest solution in that Pi shows them again.\n");
  return [
    "-e",
    EXTENSION_FILES[0],
    "-e",
    EXTENSION_FILES[1],
    "-e",
    EXTENSION_FILES[2],
    "--offline",
    "--provider",
    PLAY_PROVIDER,
    "--model",
    PLAY_MODEL,
  ];
}

/** Pi's flags for the author's own model: their auth, models and settings linked in. */
async function withAuthorsModel(ownAgentDir: string, agentDir: string): Promise<string[]> {
  for (const name of AUTHOR_FILES) {
    const own = join(ownAgentDir, name);
    if (existsSync(own)) await symlink(own, join(agentDir, name));
  }
  return ["-e", EXTENSION_FILES[1], "-e", EXTENSION_FILES[2]];
}

function openTui(
  cli: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: "inherit" });
    child.on("error", () => resolve(EXIT.invalid));
    child.on("close", (code) => resolve(code));
  });
}

/** A stand-in play of `quest`, so the plan says which pass plays must come before it. */
const placeholder = (quest: string): Play => ({
  version: 1,
  steps: [],
  quest,
  name: "fail-placeholder",
  expected: "not complete",
  source: "",
});

const sandboxedOf = (quests: readonly { id: string; sandboxDir?: string }[]) =>
  new Set(quests.filter((quest) => quest.sandboxDir).map((quest) => quest.id));
