/**
 * The looks at Pi's extension folders (extension-folders.ts) around each tool call of the agent,
 * whatever the tool: `write` and `edit` say their path, but a `bash` command or an extension's
 * tool does not. What a call created, changed or deleted there is code Pi's tools wrote, which
 * Pi loads into its own process at its next start or `/reload` (agent-code.ts tells the
 * learner). Taken for every call, and small: only code files (and package.json), by lstat,
 * links not followed below a folder, `node_modules` and `.git` left out, at most MAX_ENTRIES
 * entries a look. Synchronous: Pi awaits the handler before the tool runs, and a few lstat
 * calls cost less than a promise's turn.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";

/** What Pi's loader can load, and what names an extension's entry (`pi.extensions`). */
const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const MANIFEST = "package.json";
const SKIPPED = new Set(["node_modules", ".git"]);
/** Past this many entries a look stops: a folder that large is not an extension someone wrote. */
export const MAX_ENTRIES = 5000;

/** Each code file below the folders (real paths), with what lstat says of it. */
export type CodeSnapshot = ReadonlyMap<string, string>;

export function isCodeFile(name: string): boolean {
  return name === MANIFEST || CODE_FILE.test(name);
}

/** The code files below `folders` (a folder's real path is taken; an entry may be a file). */
export function codeFilesIn(folders: readonly string[], limit = MAX_ENTRIES): CodeSnapshot {
  const found = new Map<string, string>();
  let budget = limit;
  const visit = (path: string, name: string): void => {
    if (budget-- <= 0) return;
    const stat = statOf(path);
    if (stat === undefined) return;
    if (stat.isDirectory()) {
      if (SKIPPED.has(name)) return;
      for (const entry of entriesOf(path)) visit(join(path, entry), entry);
    } else if (isCodeFile(name)) {
      found.set(path, `${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`);
    }
  };
  for (const folder of folders) {
    const real = realPathOf(folder);
    if (real !== undefined) visit(real, basename(real));
  }
  return found;
}

/** The paths created, changed or deleted from `before` to `after`, sorted. */
export function changedBetween(before: CodeSnapshot, after: CodeSnapshot): string[] {
  const changed = new Set<string>();
  for (const [path, stat] of after) if (before.get(path) !== stat) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}

export type ExtensionCodeLooks = {
  /** The look before call `id`, at the folders Pi loads extension code from now. */
  before(id: string, folders: readonly string[]): void;
  /** What call `id` changed since its look before (real paths); undefined without that look. */
  after(id: string): string[] | undefined;
};

/**
 * Looks around each call; what a call changed also goes into `remembered` (the process's memory,
 * which outlives a `/reload`).
 */
export function createExtensionCodeLooks(remembered: Set<string>): ExtensionCodeLooks {
  const open = new Map<string, { folders: readonly string[]; snapshot: CodeSnapshot }>();
  return {
    before(id, folders) {
      open.set(id, { folders, snapshot: codeFilesIn(folders) });
    },
    after(id) {
      const look = open.get(id);
      if (look === undefined) return undefined;
      open.delete(id);
      // The folders of the look before: a folder the call itself named in the settings is looked
      // at from the next call on.
      const changed = changedBetween(look.snapshot, codeFilesIn(look.folders));
      for (const path of changed) remembered.add(path);
      return changed;
    },
  };
}

/** A path's real path when it exists (links and `..` resolved), else undefined. */
export function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function statOf(path: string) {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined; // gone between the listing and the look
  }
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return []; // unreadable: nothing Pi could load from it either
  }
}
