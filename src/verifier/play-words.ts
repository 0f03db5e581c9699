/**
 * A play's steps in words, for a learner who wants to see how the reference solution did it
 * (`/quest solution`) and for an author following a play by hand (`pi-quests play --solution`):
 * each step whole (a prompt, a `!` command, a slash command never cut), and the scripted model's
 * tool calls said as what Pi did ("Pi writes hello.txt"). Pure; text only.
 */
import type { Reply } from "../core/play-replies.ts";
import type { PlayStep } from "./play.ts";

/** Each step as one entry: what the learner does, then, indented, what Pi does in reply. */
export function playStepsInWords(steps: readonly PlayStep[]): string[] {
  return steps.map(stepInWords);
}

function stepInWords(step: PlayStep): string {
  switch (step.kind) {
    case "prompt": {
      const still = step.wait === "started" ? " (and go on while Pi still works)" : "";
      return withReplies(`Type: ${step.prompt}${still}`, step.model);
    }
    case "steer":
      return withReplies(`While Pi works, type and press Enter to steer it: ${step.steer}`, step.model);
    case "follow_up":
      return withReplies(`While Pi works, type and press Alt+Enter to queue: ${step.follow_up}`, step.model);
    case "abort":
      return "Press Escape to stop Pi's run.";
    case "bash":
      return `Run it yourself: ${step.quiet ? "!!" : "!"}${step.bash}`;
    case "command":
      return `Type: ${step.command}`;
    case "confirm":
      return `Answer ${step.answer ? "Yes" : "No"} in the dialog.`;
    case "shell":
      return `Outside Pi, in a terminal in this folder: ${step.shell}`;
    default:
      return unreachable(step);
  }
}

/** The step, then each tool call of the model's replies in words (its closing text left out). */
function withReplies(step: string, replies: readonly Reply[]): string {
  const calls = replies.flatMap((reply) => ("tool" in reply ? [`   Pi ${toolCallInWords(reply)}`] : []));
  return [step, ...calls].join("\n");
}

/** A tool call as what Pi did: the file it wrote, read or edited, the command it ran. */
export function toolCallInWords({
  tool,
  args,
}: {
  tool: string;
  args: Readonly<Record<string, unknown>>;
}): string {
  const path = typeof args.path === "string" ? args.path : undefined;
  switch (tool) {
    case "write":
      return path ? `writes ${path}` : "writes a file";
    case "read":
      return path ? `reads ${path}` : "reads a file";
    case "ls":
      return `lists ${path ?? "the folder"}`;
    case "edit": {
      const edits = Array.isArray(args.edits) ? args.edits.length : 1;
      return `edits ${path ?? "a file"} (${edits} ${edits === 1 ? "change" : "changes"})`;
    }
    case "bash":
      return typeof args.command === "string" ? `runs: ${args.command}` : "runs a command";
    default:
      return `calls its ${tool} tool`;
  }
}

function unreachable(value: never): never {
  throw new Error(`unexpected play step ${JSON.stringify(value)}`);
}
