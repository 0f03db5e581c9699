/**
 * Reads a record file of pi-quests' own in the data dir (a receipt, a cache, the seal key, the
 * session lock) as the agent may have left it: only a regular file, never through a link
 * (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK), and only up to a bound, so that a FIFO,
 * a link to /dev/zero or a huge file in its place is no record instead of a hang or all the
 * memory. Otherwise, why not: the error's code (`ENOENT`, `ELOOP` for a link, `EISDIR` for a
 * folder) or a sentence.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type RecordFile = { ok: true; bytes: Buffer } | { ok: false; reason: string };

export function readRecordFile(path: string, maxBytes: number): RecordFile {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (info.isDirectory()) return { ok: false, reason: "EISDIR" };
    if (!info.isFile()) return { ok: false, reason: "not a regular file" };
    if (info.size > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
    // One byte more than the size: a file that grew meanwhile is not read whole, and not used.
    const buffer = Buffer.allocUnsafe(info.size + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length) return { ok: false, reason: "it grew while it was read" };
    }
    return length === info.size
      ? { ok: true, bytes: buffer.subarray(0, length) }
      : { ok: false, reason: "it shrank while it was read" };
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
