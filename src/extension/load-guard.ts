/**
 * One pi-quests per Pi process. Two copies can load: a checkout with a stray build lists both
 * `dist/extension/index.js` and `src/extension/index.ts` (package.json's `pi.extensions` names
 * both, and Pi skips only the one that does not exist), or two installs of the package. Two
 * copies would record every event twice and draw two HUDs, so the first one loaded holds the
 * process (a flag on globalThis, naming its entry file) and any other does nothing but say so.
 *
 * The same copy loaded again (`/reload`, a second session in one process) is no second copy.
 * A holder whose file is gone (dist/ removed, then `/reload`) holds nothing any more.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const HOLDER = Symbol.for("pi-quests.extension.loaded-from");
type WithHolder = { [HOLDER]?: string };

export type Claim = { ok: true } | { ok: false; message: string };

/** Claims the process for the copy whose entry is `entryUrl` (its `import.meta.url`). */
export function claimProcess(entryUrl: string): Claim {
  const flags = globalThis as WithHolder;
  const self = fileURLToPath(entryUrl);
  const holder = flags[HOLDER];
  if (holder === undefined || holder === self || !existsSync(holder)) {
    flags[HOLDER] = self;
    return { ok: true };
  }
  return {
    ok: false,
    message: `pi-quests is loaded twice (${holder} and ${self}); the second copy does nothing. In a checkout with a build in it, remove dist/; otherwise remove one of the two from Pi's packages.`,
  };
}
