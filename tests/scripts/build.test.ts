/**
 * scripts/build.ts, the bundle `npm pack` ships: built twice from the checkout's sources into
 * folders of the test's own (never the checkout's dist/), the same bytes each time.
 */
import { readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildResult, buildPackage, ENTRIES } from "../../scripts/build.ts";
import { type YamlValuesFile, yamlValuesStamp } from "../../src/core/yaml-value-cache.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const REPO = resolve(import.meta.dirname, "../..");

/** The runtime dependencies 0.1.0 declared, which the bundle now holds instead. */
const FORMER_DEPENDENCIES = [
  "@modelcontextprotocol/sdk",
  "execa",
  "ignore",
  "jsonpath-plus",
  "junit-report-builder",
  "proper-lockfile",
  "re2js",
  "yaml",
  "zod",
];

let first: BuildResult;
let second: BuildResult;

beforeAll(async () => {
  first = await buildPackage(REPO, join(makeWorkspace(), "dist"));
  // The same sources in another folder, reached through links, as a copy of the checkout is.
  const elsewhere = makeWorkspace();
  for (const entry of ["src", "node_modules", "package.json", "quests"])
    symlinkSync(join(REPO, entry), join(elsewhere, entry));
  second = await buildPackage(elsewhere, join(elsewhere, "dist"));
}, 120_000);
afterAll(removeWorkspaces);

const filesUnder = (dir: string, prefix = ""): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );

describe("the build", () => {
  it("writes each entry at dist/<name>.js and the rest as chunks, with no maps or declarations", () => {
    const written = filesUnder(first.outDir).sort();
    expect(written).toEqual(first.files);
    for (const name of Object.keys(ENTRIES)) expect(written).toContain(`${name}.js`);
    for (const file of written) {
      expect(file, file).toMatch(
        /^(cli|extension)\/[\w-]+\.js$|^chunks\/[\w-]+\.js$|^THIRD_PARTY_LICENSES\.md$|^yaml-values\.json$/,
      );
    }
    expect(written.filter((file) => file.startsWith("chunks/")).length).toBeGreaterThan(5);
  });

  it("imports only Node's modules and Pi's packages: every dependency is inlined", () => {
    expect(first.externals.length).toBeGreaterThan(0);
    for (const id of first.externals) expect(id, id).toMatch(/^node:|^@earendil-works\//);
  });

  it("gives the same bytes from the same sources, in another folder too", () => {
    expect(second.files).toEqual(first.files);
    for (const file of first.files) {
      expect(readFileSync(join(second.outDir, file), "utf8"), file).toBe(
        readFileSync(join(first.outDir, file), "utf8"),
      );
    }
    for (const file of first.files)
      expect(readFileSync(join(first.outDir, file), "utf8"), file).not.toContain(REPO);
  });

  it("names every bundled package in THIRD_PARTY_LICENSES.md, with its version, licence and licence text", () => {
    const notices = readFileSync(join(first.outDir, "THIRD_PARTY_LICENSES.md"), "utf8");
    const names = first.packages.map((found) => found.name);
    for (const dependency of FORMER_DEPENDENCIES) expect(names).toContain(dependency);
    for (const found of first.packages) {
      expect(notices).toContain(`## ${found.name} ${found.version}\n\nLicence: ${found.license}\n`);
      expect(found.licenseText, found.name).toBeDefined();
      expect(notices).toContain(found.licenseText?.replaceAll("```", "'''"));
    }
    expect(names).not.toContain("vitest");
    expect(names.some((name) => name.startsWith("@earendil-works/"))).toBe(false);
  });

  it("keeps the yaml library, as ES modules, out of the loaders' chunk: it is loaded with import() when a file needs parsing", () => {
    const text = (file: string) => readFileSync(join(first.outDir, file), "utf8");
    const withYaml = first.files.filter((file) => text(file).includes("\n// node_modules/yaml/"));
    expect(withYaml).toEqual([expect.stringMatching(/^chunks\/browser-[\w-]+\.js$/)]);
    // Its ES modules, hoisted into the chunk's scope; not its CommonJS build, run module by module.
    const yamlModules = text(withYaml[0] ?? "").match(/^\/\/ node_modules\/yaml\/\S+/gm) ?? [];
    expect(yamlModules.length).toBeGreaterThan(20);
    expect(yamlModules.filter((module) => !module.startsWith("// node_modules/yaml/browser/"))).toEqual([]);
    const loader = first.files.find((file) => file.startsWith("chunks/loader-")) ?? "";
    expect(text(loader)).toContain("\n// src/verifier/loader.ts");
    expect(text(loader)).toContain('import("./yaml-document-');
  });

  it("writes the parse cache of quests/, stamped with the yaml the bundle holds, which the bundle knows", () => {
    const cache = JSON.parse(readFileSync(join(first.outDir, "yaml-values.json"), "utf8")) as YamlValuesFile;
    const yaml = first.packages.find((found) => found.name === "yaml");
    const { values, ...stamp } = cache;
    expect(stamp).toEqual(yamlValuesStamp(yaml?.version ?? ""));
    expect(first.yamlValues.leftOut).toEqual([]);
    expect(values.length).toBe(first.yamlValues.recorded.length);
    expect(first.yamlValues.recorded.length).toBeGreaterThan(100);
    const reader = first.files.filter((file) =>
      readFileSync(join(first.outDir, file), "utf8").includes("\n// src/core/yaml-value-cache.ts"),
    );
    expect(reader).toHaveLength(1);
    const code = readFileSync(join(first.outDir, reader[0] ?? ""), "utf8");
    expect(code).not.toMatch(/typeof __PI_QUESTS_BUNDLED_YAML__|\(__PI_QUESTS_BUNDLED_YAML__\)/);
    expect(code).toMatch(
      new RegExp(
        `function bundledYamlVersion\\(\\) \\{\\s*return ${JSON.stringify(yaml?.version).replaceAll(".", "\\.")};`,
      ),
    );
  });
});
