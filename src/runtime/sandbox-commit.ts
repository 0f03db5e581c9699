/**
 * How pi-quests commits into a sandbox: the set-up's baseline and an upgrade's files on top are
 * its only commits in a learner's repository, made as its own identity (so an upgrade can tell
 * its commit from the learner's) and without the learner's hooks.
 */

/** Who pi-quests commits a sandbox as. */
export const SANDBOX_IDENTITY = { name: "pi-quests", email: "pi-quests@localhost" };

/** The git arguments of a pi-quests commit: of `only` those paths when given, else of the index. */
export function sandboxCommitArgs(message: string, only?: readonly string[]): string[] {
  return [
    "-c",
    `user.name=${SANDBOX_IDENTITY.name}`,
    "-c",
    `user.email=${SANDBOX_IDENTITY.email}`,
    "commit",
    "--quiet",
    "--no-verify",
    ...(only ? ["--only", "-m", message, "--", ...only] : ["-m", message]),
  ];
}
