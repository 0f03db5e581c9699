/** Evidence files in the data dir, each written atomically (src/core/atomic-file.ts). */
import { writeAtomically } from "../core/atomic-file.ts";

export { writeAtomically };

export function writeJson(path: string, value: unknown): Promise<void> {
  return writeAtomically(path, `${JSON.stringify(value, null, 2)}\n`);
}
