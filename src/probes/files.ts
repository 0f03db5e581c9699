/**
 * The real file probes. A quest path must stay inside its root both as written (`..`) and once
 * symbolic links are resolved (path-containment.ts): a path that leaves it is reported as an
 * escape and never read.
 */
import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { FileKindProbe, ReadFileProbe, ResolvedPath } from "../verifier/probes.ts";
import { locateInside } from "./path-containment.ts";

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

/** Where the path really is, or why it is not read: outside its root, as written or through a link. */
async function locate(path: ResolvedPath): Promise<Location> {
  const root = resolve(path.root);
  const located = await locateInside(root, path.absolute);
  switch (located.kind) {
    case "inside":
      return { kind: "real", real: located.real };
    case "missing":
      return { kind: "missing" };
    case "outside":
      return { kind: "escape", reason: `${quote(path)} is outside ${root}` };
    case "through_link":
      return {
        kind: "escape",
        reason: `${quote(path)} leads to ${located.real} through a link, outside ${root}`,
      };
    case "error":
      return { kind: "error", message: describe(path, located.error) };
  }
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
