/**
 * The real file probes. A quest path must stay inside its root both as written (`..`) and once
 * symbolic links are resolved: a path that leaves it is reported as an escape and never read.
 */
import { constants } from "node:fs";
import { type FileHandle, open, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { FileKindProbe, ReadFileProbe, ResolvedPath } from "../verifier/probes.ts";

/** Where a path really is, once it is known to stay inside its root. */
type Location =
  | { kind: "real"; real: string }
  | { kind: "missing" }
  | { kind: "escape"; reason: string }
  | { kind: "error"; message: string };

const READ_CHUNK = 64 * 1024;

export async function fileExists(path: ResolvedPath): Promise<FileKindProbe> {
  const location = await locate(path);
  if (location.kind !== "real") return location;
  try {
    const info = await stat(location.real);
    if (info.isFile()) return { kind: "file", size: info.size };
    if (info.isDirectory()) return { kind: "dir" };
    return { kind: "other" };
  } catch (error) {
    return isMissing(error) ? { kind: "missing" } : { kind: "error", message: describe(path, error) };
  }
}

export async function readFile(path: ResolvedPath, maxBytes: number): Promise<ReadFileProbe> {
  const missing = { ok: false, problem: "missing", message: `${quote(path)} does not exist` } as const;
  const location = await locate(path);
  if (location.kind === "missing") return missing;
  if (location.kind === "escape") return { ok: false, problem: "escape", message: location.reason };
  if (location.kind === "error") return { ok: false, problem: "error", message: location.message };
  try {
    const info = await stat(location.real);
    if (!info.isFile()) {
      const what = info.isDirectory() ? "a folder" : "not a regular file";
      return { ok: false, problem: "not_file", message: `${quote(path)} is ${what}` };
    }
    if (info.size > maxBytes) return tooLarge(path, info.size, maxBytes);
    // The checked real path must not turn into a link (O_NOFOLLOW) or a FIFO that blocks the open
    // (O_NONBLOCK) between the check and the read.
    const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
    const handle = await open(location.real, flags);
    try {
      // One byte past the limit tells a file that grew since `stat` from one that fits exactly.
      const bytes = await readAtMost(handle, maxBytes + 1);
      if (bytes.length > maxBytes) {
        const size = Math.max((await handle.stat()).size, bytes.length);
        return tooLarge(path, size, maxBytes);
      }
      return { ok: true, bytes };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return isMissing(error) ? missing : { ok: false, problem: "error", message: describe(path, error) };
  }
}

/**
 * Checks containment lexically, then through the real path of the file or, when it is missing, of
 * its deepest existing ancestor: a link anywhere on the way may lead outside the root. A dangling
 * link counts as missing, since nothing can be read through it.
 */
async function locate(path: ResolvedPath): Promise<Location> {
  const root = resolve(path.root);
  const absolute = resolve(path.absolute);
  if (!isInside(root, absolute)) {
    return { kind: "escape", reason: `${quote(path)} is outside ${root}` };
  }
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (error) {
    return isMissing(error) ? { kind: "missing" } : { kind: "error", message: describe(path, error) };
  }
  let candidate = absolute;
  for (;;) {
    try {
      const real = await realpath(candidate);
      if (!isInside(realRoot, real)) {
        return { kind: "escape", reason: `${quote(path)} leads to ${real} through a link, outside ${root}` };
      }
      return candidate === absolute ? { kind: "real", real } : { kind: "missing" };
    } catch (error) {
      if (!isMissing(error)) return { kind: "error", message: describe(path, error) };
      const parent = dirname(candidate);
      // Not reached while the root exists: the walk stops there at the latest.
      if (parent === candidate) return { kind: "missing" };
      candidate = parent;
    }
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Reads until end of file or `limit` bytes, whichever comes first. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK, limit - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(path: ResolvedPath, size: number, maxBytes: number): ReadFileProbe {
  const message = `${quote(path)} is ${size} bytes, more than the ${maxBytes} bytes a check reads`;
  return { ok: false, problem: "too_large", message, size };
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function describe(path: ResolvedPath, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return `cannot access ${quote(path)}: permission denied`;
  return `cannot access ${quote(path)}: ${error instanceof Error ? error.message : String(error)}`;
}

function quote(path: ResolvedPath): string {
  return JSON.stringify(path.written);
}
