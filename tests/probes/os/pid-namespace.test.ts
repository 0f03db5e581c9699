import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { openPidNamespace, pidNamespaceSupport } from "../../../src/probes/os/pid-namespace.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

const run = promisify(execFile);
afterEach(removeWorkspaces);
const plain = await pidNamespaceSupport("/bin/sh");
const ownProc = await pidNamespaceSupport("/bin/sh", { ownProc: true });

/** What `$$` and /proc/self say inside a namespace of this kind, and the folder it runs in. */
async function inside(supported: typeof plain, cwd: string) {
  if (!supported.ok) throw new Error(supported.reason);
  const opened = await openPidNamespace(supported, "/bin/sh");
  if (!opened.ok) throw new Error(opened.message);
  const { file, args } = opened.namespace.enter("sh", [
    "-c",
    'read -r self _ < /proc/self/stat; echo "$$ $self $(pwd)"',
  ]);
  const { stdout } = await run(file, args, { cwd });
  expect(await opened.namespace.close()).toBe(true);
  const [shell, self, folder] = stdout.trim().split(" ");
  return { shell: Number(shell), self: Number(self), folder, args };
}

describe.runIf(plain.ok && ownProc.ok)("PID namespaces", () => {
  it("are probed per kind: with its own /proc or not", () => {
    expect(plain.ok && plain.ownProc).toBe(false);
    expect(ownProc.ok && ownProc.ownProc).toBe(true);
  });

  it("without their own /proc, a process inside reads the machine's: /proc/self is not its $$", async () => {
    const seen = await inside(plain, makeWorkspace());
    expect(seen.shell).toBeLessThan(100);
    expect(seen.self).not.toBe(seen.shell);
    expect(seen.args).not.toContain("--mount");
  });

  it("with their own /proc, /proc/self is $$, and a joiner keeps its working folder", async () => {
    const cwd = makeWorkspace();
    const seen = await inside(ownProc, cwd);
    expect(seen.self).toBe(seen.shell);
    expect(seen.folder).toBe(cwd);
    expect(seen.args.slice(2)).toEqual(expect.arrayContaining(["--pid", "--mount", "--wd=."]));
  });
});
