/** Evidence files in the data dir, each written atomically: a reader sees the old file or the new one. */
import { randomBytes } from "node:crypto";
import { rename, writeFile } from "node:fs/promises";

export async function writeAtomically(path: string, content: string | Buffer, mode?: number): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temporary, content, mode === undefined ? {} : { mode });
  await rename(temporary, path);
}

export function writeJson(path: string, value: unknown): Promise<void> {
  return writeAtomically(path, `${JSON.stringify(value, null, 2)}\n`);
}
