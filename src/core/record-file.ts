/**
 * Reads a record file of pi-quests' own (a cache in the data dir) as the agent may have left it:
 * only a regular file, never through a link (O_NOFOLLOW), never blocking on a FIFO
 * (O_NONBLOCK), and only up to a bound, so that a FIFO, a link to /dev/zero or a huge file in
 * its place is no record instead of a hang or all the memory. Undefined for anything else.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export function readRecordFile(path: string, maxBytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    // One byte more than the size: a file that grew meanwhile is not read whole, and not used.
    const buffer = Buffer.allocUnsafe(info.size + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length) return undefined;
    }
    return length === info.size ? buffer.subarray(0, length) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
