import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processAlive } from "../../src/probes/os/process-group.ts";
import { bashCheck } from "../../src/probes/script-runner.ts";
import type { ScriptOutcome, ScriptRequest } from "../../src/verifier/probes.ts";
import { SELF } from "../support/host-pid.ts";

const MiB = 1024 * 1024;
let cwd: string;

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "pi-quests-runner-"));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function run(content: string, extra: Partial<ScriptRequest> = {}, bash?: string): Promise<ScriptOutcome> {
  return bashCheck(bash)({ script: "check.sh", content, cwd, timeoutMs: 20_000, ...extra });
}

function finished(outcome: ScriptOutcome) {
  if (!outcome.ok) throw new Error(`expected a finished run, got ${outcome.kind}: ${outcome.message}`);
  return outcome;
}

function pidsIn(text: string): number[] {
  return text.split(/\s+/).filter(Boolean).map(Number);
}

/** Whether a process is gone (a zombie nobody reaps runs nothing, so it counts as gone). */
const isGone = (pid: number) => !processAlive(pid);

describe("bashCheck", () => {
  it("passes when the script exits 0", async () => {
    const outcome = finished(await run("echo hello"));
    expect(outcome).toMatchObject({ passed: true, exitCode: 0, stdout: "hello\n", truncated: false });
  });

  it("fails with the script's exit code", async () => {
    const outcome = finished(await run("echo nope >&2; exit 3"));
    expect(outcome).toMatchObject({ passed: false, exitCode: 3, stderr: "nope\n" });
  });

  it("gives the script's name as $0", async () => {
    expect(finished(await run('echo "$0"')).stdout).toBe("check.sh\n");
  });

  it("runs in the requested folder", async () => {
    expect(finished(await run("pwd -P")).stdout.trim()).toBe(await realpath(cwd));
  });

  it("mixes stdout and stderr in the order they came", async () => {
    // Two pipes carry no order between them: the pauses make the order of arrival unambiguous.
    const outcome = finished(await run("echo a; sleep 0.3; echo b >&2; sleep 0.3; echo c"));
    expect(outcome.report).toBe("a\nb\nc\n");
    expect(outcome.stdout).toBe("a\nc\n");
    expect(outcome.stderr).toBe("b\n");
  });

  it("keeps stdout and stderr apart", async () => {
    const outcome = finished(await run("echo out; echo err >&2"));
    expect(outcome.stdout).toBe("out\n");
    expect(outcome.stderr).toBe("err\n");
    expect(outcome.report).toContain("out\n");
    expect(outcome.report).toContain("err\n");
  });

  it("reports the signal that killed the script, and does not pass", async () => {
    const outcome = finished(await run("kill -9 $$"));
    expect(outcome).toMatchObject({ passed: false, exitCode: null, signal: "SIGKILL" });
  });

  it("times out, never passes, and leaves no process behind", async () => {
    const outcome = await run(`${SELF}; echo $self; sh -c '${SELF}; echo $self; exec sleep 30' & wait`, {
      timeoutMs: 1000,
    });
    expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
    const pids = pidsIn(outcome.report);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
  });

  it("stops when aborted and leaves no process behind", async () => {
    const controller = new AbortController();
    const running = run(
      `${SELF}; echo $self > pids.tmp; sh -c '${SELF}; echo $self >> pids.tmp; mv pids.tmp pids; exec sleep 30' & wait`,
      {
        signal: controller.signal,
      },
    );
    const pids = await waitForPids(join(cwd, "pids"));
    controller.abort();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, kind: "stopped" });
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
  });

  it("does not start a script whose signal is already aborted", async () => {
    const outcome = await run("touch ran", { signal: AbortSignal.abort() });
    expect(outcome).toMatchObject({ ok: false, kind: "stopped" });
    await expect(readFile(join(cwd, "ran"))).rejects.toThrow();
  });

  it("is not held open by a background child that keeps the output pipes", async () => {
    const started = Date.now();
    // The child says who it is before the script exits: in a PID namespace the script's exit
    // kills it at once, possibly before it could have printed.
    const content = `
      sh -c '${SELF}; echo $self > started; exec sleep 30' &
      until [ -s started ]; do sleep 0.05; done
      cat started
    `;
    const outcome = finished(await run(content));
    // Generous: only a hang until the child's 30 s would break this.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcome.passed).toBe(true);
    const [sleeper] = pidsIn(outcome.stdout);
    expect(sleeper).toBeDefined();
    expect(isGone(sleeper ?? 0)).toBe(true);
  });

  it("is not held open by a child that left the group and keeps the output pipes", async () => {
    // `setsid` leaves the group, so the group kill cannot reach it: without a PID namespace the
    // runner only stops reading.
    const content = `
      setsid bash -c '${SELF}; echo $self > escaped; exec sleep 30' &
      until [ -s escaped ]; do sleep 0.05; done
      cat escaped
    `;
    const started = Date.now();
    const outcome = finished(await run(content));
    const [escaped] = pidsIn(outcome.stdout);
    // In a PID namespace the escapee went with it; with only a process group it is still running.
    const survived = escaped !== undefined && processAlive(escaped);
    if (survived) process.kill(escaped, "SIGKILL");
    expect(survived).toBe(outcome.containment === "process-group");
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcome.passed).toBe(true);
    expect(escaped).toBeDefined();
  });

  it("kills the whole process tree once the script exits", async () => {
    const content = `
      : > pids
      record() { ${SELF}; echo $self >> pids; }
      nap() { sh -c '${SELF}; echo $self >> pids; exec sleep 30' & }
      export -f record nap
      bash -c 'record; nap; bash -c "record; nap; wait" & wait' &
      until [ "$(wc -l < pids)" -ge 4 ]; do sleep 0.05; done
      cat pids
    `;
    const outcome = finished(await run(content));
    const pids = pidsIn(outcome.stdout);
    expect(pids).toHaveLength(4);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
  });

  it("keeps a bounded tail of endless output", async () => {
    const outcome = await run("yes", { timeoutMs: 1000 });
    expect(outcome).toMatchObject({ ok: false, kind: "timeout", truncated: true });
    expect(Buffer.byteLength(outcome.report)).toBeLessThanOrEqual(MiB);
    expect(outcome.report).toMatch(/^(y\n)+$/);
  });

  it("keeps the tail of a finished run's large output", async () => {
    const outcome = finished(await run("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo END"));
    expect(outcome).toMatchObject({ passed: true, truncated: true });
    expect(Buffer.byteLength(outcome.stdout)).toBeLessThanOrEqual(MiB);
    expect(outcome.stdout.endsWith("x\nEND\n")).toBe(true);
    expect(outcome.report.endsWith("x\nEND\n")).toBe(true);
  });

  it("is unavailable when execa refuses the script", async () => {
    const outcome = await run("echo a\0b");
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
  });

  it("is unavailable when bash is missing", async () => {
    const outcome = await run("true", {}, "/nonexistent/bash");
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
    expect(outcome.ok || outcome.message).toContain("/nonexistent/bash");
  });

  it("is unavailable when the folder is missing", async () => {
    const missing = join(cwd, "missing");
    const outcome = await run("true", { cwd: missing });
    expect(outcome).toMatchObject({ ok: false, kind: "unavailable" });
    expect(outcome.ok || outcome.message).toContain(missing);
  });
});

async function waitForPids(file: string): Promise<number[]> {
  for (let tries = 0; tries < 500; tries++) {
    try {
      return pidsIn(await readFile(file, "utf8"));
    } catch {
      await sleep(20);
    }
  }
  throw new Error(`${file} never appeared`);
}
