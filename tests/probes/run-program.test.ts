/**
 * runProgram, the way the git runner starts git: real processes, each case a program that does
 * one thing (writes bytes, reads its input, exits non-zero, runs too long, writes too much).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runProgram } from "../../src/probes/run-program.ts";

const folder = realpathSync(mkdtempSync(join(tmpdir(), "pi-quests-run-program-")));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const options = { cwd: folder, env, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 };
/** `sh -c SCRIPT`: the program under test. */
const sh = (script: string, more: Partial<typeof options> & { input?: string | Buffer } = {}) =>
  runProgram("sh", ["-c", script], { ...options, ...more });

describe("runProgram", () => {
  it("keeps stdout and stderr byte for byte, trailing newline and invalid UTF-8 included", async () => {
    const ran = await sh("printf 'a\\377b\\n\\n'; printf 'warned\\n' >&2");
    expect(ran).toMatchObject({ exitCode: 0, timedOut: false });
    expect(ran.failure).toBeUndefined();
    expect([...ran.stdout]).toEqual([0x61, 0xff, 0x62, 0x0a, 0x0a]);
    expect(ran.stderr.toString()).toBe("warned\n");
  });

  it("gives the exit code of a program that fails, with what it wrote", async () => {
    const ran = await sh("echo half; exit 3");
    expect(ran.exitCode).toBe(3);
    expect(ran.stdout.toString()).toBe("half\n");
  });

  it("runs in the folder given, with exactly the environment given", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion, not a template
    const ran = await sh('pwd; echo "${ONLY-unset} ${HOME-nohome}"', { env: { ...env, ONLY: "given" } });
    expect(ran.stdout.toString()).toBe(`${folder}\ngiven nohome\n`);
  });

  it("writes the input whole and closes it; without input, stdin is empty", async () => {
    const input = Buffer.from(`${"x".repeat(200_000)}\n`);
    const fed = await runProgram("wc", ["-c"], { ...options, input });
    expect(fed.stdout.toString().trim()).toBe(String(input.length));
    const none = await runProgram("wc", ["-c"], options);
    expect(none.stdout.toString().trim()).toBe("0");
  });

  it("is not troubled by a program that exits without reading its input", async () => {
    const ran = await sh("exit 0", { input: Buffer.alloc(4 * 1024 * 1024) });
    expect(ran.exitCode).toBe(0);
  });

  it("stops a program that runs past its time, and says it timed out (no exit code)", async () => {
    const ran = await sh("echo started; sleep 5", { timeoutMs: 200 });
    expect(ran).toMatchObject({ exitCode: undefined, timedOut: true });
    expect(ran.stdout.toString()).toBe("started\n");
  });

  it("gives no exit code for a program stopped for its time, though it exits 0 when asked to stop", async () => {
    const ran = await sh("trap 'exit 0' TERM; sleep 5 & wait", { timeoutMs: 200 });
    expect(ran).toMatchObject({ exitCode: undefined, timedOut: true });
  });

  it("kills a program that writes more than the limit, and says so", async () => {
    const ran = await sh("yes", { maxOutputBytes: 64 * 1024 });
    expect(ran.exitCode).toBeUndefined();
    expect(ran.timedOut).toBe(false);
    expect(ran.failure).toMatch(/more than 65536 bytes/);
    expect(ran.stdout.length).toBeLessThanOrEqual(64 * 1024);
  });

  it("says why a program that does not exist could not be started", async () => {
    const ran = await runProgram(join(folder, "no-such-program"), [], options);
    expect(ran.exitCode).toBeUndefined();
    expect(ran.failure).toMatch(/ENOENT/);
  });

  it("answers when the program exits, though a process it left behind keeps the pipes open", async () => {
    const ran = await sh("(sleep 3 &) ; echo done");
    expect(ran.exitCode).toBe(0);
    expect(ran.stdout.toString()).toBe("done\n");
  });
});
