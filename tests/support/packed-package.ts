/**
 * The package as npm publishes it, made the way a release makes it: the checkout's files (the
 * tracked ones and new ones git does not ignore, as they are on disk) copied to a folder of the
 * caller's with `node_modules` linked to the checkout's, and `npm pack` run there, whose prepack
 * builds dist/. The checkout itself is never packed, built into or written. Then unpacked into
 * a `node_modules/pi-quests` the way npm installs it.
 *
 * Used by tests/cli/installed-package.test.ts, the release test and bench/built-package.ts.
 * Packing builds (a few seconds): pack once per test file.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { execa } from "execa";

const REPO = resolve(import.meta.dirname, "../..");

export type PackedPackage = {
  /** The .tgz npm wrote. */
  tarball: string;
  /** The paths the tarball holds, as `npm pack --json` lists them, sorted. */
  files: string[];
  version: string;
};

export type PackOptions = {
  /** An empty or absent folder of the caller's: the copy and the tarball go under it. */
  workDir: string;
  /** Another version for the copy's package.json (a second release to update to). */
  version?: string;
};

/** npm's own entry script: the one npm started us with, else the one beside this Node. */
export function npmCli(): string {
  const started = process.env.npm_execpath;
  if (started?.endsWith("npm-cli.js") && existsSync(started)) return started;
  const beside = join(dirname(process.execPath), "../lib/node_modules/npm/bin/npm-cli.js");
  if (existsSync(beside)) return beside;
  throw new Error(`no npm beside ${process.execPath}: set npm_execpath to npm's npm-cli.js`);
}

/**
 * An environment for npm with nothing of this machine's user: a home, cache and user config
 * under `dir`, no update check, and this Node first on PATH (prepack's `node` is this one).
 */
export function npmEnvironment(dir: string): Record<string, string> {
  const home = join(dir, "npm-home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".npmrc"), "");
  return {
    HOME: home,
    PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    npm_config_userconfig: join(home, ".npmrc"),
    npm_config_cache: join(home, "cache"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/** The checkout's files, copied to `dir` (node_modules linked), then `npm pack` there. */
export async function packRepository(options: PackOptions): Promise<PackedPackage> {
  const source = join(options.workDir, "source");
  const destination = join(options.workDir, "packed");
  mkdirSync(destination, { recursive: true });
  await copyCheckout(source);
  if (options.version !== undefined) {
    const manifestPath = join(source, "package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, version: options.version }, null, 2)}\n`);
  }
  const packed = await execa(
    process.execPath,
    [npmCli(), "pack", "--json", "--pack-destination", destination],
    { cwd: source, env: npmEnvironment(options.workDir), extendEnv: false, timeout: 180_000 },
  );
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as {
    filename: string;
    version: string;
    files: { path: string }[];
  }[];
  if (!report) throw new Error(`npm pack listed nothing:\n${packed.stdout}\n${packed.stderr}`);
  return {
    tarball: join(destination, report.filename),
    files: report.files.map((file) => file.path).sort(),
    version: report.version,
  };
}

/** The tarball unpacked as `nodeModules/pi-quests`, as npm installs it; returns that folder. */
export async function unpackPackage(tarball: string, nodeModules: string): Promise<string> {
  const scratch = join(nodeModules, ".unpack");
  mkdirSync(scratch, { recursive: true });
  await execa("tar", ["-xzf", tarball, "-C", scratch]);
  const installed = join(nodeModules, "pi-quests");
  renameSync(join(scratch, "package"), installed);
  rmSync(scratch, { recursive: true, force: true });
  return installed;
}

async function copyCheckout(target: string): Promise<void> {
  const listed = await execa("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
  });
  for (const path of listed.stdout.split("\0")) {
    // A tracked file deleted in the working tree is not part of what would be packed.
    if (path === "" || !existsSync(join(REPO, path))) continue;
    mkdirSync(dirname(join(target, path)), { recursive: true });
    cpSync(join(REPO, path), join(target, path), { verbatimSymlinks: true });
  }
  symlinkSync(join(REPO, "node_modules"), join(target, "node_modules"));
}
