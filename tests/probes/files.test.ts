import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileExists, readFile } from "../../src/probes/files.ts";
import type { ResolvedPath } from "../../src/verifier/probes.ts";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "pi-quests-files-"));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "dir"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "hello.txt"), "hello");
  await writeFile(join(outside, "secret.txt"), "secret");
});
afterEach(async () => {
  await chmod(join(root, "hello.txt"), 0o644).catch(() => {});
  await rm(base, { recursive: true, force: true });
});

/** A quest path as the engine resolves it: relative to the root, not yet checked. */
function at(written: string): ResolvedPath {
  return { written, absolute: resolve(root, written), root };
}

describe("fileExists", () => {
  it("sees a file and its size", async () => {
    expect(await fileExists(at("hello.txt"))).toEqual({ kind: "file", size: 5 });
  });

  it("sees a folder", async () => {
    expect(await fileExists(at("dir"))).toEqual({ kind: "dir" });
  });

  it("sees something that is neither", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    expect(await fileExists(at("fifo"))).toEqual({ kind: "other" });
  });

  it("reports a missing path, also below a missing folder or a file", async () => {
    expect(await fileExists(at("nope.txt"))).toEqual({ kind: "missing" });
    expect(await fileExists(at("no/such/file.txt"))).toEqual({ kind: "missing" });
    expect(await fileExists(at("hello.txt/inside"))).toEqual({ kind: "missing" });
  });

  it("follows a link that stays inside the root", async () => {
    await symlink(join(root, "hello.txt"), join(root, "link.txt"));
    await symlink("dir", join(root, "dir-link"));
    expect(await fileExists(at("link.txt"))).toEqual({ kind: "file", size: 5 });
    expect(await fileExists(at("dir-link"))).toEqual({ kind: "dir" });
  });

  it("reports a link that leads outside the root as an escape", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "leak.txt"));
    expect(await fileExists(at("leak.txt"))).toMatchObject({ kind: "escape" });
  });

  it("reports a missing path below a link to outside as an escape", async () => {
    await symlink(outside, join(root, "out"));
    expect(await fileExists(at("out/new/file.txt"))).toMatchObject({ kind: "escape" });
  });

  it("reports `..` out of the root as an escape, without looking", async () => {
    const probe = await fileExists(at("../outside/secret.txt"));
    expect(probe).toMatchObject({ kind: "escape" });
    expect(probe.kind === "escape" && probe.reason).toContain("../outside/secret.txt");
  });
});

describe("readFile", () => {
  it("reads a file", async () => {
    expect(await readFile(at("hello.txt"), 100)).toEqual({ ok: true, bytes: Buffer.from("hello") });
  });

  it("returns binary content byte for byte", async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await writeFile(join(root, "all.bin"), bytes);
    const probe = await readFile(at("all.bin"), 1000);
    expect(probe.ok && probe.bytes.equals(bytes)).toBe(true);
  });

  it("reads a file of exactly the limit", async () => {
    expect(await readFile(at("hello.txt"), 5)).toEqual({ ok: true, bytes: Buffer.from("hello") });
  });

  it("does not read a file over the limit, and says its size", async () => {
    expect(await readFile(at("hello.txt"), 4)).toMatchObject({ ok: false, problem: "too_large", size: 5 });
  });

  it("does not read a folder or a fifo", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    expect(await readFile(at("dir"), 100)).toMatchObject({ ok: false, problem: "not_file" });
    expect(await readFile(at("fifo"), 100)).toMatchObject({ ok: false, problem: "not_file" });
  });

  it("reports a missing file", async () => {
    expect(await readFile(at("nope.txt"), 100)).toMatchObject({ ok: false, problem: "missing" });
  });

  it("reads through a link that stays inside the root", async () => {
    await symlink("hello.txt", join(root, "link.txt"));
    expect(await readFile(at("link.txt"), 100)).toEqual({ ok: true, bytes: Buffer.from("hello") });
  });

  it("never reads through a link that leads outside the root", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "leak.txt"));
    await symlink(outside, join(root, "out"));
    for (const written of ["leak.txt", "out/secret.txt"]) {
      const probe = await readFile(at(written), 100);
      expect(probe).toMatchObject({ ok: false, problem: "escape" });
      expect(JSON.stringify(probe)).not.toContain('"secret"');
    }
  });

  it("never reads `..` out of the root", async () => {
    const probe = await readFile(at("../outside/secret.txt"), 100);
    expect(probe).toMatchObject({ ok: false, problem: "escape" });
  });

  // root reads any file whatever its mode, so there is no EACCES to see.
  it.skipIf(process.getuid?.() === 0)("reports a file it may not read as an error", async () => {
    await chmod(join(root, "hello.txt"), 0o000);
    const probe = await readFile(at("hello.txt"), 100);
    expect(probe).toMatchObject({ ok: false, problem: "error" });
    expect(probe.ok || probe.message).toContain("permission denied");
  });
});
