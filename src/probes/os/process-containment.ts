/**
 * What keeps a run's processes from outliving it: a PID namespace of its own where namespaces
 * work (pid-namespace.ts), else only its process group (process-group.ts), with the reason why.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { openPidNamespace, type PidNamespace, pidNamespaceSupport } from "./pid-namespace.ts";

export type ProcessContainment =
  | { containment: "pid-namespace"; namespace: PidNamespace }
  | { containment: "process-group"; note: string };

/**
 * The namespace a run of `shell` gets, or why it gets only a process group. A shell that cannot
 * be found on `path` runs without one, so it fails to start exactly as it would without
 * namespaces.
 */
export async function containProcesses(shell: string, path: string | undefined): Promise<ProcessContainment> {
  const found = findExecutable(shell, path);
  if (!found) return { containment: "process-group", note: `${shell} was not found` };
  // The namespace's init only waits; the smallest shell does that fastest.
  const init = findExecutable("/bin/sh", undefined) ?? found;
  const supported = await pidNamespaceSupport(init);
  if (!supported.ok)
    return {
      containment: "process-group",
      note: `PID namespaces are not available here (${supported.reason})`,
    };
  const opened = await openPidNamespace(supported, init);
  if (!opened.ok)
    return { containment: "process-group", note: `could not open a PID namespace: ${opened.message}` };
  return { containment: "pid-namespace", namespace: opened.namespace };
}

/** `name` as an executable file: itself when it holds a slash, else the first on `path`. */
function findExecutable(name: string, path: string | undefined): string | undefined {
  const candidates = name.includes("/")
    ? [name]
    : (path ?? "")
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, name));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
