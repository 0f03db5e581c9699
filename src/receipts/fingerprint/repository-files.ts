/**
 * The files outside the workspace's own folders whose content decides which files the
 * fingerprint covers: HEAD and the ref it names (HEAD's tree is the tracked set), the
 * repository's config (core.ignoreCase changes what a `.gitignore` matches), `info/exclude` and
 * `info/attributes`, and, for a workspace below the repository's top, each folder above it with
 * its `.gitignore` and `.gitattributes`. A stat record keeps what lstat says of each (or that
 * nothing is there), so any change to them sends the next fingerprint down the full path.
 *
 * Only a plain repository qualifies: a `.git` folder (not a linked worktree's or a submodule's
 * `.git` file, whose config and refs live elsewhere), loose or packed refs (not reftable), a HEAD
 * naming a branch or a commit, and a config that includes no other file (an included file could
 * be anywhere). Anything else has no stat record: its fingerprints always take the full path.
 */
import { lstatSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findRepository } from "../../probes/git-runner.ts";

/** Larger than any HEAD, ref or config this module reads; a bigger file is not one of them. */
const SMALL_FILE_BYTES = 64 * 1024;

/**
 * Absolute paths whose lstat (or absence) the stat record keeps besides the workspace's own
 * folders and files; undefined when the repository around `root` does not qualify.
 */
export function repositoryFiles(root: string): string[] | undefined {
  const location = findRepository(root);
  if (location === undefined) return undefined;
  const { gitDir, workTree } = location;
  if (!lstatSync(gitDir).isDirectory()) return undefined;
  // A linked worktree's private folder, or refs kept in a reftable, are read by other rules.
  if (exists(join(gitDir, "commondir")) || exists(join(gitDir, "reftable"))) return undefined;

  const ref = headRef(join(gitDir, "HEAD"));
  if (ref === undefined) return undefined;
  const files = [
    join(gitDir, "HEAD"),
    join(gitDir, "packed-refs"),
    join(gitDir, "config"),
    join(gitDir, "config.worktree"),
    join(gitDir, "info", "exclude"),
    join(gitDir, "info", "attributes"),
    // Present later, they would make this repository one the record does not cover.
    join(gitDir, "commondir"),
    join(gitDir, "reftable"),
  ];
  for (const config of ["config", "config.worktree"]) {
    if (includesOtherFiles(join(gitDir, config))) return undefined;
  }
  if (ref !== null) {
    const refFile = join(gitDir, ...ref.split("/"));
    // Absent, the ref is packed. A symbolic ref naming another one, or a link, is not followed here.
    if (exists(refFile) && !/^[0-9a-f]{40,64}\n?$/.test(readSmall(refFile) ?? "")) return undefined;
    files.push(refFile);
  }
  // The `.gitignore` and `.gitattributes` files of the folders above the workspace apply to it.
  for (let folder = dirname(root); folder.length >= workTree.length; folder = dirname(folder)) {
    files.push(folder, join(folder, ".gitignore"), join(folder, ".gitattributes"));
    if (folder === workTree || dirname(folder) === folder) break;
  }
  return files;
}

/** The ref HEAD names (`refs/heads/main`), null for a detached HEAD, undefined for anything else. */
function headRef(head: string): string | null | undefined {
  if (!lstatSync(head).isFile()) return undefined;
  const text = readSmall(head);
  if (text === undefined) return undefined;
  if (/^[0-9a-f]{40,64}\n?$/.test(text)) return null;
  const named = /^ref: (refs\/[^\n]+)\n?$/.exec(text)?.[1];
  if (named === undefined) return undefined;
  // A name git would refuse, or one that leaves the refs folder, is not followed.
  const segments = named.split("/");
  return segments.every((segment) => segment !== "" && segment !== "." && segment !== "..")
    ? named
    : undefined;
}

/** Whether a config file includes others (`[include]`, `[includeIf ...]`), which may be anywhere. */
function includesOtherFiles(config: string): boolean {
  if (!exists(config)) return false;
  const text = readSmall(config);
  // Too big to read here: treated as including, so no record.
  return text === undefined || /^\s*\[\s*include/im.test(text);
}

function readSmall(path: string): string | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile() || stats.size > SMALL_FILE_BYTES) return undefined;
  return readFileSync(path, "utf8");
}

const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;
