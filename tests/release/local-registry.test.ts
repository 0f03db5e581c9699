/**
 * The local registry the release test installs from (tests/support/local-registry.ts): a package
 * published to it installs into an empty project, a package never published does not (no uplink:
 * nothing comes from anywhere else), and once stopped nothing of the run is left: no process
 * carrying the run's marker, nothing listening on its port, no temporary folder. When verdaccio
 * cannot start, or starts and never answers, the start fails with a clear error, in bounded time,
 * and leaves nothing running either.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import {
  type LocalRegistry,
  listening,
  processesOfRun,
  RegistryStartError,
  startLocalRegistry,
} from "../support/local-registry.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

const started: LocalRegistry[] = [];
afterEach(async () => {
  try {
    await Promise.all(started.splice(0).map((registry) => registry.stop()));
  } finally {
    removeWorkspaces();
  }
});

async function start(): Promise<LocalRegistry> {
  const registry = await startLocalRegistry();
  started.push(registry);
  return registry;
}

/** `npm <args>` in `cwd` with the registry's client environment, bounded. */
function npm(registry: LocalRegistry, cwd: string, ...args: string[]) {
  return execa("npm", args, {
    cwd,
    env: registry.env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
}

/** Packs a one-file package `pq-tiny@1.0.0` in a temporary folder; returns the tarball. */
async function tinyTarball(registry: LocalRegistry): Promise<string> {
  const dir = makeWorkspace({
    "package.json": JSON.stringify({ name: "pq-tiny", version: "1.0.0", main: "index.js" }),
    "index.js": 'module.exports = "pq-tiny from the local registry";\n',
  });
  const packed = await npm(registry, dir, "pack", "--json");
  expect(packed.exitCode, packed.stderr).toBe(0);
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  return join(dir, filename);
}

/** Occupies a free loopback port, so that verdaccio cannot listen there. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const address = server.address();
  if (!address || typeof address !== "object") throw new Error("no port");
  return { port: address.port, server };
}

async function startFailure(options: Parameters<typeof startLocalRegistry>[0]): Promise<RegistryStartError> {
  const error = await startLocalRegistry(options).then(
    (registry) => {
      started.push(registry);
      throw new Error("the registry started");
    },
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(RegistryStartError);
  return error as RegistryStartError;
}

describe("the local registry", () => {
  it("serves what is published to it, nothing else, and leaves nothing behind when stopped", async () => {
    const registry = await start();
    expect(registry.url).toBe(`http://127.0.0.1:${registry.port}/`);
    expect(processesOfRun(registry.run)).toEqual([registry.pid]);

    expect(await registry.publish(await tinyTarball(registry))).toContain("+ pq-tiny@1.0.0");

    const project = makeWorkspace({ "package.json": JSON.stringify({ name: "empty", private: true }) });
    const install = await npm(registry, project, "install", "pq-tiny");
    expect(install.exitCode, install.stderr).toBe(0);
    const imported = await execa(process.execPath, ["-p", 'require("pq-tiny")'], { cwd: project });
    expect(imported.stdout).toBe("pq-tiny from the local registry");
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8"));
    expect(lock.packages["node_modules/pq-tiny"].resolved).toBe(`${registry.url}pq-tiny/-/pq-tiny-1.0.0.tgz`);

    // No uplink: a package everyone else's registry has is not found here.
    const elsewhere = await npm(registry, project, "install", "left-pad");
    expect(elsewhere.exitCode).not.toBe(0);
    expect(elsewhere.stderr).toContain("E404");

    await registry.stop();
    started.splice(started.indexOf(registry), 1);
    expect(processesOfRun(registry.run)).toEqual([]);
    expect(await listening(registry.port)).toBe(false);
    expect(existsSync(registry.root)).toBe(false);
  }, 120_000);

  it("fails with verdaccio's own words when it cannot listen, and leaves nothing running", async () => {
    const { port, server } = await occupiedPort();
    try {
      const error = await startFailure({ port });
      expect(error.message).toMatch(
        /^verdaccio exited \(code \d+\) before answering http:\/\/127\.0\.0\.1:\d+\/-\/ping/,
      );
      expect(error.message).toContain("EADDRINUSE");
      expect(processesOfRun(error.run)).toEqual([]);
    } finally {
      server.close();
    }
  }, 60_000);

  it("gives up when it never answers, and kills it and what it started, though it ignores SIGTERM", async () => {
    // A stand-in that prints, ignores SIGTERM, starts a child in its group, and never listens.
    const dir = makeWorkspace();
    const silent = join(dir, "silent-registry.js");
    writeFileSync(
      silent,
      [
        'process.on("SIGTERM", () => console.log("ignoring SIGTERM"));',
        'require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });',
        'console.log("starting, never listening");',
        "setInterval(() => {}, 1000);",
        "",
      ].join("\n"),
    );
    const error = await startFailure({ verdaccio: silent, startTimeoutMs: 1_500, stopGraceMs: 500 });
    expect(error.message).toMatch(
      /^verdaccio did not answer http:\/\/127\.0\.0\.1:\d+\/-\/ping within 1500 ms/,
    );
    expect(error.message).toContain("starting, never listening");
    expect(error.message).toContain("ignoring SIGTERM");
    expect(processesOfRun(error.run)).toEqual([]);
  }, 60_000);
});
