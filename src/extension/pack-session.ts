/**
 * The quest session of the workspace's active pack (quest-packs.ts chooses it), with `/quest
 * packs` and `/quest pack ID` wired: switching writes the new choice and reopens the session,
 * whose records are the new pack's own, so nothing of the old one is lost. No Pi import.
 */
import { realpath } from "node:fs/promises";
import { type FoundPack, findPacks, loadPack } from "../runtime/packs.ts";
import type { QuestController } from "./controller.ts";
import {
  chooseActivePack,
  consentToRun,
  type PackWorld,
  packLabel,
  packPlaces,
  packStandings,
  packsText,
  rememberActivePack,
} from "./quest-packs.ts";
import type { PackChoice, PackCommands } from "./quest-subcommands.ts";
import {
  BUILT_IN_PACK,
  openQuestSession,
  type QuestSessionOpened,
  type QuestSessionOptions,
} from "./session.ts";

export type PackSessionOptions = Omit<QuestSessionOptions, "pack" | "packName" | "packs"> & {
  home: string;
  /** Pi's package list and trust, from the running Pi; the project's trust as Pi decided it. */
  world: Pick<PackWorld, "pi" | "sessionTrusted">;
  /** Closes this session and opens the workspace's (new) active pack's. */
  reopen(): Promise<void>;
};

/** A controller that also says which packs Tab offers after `/quest pack `. */
export type PackController = QuestController & { packChoices(): readonly PackChoice[] };

export async function openPackSession(
  options: PackSessionOptions,
): Promise<{ ok: true; controller: PackController } | Exclude<QuestSessionOpened, { ok: true }>> {
  const world: PackWorld = {
    cwd: options.cwd,
    workspace: await realpath(options.cwd),
    env: options.env,
    home: options.home,
    builtIn: BUILT_IN_PACK,
    ...options.world,
  };
  const chosen = await chooseActivePack(world);
  if ("problem" in chosen) return { ok: false, message: chosen.problem };
  let pack = chosen.pack;
  if (chosen.notice) options.ui.notify(`pi-quests: ${chosen.notice}`, "warning");
  if (!(await consentToRun(world, pack, options.ui))) {
    const builtIn = chosen.finding.packs.find((each) => each.source === "built-in") ?? pack;
    options.ui.notify(
      `pi-quests: the pack "${pack.id}" was not started; you are on "${builtIn.title}". /quest pack ${pack.id} asks again.`,
      "info",
    );
    pack = builtIn;
    await rememberActivePack(world, pack);
  }
  // Tab after `/quest pack `: every pack offered, found after the session opened.
  let choices: PackChoice[] = choicesOf(chosen.finding.packs, pack);
  const findAll = () =>
    findPacks(packPlaces(world)).then(
      (finding) => {
        choices = choicesOf(finding.packs, pack);
      },
      () => undefined,
    );
  let opened = await openPack(world, pack, options);
  const builtIn = chosen.finding.packs.find((each) => each.source === "built-in");
  if (!opened.ok && !opened.readOnly && builtIn && pack !== builtIn) {
    // A pack that no longer loads (a `pi update` broke it) never keeps the learner from the others.
    options.ui.notify(`pi-quests: ${opened.message}\nYou are on "${builtIn.title}" meanwhile.`, "warning");
    pack = builtIn;
    opened = await openPack(world, pack, options);
  }
  if (!opened.ok) return opened;
  void findAll();
  return { ok: true, controller: { ...opened.controller, packChoices: () => choices } };
}

function openPack(world: PackWorld, pack: FoundPack, options: PackSessionOptions) {
  const name = packLabel(pack);
  return openQuestSession({
    ...options,
    pack,
    ...(name ? { packName: name } : {}),
    packs: packCommands(world, pack, options),
  });
}

const choicesOf = (packs: readonly FoundPack[], active: FoundPack): PackChoice[] =>
  packs.map((each) => ({
    id: each.id,
    title: each.title,
    source: each.source,
    active: each.id === active.id,
  }));

function packCommands(world: PackWorld, active: FoundPack, options: PackSessionOptions): PackCommands {
  return {
    list: async () => packsText(await packStandings(world), active.id),
    async switchTo(id) {
      if (world.env.PI_QUESTS_PACK) return `PI_QUESTS_PACK is set: ${active.id} is the only pack here.`;
      const finding = await findPacks(packPlaces(world));
      const pack = finding.packs.find((each) => each.id === id);
      if (!pack) {
        const why = finding.problems.find((problem) => problem.message.includes(`"${id}"`));
        if (why) return why.message;
        const ids = finding.packs.map((each) => each.id).join(", ");
        // An untrusted project's pack is not read, so its id is not known: say that it is there.
        const untrusted = finding.problems.find((problem) => problem.source === "project");
        return [
          `No pack "${id}". The packs are: ${ids} (/quest packs).`,
          ...(untrusted ? [untrusted.message] : []),
        ].join(" ");
      }
      if (pack.id === active.id) return `"${pack.title}" is already the active pack.`;
      const loaded = await loadPack(pack);
      if (!loaded.ok) return loaded.problem.message;
      if (!(await consentToRun(world, pack, options.ui)))
        return `Still on "${active.title}": "${pack.title}" was not started.`;
      await rememberActivePack(world, pack);
      options.ui.say(
        `Now playing "${pack.title}" (${pack.id}); /quest pack ${active.id} goes back, with your progress there kept.`,
      );
      await options.reopen();
      return "";
    },
  };
}
