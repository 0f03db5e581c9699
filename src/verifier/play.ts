/**
 * A play: one scripted way through a quest, which `pi-quests test` plays in the real Pi to prove
 * the quest (docs/quest-format.md, "Solutions and pi-quests test"). `solutions/<quest>/pass.yaml`
 * and each `pass-<name>.yaml` (another honest way) must end with the quest complete, each
 * `fail-<name>.yaml` with it not complete. A play is what a learner does, step by step, and what
 * the scripted model answers to each prompt.
 */
import { z } from "zod";
import type { JsonValue, Reply } from "../core/play-replies.ts";

/** `pass`, `pass-` and a name, or `fail-` and a name: the file name says how the play must end. */
export const PLAY_NAME_PATTERN = /^(pass(-[a-z0-9][a-z0-9-]*)?|fail-[a-z0-9][a-z0-9-]*)$/;

const ReplySchema = z
  .strictObject({
    tool: z.string().min(1, "tool names the tool the model calls").optional(),
    args: z
      .record(z.string(), z.unknown(), { error: "args must be a map of the tool's arguments" })
      .optional(),
    text: z.string().optional(),
  })
  .superRefine((reply, ctx) => {
    const problem = replyProblem(reply);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform(
    (reply): Reply =>
      reply.tool !== undefined
        ? { tool: reply.tool, args: (reply.args ?? {}) as { [key: string]: JsonValue } }
        : { text: reply.text ?? "" },
  );

function replyProblem(reply: { tool?: string; args?: unknown; text?: string }): string | undefined {
  if (reply.tool !== undefined && reply.text !== undefined)
    return "a reply is a tool call (tool and args) or a text, not both: make them two replies";
  if (reply.tool !== undefined)
    return reply.args === undefined ? "a tool reply needs args ({} for none)" : undefined;
  if (reply.args !== undefined) return "args belong to a tool reply: add tool with the tool's name";
  return reply.text === undefined ? "a reply needs tool and args, or text" : undefined;
}

/** What the learner does next. */
export type PlayStep =
  /**
   * A message to Pi, and the scripted model's replies to it, in order. `wait: "started"` goes on
   * once its run has started, so the next steps can steer, queue a follow-up or abort it.
   */
  | { kind: "prompt"; prompt: string; model: Reply[]; wait: "settled" | "started" }
  /** A message that steers the running turn (delivered after its tools), with the replies to it. */
  | { kind: "steer"; steer: string; model: Reply[] }
  /** A message queued until the run would stop, with the replies to it. */
  | { kind: "follow_up"; follow_up: string; model: Reply[] }
  /** Escape: the running run is stopped. */
  | { kind: "abort" }
  /**
   * A `!` command the learner types; `quiet`: `!!`, its output kept out of the model's context.
   */
  | { kind: "bash"; bash: string; quiet: boolean }
  /**
   * A slash command, e.g. `/quest check`; `review`: the replies of the reviewer session it
   * starts (a `review` check's), in order, kept apart from the learner's runs.
   */
  | { kind: "command"; command: string; review?: Reply[] }
  /** The answer to the next confirm dialog. */
  | { kind: "confirm"; answer: boolean }
  /** A change made outside Pi (the learner's editor, another terminal). */
  | { kind: "shell"; shell: string };

const STEP_KINDS = ["prompt", "steer", "follow_up", "abort", "bash", "command", "confirm", "shell"] as const;

/** The steps that send the model a message, and so may carry its replies. */
const WITH_REPLIES = ["prompt", "steer", "follow_up"] as const;

const StepSchema = z
  .strictObject({
    prompt: z.string().min(1, "prompt must not be empty").optional(),
    wait: z.enum(["settled", "started"], { error: "wait is settled (the default) or started" }).optional(),
    steer: z.string().min(1, "steer must not be empty").optional(),
    follow_up: z.string().min(1, "follow_up must not be empty").optional(),
    abort: z.literal(true, { error: "abort: true stops the running run" }).optional(),
    model: z.array(ReplySchema).optional(),
    bash: z.string().min(1, "bash must not be empty").optional(),
    quiet: z.boolean().optional(),
    command: z.string().regex(/^\/\S/, "a command starts with /, e.g. /quest check").optional(),
    review: z.array(ReplySchema).optional(),
    confirm: z.strictObject({ answer: z.boolean({ error: "answer is true or false" }) }).optional(),
    shell: z.string().min(1, "shell must not be empty").optional(),
  })
  .superRefine((step, ctx) => {
    const kinds = STEP_KINDS.filter((kind) => step[kind] !== undefined);
    // A step of one unknown field (a typo) is already said: no second message for it.
    if (kinds.length === 0 && ctx.issues.some((issue) => issue.code === "unrecognized_keys")) return;
    if (kinds.length !== 1) {
      const found = kinds.length === 0 ? "none" : kinds.join(" and ");
      ctx.addIssue({
        code: "custom",
        message: `a step is exactly one of ${STEP_KINDS.join(", ")} (found ${found}); make each its own step`,
      });
      return;
    }
    if (step.model !== undefined && !WITH_REPLIES.some((kind) => step[kind] !== undefined))
      ctx.addIssue({
        code: "custom",
        path: ["model"],
        message: "model gives the replies to a message: it goes with prompt, steer or follow_up",
      });
    if (step.wait !== undefined && step.prompt === undefined)
      ctx.addIssue({ code: "custom", path: ["wait"], message: "wait goes with prompt" });
    if (step.quiet !== undefined && step.bash === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["quiet"],
        message: "quiet goes with bash (quiet: true is !!, the output kept from the model)",
      });
    if (step.review !== undefined && step.command === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["review"],
        message:
          "review gives a reviewer's replies: it goes with the command that starts the review (/quest check)",
      });
    for (const field of ["model", "review"] as const) {
      const replies = step[field];
      const textAt = replies?.findIndex((reply) => "text" in reply) ?? -1;
      if (replies && textAt >= 0 && textAt < replies.length - 1)
        ctx.addIssue({
          code: "custom",
          path: [field, textAt + 1],
          message: "a text reply ends the model's run: the replies after it would never be used",
        });
    }
  })
  .transform((step): PlayStep => {
    const model = step.model ?? [];
    if (step.prompt !== undefined)
      return { kind: "prompt", prompt: step.prompt, model, wait: step.wait ?? "settled" };
    if (step.steer !== undefined) return { kind: "steer", steer: step.steer, model };
    if (step.follow_up !== undefined) return { kind: "follow_up", follow_up: step.follow_up, model };
    if (step.abort !== undefined) return { kind: "abort" };
    if (step.bash !== undefined) return { kind: "bash", bash: step.bash, quiet: step.quiet === true };
    if (step.command !== undefined)
      return { kind: "command", command: step.command, ...(step.review ? { review: step.review } : {}) };
    if (step.confirm !== undefined) return { kind: "confirm", answer: step.confirm.answer };
    return { kind: "shell", shell: step.shell ?? "" };
  });

export const PlayFileSchema = z.strictObject({
  version: z.literal(1, { error: "version must be 1 (the play format's only version)" }),
  /** Bash run in the workspace before Pi starts. */
  setup: z.string().min(1, "setup must not be empty").optional(),
  steps: z.array(StepSchema, { error: "steps is a list of steps" }),
});

export type PlayFile = z.output<typeof PlayFileSchema>;

/** A play as the runner needs it: whose it is, how it must end, what it does. */
export type Play = PlayFile & {
  quest: string;
  /** `pass`, `pass-<name>` or `fail-<name>`: the file's name without `.yaml`. */
  name: string;
  expected: "complete" | "not complete";
  /** The play file. */
  source: string;
};

/** Every play whose name starts with `pass` must complete its quest; every `fail-` play must not. */
export function expectationOf(name: string): Play["expected"] {
  return name === "pass" || name.startsWith("pass-") ? "complete" : "not complete";
}

/**
 * The play that completes `quest` before the plays of the quests that require it: its
 * `pass.yaml`, else its first `pass-<name>.yaml` (plays come in file-name order).
 */
export function completingPlay<P extends Pick<Play, "quest" | "name" | "expected">>(
  plays: readonly P[],
  quest: string,
): P | undefined {
  const passing = plays.filter((play) => play.quest === quest && play.expected === "complete");
  return passing.find((play) => play.name === "pass") ?? passing[0];
}
