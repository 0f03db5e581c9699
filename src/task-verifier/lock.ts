/**
 * One verification at a time per workspace, across processes (two Pi sessions in one repo).
 * proper-lockfile keeps the lock's mtime fresh while it is held, so the lock of a holder that
 * crashed goes stale and is taken over.
 */
import { writeFile } from "node:fs/promises";
import lockfile from "proper-lockfile";

export type Release = () => Promise<void>;

export type LockOptions = {
  /** How long a lock may go without an update before it counts as abandoned. */
  staleMs?: number;
  /** How long to wait for a live holder before giving up. */
  waitMs?: number;
};

export const DEFAULT_STALE_MS = 10_000;
export const DEFAULT_WAIT_MS = 120_000;

export type HeldLock = {
  ok: true;
  release: Release;
  /**
   * Why the lock stopped being ours while it was held (its folder was removed, or it could not be
   * refreshed in time and another process may have taken it over); undefined while it is intact.
   */
  lost(): string | undefined;
};

export async function acquireWorkspaceLock(
  path: string,
  options: LockOptions = {},
): Promise<HeldLock | { ok: false; message: string }> {
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  // proper-lockfile locks a file that exists; the lock itself is `<path>.lock`.
  try {
    await writeFile(path, "", { flag: "a" });
  } catch (error) {
    return { ok: false, message: `cannot use the lock file ${path}: ${(error as Error).message}` };
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    let lostBecause: string | undefined;
    try {
      const release = await lockfile.lock(path, {
        stale: staleMs,
        update: Math.max(1000, staleMs / 5),
        realpath: false,
        // The default throws from a timer, which would take the whole host process down.
        onCompromised: (error) => {
          lostBecause = error.message;
        },
      });
      return {
        ok: true,
        release: async () => release().catch(() => undefined),
        lost: () => lostBecause,
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ELOCKED")
        return { ok: false, message: `cannot lock ${path}: ${(error as Error).message}` };
      if (Date.now() >= deadline) {
        return {
          ok: false,
          message: `another verification of this workspace held the lock for over ${Math.round(waitMs / 1000)} s`,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
