/**
 * The looks at the workspace around each tool call and `!` command, which give its event's
 * `changedPaths` (src/receipts/changed-paths.ts). Taken only while the active quest reads the
 * field (the controller's `readsChangedPaths`): for any other quest, and in print mode, which
 * has no controller, there is no look and nothing is loaded for one. Each call is known by its
 * id, from the look before it to the look after it; calls may overlap.
 */
import type { CallLook, ChangedPaths, ChangeLooks } from "../receipts/changed-paths.ts";

export type CallLooks = {
  /**
   * Loads the looks of `workspace` ahead of the first call (a run begins), when `reads()` says the
   * active quest needs them, so that call does not wait for the module and the worker to start.
   */
  warm(workspace: string): void;
  /**
   * The look before call `id` in `workspace`, when `reads()` says the active quest needs it;
   * undefined at once when it does not, so the caller need not wait.
   */
  before(id: string, workspace: string): Promise<void> | undefined;
  /** What call `id` changed; undefined at once when there was no look before it. */
  after(id: string): Promise<ChangedPaths | undefined> | undefined;
  /** Forgets the open calls and what the looks remember, and stops their worker (the session ended). */
  clear(): Promise<void>;
};

/**
 * Whether the active quest reads changedPaths: a boolean, or a promise of one while the quest
 * session is still opening (Pi's start, a `/reload`), which the first call then waits for.
 */
export type ReadsChangedPaths = () => boolean | Promise<boolean>;

export function createCallLooks(reads: ReadsChangedPaths): CallLooks {
  const open = new Map<string, Promise<CallLook | undefined>>();
  let looks: { workspace: string; looks: Promise<ChangeLooks> } | undefined;

  /** The looks of `workspace`, loaded on first use: a quest that never needs them never loads them. */
  const looksOf = (workspace: string): Promise<ChangeLooks> => {
    if (looks?.workspace !== workspace) {
      const loading = import("../receipts/changed-paths.ts").then(({ createChangeLooks }) =>
        createChangeLooks(workspace),
      );
      looks = { workspace, looks: loading };
    }
    return looks.looks;
  };

  return {
    warm(workspace) {
      void Promise.resolve(reads())
        .then((yes) => (yes ? looksOf(workspace) : undefined))
        .catch(() => undefined);
    },
    before(id, workspace) {
      const decided = reads();
      if (decided === false) return undefined;
      const look = Promise.resolve(decided).then((yes) =>
        yes ? looksOf(workspace).then((each) => each.before()) : undefined,
      );
      open.set(id, look);
      return look.then(() => undefined);
    },
    after(id) {
      const look = open.get(id);
      if (look === undefined) return undefined;
      open.delete(id);
      return look.then((started) => started?.after());
    },
    async clear() {
      open.clear();
      const closing = looks?.looks;
      looks = undefined;
      await closing?.then(
        (each) => each.close(),
        () => undefined,
      );
    },
  };
}
