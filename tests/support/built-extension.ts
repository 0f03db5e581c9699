/**
 * pi-quests' extension built to JavaScript and laid out as an installed package holds it: one
 * folder with a package.json (`"type": "module"`, so Pi's loader imports `.js` natively) and
 * `dist/extension/index.js` with its chunks beside it, every dependency inlined and Pi's packages
 * left out, as `pi install` leaves them (no peers, no node_modules): the package's own build
 * (scripts/build.ts), without packing it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildPackage } from "../../scripts/build.ts";
import { REPO } from "./cli.ts";

export type BuiltExtension = { pkg: string; entry: string };

/** Builds the entry into `<root>/pi-quests`; the folders above `root` must hold no Pi package. */
export async function buildExtensionPackage(root: string): Promise<BuiltExtension> {
  const pkg = join(root, "pi-quests");
  mkdirSync(pkg, { recursive: true });
  const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "pi-quests", version, type: "module" }));
  await buildPackage(REPO, join(pkg, "dist"));
  return { pkg, entry: join(pkg, "dist", "extension", "index.js") };
}

/** The first folder at or above `dir` from which `@earendil-works/…` would resolve, if any. */
export function piPackageAbove(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules", "@earendil-works"))) return at;
    if (dirname(at) === at) return undefined;
  }
}
