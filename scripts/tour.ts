/**
 * A tour of the built-in pack in one Pi session: quests played one after another, as a learner
 * would, each by its own solution play (quests/solutions/QUEST/NAME.yaml), in the real `pi` over
 * RPC with pi-quests' scripted model and the extension. `npm run demo` prints one; the end-to-end
 * curriculum test asserts one, turn by turn. The replies of every play of the tour go into one
 * replies file, in order, so one Pi answers them all.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { repliesOf, reviewsOf } from "../src/cli/plays/chain-run.ts";
import { EXTENSION_FILES, PLAY_TIMEOUTS } from "../src/cli/plays/defaults.ts";
import { type PiRpcClient, startPiRpcClient } from "../src/cli/plays/pi-rpc.ts";
import { playSteps } from "../src/cli/plays/play-steps.ts";
import { PLAY_MODEL, PLAY_PROVIDER, PLAY_REPLIES_ENV, playRepliesJson } from "../src/core/play-replies.ts";
import { loadQuests } from "../src/verifier/loader.ts";
import type { Play } from "../src/verifier/play.ts";
import { loadPlays } from "../src/verifier/play-loader.ts";
import type { Quest } from "../src/verifier/quest.ts";

const REPO = resolve(import.meta.dirname, "..");
export const BUILT_IN_PACK = join(REPO, "quests");
const PI = join(REPO, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");

/** One leg of a tour: a quest's play, and whether it must complete the quest. */
export type Leg = { quest: Quest; play: Play; completes: boolean };

/** What a tour names: quests by id, each with its pass play, or `ID/fail-NAME` for a wrong answer. */
export async function planTour(names: readonly string[], pack = BUILT_IN_PACK): Promise<Leg[]> {
  const quests = await loadQuests(pack);
  if (!quests.ok) throw new Error(`${pack} does not load: ${quests.diagnostics[0]?.message}`);
  const plays = await loadPlays(
    pack,
    quests.value.map((quest) => quest.id),
  );
  if (!plays.ok) throw new Error(`${pack}/solutions does not load: ${plays.diagnostics[0]?.message}`);
  return names.map((name) => {
    const [id = "", playName = "pass"] = name.split("/");
    const quest = quests.value.find((candidate) => candidate.id === id);
    const play = plays.value.find((candidate) => candidate.quest === id && candidate.name === playName);
    if (!quest || !play) throw new Error(`the tour names ${name}: no such quest or play in ${pack}`);
    return { quest, play, completes: playName === "pass" };
  });
}

/** The ids of the pack's quests in its first chapter, in pack order. */
export async function firstChapter(pack = BUILT_IN_PACK): Promise<string[]> {
  const quests = await loadQuests(pack);
  if (!quests.ok) throw new Error(`${pack} does not load: ${quests.diagnostics[0]?.message}`);
  const chapter = quests.value[0]?.chapter;
  return quests.value.filter((quest) => quest.chapter === chapter).map((quest) => quest.id);
}

/** A Pi open for a tour, in a fresh workspace and home of its own. */
export type TourPi = {
  pi: PiRpcClient;
  workspace: string;
  home: string;
  /** Plays one leg; returns the RPC line index it started at (for reading what the HUD did). */
  play(leg: Leg): Promise<{ from: number; completed: boolean }>;
  close(): Promise<void>;
};

/** Where a tour runs: the learner's folder and a home holding the agent dir. */
export type TourFolders = { workspace: string; home: string };

export type TourOptions = {
  pack?: string;
  /** A folder and home an earlier tour left (kept by it): the same learner coming back. */
  folders?: TourFolders;
  /** Keep the folders when the tour closes (to open another on them). */
  keep?: boolean;
};

/** Opens the real Pi for `legs` (their replies in one file); nothing of the user's home is used. */
export function openTour(legs: readonly Leg[], options: TourOptions = {}): TourPi {
  const pack = options.pack ?? BUILT_IN_PACK;
  const workspace = options.folders?.workspace ?? mkdtempSync(join(tmpdir(), "pi-quests-tour-"));
  const home = options.folders?.home ?? mkdtempSync(join(tmpdir(), "pi-quests-tour-home-"));
  const replies = join(home, "replies.json");
  const reviews = legs.flatMap((leg) => reviewsOf(leg.play));
  writeFileSync(
    replies,
    playRepliesJson(
      legs.flatMap((leg) => repliesOf(leg.play)),
      reviews.length > 0 ? reviews : undefined,
    ),
  );
  const env = tourEnv(home, replies, pack);
  const pi = startPiRpcClient({
    cli: PI,
    cwd: workspace,
    env,
    extensions: EXTENSION_FILES,
    args: ["--offline", "--approve", "--provider", PLAY_PROVIDER, "--model", PLAY_MODEL],
  });
  const shell = async (script: string) => {
    const ran = await execa("sh", ["-c", script], { cwd: workspace, env, extendEnv: false, reject: false });
    return { exitCode: ran.exitCode ?? null, output: `${ran.stdout}${ran.stderr}` };
  };
  return {
    pi,
    workspace,
    async play(leg) {
      // The extension starts the next quest by itself; another one is started as a learner would.
      const active = pi.hud().widget?.[0] ?? "";
      if (!active.endsWith(`: ${leg.quest.title}`)) await pi.prompt(`/quest start ${leg.quest.id}`);
      const from = pi.lines.length;
      const played = await playSteps(pi, leg.play.steps, shell, PLAY_TIMEOUTS);
      if (!played.ok) throw new Error(`${leg.quest.id}/${leg.play.name}: ${played.reason}`);
      await pi.prompt("/quest check");
      const done = `Quest complete: ${leg.quest.title}`;
      return { from, completed: pi.notifications(from).some((text) => text.startsWith(done)) };
    },
    home,
    async close() {
      await pi.close();
      if (options.keep) return;
      rmSync(workspace, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function tourEnv(home: string, replies: string, pack: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    PI_CODING_AGENT_DIR: join(home, "agent"),
    PI_QUESTS_PACK: pack,
    [PLAY_REPLIES_ENV]: replies,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig"),
    GIT_AUTHOR_NAME: "Learner",
    GIT_AUTHOR_EMAIL: "learner@example.com",
    GIT_COMMITTER_NAME: "Learner",
    GIT_COMMITTER_EMAIL: "learner@example.com",
  };
}
