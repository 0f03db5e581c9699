/**
 * The play controls pi-quests ships: a play-only Pi extension (like scripted-model.ts, not in
 * package.json's pi.extensions; `pi-quests test` loads it after pi-quests) with one command,
 * `/pi-quests-play ACTION JSON` (src/core/play-controls.ts), for what Pi does only in its
 * terminal UI. Each action calls the Pi function the terminal UI's command calls:
 *
 * - `tree`: `ctx.navigateTree` (the TUI's `/tree` calls the same `session.navigateTree`), on the
 *   message a learner would pick in the tree, with the summary and label the dialog asks for;
 * - `reload`: `ctx.reload()`, the same reload flow as `/reload`;
 * - `trust`: Pi's `ProjectTrustStore`, with what the trust selector's options save (Trust: this
 *   folder true; Do not trust: false; Trust (this session only): nothing);
 * - `resume`: `ctx.switchSession` to the newest session of this folder named NAME
 *   (`SessionManager.list`, what the `/resume` picker lists).
 *
 * It answers with one notification: `pi-quests-play: done`, or `pi-quests-play: failed: WHY`.
 * An extension command records no `input` event and sends the model nothing, so the controls
 * leave nothing a quest could see besides what the action itself does (a session_tree, a label,
 * a session_start).
 *
 * Pi is imported at run time (ProjectTrustStore, SessionManager, getAgentDir): the trust file and
 * the session list are Pi's own formats, read and written by Pi's own code rather than a copy.
 */
import { rm } from "node:fs/promises";
import {
  type ExtensionAPI,
  type ExtensionCommandContext,
  getAgentDir,
  ProjectTrustStore,
  SessionManager,
} from "@earendil-works/pi-coding-agent";
import {
  PLAY_CONTROL_COMMAND,
  PLAY_CONTROL_DONE,
  PLAY_CONTROL_FAILED,
  type PlayControl,
  parsePlayControl,
} from "../core/play-controls.ts";
import { PLAY_DISPOSABLE_ENV } from "../core/play-replies.ts";
import { sessionNamed, sessionNames, treeTarget } from "./play-control-targets.ts";

/** What an action did: done (with a note for the author), or why not. */
type Done = { ok: true; note?: string } | { ok: false; reason: string };

/**
 * A reload asked and not yet answered. After `ctx.reload()` the old instance's UI says nothing
 * (its runtime is shut down), so the instance the reload starts answers: Pi calls the factory
 * again, and the flag lives on globalThis, as the scripted model's playback does.
 */
const RELOAD_ASKED = Symbol.for("pi-quests.play-controls.reload-asked");
type WithReloadFlag = { [RELOAD_ASKED]?: boolean };

export default function playControls(pi: ExtensionAPI): void {
  pi.on("session_shutdown", async (event, ctx) => {
    // A `pi-quests play` Pi whose folders go when it exits: no resume line for a deleted session.
    if (event.reason !== "quit" || process.env[PLAY_DISPOSABLE_ENV] !== "1") return;
    const file = ctx.sessionManager.getSessionFile();
    if (file) await rm(file, { force: true });
  });
  pi.on("session_start", (event, ctx) => {
    const flags = globalThis as WithReloadFlag;
    if (event.reason !== "reload" || !flags[RELOAD_ASKED]) return;
    flags[RELOAD_ASKED] = false;
    ctx.ui.notify(PLAY_CONTROL_DONE, "info");
  });
  pi.registerCommand(PLAY_CONTROL_COMMAND, {
    description: "pi-quests test's stand-in for Pi's terminal-only commands (plays only)",
    handler: async (args, ctx) => {
      const parsed = parsePlayControl(args);
      if (!parsed.ok) {
        ctx.ui.notify(`${PLAY_CONTROL_FAILED}${parsed.reason}`, "error");
        return;
      }
      // A session switch answers from the new session: the old context is stale once it is replaced.
      const answer = (done: Done, into: ExtensionCommandContext) =>
        into.ui.notify(
          done.ok
            ? `${PLAY_CONTROL_DONE}${done.note ? ` (${done.note})` : ""}`
            : `${PLAY_CONTROL_FAILED}${done.reason}`,
          done.ok ? "info" : "error",
        );
      try {
        if (parsed.control.action === "resume") {
          const done = await resume(ctx, parsed.control.args.name, (next) => answer({ ok: true }, next));
          if (!done.ok) answer(done, ctx);
          return;
        }
        if (parsed.control.action === "reload") {
          await reload(ctx);
          return;
        }
        answer(await act(ctx, parsed.control), ctx);
      } catch (error) {
        answer({ ok: false, reason: (error as Error).message.split("\n")[0] ?? "failed" }, ctx);
      }
    },
  });
}

/** `ctx.reload()`; the new instance says it is done (its session_start, above). */
async function reload(ctx: ExtensionCommandContext): Promise<void> {
  const flags = globalThis as WithReloadFlag;
  flags[RELOAD_ASKED] = true;
  try {
    await ctx.reload();
  } finally {
    // Unanswered means no new instance started: the runner then says the controls did not answer.
    flags[RELOAD_ASKED] = false;
  }
}

async function act(
  ctx: ExtensionCommandContext,
  control: Exclude<PlayControl, { action: "resume" | "reload" }>,
): Promise<Done> {
  switch (control.action) {
    case "tree":
      return await tree(ctx, control.args);
    case "trust":
      // The trust selector's options (PCA/dist/core/trust-manager.js getProjectTrustOptions).
      if (control.args.decision !== "session")
        new ProjectTrustStore(getAgentDir()).set(
          ctx.sessionManager.getCwd(),
          control.args.decision === "yes",
        );
      return { ok: true };
  }
}

async function tree(
  ctx: ExtensionCommandContext,
  args: Extract<PlayControl, { action: "tree" }>["args"],
): Promise<Done> {
  const target = treeTarget(ctx.sessionManager.getEntries(), args.target);
  if (!target) return { ok: false, reason: `/tree: no user or assistant message holds "${args.target}"` };
  await ctx.waitForIdle();
  const { cancelled } = await ctx.navigateTree(target.id, {
    ...(args.summarize ? { summarize: true } : {}),
    ...(args.label !== undefined ? { label: args.label } : {}),
    ...(args.instructions !== undefined ? { customInstructions: args.instructions } : {}),
  });
  if (cancelled) return { ok: false, reason: "/tree: the navigation was cancelled" };
  if (target.matched === "equals") return { ok: true };
  // No message is exactly the text: say which one was taken, for the author to see.
  const text = target.text.length > 60 ? `${target.text.slice(0, 59)}…` : target.text;
  return { ok: true, note: `went to the ${target.role} message "${text}", which contains it` };
}

async function resume(
  ctx: ExtensionCommandContext,
  name: string,
  answerFrom: (next: ExtensionCommandContext) => void,
): Promise<Done> {
  const sessions = await SessionManager.list(ctx.sessionManager.getCwd(), ctx.sessionManager.getSessionDir());
  const chosen = sessionNamed(sessions, name);
  if (!chosen)
    return {
      ok: false,
      reason: `/resume: no saved session of this folder is named "${name}" (the saved ones: ${sessionNames(sessions)})`,
    };
  await ctx.waitForIdle();
  const { cancelled } = await ctx.switchSession(chosen.path, {
    withSession: async (next) => answerFrom(next),
  });
  return cancelled ? { ok: false, reason: "/resume: the switch was cancelled" } : { ok: true };
}
