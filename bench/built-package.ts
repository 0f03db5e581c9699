/**
 * The built package for a bench, as a learner installs it: `npm pack` of a copy of the checkout
 * (tests/support/packed-package.ts, which the tests use too), unpacked into a temp
 * `node_modules/pi-quests`. Its root and its bin, and a way to remove it all.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packRepository, unpackPackage } from "../tests/support/packed-package.ts";

export type BuiltPackage = {
  /** The installed package folder (`…/node_modules/pi-quests`). */
  root: string;
  /** Its `bin/pi-quests.js`, to run with `node`. */
  bin: string;
  version: string;
  remove(): void;
};

export async function builtPackage(): Promise<BuiltPackage> {
  const dir = mkdtempSync(join(tmpdir(), "pi-quests-bench-built-"));
  try {
    const packed = await packRepository({ workDir: join(dir, "pack") });
    const root = await unpackPackage(packed.tarball, join(dir, "project", "node_modules"));
    return {
      root,
      bin: join(root, "bin/pi-quests.js"),
      version: packed.version,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
