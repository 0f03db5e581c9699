/**
 * A play's steps, sent to a running Pi over RPC as a learner would do them: a prompt (its
 * replies are in the scripted model's file), a `!` command, a slash command, the answer to a
 * confirm dialog, a change made outside Pi. A confirm dialog can come while the step before is
 * still waiting (a `/quest check` waits for the learner's answer), so each step answers the
 * dialog the next `confirm` step is for as soon as it shows; a dialog no step answers is
 * declined. Every wait is bounded; a step that does not finish in time ends the play as an error.
 */
import {
  PLAY_CONTROL_DONE,
  PLAY_CONTROL_PREFIX,
  type PlayControl,
  playControlPrompt,
} from "../../core/play-controls.ts";
import { NO_MORE_REPLIES } from "../../core/play-replies.ts";
import type { PlayStep } from "../../verifier/play.ts";
import { routeCommand } from "./builtin-commands.ts";
import type { StepMark } from "./failed-tools.ts";
import type { PiRpcClient, UiRequest } from "./pi-rpc.ts";

export type StepTimeouts = {
  /** A prompt's whole run, or a command. */
  stepMs: number;
  /** How long a `confirm` step waits for its dialog. */
  dialogMs: number;
};

/** Runs a shell command in the play's workspace, contained like everything else of the play. */
export type ShellRunner = (script: string) => Promise<{ exitCode: number | null; output: string }>;

/** `ranOut`: the prompt steps whose run asked the scripted model for more replies than it had. */
type StepDone = { ok: true } | { ok: false; reason: string };

/** `marks`: where each step played began in Pi's lines (for the tool calls that failed in it). */
export type StepsOutcome = ({ ok: true; ranOut: string[] } | { ok: false; reason: string }) & {
  marks: StepMark[];
};

/** Plays `steps` on `pi` in order; stops at the first step that could not be done. */
export async function playSteps(
  pi: PiRpcClient,
  steps: readonly PlayStep[],
  shell: ShellRunner,
  timeouts: StepTimeouts,
): Promise<StepsOutcome> {
  const dialogs = dialogAnswerer(pi, steps);
  const run = runningRun(pi);
  const ranOut: string[] = [];
  const marks: StepMark[] = [];
  try {
    for (const [index, step] of steps.entries()) {
      dialogs.at(index);
      const name = `step ${index + 1} (${describeStep(step)})`;
      // Only a steer, a follow-up or an abort is sent while a run is going; the rest waits.
      if (!DURING_A_RUN.has(step.kind)) await run.settled(timeouts.stepMs);
      const from = pi.lines.length;
      marks.push({ name, from });
      const done = await playStep(pi, step, index, shell, timeouts, dialogs, run);
      if (!done.ok) return { ok: false, reason: `${name}: ${done.reason}`, marks };
      if ("model" in step && askedPastReplies(pi, from)) ranOut.push(name);
    }
    await run.settled(timeouts.stepMs);
    return { ok: true, ranOut, marks };
  } finally {
    // Past the last step, a dialog (the closing check's) is declined.
    dialogs.at(steps.length);
  }
}

async function playStep(
  pi: PiRpcClient,
  step: PlayStep,
  index: number,
  shell: ShellRunner,
  { stepMs, dialogMs }: StepTimeouts,
  dialogs: DialogAnswerer,
  run: RunningRun,
): Promise<StepDone> {
  try {
    switch (step.kind) {
      case "prompt":
        if (step.wait === "started") return await run.start(step.prompt, stepMs);
        await pi.prompt(step.prompt, { timeoutMs: stepMs });
        return { ok: true };
      case "steer":
        return await run.send({ type: "steer", message: step.steer }, stepMs);
      case "follow_up":
        return await run.send({ type: "follow_up", message: step.follow_up }, stepMs);
      case "abort":
        return await run.send({ type: "abort" }, stepMs);
      case "command":
        return await sendCommand(pi, step.command, stepMs);
      case "bash":
        // `!!`: Pi runs it the same, and keeps its output out of the model's context.
        await pi.request(
          { type: "bash", command: step.bash, ...(step.quiet ? { excludeFromContext: true } : {}) },
          { timeoutMs: stepMs },
        );
        return { ok: true };
      case "shell": {
        const ran = await shell(step.shell);
        return ran.exitCode === 0
          ? { ok: true }
          : { ok: false, reason: `exited ${ran.exitCode ?? "by a signal"}: ${lastLine(ran.output)}` };
      }
      case "confirm":
        return (await dialogs.answered(index, dialogMs))
          ? { ok: true }
          : { ok: false, reason: `no confirm dialog came within ${dialogMs / 1000} s` };
      default:
        return unreachable(step);
    }
  } catch (error) {
    return { ok: false, reason: (error as Error).message.split("\n")[0] ?? "failed" };
  }
}

/** The steps sent while a run started by a `wait: started` prompt is still going. */
const DURING_A_RUN: ReadonlySet<PlayStep["kind"]> = new Set(["steer", "follow_up", "abort"]);

type RunningRun = {
  /** Sends a prompt and returns once its run has started (its first turn). */
  start(prompt: string, timeoutMs: number): Promise<StepDone>;
  /** Sends a steer, a follow-up or an abort to the running run. */
  send(command: Record<string, unknown>, timeoutMs: number): Promise<StepDone>;
  /** Waits until the run started last has settled (at once when none is going). */
  settled(timeoutMs: number): Promise<void>;
};

/** The run a `wait: started` prompt left going, if any. */
function runningRun(pi: PiRpcClient): RunningRun {
  let startedAt: number | undefined;
  return {
    async start(prompt, timeoutMs) {
      const from = pi.lines.length;
      const response = await pi.request({ type: "prompt", message: prompt }, { timeoutMs });
      if ((response.data as { disposition?: string } | undefined)?.disposition !== "started")
        return { ok: false, reason: "the prompt did not start a run" };
      startedAt = from;
      await pi.waitFor((line) => line.type === "turn_start", from, timeoutMs);
      return { ok: true };
    },
    async send(command, timeoutMs) {
      if (startedAt === undefined)
        return { ok: false, reason: "no run is going: a prompt with wait: started comes first" };
      await pi.request(command, { timeoutMs });
      return { ok: true };
    },
    async settled(timeoutMs) {
      if (startedAt === undefined) return;
      const from = startedAt;
      startedAt = undefined;
      await pi.waitFor((line) => line.type === "agent_settled", from, timeoutMs);
    },
  };
}

/** A slash command: as a prompt, or as the RPC command a built-in of Pi's stands for. */
async function sendCommand(pi: PiRpcClient, text: string, timeoutMs: number): Promise<StepDone> {
  const route = routeCommand(text);
  switch (route.kind) {
    case "prompt":
      await pi.prompt(text, { timeoutMs });
      return { ok: true };
    case "rpc":
      await pi.request(route.command, { timeoutMs });
      return { ok: true };
    case "fork": {
      // As the terminal UI's /fork with the last message chosen: a new session from before it.
      const { data } = await pi.request({ type: "get_fork_messages" }, { timeoutMs });
      const last = (data as { messages?: { entryId: string }[] } | undefined)?.messages?.at(-1);
      if (!last) return { ok: false, reason: "/fork: the session has no message to fork from yet" };
      await pi.request({ type: "fork", entryId: last.entryId }, { timeoutMs });
      return { ok: true };
    }
    case "control":
      return await playControl(pi, route.control, timeoutMs);
    case "refused":
      return { ok: false, reason: route.reason };
    default:
      return unreachable(route);
  }
}

/**
 * A terminal-only command, done by the play controls' extension: its one notification says
 * whether it was done. A session it replaced (`/resume`) is opened by the next extension
 * instance, which the next `/quest` command waits for, as after `/new` and `/fork`.
 */
async function playControl(pi: PiRpcClient, control: PlayControl, timeoutMs: number): Promise<StepDone> {
  const from = pi.lines.length;
  await pi.prompt(playControlPrompt(control), { timeoutMs });
  const said = pi.notifications(from).find((text) => text.startsWith(PLAY_CONTROL_PREFIX));
  if (said?.startsWith(PLAY_CONTROL_DONE)) return { ok: true };
  if (said === undefined)
    return { ok: false, reason: `${control.action}: the play controls did not answer (are they loaded?)` };
  return { ok: false, reason: said.slice(PLAY_CONTROL_PREFIX.length).trim() };
}

/** Whether the model answered "(the play has no more replies)" since line `from`. */
function askedPastReplies(pi: PiRpcClient, from: number): boolean {
  return pi.lines.slice(from).some((line) => {
    if (line.type !== "message_end") return false;
    const message = line.message as { role?: string; content?: unknown } | undefined;
    return message?.role === "assistant" && JSON.stringify(message.content ?? "").includes(NO_MORE_REPLIES);
  });
}

type DialogAnswerer = {
  /** The step being played now. */
  at(index: number): void;
  /** Whether the dialog of the confirm step `index` was answered (now or within `ms`). */
  answered(index: number, ms: number): Promise<boolean>;
};

/** The answerer of the steps played last on each Pi: only it answers (one Pi may play several plays). */
const newestAnswerer = new WeakMap<PiRpcClient, object>();

/**
 * Answers confirm dialogs as they come: the oldest confirm step not yet used gives its answer,
 * if it is the step being played or the next one; any other dialog is declined. It keeps
 * declining past the last step (the closing check's dialog) until steps are played again on Pi.
 */
function dialogAnswerer(pi: PiRpcClient, steps: readonly PlayStep[]): DialogAnswerer {
  const answers = steps.flatMap((step, index) =>
    step.kind === "confirm" ? [{ index, answer: step.answer, given: false }] : [],
  );
  let current = 0;
  const waiters = new Set<() => void>();
  const me = {};
  newestAnswerer.set(pi, me);
  const stop = pi.onLine((line) => {
    if (newestAnswerer.get(pi) !== me) {
      stop();
      return;
    }
    if (line.type !== "extension_ui_request" || line.method !== "confirm") return;
    const request = line as UiRequest;
    const head = answers.find((answer) => !answer.given);
    if (head && head.index <= current + 1) {
      head.given = true;
      pi.respond(request, { confirmed: head.answer });
      for (const wake of waiters) wake();
    } else {
      pi.respond(request, { confirmed: false });
    }
  });
  return {
    at(index) {
      current = index;
    },
    answered(index, ms) {
      const given = () => answers.find((answer) => answer.index === index)?.given === true;
      if (given()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (result: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(result);
        };
        const check = () => {
          if (given()) done(true);
        };
        const timer = setTimeout(() => done(false), ms);
        waiters.add(check);
      });
    },
  };
}

/** How a report names a step. */
export function describeStep(step: PlayStep): string {
  switch (step.kind) {
    case "prompt":
      return `prompt "${clip(step.prompt)}"`;
    case "command":
      return step.command;
    case "bash":
      return `${step.quiet ? "!!" : "!"}${clip(step.bash)}`;
    case "shell":
      return `shell "${clip(step.shell)}"`;
    case "confirm":
      return `confirm ${step.answer ? "yes" : "no"}`;
    case "steer":
      return `steer "${clip(step.steer)}"`;
    case "follow_up":
      return `follow-up "${clip(step.follow_up)}"`;
    case "abort":
      return "abort";
    default:
      return unreachable(step);
  }
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);
const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

function unreachable(value: never): never {
  throw new Error(`unexpected play step ${JSON.stringify(value)}`);
}
