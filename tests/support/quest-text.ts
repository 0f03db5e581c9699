/**
 * A quest written as text and loaded as the loader reads a file (`q.yaml` in a folder of its own),
 * for the tests of the format's fields: what it loads to, or its diagnostics as lint prints them.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatDiagnostic } from "../../src/core/diagnostics.ts";
import { loadQuestFile } from "../../src/verifier/loader.ts";
import { makeWorkspace } from "./workspace.ts";

export async function loadQuestText(text: string) {
  const file = join(makeWorkspace(), "q.yaml");
  await writeFile(file, text);
  return loadQuestFile(file);
}

/** The diagnostics of a quest that must not load, as `q.yaml:LINE:COL: message`. */
export async function questProblems(text: string): Promise<string[]> {
  const loaded = await loadQuestText(text);
  if (loaded.ok) throw new Error("expected problems");
  return loaded.diagnostics.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*\//, "") }));
}
