/**
 * The `pi` a play's shell finds on PATH (`<chain>/bin/pi`, put first by runner.ts playEnv): the
 * same Pi the play runs, offline, so that a learner's `pi install -l ./kit` or
 * `pi --mode json -p "hi"` works inside a play. A run of the agent gets the scripted model with
 * an empty replies file (it answers that the play has no more replies, never the play's own
 * replies, which the play's Pi is following) and no pi-quests extension; Pi's subcommands
 * (packages, config, mcp, auth) get nothing added.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PLAY_MODEL, PLAY_PROVIDER, PLAY_REPLIES_ENV, playRepliesJson } from "../../core/play-replies.ts";

/** Pi's subcommands (PCA/dist/main.js: package commands, config, mcp, auth): no model flags for them. */
export const PI_SUBCOMMANDS = ["install", "remove", "uninstall", "update", "list", "config", "mcp", "auth"];

export type PiShimOptions = {
  /** The Node that runs Pi. */
  node: string;
  /** Pi's cli.js. */
  piCli: string;
  /** The scripted model's extension file. */
  scriptedModel: string;
};

/** Writes `bin/pi` and the empty replies file it names; returns the script's path. */
export async function writePiShim(bin: string, options: PiShimOptions): Promise<string> {
  await mkdir(bin, { recursive: true });
  const replies = join(bin, "no-replies.json");
  await writeFile(replies, playRepliesJson([]));
  const shim = join(bin, "pi");
  await writeFile(shim, piShimScript({ ...options, replies }));
  await chmod(shim, 0o755);
  return shim;
}

/** The script's text. */
export function piShimScript(options: PiShimOptions & { replies: string }): string {
  const pi = `${quote(options.node)} ${quote(options.piCli)}`;
  const model = `-e ${quote(options.scriptedModel)} --provider ${PLAY_PROVIDER} --model ${PLAY_MODEL}`;
  return [
    "#!/bin/sh",
    "# pi in a play (pi-quests test): offline, the scripted model with no replies, no pi-quests.",
    `${PLAY_REPLIES_ENV}=${quote(options.replies)}`,
    "PI_OFFLINE=1",
    `export ${PLAY_REPLIES_ENV} PI_OFFLINE`,
    `case "$1" in`,
    `  ${PI_SUBCOMMANDS.join("|")}) exec ${pi} "$@" ;;`,
    "esac",
    `exec ${pi} ${model} "$@"`,
    "",
  ].join("\n");
}

/** `text` as one word of sh. */
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
