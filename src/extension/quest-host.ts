/**
 * pi-quests within one Pi session, as the extension's entry (index.ts) holds it: the quest
 * controller opened at `session_start` without Pi waiting for it, the print-mode recorder, a
 * `/quest pack ID` switch (the session closes and the new pack's opens), and pi-tui loaded when
 * a TUI session starts. No Pi import at run time: Pi's modules come in through the host.
 */
import { homedir } from "node:os";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { PiEvent } from "../events/names.ts";
import type { PiSdkSource } from "../probes/pi-sdk.ts";
import { type Loaded, loadPiTui, type PiHost, type PiTui } from "../runtime/pi-host.ts";
import { type AgentBash, protectionText } from "./bash-tool.ts";
import { extensionFoldersOf } from "./extension-folders.ts";
import type { PackController } from "./pack-session.ts";
import { processMemory } from "./process-memory.ts";
import type { QuestUi } from "./quest-ui.ts";
import { reviewModelsOf } from "./review-models.ts";
import { startTrust } from "./start-trust.ts";

/** Where recorded events go: the quest controller (with a UI), or the plain recorder (without). */
type EventSink = { record(event: PiEvent): void; dispose(): Promise<void> };
/** Where events go when pi-quests could not start: nowhere, rather than piling up in memory. */
const DISCARD: EventSink = { record: () => {}, dispose: async () => {} };

/** pi-tui, loaded once when a TUI session first starts (print and RPC modes never draw with it). */
export function tuiOf(host: PiHost) {
  let tui: PiTui | undefined;
  let loading: Promise<Loaded<PiTui>> | undefined;
  return {
    loaded: () => tui,
    load(): Promise<Loaded<PiTui>> {
      loading ??= loadPiTui(host.packageDir).then((loaded) => {
        if (loaded.ok) tui = loaded.value;
        return loaded;
      });
      return loading;
    },
  };
}

/** What the quest session gets of Pi: where it runs from, its SDK, pi-tui; and the agent's bash. */
export type FromPi = { host: PiHost; sdk: PiSdkSource; tui: ReturnType<typeof tuiOf>; bash: AgentBash };

/** Print mode's sink: the plain event recorder (recorder.ts), loaded only then. */
async function openRecorder(
  ui: QuestUi,
  cwd: string,
  sessionId: () => string | undefined,
): Promise<EventSink> {
  const { openEventRecorder } = await import("./recorder.ts");
  const log = await openEventRecorder({
    cwd,
    env: process.env,
    onWriteError: (error) =>
      ui.notify(`pi-quests could not record an event: ${(error as Error).message}`, "warning"),
  });
  return { record: (event) => log.record(event, sessionId()), dispose: () => log.flush() };
}

/**
 * pi-quests within one Pi session: opened at `session_start` without Pi waiting for it (events
 * meanwhile wait in `early`), closed at `session_shutdown`.
 */
export function createQuestHost(uiOf: (ctx: ExtensionContext) => QuestUi, fromPi: FromPi) {
  let controller: PackController | undefined;
  let sink: EventSink | undefined;
  let opening: Promise<void> | undefined;
  let sessionId: string | undefined;
  // Events that arrive while the session is still opening, recorded once it is.
  const early: PiEvent[] = [];
  const record = (event: PiEvent) => (sink ? sink.record(event) : early.push(event));

  const openController = async (ctx: ExtensionContext): Promise<PackController | undefined> => {
    const ui = uiOf(ctx);
    if (ctx.mode === "tui") {
      const tui = await fromPi.tui.load();
      if (!tui.ok) throw new Error(`pi-tui, which draws the HUD, was not found: ${tui.message}`);
    }
    // Loaded here, not at Pi's start: the engine and its libraries are only needed for quests.
    const { openPackSession } = await import("./pack-session.ts");
    const start = startTrust();
    start.tellOnce(ui);
    const opened = await openPackSession({
      home: homedir(),
      // The packs installed in Pi, and the project's trust as this Pi decided it (quest-packs.ts).
      world: {
        ...(fromPi.host.packages ? { pi: fromPi.host.packages } : {}),
        sessionTrusted: () => ctx.isProjectTrusted?.() ?? false,
      },
      reopen: () => reopen(ctx),
      cwd: ctx.cwd,
      env: process.env,
      ui,
      ...(fromPi.host.packageDir ? { piPackage: fromPi.host.packageDir } : {}),
      ...(fromPi.host.sdkFile ? { piSdkFile: fromPi.host.sdkFile } : {}),
      pi: fromPi.sdk,
      sessionId: () => sessionId,
      backlog: early,
      reviewModels: reviewModelsOf(ctx),
      protectionText: () => protectionText(fromPi.bash.known()),
      // Kept across /reload: what this Pi wrote, and its own records as it last left them.
      memory: processMemory(),
      extensionFolders: extensionFoldersOf(ctx, process.env),
      untrustedStart: start.untrusted,
    });
    if (opened.ok) return opened.controller;
    // Quietly (an info line, which print mode does not print): a `pi -p` in the agent's bash.
    if (opened.readOnly) return void ui.notify(opened.message, "info");
    ui.showHud({ kind: "broken", notice: "the quest pack has errors (see the notification)" });
    ui.notify(`pi-quests: ${opened.message}`, "error");
    return undefined;
  };

  /** Runs `opening`; a failure is told to the learner, and Pi keeps working without quests. */
  const orNothing = async <T>(ctx: ExtensionContext, opening: () => Promise<T | undefined>) => {
    try {
      return await opening();
    } catch (error) {
      uiOf(ctx).notify(`pi-quests could not start: ${(error as Error).message}`, "error");
      return undefined;
    }
  };

  /** `/quest pack ID`: the session closes, and the workspace's new active pack's opens. */
  const reopen = async (ctx: ExtensionContext): Promise<void> => {
    const closing = controller;
    // Events meanwhile wait in `early`, for the new session.
    sink = undefined;
    controller = undefined;
    await closing?.dispose();
    controller = await orNothing(ctx, () => openController(ctx));
    sink = controller ?? DISCARD;
    for (const event of early.splice(0)) sink.record(event);
  };

  /** With a UI the quest controller; without one (print mode) the plain event recorder. */
  const open = (ctx: ExtensionContext): Promise<EventSink | undefined> =>
    orNothing(ctx, async () => {
      if (!ctx.hasUI) return openRecorder(uiOf(ctx), ctx.cwd, () => sessionId);
      controller = await openController(ctx);
      return controller;
    });

  return {
    record,
    controller: () => controller,
    /** While the session is opening, the promise of its end; undefined once it is open (or closed). */
    stillOpening: () => (sink === undefined ? opening : undefined),
    /** False once pi-quests could not start, or its session closed. */
    running: () => sink !== DISCARD,
    start(ctx: ExtensionContext, id: string, sessionStart: PiEvent) {
      sessionId = id;
      record(sessionStart);
      // Not awaited: Pi starts without waiting for quests.
      opening = open(ctx).then((opened) => {
        sink = opened ?? DISCARD;
        for (const event of early.splice(0)) sink.record(event);
      });
    },
    async shutdown() {
      await opening;
      const closing = sink;
      sink = DISCARD;
      controller = undefined;
      await closing?.dispose();
    },
    /** The controller for a `/quest` command; in print mode it is opened now, taking over from the recorder. */
    async commandController(ctx: ExtensionContext): Promise<PackController | undefined> {
      await opening;
      if (controller || !sink || sink === DISCARD) return controller;
      await sink.dispose();
      controller = await orNothing(ctx, () => openController(ctx));
      sink = controller ?? DISCARD;
      return controller;
    },
  };
}
