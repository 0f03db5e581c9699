/**
 * The candidate: what the learner's workspace changed since the pinned baseline, as exact patch
 * bytes. Tracked changes (commits since the baseline included) come from `git diff BASELINE`,
 * untracked non-ignored files from `git diff --no-index` against /dev/null. Neither writes to the
 * learner's index, objects or files.
 */
import { createHash } from "node:crypto";
import { lstat, readlink } from "node:fs/promises";
import { join } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";
import { inGeneratedFolder } from "../receipts/fingerprint.ts";
import { type CandidateScope, splitByScope } from "./candidate-scope.ts";
import { patchSections } from "./patch-sections.ts";

export type Candidate = {
  patch: Buffer;
  sha256: string;
  /** The workspace's HEAD when the patch was taken (it may differ from the baseline). */
  head: string;
  untracked: string[];
  /** Every path the patch changes (workspace-relative): the rest of the run's files are the baseline's. */
  paths: string[];
  /**
   * Changed paths in a generated folder (dist/, build/...), left out of the patch: the receipt's
   * fingerprint leaves them out (contract v1), so the run must not see them either.
   */
  generatedLeftOut: string[];
  /** With a scope (`editable`): the changed paths whose changes were not taken. */
  leftOut?: string[];
};

const DIFF_OPTIONS = [
  // Explicit prefixes: the learner's diff.noprefix or diff.mnemonicPrefix would garble the patch.
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "--binary",
  "--full-index",
  "--no-renames",
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
];

export async function captureCandidate(
  git: GitRunner,
  workspace: string,
  baseline: string,
  scope?: CandidateScope,
): Promise<{ ok: true; candidate: Candidate } | { ok: false; message: string }> {
  const head = await git(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: workspace });
  if (!head.ok) return head;
  const others = await git(["ls-files", "--others", "--exclude-standard", "-z"], { cwd: workspace });
  if (!others.ok) return others;
  let listedUntracked = splitNul(others.stdout).sort();
  // `editable`: only the paths in scope are taken (src/task-verifier/candidate-scope.ts).
  let pathspecs: string[] = [];
  let leftOut: string[] | undefined;
  if (scope) {
    const split = await splitByScope(git, workspace, baseline, listedUntracked, scope);
    if (!split.ok) return split;
    ({ trackedPathspecs: pathspecs, untracked: listedUntracked, leftOut } = split.paths);
  }
  const parts: Buffer[] = [];
  const paths: string[] = [];
  const generatedLeftOut: string[] = [];
  if (!scope || pathspecs.length > 0) {
    // `git` reads through pi-quests' private index (the verifier's withPrivateIndex): the stat
    // refresh git's diff makes lands there, never in the learner's index.
    const tracked = await git(["diff", ...DIFF_OPTIONS, baseline, "--", ...pathspecs], { cwd: workspace });
    if (!tracked.ok) return tracked;
    const sections = patchSections(tracked.stdout);
    if (!sections.ok) return sections;
    for (const { path, start, end } of sections.sections) {
      if (inGeneratedFolder(path)) {
        generatedLeftOut.push(path);
        continue;
      }
      paths.push(path);
      parts.push(tracked.stdout.subarray(start, end));
    }
  }
  const untracked: string[] = [];
  for (const path of listedUntracked) {
    if (inGeneratedFolder(path)) generatedLeftOut.push(path);
    else untracked.push(path);
  }
  paths.push(...untracked);
  for (const path of untracked) {
    const info = await lstat(join(workspace, path)).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      // `diff --no-index /dev/null LINK` follows a link to a folder (and compares the folder),
      // so a new link is written out here, as git writes one.
      const linked = await newLinkPatch(git, workspace, path);
      if (!linked.ok) return linked;
      parts.push(linked.patch);
      continue;
    }
    // --no-index exits 1 when the files differ, which a new file always does, but also when it
    // cannot read one: then it prints nothing, and a new file always prints its header.
    const added = await git(["diff", "--no-index", ...DIFF_OPTIONS, "--", "/dev/null", path], {
      cwd: workspace,
      okExitCodes: [0, 1],
    });
    if (!added.ok) return added;
    if (added.stdout.length === 0) return { ok: false, message: `could not read the untracked file ${path}` };
    parts.push(added.stdout);
  }
  const patch = Buffer.concat(parts);
  return {
    ok: true,
    candidate: {
      patch,
      sha256: createHash("sha256").update(patch).digest("hex"),
      head: head.stdout.toString("utf8").trim(),
      untracked,
      paths,
      generatedLeftOut: generatedLeftOut.sort(),
      ...(leftOut ? { leftOut } : {}),
    },
  };
}

/** A path as git writes it in a patch header: C-quoted when it holds a quote, backslash or control character. */
export function quotePatchPath(prefix: string, path: string): string {
  const named = `${prefix}${path}`;
  const special = (char: string) => char === '"' || char === "\\" || char < " " || char === "\x7f";
  if (![...named].some(special)) return named;
  const escapes: Record<string, string> = {
    "\x07": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
  };
  let quoted = "";
  for (const char of named) {
    const code = char.charCodeAt(0);
    quoted +=
      escapes[char] ?? (code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, "0")}` : char);
  }
  return `"${quoted}"`;
}

/** The patch git writes for a new symbolic link: mode 120000, the target as the content. */
async function newLinkPatch(
  git: GitRunner,
  workspace: string,
  path: string,
): Promise<{ ok: true; patch: Buffer } | { ok: false; message: string }> {
  const target = await readlink(join(workspace, path), { encoding: "buffer" }).catch(() => undefined);
  if (target === undefined) return { ok: false, message: `could not read the untracked link ${path}` };
  const hashed = await git(["hash-object", "--no-filters", "--stdin"], { cwd: workspace, input: target });
  if (!hashed.ok) return hashed;
  const id = hashed.stdout.toString("utf8").trim();
  const lines: Buffer[] = [];
  let rest = target;
  while (rest.length > 0) {
    const end = rest.indexOf(10);
    if (end === -1) {
      lines.push(Buffer.concat([Buffer.from("+"), rest, Buffer.from("\n\\ No newline at end of file\n")]));
      break;
    }
    lines.push(Buffer.concat([Buffer.from("+"), rest.subarray(0, end + 1)]));
    rest = rest.subarray(end + 1);
  }
  const a = quotePatchPath("a/", path);
  const b = quotePatchPath("b/", path);
  const tab = path.includes(" ") ? "\t" : "";
  const header = [
    `diff --git ${a} ${b}`,
    "new file mode 120000",
    `index ${"0".repeat(id.length)}..${id}`,
    "--- /dev/null",
    `+++ ${b}${tab}`,
    lines.length === 1 ? "@@ -0,0 +1 @@" : `@@ -0,0 +1,${lines.length} @@`,
    "",
  ].join("\n");
  return { ok: true, patch: Buffer.concat([Buffer.from(header), ...lines]) };
}
