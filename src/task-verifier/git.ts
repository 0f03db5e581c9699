/**
 * Git for the task verifier. It needs exact bytes (patches of files in any encoding), which
 * simple-git only returns as text, so git runs through execa here with argument arrays, never a
 * shell. Every call is read-only for the learner's index (GIT_OPTIONAL_LOCKS=0) unless it runs
 * in the verifier's own worktree.
 */
import { execa } from "execa";

export type GitRunner = (
  args: readonly string[],
  options: { cwd: string; input?: Buffer; env?: Record<string, string>; okExitCodes?: readonly number[] },
) => Promise<GitResult>;

export type GitResult = { ok: true; stdout: Buffer; exitCode: number } | { ok: false; message: string };

/** Variables a learner's shell may set that would point git somewhere else. */
const INHERITED_GIT_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_COMMON_DIR",
];

export function createGitRunner(
  options: { gitBinary?: string; env?: Record<string, string | undefined> } = {},
): GitRunner {
  const binary = options.gitBinary ?? "git";
  const baseEnv: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  for (const name of INHERITED_GIT_VARIABLES) baseEnv[name] = undefined;
  return async (args, { cwd, input, env, okExitCodes = [0] }) => {
    const result = await execa(
      binary,
      ["-c", "core.quotePath=false", "-c", "core.hooksPath=/dev/null", ...args],
      {
        cwd,
        input,
        encoding: "buffer",
        env: { ...baseEnv, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", ...env },
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        maxBuffer: 512 * 1024 * 1024,
        timeout: 120_000,
      },
    );
    const stdout = Buffer.from(result.stdout ?? new Uint8Array());
    if (result.exitCode !== undefined && okExitCodes.includes(result.exitCode)) {
      return { ok: true, stdout, exitCode: result.exitCode };
    }
    const stderr = Buffer.from(result.stderr ?? new Uint8Array())
      .toString("utf8")
      .trim();
    const why = stderr || result.shortMessage || `exit code ${result.exitCode}`;
    return {
      ok: false,
      message: `git ${args.slice(0, 2).join(" ")} failed: ${why.split("\n").slice(-3).join(" ")}`,
    };
  };
}

/** Splits NUL-separated git output (`-z`) into paths. */
export function splitNul(output: Buffer): string[] {
  return output.toString("utf8").split("\0").filter(Boolean);
}

/**
 * `-c` options that make every filter driver the repository's configuration defines a no-op.
 * The learner's agent can edit `.git/config`: a smudge or clean filter there would run its
 * command during our checkout, apply or diff, outside the check's process group.
 */
export async function neutralFilterOptions(git: GitRunner, repository: string): Promise<string[]> {
  const listed = await git(["config", "--null", "--get-regexp", "^filter\\."], {
    cwd: repository,
    okExitCodes: [0, 1],
  });
  if (!listed.ok) return [];
  const names = new Set<string>();
  for (const entry of listed.stdout.toString("utf8").split("\0")) {
    const key = entry.split("\n")[0] ?? "";
    const driver = /^filter\.(.+)\.[^.]+$/.exec(key)?.[1];
    if (driver) names.add(driver);
  }
  return [...names].flatMap((name) => [
    "-c",
    `filter.${name}.smudge=cat`,
    "-c",
    `filter.${name}.clean=cat`,
    "-c",
    `filter.${name}.process=`,
    "-c",
    `filter.${name}.required=false`,
  ]);
}

/** The same runner with extra `-c` options before every command. */
export function withOptions(git: GitRunner, options: readonly string[]): GitRunner {
  return options.length === 0 ? git : (args, callOptions) => git([...options, ...args], callOptions);
}
