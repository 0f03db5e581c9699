/**
 * What ran before pi-quests in its own process (src/core/process-start.ts): each way Node can be
 * told to load code at start is found, in NODE_OPTIONS as Node splits it, in Node's own
 * arguments, and in the environment; options that load nothing are not.
 */
import { describe, expect, it } from "vitest";
import { codeLoadedBeforeStart, splitNodeOptions } from "../../src/core/process-start.ts";

const found = (env: Record<string, string>, execArgv: string[] = []) =>
  codeLoadedBeforeStart({ env, execArgv });

describe("code loaded before pi-quests", () => {
  it("finds every preload, loader hook and debugger in NODE_OPTIONS, with its value", () => {
    expect(found({ NODE_OPTIONS: "--import /tmp/patch.mjs" })).toEqual([
      "NODE_OPTIONS --import /tmp/patch.mjs",
    ]);
    expect(
      found({
        NODE_OPTIONS:
          "--max-old-space-size=4096 -r ./a.cjs --require=b --loader c --experimental-loader=d --experimental_loader e --inspect --inspect-brk=0 --experimental-specifier-resolution=node --openssl-config=/tmp/o.cnf",
      }),
    ).toEqual([
      "NODE_OPTIONS -r ./a.cjs",
      "NODE_OPTIONS --require=b",
      "NODE_OPTIONS --loader c",
      "NODE_OPTIONS --experimental-loader=d",
      "NODE_OPTIONS --experimental_loader e",
      "NODE_OPTIONS --inspect",
      "NODE_OPTIONS --inspect-brk=0",
      "NODE_OPTIONS --experimental-specifier-resolution=node",
      "NODE_OPTIONS --openssl-config=/tmp/o.cnf",
    ]);
  });

  it("finds them among Node's own arguments too, with code given to run as the program", () => {
    expect(found({}, ["--import", "/tmp/patch.mjs", "--no-warnings"])).toEqual([
      "node --import /tmp/patch.mjs",
    ]);
    expect(found({}, ["-e", "import('/tmp/x.mjs')"])).toEqual(["node -e import('/tmp/x.mjs')"]);
  });

  it("finds NODE_PATH and the libraries the loader or OpenSSL would load; empty values are nothing", () => {
    expect(found({ NODE_PATH: "/tmp/mods", LD_PRELOAD: "/tmp/x.so", OPENSSL_CONF: "/tmp/o.cnf" })).toEqual([
      "NODE_PATH=/tmp/mods (adds folders Node loads modules from)",
      "LD_PRELOAD=/tmp/x.so (loads a shared library into Node before it starts)",
      "OPENSSL_CONF=/tmp/o.cnf (names an OpenSSL configuration, which can load a shared library into Node)",
    ]);
    expect(found({ NODE_PATH: "", LD_PRELOAD: " " })).toEqual([]);
  });

  it("finds nothing in a plain start, or in options that load no code", () => {
    expect(found({})).toEqual([]);
    expect(
      found({ NODE_OPTIONS: "--max-old-space-size=4096 --enable-source-maps --no-warnings --title=pi" }, [
        "--no-warnings",
        "--stack-size=2000",
      ]),
    ).toEqual([]);
  });

  it("splits NODE_OPTIONS as Node does: quotes hold white space, a backslash escapes inside them", () => {
    expect(splitNodeOptions('  --import "/tmp/a b.mjs"   -r x ')).toEqual([
      "--import",
      "/tmp/a b.mjs",
      "-r",
      "x",
    ]);
    expect(splitNodeOptions('--title="say \\"hi\\""')).toEqual(['--title=say "hi"']);
    expect(found({ NODE_OPTIONS: '--import "/tmp/a b.mjs"' })).toEqual([
      "NODE_OPTIONS --import /tmp/a b.mjs",
    ]);
  });
});
