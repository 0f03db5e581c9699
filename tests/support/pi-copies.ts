/**
 * Pis the lock file does not hold, made from the one it does: a copy of the installed Pi whose
 * package.json claims another version (an older Pi, a newer one than pi-quests was tested with),
 * and whose code a test may change (a Pi that changed one of the texts pi-quests reads). Its
 * bundle is copied; everything it imports resolves through links to this checkout's node_modules,
 * in a node_modules of its own, as an installed Pi's would.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./cli.ts";
import { makeWorkspace } from "./workspace.ts";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";
const INSTALLED = join(REPO, "node_modules", PI_PACKAGE);

export type PiCopy = { cli: string; packageDir: string };

/**
 * A Pi that says it is `version`; `change` edits its bundle's files (paths relative to
 * dist/bundle) before it runs.
 */
export function piClaiming(version: string, change?: (bundle: string) => void): PiCopy {
  const root = makeWorkspace();
  const modules = join(root, "node_modules");
  const packageDir = join(modules, PI_PACKAGE);
  mkdirSync(join(packageDir, "dist"), { recursive: true });
  linkAllBut(join(REPO, "node_modules"), modules, ["@earendil-works", ".bin", ".package-lock.json"]);
  linkAllBut(join(REPO, "node_modules/@earendil-works"), join(modules, "@earendil-works"), [
    "pi-coding-agent",
  ]);
  linkAllBut(INSTALLED, packageDir, ["dist", "package.json"]);
  linkAllBut(join(INSTALLED, "dist"), join(packageDir, "dist"), ["bundle"]);
  cpSync(join(INSTALLED, "dist/bundle"), join(packageDir, "dist/bundle"), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(INSTALLED, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  writeFileSync(join(packageDir, "package.json"), JSON.stringify({ ...manifest, version }, null, 2));
  change?.(join(packageDir, "dist/bundle"));
  return { cli: join(packageDir, "dist/bundle/cli.js"), packageDir };
}

/** Links each entry of `from` into `to` (made), but the names in `except`. */
function linkAllBut(from: string, to: string, except: readonly string[]): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (!except.includes(name)) symlinkSync(join(from, name), join(to, name));
  }
}
