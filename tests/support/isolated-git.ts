/** git in a test with nothing of this machine's: a temp HOME, a global config of the test's own, no system config. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { makeWorkspace } from "./workspace.ts";

/** A git identity a test's global config can give. */
export const LEARNER_IDENTITY = "[user]\n\tname = Ada Learner\n\temail = ada@example.com\n";

/** An environment whose git reads only `globalConfig` (empty: no user identity at all). */
export function isolatedGitEnv(globalConfig = ""): Record<string, string> {
  const home = makeWorkspace({ ".gitconfig-global": globalConfig });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_GLOBAL: join(home, ".gitconfig-global"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** Runs git in `dir` with `env`; its stdout, trimmed (throws when git fails). */
export function gitIn(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}
