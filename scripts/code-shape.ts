/**
 * The shape of src/, measured from the code: how long each function and each file is, and where
 * code outside a check type's own module branches on that type's name. tests/scripts/code-shape
 * holds the bounds; `node scripts/code-shape.ts` prints the figures.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseAst } from "rolldown/parseAst";

export type FunctionSpan = { file: string; line: number; name: string; lines: number };
export type TypeBranch = { file: string; line: number; name: string };

type Node = { type?: string; start: number; end: number; [key: string]: unknown };

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === "object" && typeof (value as Node).type === "string";
}

/** Calls `visit` on every node, with the name of the nearest named declaration above it. */
function walk(node: unknown, name: string, visit: (node: Node, name: string) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, name, visit);
    return;
  }
  if (!isNode(node)) return;
  const named = nameOf(node) ?? name;
  visit(node, named);
  for (const [key, child] of Object.entries(node)) if (key !== "type") walk(child, named, visit);
}

function nameOf(node: Node): string | undefined {
  const id = (node.id ?? node.key) as { name?: unknown } | undefined;
  if (
    (node.type === "VariableDeclarator" ||
      node.type === "FunctionDeclaration" ||
      node.type === "MethodDefinition" ||
      node.type === "Property") &&
    typeof id?.name === "string"
  )
    return id.name;
  return undefined;
}

function lineCounter(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

/** Every function of a module, from its first line to its last (nested functions included). */
export function functionSpans(file: string, text: string): FunctionSpan[] {
  const lineOf = lineCounter(text);
  const spans: FunctionSpan[] = [];
  walk(parseAst(text, { lang: "ts" }, file), "(anonymous)", (node, name) => {
    if (!FUNCTIONS.has(node.type ?? "")) return;
    const line = lineOf(node.start);
    spans.push({ file, line, name, lines: lineOf(node.end) - line + 1 });
  });
  return spans;
}

/** Lines in a file, the last one counted even without a newline. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** `x.type` or `x.kind`: what a branch on a check type's name looks at. */
function isTypeOrKind(node: unknown): boolean {
  if (!isNode(node) || node.type !== "MemberExpression") return false;
  const property = node.property as { name?: unknown };
  return property.name === "type" || property.name === "kind";
}

function literalIn(node: unknown, names: ReadonlySet<string>): string | undefined {
  if (!isNode(node) || node.type !== "Literal") return undefined;
  const value = node.value;
  return typeof value === "string" && names.has(value) ? value : undefined;
}

/**
 * Comparisons of `.type` or `.kind` with one of `names` (`===`, `!==`, and `case` labels of a
 * switch over `.type` or `.kind`): code that knows about one particular check type.
 */
export function typeBranches(file: string, text: string, names: ReadonlySet<string>): TypeBranch[] {
  const lineOf = lineCounter(text);
  const found: TypeBranch[] = [];
  walk(parseAst(text, { lang: "ts" }, file), "", (node) => {
    if (node.type === "BinaryExpression" && ["===", "!==", "==", "!="].includes(String(node.operator))) {
      const name =
        (isTypeOrKind(node.left) && literalIn(node.right, names)) ||
        (isTypeOrKind(node.right) && literalIn(node.left, names));
      if (name) found.push({ file, line: lineOf(node.start), name });
    }
    if (node.type === "SwitchStatement" && isTypeOrKind(node.discriminant)) {
      for (const branch of node.cases as Node[]) {
        const name = literalIn(branch.test, names);
        if (name) found.push({ file, line: lineOf(branch.start), name });
      }
    }
  });
  return found;
}

/** The repository's TypeScript sources under src/, repository-relative with `/`. */
export function sourceFiles(root: string): { file: string; text: string }[] {
  const list = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return list(path);
      return entry.name.endsWith(".ts") ? [path] : [];
    });
  return list(join(root, "src"))
    .sort()
    .map((path) => ({ file: relative(root, path).split("\\").join("/"), text: readFileSync(path, "utf8") }));
}

if (import.meta.main) {
  const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
  const sources = sourceFiles(root);
  const spans = sources
    .flatMap(({ file, text }) => functionSpans(file, text))
    .sort((a, b) => b.lines - a.lines);
  const files = sources
    .map(({ file, text }) => ({ file, lines: lineCount(text) }))
    .sort((a, b) => b.lines - a.lines);
  process.stdout.write("Longest functions:\n");
  for (const s of spans.slice(0, 10)) process.stdout.write(`  ${s.lines}\t${s.file}:${s.line} ${s.name}\n`);
  process.stdout.write("Longest files:\n");
  for (const f of files.slice(0, 5)) process.stdout.write(`  ${f.lines}\t${f.file}\n`);
}
