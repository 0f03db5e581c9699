/**
 * Path containment: whether a path stays inside its root once symbolic links are followed. A
 * link anywhere on the way may lead outside, so the real path is compared with the root's real
 * path. Only path names are resolved here; nothing is opened or read. Callers word the answer.
 * The lexical rule (`..`, no links) is core's `isInside`, which the engine applies to every
 * quest path before a probe runs.
 */
import { realpath } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { isInside } from "../core/paths.ts";

/** Where a path really is, measured against its root. */
export type Located =
  /** It exists, and its real path is inside the root's. */
  | { kind: "inside"; real: string }
  /** It does not exist (nor does the root), and what exists on its way stays inside. */
  | { kind: "missing" }
  /** It is outside the root as written, before any link is followed. */
  | { kind: "outside" }
  /** It, or the deepest part of it that exists, leads to `real` through a link, outside the root. */
  | { kind: "through_link"; real: string }
  /** A path name could not be resolved (permission denied, a loop of links...). */
  | { kind: "error"; error: unknown };

/**
 * Locates `target` inside `root`: lexically first, then through the real path of the target or,
 * when it is missing, of its deepest existing ancestor. A dangling link counts as missing, since
 * nothing can be read through it.
 */
export async function locateInside(root: string, target: string): Promise<Located> {
  const resolvedRoot = resolve(root);
  const absolute = resolve(target);
  if (!isInside(absolute, resolvedRoot)) return { kind: "outside" };
  let realRoot: string;
  try {
    realRoot = await realpath(resolvedRoot);
  } catch (error) {
    return isMissing(error) ? { kind: "missing" } : { kind: "error", error };
  }
  let candidate = absolute;
  for (;;) {
    try {
      const real = await realpath(candidate);
      if (!isInside(real, realRoot)) return { kind: "through_link", real };
      return candidate === absolute ? { kind: "inside", real } : { kind: "missing" };
    } catch (error) {
      if (!isMissing(error)) return { kind: "error", error };
      const parent = dirname(candidate);
      // Not reached while the root exists: the walk stops there at the latest.
      if (parent === candidate) return { kind: "missing" };
      candidate = parent;
    }
  }
}

/**
 * The first of `targets` that leads outside `root` through a link, with where it leads; undefined
 * when each stays inside or does not exist (nor does the root). Unlike `locateInside`, a missing
 * target is not traced through its ancestors, and an error resolving a name is thrown.
 */
export async function firstLinkOutside(
  targets: readonly string[],
  root: string,
): Promise<{ target: string; real: string } | undefined> {
  const realRoot = await realOrUndefined(root);
  if (realRoot === undefined) return undefined;
  for (const target of targets) {
    const real = await realOrUndefined(target);
    if (real !== undefined && !isInside(real, realRoot)) return { target, real };
  }
  return undefined;
}

async function realOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await realpath(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}
