/**
 * pi-quests' extension built to JavaScript and laid out as an installed package holds it: one
 * folder with a package.json (`"type": "module"`, so Pi's loader imports `.js` natively) and
 * `dist/extension/index.js` with its chunks beside it, every dependency inlined and Pi's packages
 * left out, as `pi install` leaves them (no peers, no node_modules). rolldown bundles it, as the
 * package's own build does; swap this for scripts/build.ts's output once that exists.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "rolldown";
import { REPO } from "./cli.ts";

export type BuiltExtension = { pkg: string; entry: string };

/** Builds the entry into `<root>/pi-quests`; the folders above `root` must hold no Pi package. */
export async function buildExtensionPackage(root: string): Promise<BuiltExtension> {
  const pkg = join(root, "pi-quests");
  const out = join(pkg, "dist", "extension");
  mkdirSync(out, { recursive: true });
  const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "pi-quests", version, type: "module" }));
  await build({
    input: join(REPO, "src/extension/index.ts"),
    platform: "node",
    external: [/^@earendil-works\//],
    logLevel: "warn",
    // Chunks beside the entry: `import.meta.dirname/../..` is the package root from each of them.
    output: { dir: out, format: "esm", entryFileNames: "index.js", chunkFileNames: "[name]-[hash].js" },
  });
  return { pkg, entry: join(out, "index.js") };
}

/** The first folder at or above `dir` from which `@earendil-works/…` would resolve, if any. */
export function piPackageAbove(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules", "@earendil-works"))) return at;
    if (dirname(at) === at) return undefined;
  }
}
