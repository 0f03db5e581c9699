/**
 * The exact Node a check runs with, and the npm beside it. Neither is ever looked up on PATH:
 * a learner's PATH could name anything. A shim folder puts them first on the check's PATH.
 */
import { createHash, randomBytes } from "node:crypto";
import { access, constants, rename, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { piPackageEnvironment } from "../core/pi-package.ts";
import { writeAtomically } from "./evidence.ts";
import { ensureRealFolder } from "./worktree.ts";

export type Tools = {
  node: string;
  npmCli?: string;
  npxCli?: string;
  binDir: string;
  /** Empty npm user and global configuration files (npm refuses one file for both). */
  npmUserConfig: string;
  npmGlobalConfig: string;
  /** Pi's package folder, when the host knows it: the check's PI_QUESTS_PI_PACKAGE. */
  piPackage?: string;
};

export async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

export async function readable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
}

/**
 * What to say when no npm is next to the Node a check runs with, with the fix: pi-quests never
 * looks npm up on PATH, so it must be told where npm's entry point is.
 */
export function noNpmMessage(node: string): string {
  return `there is no npm next to ${node}; set PI_QUESTS_NPM_CLI to npm's npm-cli.js (PI_QUESTS_NPM_CLI="$(npm root -g)/npm/bin/npm-cli.js")`;
}

/** npm's entry point: the one given, else the one in Node's own installation layout. */
export async function findNpmCli(node: string, given?: string): Promise<string | undefined> {
  const candidates = given ? [given] : [resolve(dirname(node), "../lib/node_modules/npm/bin/npm-cli.js")];
  for (const candidate of candidates) if (await readable(candidate)) return candidate;
  return undefined;
}

export async function prepareTools(
  home: string,
  node: string,
  npmCliPath?: string,
): Promise<{ ok: true; tools: Tools } | { ok: false; message: string }> {
  if (!(await executable(node)))
    return { ok: false, message: `the Node executable ${node} is missing or not executable` };
  const npmCli = await findNpmCli(node, npmCliPath);
  // A shim folder of its own for each Node and npm: two verifiers of one workspace (two sessions,
  // or a Node upgraded between them) never run their checks with each other's tools.
  const binDir = join(
    home,
    "bin",
    createHash("sha256")
      .update(JSON.stringify([node, npmCli]))
      .digest("hex")
      .slice(0, 16),
  );
  const problem = await ensureRealFolder(home, binDir);
  if (problem) return { ok: false, message: problem };
  const npmUserConfig = join(home, "npmrc-user");
  const npmGlobalConfig = join(home, "npmrc-global");
  await writeFile(npmUserConfig, "");
  await writeFile(npmGlobalConfig, "");
  // Replaced, not kept when it exists: whatever link is there now, `node` is this Node.
  const link = join(binDir, `node.${randomBytes(6).toString("hex")}.tmp`);
  await symlink(node, link);
  await rename(link, join(binDir, "node"));
  const npxCli = npmCli ? join(dirname(npmCli), "npx-cli.js") : undefined;
  for (const [name, cli] of [
    ["npm", npmCli],
    ["npx", npxCli],
  ] as const) {
    const shim = join(binDir, name);
    // Without an npm beside this Node, npm must not be found on PATH either: it says so instead.
    const body = cli
      ? `exec ${shellQuote(node)} ${shellQuote(cli)} "$@"`
      : `echo ${shellQuote(`pi-quests: ${noNpmMessage(node)}`)} >&2; exit 127`;
    // Atomically: another session may be starting this very shim.
    await writeAtomically(shim, `#!/bin/sh\n${body}\n`, 0o755);
  }
  return {
    ok: true,
    tools: { node, ...(npmCli ? { npmCli, npxCli } : {}), binDir, npmUserConfig, npmGlobalConfig },
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Why the tools chosen at construction cannot run a check now (a Node or npm removed or replaced
 * since): a check must never quietly run with some other Node found on PATH.
 */
export async function toolsProblem(tools: Tools, needsNpm: boolean): Promise<string | undefined> {
  if (!(await executable(tools.node)))
    return `the Node executable ${tools.node} is missing or not executable (it was there when the verifier started)`;
  if (needsNpm && tools.npmCli && !(await readable(tools.npmCli)))
    return `the check runs npm, and npm's entry point ${tools.npmCli} is missing (it was there when the verifier started)`;
  return undefined;
}

/**
 * The environment a check runs in: our Node and npm first, npm's user and global config empty,
 * and Pi's package folder when it is known (set over whatever the inherited environment says).
 */
export function toolEnvironment(tools: Tools, basePath = process.env.PATH ?? ""): Record<string, string> {
  return {
    ...piPackageEnvironment(tools.piPackage),
    PATH: [tools.binDir, dirname(tools.node), basePath].filter(Boolean).join(":"),
    npm_config_userconfig: tools.npmUserConfig,
    npm_config_globalconfig: tools.npmGlobalConfig,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_offline: "true",
  };
}

/** Whether a script needs npm or npx (then a missing npm makes the check pending, not red). */
export function usesNpm(script: string): boolean {
  return /(^|[\s;&|(`])np[mx](\s|$)/m.test(script);
}
