/**
 * The GitProbe's compareWithBaseline: whether a working-tree file holds the bytes the baseline
 * stores for it, compared raw (no textconv, line-ending or smudge filter).
 */
import { lstat, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import type { GitAnswer } from "../verifier/probes.ts";
import { answer, type GitCalls, workspacePath } from "./git-calls.ts";

export type BaselineComparison = "same" | "different" | "missing_now" | "missing_in_baseline";

export async function compareWithBaseline(
  calls: GitCalls,
  cwd: string,
  baseline: string,
  file: string,
): Promise<GitAnswer<BaselineComparison>> {
  const where = workspacePath(file);
  if (!where.ok) return where;
  if (where.value === ".")
    return { ok: false, message: "compareWithBaseline needs a file, not the workspace." };
  const base = await calls.commitOf(cwd, baseline);
  if (!base.ok) return answer(base);

  // ls-tree takes the path relative to cwd, like the rest of this probe.
  const listed = await calls.run(cwd, ["ls-tree", "-z", "-l", base.value, "--", where.value]);
  if (!listed.ok) return answer(listed);
  const entry = parseTreeEntry(listed.value);
  if (entry === undefined) return { ok: true, value: "missing_in_baseline" };
  if (entry.type !== "blob") {
    return {
      ok: false,
      message: `${file} is a ${entry.type === "tree" ? "folder" : "submodule"} in the baseline, not a file.`,
    };
  }

  const now = await workingTreeBytes(path.join(cwd, where.value), entry.size);
  if (now === "missing") return { ok: true, value: "missing_now" };
  if (now === "different") return { ok: true, value: "different" };

  // A blob as its raw stored bytes (replace refs ignored): no textconv, line-ending or smudge filter.
  const then = await calls.runBytes(calls.runner, cwd, ["cat-file", "blob", entry.oid]);
  if (!then.ok) return answer(then);
  return { ok: true, value: then.value.equals(now) ? "same" : "different" };
}

type TreeEntry = { type: string; oid: string; size: number };

/** The first `<mode> <type> <oid> <size>\t<path>` record of `ls-tree -z -l`, if any. */
function parseTreeEntry(output: string): TreeEntry | undefined {
  const record = output.split("\0")[0];
  const match = record?.match(/^\d+ (\w+) ([0-9a-f]+) +(\d+|-)\t/);
  if (match === null || match === undefined) return undefined;
  const [, type = "", oid = "", size = "-"] = match;
  return { type, oid, size: size === "-" ? -1 : Number(size) };
}

/**
 * The bytes git would store for a working-tree path: a file's content, or a symbolic link's target
 * (never what the link points to). "different" when the size or the kind already tells.
 */
async function workingTreeBytes(
  absolute: string,
  baselineSize: number,
): Promise<Buffer | "missing" | "different"> {
  try {
    const stat = await lstat(absolute);
    if (stat.isSymbolicLink()) return await readlink(absolute, { encoding: "buffer" });
    if (!stat.isFile() || stat.size !== baselineSize) return "different";
    return await readFile(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    // Unreadable now: it cannot be shown to be the same.
    return "different";
  }
}
