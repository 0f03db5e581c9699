/**
 * pi-quests within Pi's sessions: one quest session (the controller with a UI, the plain
 * recorder in print mode) for the Pi session that is open, opened at `session_start` without Pi
 * waiting for it (events meanwhile wait in `early`) and closed at `session_shutdown`.
 *
 * Whatever Pi delivers, one controller or recorder, so one writer and one sequence of the
 * workspace's event log, and one writer of its progress:
 *
 * - a `session_start` for the session already open (or opening) is a repeat: nothing is opened
 *   or recorded again (Pi 1.5 runs `session_start` handlers twice for an RPC `fork`,
 *   `new_session`, `switch_session` or `clone`; a second controller would number the log's
 *   events again from what the file held when it opened, and overwrite the first's progress);
 * - a `session_start` for another session while one is open (a shutdown Pi never sent) closes
 *   that one first, and the new one opens only once it is closed;
 * - a `session_shutdown` without an open session, or a second one, closes nothing.
 *
 * `/quest pack ID` closes the open session's controller and opens the workspace's new active
 * pack's in its place (pack-session.ts); events meanwhile wait, as while it opened.
 */

import { homedir } from "node:os";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { couldNotRead } from "../core/untested-pi.ts";
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

/** pi-tui as the host needs it: loaded when a TUI session first starts. */
export type TuiLoader = { loaded(): PiTui | undefined; load(): Promise<Loaded<PiTui>> };

/** pi-tui, loaded once when a TUI session first starts (print and RPC modes never draw with it). */
export function tuiOf(host: PiHost): TuiLoader {
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
export type FromPi = { host: PiHost; sdk: PiSdkSource; tui: TuiLoader; bash: AgentBash };

/** One Pi session's quest session: opening, then open (`sink`), until it is closed. */
type HostSession = {
  readonly id: string;
  /** Its events that came while it opened, recorded once it is open. */
  readonly early: PiEvent[];
  /** Resolves once the session is open (or pi-quests could not start in it). */
  opening: Promise<void>;
  /** Where its events go once open: the controller, the recorder, or DISCARD. */
  sink?: EventSink;
  controller?: PackController;
};

export type QuestHost = ReturnType<typeof createQuestHost>;

export function createQuestHost(uiOf: (ctx: ExtensionContext) => QuestUi, fromPi: FromPi) {
  /** The session open or opening; undefined before the first start and once closed. */
  let session: HostSession | undefined;
  /** The last session's close, which the next session's opening waits for. */
  let closing: Promise<void> = Promise.resolve();
  let closedOnce = false;
  let sessionId: string | undefined;
  // Events before the first session's start, which it takes.
  const beforeStart: PiEvent[] = [];
  const record = (event: PiEvent) => {
    if (session?.sink) session.sink.record(event);
    else if (session) session.early.push(event);
    // Nothing once closed: no session will take them.
    else if (!closedOnce) beforeStart.push(event);
  };
  const { open, openController, orNothing } = sessionOpeners(uiOf, fromPi, {
    sessionId: () => sessionId,
    reopen: (ctx) => reopen(ctx),
  });

  /** `/quest pack ID`: the open session's controller closes, and the new active pack's opens. */
  const reopen = async (ctx: ExtensionContext): Promise<void> => {
    const current = session;
    if (!current) return;
    await current.opening;
    const closingController = current.controller;
    // Events meanwhile wait in `early`, for the new pack's controller.
    current.sink = undefined;
    current.controller = undefined;
    await closingController?.dispose();
    const controller =
      current === session ? await orNothing(ctx, () => openController(ctx, current.early)) : undefined;
    if (controller) current.controller = controller;
    current.sink = controller ?? DISCARD;
    for (const event of current.early.splice(0)) current.sink.record(event);
  };

  const close = async (): Promise<void> => {
    const closed = session;
    if (!closed) return;
    session = undefined;
    closedOnce = true;
    await closed.opening;
    const sink = closed.sink;
    closed.sink = DISCARD;
    closed.controller = undefined;
    await sink?.dispose();
  };

  return {
    record,
    controller: () => session?.controller,
    /** While the session is opening, the promise of its end; undefined once it is open (or closed). */
    stillOpening: () => (session && !session.sink ? session.opening : undefined),
    /** False once pi-quests could not start, or its session closed. */
    running: () => (session ? session.sink !== DISCARD : !closedOnce),
    /** Whether the Pi session `id` is the one open or opening: a start for it is a repeat. */
    isOpen: (id: string) => session?.id === id,
    /**
     * Opens the quest session of Pi session `id` (not awaited: Pi starts without waiting for
     * quests); `started` is its session_start event. A repeat of the open session does nothing.
     */
    start(ctx: ExtensionContext, id: string, started: () => PiEvent): void {
      if (session?.id === id) return;
      // A start without the previous session's shutdown: that one is closed first.
      if (session) closing = close();
      const opened: HostSession = { id, early: beforeStart.splice(0), opening: Promise.resolve() };
      session = opened;
      sessionId = id;
      record(started());
      opened.opening = closing
        .then(() => open(ctx, opened.early))
        .then((sink) => {
          opened.sink = sink?.sink ?? DISCARD;
          if (sink?.controller) opened.controller = sink.controller;
          // What came while it opened (a session closed meanwhile takes it in, then closes).
          for (const event of opened.early.splice(0)) opened.sink.record(event);
        });
    },
    /** Closes the open session; nothing when none is open (a shutdown without a start, or a second one). */
    shutdown(): Promise<void> {
      closing = close();
      return closing;
    },
    /** The controller for a `/quest` command; in print mode it is opened now, taking over from the recorder. */
    async commandController(ctx: ExtensionContext): Promise<PackController | undefined> {
      const current = session;
      if (!current) return undefined;
      await current.opening;
      // Closed meanwhile, or pi-quests could not start: no controller.
      if (current !== session || !current.sink || current.sink === DISCARD) return current.controller;
      if (current.controller) return current.controller;
      await current.sink.dispose();
      current.controller = await orNothing(ctx, () => openController(ctx, current.early));
      current.sink = current.controller ?? DISCARD;
      return current.controller;
    },
  };
}

/** How a session is opened: the recorder or the controller, with what it gets of Pi. */
function sessionOpeners(
  uiOf: (ctx: ExtensionContext) => QuestUi,
  fromPi: FromPi,
  {
    sessionId,
    reopen,
  }: { sessionId: () => string | undefined; reopen: (ctx: ExtensionContext) => Promise<void> },
) {
  const openRecorder = async (ctx: ExtensionContext): Promise<EventSink> => {
    const ui = uiOf(ctx);
    const { openEventRecorder } = await import("./recorder.ts");
    const log = await openEventRecorder({
      cwd: ctx.cwd,
      env: process.env,
      onWriteError: (error) =>
        ui.notify(`pi-quests could not record an event: ${(error as Error).message}`, "warning"),
    });
    return { record: (event) => log.record(event, sessionId()), dispose: () => log.flush() };
  };

  /** The controller; `early`: the session's events so far, recorded before its first evaluation. */
  const openController = async (
    ctx: ExtensionContext,
    early: PiEvent[],
  ): Promise<PackController | undefined> => {
    const ui = uiOf(ctx);
    if (ctx.mode === "tui") {
      const tui = await fromPi.tui.load();
      if (!tui.ok) throw new Error(couldNotRead(fromPi.host.version, "piTui", tui.message));
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
      sessionId,
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

  /** With a UI the quest controller; without one (print mode) the plain event recorder. */
  const open = (
    ctx: ExtensionContext,
    early: PiEvent[],
  ): Promise<{ sink: EventSink; controller?: PackController } | undefined> =>
    orNothing(ctx, async () => {
      if (!ctx.hasUI) return { sink: await openRecorder(ctx) };
      const controller = await openController(ctx, early);
      return controller ? { sink: controller, controller } : undefined;
    });

  return { open, openController, orNothing };
}
