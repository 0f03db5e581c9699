/**
 * Random repositories and random edits for the fingerprint's property tests: text, binary, CRLF,
 * non-ASCII names, executables, nested `.gitignore` files, ignored and generated files, links
 * inside and out; the edits change content, names, modes, links, the index and the ignore rules.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { commitAll, git, makeWorkspace } from "./workspace.ts";

/** Writes `content` at `path` below `dir`, making the folders on the way. */
export function write(dir: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** mulberry32: a small deterministic PRNG. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  return {
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    bytes: (length: number) => Buffer.from(Array.from({ length }, () => int(256))),
    text: () => Array.from({ length: 1 + int(6) }, () => `line ${int(1000)}\n`).join(""),
  };
}
export type Random = ReturnType<typeof random>;

const FOLDERS = [
  "",
  "src",
  "src/lib",
  "src/lib/deep",
  "docs",
  "a b",
  "ünï",
  "a-b",
  "a.b",
  "tmp",
  "node_modules/pkg",
  "dist",
  "src/__pycache__",
];
const IGNORED = [
  "debug.log",
  "src/x.log",
  "tmp/cache.txt",
  "secret.txt",
  "src/lib/old.bak",
  "src/lib/deep/more.bak",
];
const GENERATED = [
  "node_modules/new/index.js",
  "build/out.o",
  "src/__pycache__/m.pyc",
  ".venv/bin/python",
  "dist/more.js",
];

/** Every file and link below `dir` (workspace-relative), not looking into .git or through links. */
function listFiles(dir: string, folder = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(dir, folder), { withFileTypes: true })) {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.name === ".git") continue;
    if (entry.isDirectory()) found.push(...listFiles(dir, path));
    else found.push(path);
  }
  return found;
}

function tryGit(dir: string, ...args: string[]): void {
  try {
    git(dir, ...args);
  } catch {
    // Ignored: the edit is skipped.
  }
}

export const isLink = (path: string) => lstatSync(path).isSymbolicLink();
const isFile = (path: string) => lstatSync(path).isFile();

function newPath(r: Random): string {
  const folder = r.pick(FOLDERS.filter((f) => f !== "tmp"));
  const name = `${r.pick(["n", "new", "ñ", "z z"])}${r.int(100)}${r.pick([".txt", ".bin", ".js", ""])}`;
  return folder ? `${folder}/${name}` : name;
}

function randomContent(r: Random): string | Buffer {
  if (r.chance(0.15)) return r.text().replaceAll("\n", "\r\n");
  return r.chance(0.3) ? r.bytes(r.int(200)) : r.text();
}

/** Removes whatever is at `path` and makes the folders above it real folders again. */
function clear(dir: string, path: string): void {
  rmSync(join(dir, path), { recursive: true, force: true });
  const parent = dirname(join(dir, path));
  if (existsSync(parent) && isLink(parent)) rmSync(parent);
  mkdirSync(parent, { recursive: true });
}

export function buildRepo(r: Random, outside: string): string {
  const dir = makeWorkspace({
    ".gitignore": `*.log\n!keep.log\ntmp/\nsecret.txt\n${r.chance(0.5) ? "node_modules/\n" : ""}`,
    "src/.gitignore": "*.bak\n",
  });
  for (let i = 0, count = 8 + r.int(20); i < count; i++) {
    const path = newPath(r);
    write(dir, path, randomContent(r));
    if (r.chance(0.2)) chmodSync(join(dir, path), 0o755);
  }
  write(dir, "keep.log", "kept\n");
  for (const path of IGNORED) if (r.chance(0.5)) write(dir, path, r.text());
  const files = listFiles(dir);
  symlinkSync(`../${r.pick(files)}`, join(dir, "src/link-to-file"));
  if (r.chance(0.5)) symlinkSync("lib", join(dir, "src/link-to-folder"));
  if (r.chance(0.5)) symlinkSync("nowhere", join(dir, "dangling"));
  if (r.chance(0.5)) symlinkSync(outside, join(dir, "outside"));
  commitAll(dir);
  return dir;
}

type Edit = (dir: string, r: Random, outside: string) => void;

const EDITS: Record<string, Edit> = {
  modify(dir, r) {
    const path = r.pick(listFiles(dir).filter((p) => isFile(join(dir, p))));
    if (path) writeFileSync(join(dir, path), randomContent(r));
  },
  rewriteSameContent(dir, r) {
    const path = r.pick(listFiles(dir).filter((p) => isFile(join(dir, p))));
    if (!path) return;
    writeFileSync(join(dir, path), readFileSync(join(dir, path)));
    const later = new Date(Date.now() + r.int(100_000));
    utimesSync(join(dir, path), later, later);
  },
  addUntracked(dir, r) {
    const path = newPath(r);
    clear(dir, path);
    write(dir, path, randomContent(r));
  },
  remove(dir, r) {
    const path = r.pick(listFiles(dir));
    if (path) rmSync(join(dir, path));
  },
  rename(dir, r) {
    const from = r.pick(listFiles(dir));
    const to = newPath(r);
    if (!from || to === from || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) return;
    clear(dir, to);
    renameSync(join(dir, from), join(dir, to));
  },
  chmod(dir, r) {
    const path = r.pick(listFiles(dir).filter((p) => isFile(join(dir, p))));
    if (!path) return;
    const mode = statSync(join(dir, path)).mode & 0o777;
    // Group- or other-only execute bits too: git looks at the owner's bit alone.
    chmodSync(join(dir, path), r.pick([mode ^ 0o100, 0o755, 0o644, 0o654, 0o645]));
  },
  stage(dir, r) {
    const path = r.pick(listFiles(dir));
    const choice = r.int(5);
    // Some of these fail (an ignored path, a path git cannot add): the edit is then skipped.
    if (choice === 0) tryGit(dir, "add", "-A");
    else if (choice === 1 && path) tryGit(dir, "add", "--", path);
    else if (choice === 2 && path)
      tryGit(dir, "add", "-f", "--", path); // tracked although ignored
    else if (choice === 3 && path) tryGit(dir, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", path);
    else if (path) tryGit(dir, "add", "-N", "--", path); // intent to add
  },
  hideFromStatus(dir, r) {
    // Entries git status does not look at on disk; the file then changes or goes.
    // Not a .gitignore: git reads a missing skip-worktree .gitignore from the index for
    // `git status`, but not for `git ls-files -- <subfolder>`, so the two lists then differ.
    const tracked = git(dir, "ls-files", "-z").split("\0");
    const path = r.pick(tracked.filter((p) => p && !p.endsWith(".gitignore")));
    if (!path) return;
    tryGit(dir, "update-index", r.pick(["--skip-worktree", "--assume-unchanged"]), "--", path);
    const file = join(dir, path);
    if (!existsSync(file) || !isFile(file)) return;
    if (r.chance(0.5)) rmSync(file);
    else writeFileSync(file, r.text());
  },
  fileToLink(dir, r) {
    const files = listFiles(dir);
    const path = r.pick(files.filter((p) => isFile(join(dir, p))));
    if (!path) return;
    rmSync(join(dir, path));
    symlinkSync(r.chance(0.5) ? r.pick(files) : "missing-target", join(dir, path));
  },
  linkToFile(dir, r) {
    const path = r.pick(listFiles(dir).filter((p) => isLink(join(dir, p))));
    if (!path) return;
    rmSync(join(dir, path));
    writeFileSync(join(dir, path), randomContent(r));
  },
  addIgnored(dir, r) {
    const path = r.pick(IGNORED);
    clear(dir, path);
    write(dir, path, r.text());
  },
  addGenerated(dir, r) {
    const path = r.pick(GENERATED);
    clear(dir, path);
    write(dir, path, r.text());
  },
  folderToOutsideLink(dir, r, outside) {
    const folder = r.pick(["docs", "a b", "src/lib/deep", "ünï"]);
    rmSync(join(dir, folder), { recursive: true, force: true });
    mkdirSync(dirname(join(dir, folder)), { recursive: true });
    symlinkSync(outside, join(dir, folder));
  },
  fileToFolder(dir, r) {
    const path = r.pick(listFiles(dir).filter((p) => isFile(join(dir, p)) && !p.endsWith(".gitignore")));
    if (!path) return;
    rmSync(join(dir, path));
    write(dir, `${path}/inside.txt`, r.text());
  },
  editGitignore(dir, r) {
    const pattern = r.pick(["*.bin", "!debug.log", "a b/", "docs/*.txt", "*.js\n!src/**/*.js"]);
    const file = join(dir, r.pick([".gitignore", "src/.gitignore"]));
    if (existsSync(file) && isLink(file)) rmSync(file);
    if (!existsSync(file) || isFile(file)) writeFileSync(file, `${pattern}\n`, { flag: "a" });
  },
};

export function applyEdits(dir: string, r: Random, outside: string): string[] {
  const names = Object.keys(EDITS);
  const applied: string[] = [];
  for (let i = 0, count = 2 + r.int(8); i < count; i++) {
    const name = r.pick(names);
    try {
      (EDITS[name] as Edit)(dir, r, outside);
      applied.push(name);
    } catch {
      // An edit can meet a state it cannot handle (a folder where it expects a file...).
      applied.push(`${name} (failed)`);
    }
  }
  return applied;
}
