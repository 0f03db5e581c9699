/**
 * The folder each run of `pi-quests test` gets under its root, named after what it plays, so an
 * author who kept them (`--keep`) finds a play's workspace by its name:
 * `exact-edit--pass-sed/`, the pack's advised order in `advised-order/`, and chains that share
 * one run of their requirements in `after-QUEST--PLAY-and-N-more/` (the requirements' state, copied
 * before the plays, beside it as `….required/`).
 */
import type { PlayRun } from "./runner.ts";

/** One name a run, in the runs' order, each unique (a second of the same name gets `-2`). */
export function runFolderNames(runs: readonly PlayRun[]): string[] {
  const taken = new Map<string, number>();
  return runs.map((run) => {
    const name = nameOf(run);
    const seen = (taken.get(name) ?? 0) + 1;
    taken.set(name, seen);
    return seen === 1 ? name : `${name}-${seen}`;
  });
}

function nameOf(run: PlayRun): string {
  switch (run.kind) {
    case "runnable":
    case "unplayable":
      return `${run.play.quest}--${run.play.name}`;
    case "sequence":
      return "advised-order";
    case "shared": {
      const [first] = run.plays;
      const last = run.before.at(-1);
      const after = last ? `after-${last.quest}--` : "";
      const more = run.plays.length > 1 ? `-and-${run.plays.length - 1}-more` : "";
      return first ? `${after}${first.quest}--${first.name}${more}` : "shared";
    }
    default:
      return unreachable(run);
  }
}

function unreachable(value: never): never {
  throw new Error(`unexpected run ${JSON.stringify(value)}`);
}
