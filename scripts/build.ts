/**
 * `npm run build` (and `npm pack`, whose prepack runs it): the JavaScript an installed pi-quests
 * runs, bundled by rolldown into dist/: the CLI (dist/cli/main.js), the extension Pi loads
 * (dist/extension/index.js) and the two play-only extensions (scripted-model.js,
 * play-controls.js), their shared code and every `import()` as chunks in dist/chunks/. Every
 * output file is two folders below the package root. Each runtime dependency is inlined, so the
 * tarball depends on nothing (`dependencies: {}`); only Node's modules and Pi's packages (which
 * Pi provides to its extensions) stay imports. No minifying, so stack traces stay readable; no
 * source maps or declarations, which nobody installing pi-quests reads.
 *
 * The same sources give the same bytes, wherever they are: chunk names hash their content, the
 * notices are sorted, and module paths are written relative to the package root as it sees them.
 *
 * dist/THIRD_PARTY_LICENSES.md lists the packages whose code the bundle holds, from the modules
 * rolldown reports: name, version, licence and the package's own licence file.
 *
 * dist/yaml-values.json is the parse cache of the shipped pack (scripts/yaml-values.ts): the
 * value of each YAML file under quests/, by its text, stamped with the version of the yaml
 * library the bundle holds, which the bundle is told as `__PI_QUESTS_BUNDLED_YAML__`.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { build, type OutputChunk } from "rolldown";
import { YAML_VALUES_FILE } from "../src/core/yaml-value-cache.ts";
import { type YamlValues, yamlValues } from "./yaml-values.ts";

const REPO = resolve(import.meta.dirname, "..");

/** Output name (below dist/, without .js) to the source it is built from. */
export const ENTRIES: Readonly<Record<string, string>> = {
  "cli/main": "src/cli/main.ts",
  "extension/index": "src/extension/index.ts",
  "extension/scripted-model": "src/extension/scripted-model.ts",
  "extension/play-controls": "src/extension/play-controls.ts",
};

/** What stays an import: Node's own modules and Pi's packages. */
export const EXTERNAL: readonly RegExp[] = [/^node:/, /^@earendil-works\//];

export type BundledPackage = { name: string; version: string; license: string; licenseText?: string };
export type BuildResult = {
  outDir: string;
  /** The files written, relative to outDir, sorted. */
  files: string[];
  /** What the output still imports (statically or with `import()`) from outside it, sorted. */
  externals: string[];
  packages: BundledPackage[];
  /** What dist/yaml-values.json records of quests/ and leaves out. */
  yamlValues: Pick<YamlValues, "recorded" | "leftOut">;
};

/** Builds `root`'s sources into `outDir` (emptied first), with the notices file. */
export async function buildPackage(root = REPO, outDir = join(root, "dist")): Promise<BuildResult> {
  rmSync(outDir, { recursive: true, force: true });
  const yamlVersion = describePackage(join(root, "node_modules", "yaml")).version;
  const output = await build({
    cwd: root,
    input: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, join(root, source)])),
    platform: "node",
    external: [...EXTERNAL],
    // Module paths as the package sees them (node_modules/zod/…), not where a linked
    // node_modules really is: the bundle names its modules, and those names must not depend on
    // the machine it was built on.
    //
    // yaml as ES modules: its "browser" build, the same sources as its CommonJS build for Node,
    // which the bundle would run module by module, wrapped, when a file is first parsed (5 ms of
    // a check's start). What differs is no loss: warnings go to console.warn rather than
    // process.emitWarning (both stderr), !!binary (YAML 1.1 only, which no quest field takes) is
    // a Uint8Array, and the LOG_TOKENS and LOG_STREAM variables no longer print yaml's tokens to
    // stdout, where they would corrupt `check --json`.
    resolve: { symlinks: false, alias: { yaml: join(root, "node_modules/yaml/browser/index.js") } },
    logLevel: "warn",
    transform: { define: { __PI_QUESTS_BUNDLED_YAML__: JSON.stringify(yamlVersion) } },
    output: {
      dir: outDir,
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js",
      sourcemap: false,
      minify: false,
    },
  });
  const chunks = output.output.filter((file): file is OutputChunk => file.type === "chunk");
  const packages = bundledPackages(chunks.flatMap((chunk) => chunk.moduleIds));
  writeFileSync(join(outDir, "THIRD_PARTY_LICENSES.md"), thirdPartyNotices(packages));
  const bundledYaml = packages.filter((found) => found.name === "yaml").map((found) => found.version);
  if (bundledYaml.join() !== yamlVersion)
    throw new Error(
      `the bundle holds yaml ${bundledYaml.join(" and ") || "nowhere"}, not node_modules/yaml ${yamlVersion}`,
    );
  const cache = yamlValues(join(root, "quests"), yamlVersion);
  writeFileSync(join(outDir, YAML_VALUES_FILE), `${JSON.stringify(cache.contents, null, 2)}\n`);
  const ownFiles = new Set(chunks.map((chunk) => chunk.fileName));
  const imported = chunks.flatMap((chunk) => [...chunk.imports, ...chunk.dynamicImports]);
  return {
    outDir,
    files: [...ownFiles, "THIRD_PARTY_LICENSES.md", YAML_VALUES_FILE].sort(),
    externals: [...new Set(imported.filter((id) => !ownFiles.has(id)))].sort(),
    packages,
    yamlValues: { recorded: cache.recorded, leftOut: cache.leftOut },
  };
}

/** The packages (under some node_modules/) that the given modules belong to, sorted by name. */
export function bundledPackages(moduleIds: readonly string[]): BundledPackage[] {
  const folders = new Set<string>();
  for (const id of moduleIds) {
    const folder = packageFolderOf(id);
    if (folder) folders.add(folder);
  }
  const byKey = new Map<string, BundledPackage>();
  for (const folder of folders) {
    const found = describePackage(folder);
    byKey.set(`${found.name}@${found.version}`, found);
  }
  return [...byKey.values()].sort((a, b) =>
    a.name === b.name ? compare(a.version, b.version) : compare(a.name, b.name),
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `…/node_modules/@scope/name` or `…/node_modules/name` of a module path, the last node_modules. */
function packageFolderOf(id: string): string | undefined {
  const marker = `${sep}node_modules${sep}`;
  const at = id.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = id.slice(at + marker.length).split(sep);
  const nameParts = rest[0]?.startsWith("@") ? 2 : 1;
  return id.slice(0, at + marker.length) + rest.slice(0, nameParts).join(sep);
}

function describePackage(folder: string): BundledPackage {
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
    name?: string;
    version?: string;
    license?: unknown;
  };
  if (!manifest.name || !manifest.version) throw new Error(`${folder}/package.json has no name or version`);
  const license = typeof manifest.license === "string" ? manifest.license : "not stated in its package.json";
  const file = readdirSync(folder)
    .filter((name) => /^(licen[cs]e|copying)([.-].*)?$/i.test(name))
    .sort()[0];
  const licenseText = file ? readFileSync(join(folder, file), "utf8").trim() : undefined;
  return { name: manifest.name, version: manifest.version, license, ...(licenseText ? { licenseText } : {}) };
}

/** dist/THIRD_PARTY_LICENSES.md: one section a bundled package. */
export function thirdPartyNotices(packages: readonly BundledPackage[]): string {
  const sections = packages.map((found) =>
    [
      `## ${found.name} ${found.version}`,
      "",
      `Licence: ${found.license}`,
      "",
      found.licenseText === undefined
        ? "The package ships no licence file; its package.json states the licence above."
        : ["```text", found.licenseText.replaceAll("```", "'''"), "```"].join("\n"),
    ].join("\n"),
  );
  return [
    "# Third-party licences",
    "",
    "pi-quests' dist/ holds code of these packages, bundled into it at build time",
    "(scripts/build.ts). Each one's licence follows, as the package ships it.",
    "",
    ...sections.flatMap((section) => [section, ""]),
  ].join("\n");
}

if (import.meta.main) {
  const started = performance.now();
  const result = await buildPackage();
  // stderr: `npm pack --json` reads stdout as JSON, and prepack's output would be mixed into it.
  process.stderr.write(
    `built ${result.files.length} files into ${result.outDir} (${result.packages.length} bundled packages) in ${Math.round(performance.now() - started)} ms\n`,
  );
  const { recorded, leftOut } = result.yamlValues;
  process.stderr.write(
    `${YAML_VALUES_FILE}: ${recorded.length} files of quests/, ${leftOut.length} left out\n`,
  );
  for (const { file, reason } of leftOut) process.stderr.write(`  left out quests/${file}: ${reason}\n`);
  if (!existsSync(join(result.outDir, "cli/main.js"))) process.exitCode = 1;
}
