/**
 * The exact Node a check runs with, and the npm beside it. Neither is ever looked up on PATH:
 * a learner's PATH could name anything. A shim folder puts them first on the check's PATH.
 */
import { access, chmod, constants, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ensureRealFolder } from "./worktree.ts";

export type Tools = {
  node: string;
  npmCli?: string;
  npxCli?: string;
  binDir: string;
  /** Empty npm user and global configuration files (npm refuses one file for both). */
  npmUserConfig: string;
  npmGlobalConfig: string;
};

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function readable(path: string): Promise<boolean> {
  return access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
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
  const binDir = join(home, "bin");
  const problem = await ensureRealFolder(home, binDir);
  if (problem) return { ok: false, message: problem };
  const npmUserConfig = join(home, "npmrc-user");
  const npmGlobalConfig = join(home, "npmrc-global");
  await writeFile(npmUserConfig, "");
  await writeFile(npmGlobalConfig, "");
  await symlink(node, join(binDir, "node")).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const npxCli = npmCli ? join(dirname(npmCli), "npx-cli.js") : undefined;
  for (const [name, cli] of [
    ["npm", npmCli],
    ["npx", npxCli],
  ] as const) {
    const shim = join(binDir, name);
    // Without an npm beside this Node, npm must not be found on PATH either: it says so instead.
    const body = cli
      ? `exec ${shellQuote(node)} ${shellQuote(cli)} "$@"`
      : `echo ${shellQuote(`pi-quests: no npm next to ${node}`)} >&2; exit 127`;
    await writeFile(shim, `#!/bin/sh\n${body}\n`);
    await chmod(shim, 0o755);
  }
  return {
    ok: true,
    tools: { node, ...(npmCli ? { npmCli, npxCli } : {}), binDir, npmUserConfig, npmGlobalConfig },
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The environment a check runs in: our Node and npm first, npm's user and global config empty. */
export function toolEnvironment(tools: Tools, basePath = process.env.PATH ?? ""): Record<string, string> {
  return {
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
