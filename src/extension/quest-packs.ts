/**
 * The packs in Pi: which packs this Pi offers (runtime/packs.ts, with Pi's package list and
 * trust through the running Pi), which one is active in the workspace, the learner's consent
 * before a third-party pack's first quest, and what `/quest packs` and `/quest pack ID` do.
 * No Pi import: Pi's classes come in as `PiPackageApi`.
 */
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { agentDirFrom } from "../core/paths.ts";
import { openRecordSealer } from "../core/record-sealers.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import {
  type ActivePack,
  hasConsent,
  needsConsent,
  packDataDir,
  readActivePack,
  recordConsent,
  writeActivePack,
} from "../runtime/pack-records.ts";
import { installedPackages, projectTrusted } from "../runtime/pack-sources.ts";
import {
  type FoundPack,
  findPacks,
  type ListedPack,
  listPacks,
  type PackFinding,
  type PackPlaces,
  packageLabel,
  projectPackDir,
} from "../runtime/packs.ts";
import type { PiPackageApi } from "../runtime/pi-host.ts";
import { peekProgress } from "../runtime/progress.ts";
import type { QuestUi } from "./quest-ui.ts";

export type PackWorld = {
  cwd: string;
  /** The workspace's real path. */
  workspace: string;
  env: Record<string, string | undefined>;
  home: string;
  /** The built-in pack's folder. */
  builtIn: string;
  /** Pi's package list and trust; without it only the built-in, project and env packs are seen. */
  pi?: PiPackageApi;
  /** What the running Pi decided about this project's trust (`ctx.isProjectTrusted()`). */
  sessionTrusted?: () => boolean;
};

const rootDataDirOf = (world: PackWorld) => join(agentDirFrom(world.env, world.cwd, world.home), "quests");

/** Where this Pi looks for packs now (trust and Pi's package list are read each time). */
export function packPlaces(world: PackWorld): PackPlaces {
  if (world.env.PI_QUESTS_PACK)
    return { builtIn: world.builtIn, env: resolve(world.cwd, world.env.PI_QUESTS_PACK), packages: [] };
  const place = { cwd: world.cwd, agentDir: agentDirFrom(world.env, world.cwd, world.home) };
  let trusted = false;
  let packages: PackPlaces["packages"] = [];
  try {
    trusted = world.pi ? projectTrusted(world.pi, place, world.sessionTrusted?.()) : false;
    packages = world.pi ? installedPackages(world.pi, { ...place, projectTrusted: trusted }).packages : [];
  } catch {
    // A Pi whose trust or package list cannot be read offers the built-in pack: Pi keeps working.
  }
  return { builtIn: world.builtIn, packages, project: { dir: projectPackDir(world.cwd), trusted } };
}

/** The active pack; `finding` holds every pack offered, or only the built-in one when that is active. */
export type ChosenPack = { pack: FoundPack; finding: PackFinding; notice?: string };

/**
 * The workspace's active pack: the one last made active, while it is offered; else, for a new
 * workspace, its project pack when it has one, else the built-in pack. `PI_QUESTS_PACK` is the
 * only pack when set.
 */
export async function chooseActivePack(world: PackWorld): Promise<ChosenPack | { problem: string }> {
  const recorded = world.env.PI_QUESTS_PACK
    ? undefined
    : await readActivePack(rootDataDirOf(world), world.workspace);
  // The built-in pack needs no look at Pi's packages: Pi's start does not wait for one
  // (the other packs are found when /quest packs or Tab asks).
  const onBuiltIn =
    !world.env.PI_QUESTS_PACK &&
    (recorded?.source === "built-in" || (!recorded && !existsSync(projectPackDir(world.cwd))));
  const finding = await findPacks(onBuiltIn ? { builtIn: world.builtIn, packages: [] } : packPlaces(world));
  const builtIn = finding.packs.find((pack) => pack.source === "built-in" || pack.source === "env");
  const fallback = builtIn ?? finding.packs[0];
  if (!fallback)
    return { problem: finding.problems.map((each) => each.message).join("\n") || "no quest pack" };
  if (recorded) {
    const pack = finding.packs.find((each) => each.id === recorded.id);
    if (pack) return { pack, finding };
    return {
      pack: fallback,
      finding,
      notice: `the pack "${recorded.id}" you were playing is not offered here any more (/quest packs says why); back on "${fallback.title}".`,
    };
  }
  const project = finding.packs.find((pack) => pack.source === "project");
  return { pack: project ?? fallback, finding };
}

/**
 * Asks before the first quest of a pack the learner has not used before (a package's or a
 * project's: its checks run commands on this machine). True when it may run.
 */
export async function consentToRun(
  world: PackWorld,
  pack: FoundPack,
  ui: Pick<QuestUi, "confirm">,
): Promise<boolean> {
  if (!needsConsent(pack)) return true;
  const dataDir = rootDataDirOf(world);
  if (await hasConsent(dataDir, pack)) return true;
  const from = pack.package ? `the Pi package ${packageLabel(pack)}` : `this project's ${pack.path}`;
  const answer = await ui.confirm(
    `Play the quest pack "${pack.title}"?`,
    `"${pack.id}" comes from ${from} (${pack.path}), not from pi-quests. Its checks run commands on this machine, as you, when they check your work. Use it only if you trust where it comes from.`,
    { defaultAnswer: false },
  );
  if (answer !== true) return false;
  await recordConsent(dataDir, pack);
  return true;
}

/** Makes `pack` the workspace's active pack (it opens with the next quest session). */
export function rememberActivePack(world: PackWorld, pack: ActivePack): Promise<void> {
  return writeActivePack(rootDataDirOf(world), world.workspace, { id: pack.id, source: pack.source });
}

/** A pack in `/quest packs`: what it is, and how far the learner got with it in this workspace. */
export type PackStanding = ListedPack & { done: number };

/** Every pack offered, loaded, with the quests done in this workspace; and the problems. */
export async function packStandings(world: PackWorld) {
  const listed = await listPacks(packPlaces(world));
  const root = rootDataDirOf(world);
  const packs: PackStanding[] = [];
  for (const pack of listed.packs) {
    const dataDir = packDataDir(root, pack);
    const file = join(workspaceHome(dataDir, world.workspace), "progress.json");
    const progress = await peekProgress(file, openRecordSealer(dataDir, "progress", world.workspace));
    const ids = new Set(pack.quests.map((quest) => quest.id));
    const done = Object.keys(progress?.completed ?? {}).filter((id) => ids.has(id)).length;
    packs.push({ ...pack, done });
  }
  return { packs, problems: listed.problems };
}

/** `/quest packs`: one line per pack, the active one marked; then why others are not offered. */
export function packsText(
  standings: { packs: readonly PackStanding[]; problems: readonly { message: string }[] },
  activeId: string,
): string {
  const lines = standings.packs.map((pack) => {
    const mark = pack.id === activeId ? "▶" : " ";
    const from = pack.package ? `package ${packageLabel(pack)}` : pack.source;
    return `${mark} ${pack.id}: ${pack.title} (${from}) · ${pack.done}/${pack.quests.length} done${pack.id === activeId ? " · active" : ""}`;
  });
  const problems = standings.problems.map((problem) => `  ! ${problem.message}`);
  return [
    "Quest packs:",
    ...lines,
    ...(problems.length > 0 ? ["Not offered:", ...problems] : []),
    "Switch with /quest pack ID; your progress in each pack is kept.",
  ].join("\n");
}

/**
 * A pack's short name on the HUD and in `/quest list`: a package's or a project's pack is named;
 * the built-in pack and `PI_QUESTS_PACK`'s are shown as before packs.
 */
export const packLabel = (pack: FoundPack): string | undefined =>
  pack.source === "package" || pack.source === "project" ? pack.title || basename(pack.path) : undefined;
