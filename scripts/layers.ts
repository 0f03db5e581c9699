/**
 * The layer rule of src/, checked by `npm run lint`: a module imports only from its own folder
 * and the folders below it, and Pi's packages are imported at run time only where pi-quests
 * meets Pi. docs/architecture.md explains each layer; this table is the one that is enforced.
 *
 * Every kind of import counts: `import`, `import type`, `export ... from` and `import("...")`,
 * because a type-only import still couples the lower layer to the upper one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { parseAst } from "rolldown/parseAst";

/** The layers, lowest first. Folders on one row are siblings: neither imports the other. */
export const LAYERS: readonly (readonly string[])[] = [
  ["core"],
  ["events"],
  ["verifier"],
  ["probes"],
  ["receipts"],
  ["task-verifier"],
  ["runtime"],
  ["extension", "cli"],
];

/**
 * The only modules that import Pi's packages at run time: the Pi host (src/runtime/pi-host.ts),
 * which finds the running Pi's modules (or the CLI's Pi) and hands them to everything else, the
 * extension's entry, the skill probe, the reviewer and the scripted model's faux provider among
 * them; and the play-only Pi entry of the play controls (Pi's trust store and session list, so
 * a play saves trust and picks a session with Pi's own code), which is never installed for a
 * learner. Anywhere else, Pi is imported for its types: in an installed package Pi's names do
 * not resolve from pi-quests' files, or resolve to another copy than the running Pi's.
 */
export const PI_RUNTIME_IMPORTERS: readonly string[] = [
  "src/runtime/pi-host.ts",
  "src/extension/play-controls.ts",
];
const PI_PACKAGE = /^@earendil-works\//;

export type ImportSite = {
  specifier: string;
  line: number;
  typeOnly: boolean;
  /** `import("...")`: loaded when the code runs there, not when the module is loaded. */
  dynamic: boolean;
};
export type LayerViolation = { file: string; line: number; message: string };

/** The imports of one TypeScript module, with their lines. */
export function importsOf(file: string, text: string): ImportSite[] {
  const program = parseAst(text, { lang: "ts" }, file);
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const sites: ImportSite[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const n = node as { type?: string; start: number; [key: string]: unknown };
    const source = n.source as { type?: string; value?: unknown } | null | undefined;
    if (
      (n.type === "ImportDeclaration" ||
        n.type === "ExportNamedDeclaration" ||
        n.type === "ExportAllDeclaration" ||
        n.type === "ImportExpression") &&
      source?.type === "Literal" &&
      typeof source.value === "string"
    ) {
      sites.push({
        specifier: source.value,
        line: lineOf(n.start),
        typeOnly: n.importKind === "type" || n.exportKind === "type" || allTypeSpecifiers(n),
        dynamic: n.type === "ImportExpression",
      });
    }
    for (const [key, child] of Object.entries(n)) if (key !== "source") visit(child);
  };
  visit(program);
  return sites;
}

/** `import { type A, type B } from "..."`: nothing of it is loaded at run time either. */
function allTypeSpecifiers(node: { type?: string; [key: string]: unknown }): boolean {
  const specifiers = node.specifiers as { importKind?: string }[] | undefined;
  return (
    node.type === "ImportDeclaration" &&
    specifiers !== undefined &&
    specifiers.length > 0 &&
    specifiers.every((specifier) => specifier.importKind === "type")
  );
}

/**
 * The packages a module loads with it, following its static, non-type imports through src/:
 * what loading it costs before any `import()` runs.
 */
export function loadedWith(entry: string): { modules: string[]; packages: string[] } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const site of importsOf(file, readFileSync(file, "utf8"))) {
      if (site.typeOnly || site.dynamic) continue;
      if (site.specifier.startsWith(".")) visit(resolve(dirname(file), site.specifier));
      else packages.add(site.specifier);
    }
  };
  visit(resolve(entry));
  return { modules: [...modules], packages: [...packages].sort() };
}

/** The layer row of a repository-relative path under src/, or undefined outside src/. */
function rowOf(path: string): { folder: string; row: number } | undefined {
  const [top, folder] = path.split("/");
  if (top !== "src" || folder === undefined) return undefined;
  const row = LAYERS.findIndex((folders) => folders.includes(folder));
  return { folder, row };
}

/** What is wrong with one import of `file` (repository-relative, POSIX separators), if anything. */
export function importProblem(file: string, site: ImportSite): string | undefined {
  if (PI_PACKAGE.test(site.specifier)) {
    if (site.typeOnly || PI_RUNTIME_IMPORTERS.includes(file)) return undefined;
    const allowed = `${PI_RUNTIME_IMPORTERS.slice(0, -1).join(", ")} and ${PI_RUNTIME_IMPORTERS.at(-1)}`;
    return `imports ${site.specifier} at run time; only ${allowed} may (import its types with \`import type\`)`;
  }
  if (!site.specifier.startsWith(".")) return undefined;
  const from = rowOf(file);
  const target = rowOf(posix.normalize(posix.join(posix.dirname(file), site.specifier)));
  if (!from || !target || from.folder === target.folder) return undefined;
  if (from.row < 0) return `src/${from.folder} is not in the layer table of scripts/layers.ts`;
  if (target.row < 0)
    return `imports src/${target.folder}, which is not in the layer table of scripts/layers.ts`;
  if (target.row < from.row) return undefined;
  const relation = target.row === from.row ? "a sibling layer" : "a layer above it";
  return `src/${from.folder} imports src/${target.folder} (${site.specifier}), ${relation}: a layer imports only the ones below it`;
}

/** Every violation in the TypeScript files under `root`/src. */
export function layerViolations(root: string): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const absolute of typescriptFiles(join(root, "src"))) {
    const file = relative(root, absolute).split("\\").join("/");
    for (const site of importsOf(file, readFileSync(absolute, "utf8"))) {
      const message = importProblem(file, site);
      if (message) violations.push({ file, line: site.line, message });
    }
  }
  return violations;
}

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

if (import.meta.main) {
  const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
  const violations = layerViolations(root);
  for (const { file, line, message } of violations) process.stderr.write(`${file}:${line}: ${message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`\n${violations.length} import(s) break the layers (scripts/layers.ts).\n`);
    process.exit(1);
  }
}
