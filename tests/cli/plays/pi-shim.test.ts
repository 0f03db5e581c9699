/** The chain's `pi`: the play's Pi, offline, with the scripted model and no replies, for a play's shell. */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePiShim } from "../../../src/cli/plays/pi-shim.ts";
import { makeWorkspace } from "../../support/workspace.ts";

/** A stand-in for Pi's cli.js that prints its arguments and the variables the shim sets. */
function fakePi(dir: string): string {
  const cli = join(dir, "cli.js");
  writeFileSync(
    cli,
    "console.log(JSON.stringify({ args: process.argv.slice(2), replies: process.env.PI_QUESTS_PLAY_REPLIES, offline: process.env.PI_OFFLINE }));\n",
  );
  return cli;
}

describe("writePiShim", () => {
  const dir = makeWorkspace();
  const bin = join(dir, "it's bin");
  const run = async (...args: string[]) => {
    const shim = await writePiShim(bin, {
      node: process.execPath,
      piCli: fakePi(dir),
      scriptedModel: "/x/scripted model.ts",
    });
    expect(statSync(shim).mode & 0o111).toBe(0o111);
    return JSON.parse(
      execFileSync(shim, args, {
        env: { PATH: "/usr/bin:/bin", PI_QUESTS_PLAY_REPLIES: "/the/play's/replies.json" },
      }).toString(),
    ) as { args: string[]; replies: string; offline: string };
  };

  it("runs the agent with the scripted model, offline, on an empty replies file (never the play's)", async () => {
    const ran = await run("--mode", "json", "-p", "hi there");
    expect(ran.args).toEqual([
      "-e",
      "/x/scripted model.ts",
      "--provider",
      "pi-quests-play",
      "--model",
      "scripted",
      "--mode",
      "json",
      "-p",
      "hi there",
    ]);
    expect(ran.offline).toBe("1");
    expect(ran.replies).toBe(join(bin, "no-replies.json"));
    expect(JSON.parse(readFileSync(ran.replies, "utf8"))).toEqual({ version: 1, runs: [] });
  });

  it("adds nothing to Pi's subcommands", async () => {
    for (const command of ["install", "remove", "uninstall", "update", "list", "config", "mcp", "auth"])
      expect((await run(command, "-l", "./kit")).args).toEqual([command, "-l", "./kit"]);
  });
});
