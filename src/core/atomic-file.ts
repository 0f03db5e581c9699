/**
 * Writes a file so that a reader, or a restart after a crash, sees the old complete file or the
 * new complete one, never half: a temp file in the same folder, flushed, then renamed over.
 * Receipts, evidence and (later) progress all go through it.
 */
import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";

export async function writeAtomically(path: string, content: string | Buffer, mode = 0o644): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const file = await open(temporary, "wx", mode);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
