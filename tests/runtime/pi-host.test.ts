/**
 * The Pi host: Pi's modules from the script the process runs (Pi's cli.js, or a link to it), only
 * in a folder whose package.json is Pi's; else Pi imported by its name; else a sentence. pi-tui
 * from Pi's own package folder. The CLI's SDK, imported when first asked for.
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { PI_SDK_NAMES } from "../../src/probes/pi-sdk.ts";
import { loadPiAi, loadPiTui, loadRunningPi, piIndexBeside, piSdkBeside } from "../../src/runtime/pi-host.ts";
import { REPO } from "../support/cli.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const PCA = realpathSync(join(REPO, "node_modules/@earendil-works/pi-coding-agent"));
const BUNDLED_CLI = join(PCA, "dist/bundle/cli.js");
const ESC = String.fromCharCode(27);
const NAMES = [
  ...PI_SDK_NAMES,
  "createLocalBashOperations",
  "createBashToolDefinition",
  "getShellConfig",
  "getPackageDir",
];

/** A module with every name the host wants, each a stub; `getPackageDir` answers `packageDir`. */
const fakePi = (packageDir = "/nowhere") =>
  Object.fromEntries(NAMES.map((name) => [name, name === "getPackageDir" ? () => packageDir : () => {}]));

/** An importer that records what it was asked for and answers with `module`. */
function recording(module: unknown = fakePi()) {
  const asked: string[] = [];
  const load = async (url: string) => {
    asked.push(url);
    return module;
  };
  return { asked, load };
}

/** A folder laid out like Pi's package (`dist/bundle/cli.js` beside `index.js`), named `name`. */
function packageLike(name: string, main = "dist/index.js", version = "1.6.0"): string {
  const dir = makeWorkspace({
    "package.json": JSON.stringify({ name, main, version }),
    "dist/index.js": "export {};\n",
    "dist/bundle/cli.js": "export {};\n",
    "dist/bundle/index.js": "export {};\n",
  });
  return realpathSync(dir);
}

describe("Pi's modules from the script Pi runs", () => {
  it("are the index.js beside Pi's bundled cli.js, the same module Pi's own chunks make", async () => {
    const found = await loadRunningPi({ entryScript: BUNDLED_CLI, importByName: async () => ({}) });
    if (!found.ok) throw new Error(found.message);
    expect(found.value).toMatchObject({
      packageDir: PCA,
      sdkFile: join(PCA, "dist/bundle/index.js"),
    });
    const index = await import(pathToFileURL(join(PCA, "dist/bundle/index.js")).href);
    expect(found.value.modules.loadSkills).toBe(index.loadSkills);
    expect(found.value.modules.createAgentSession).toBe(index.createAgentSession);
  });

  it("follow a link to Pi's cli.js (the `pi` npm puts on PATH); the unbundled cli.js gives dist/index.js", async () => {
    const bin = makeWorkspace();
    symlinkSync(BUNDLED_CLI, join(bin, "pi"));
    expect(piIndexBeside(join(bin, "pi"))).toEqual({
      index: join(PCA, "dist/bundle/index.js"),
      packageDir: PCA,
    });
    const importer = recording();
    const found = await loadRunningPi({ entryScript: join(PCA, "dist/cli.js"), importFile: importer.load });
    expect(found).toMatchObject({
      ok: true,
      value: { packageDir: PCA, sdkFile: join(PCA, "dist/index.js") },
    });
    expect(importer.asked).toEqual([pathToFileURL(join(PCA, "dist/index.js")).href]);
  });

  it("are never taken from a folder whose package.json is not Pi's, nor from Pi's name without its main file", async () => {
    for (const dir of [
      packageLike("not-pi"),
      packageLike("@earendil-works/pi-coding-agent", "dist/gone.js"),
    ]) {
      const importer = recording();
      const byName = fakePi();
      const found = await loadRunningPi({
        entryScript: join(dir, "dist/bundle/cli.js"),
        importFile: importer.load,
        importByName: async () => byName,
        env: { PI_PACKAGE_DIR: "/set" },
      });
      expect(importer.asked).toEqual([]);
      expect(found).toMatchObject({ ok: true, value: { packageDir: undefined } });
      if (found.ok) expect(found.value.sdkFile).toBeUndefined();
      if (found.ok) expect(found.value.modules).toBe(byName);
    }
  });

  it("fall back to Pi's package name (Pi's loader maps it; a checkout has it), whose own folder is Pi's answer", async () => {
    const found = await loadRunningPi({
      entryScript: join(REPO, "node_modules/vitest/vitest.mjs"),
      importByName: async () => fakePi(PCA),
      env: {},
    });
    expect(found).toMatchObject({ ok: true, value: { packageDir: PCA } });
    if (found.ok) expect(found.value.sdkFile).toBeUndefined();
    // PI_PACKAGE_DIR makes getPackageDir() say what the environment says: then only the script counts.
    const overridden = await loadRunningPi({
      entryScript: undefined,
      importByName: async () => fakePi(PCA),
      env: { PI_PACKAGE_DIR: PCA },
    });
    expect(overridden).toMatchObject({ ok: true, value: { packageDir: undefined } });
  });

  it("say why not, both ways, when there are none; and what a Pi whose modules changed lacks, untested", async () => {
    const none = await loadRunningPi({
      entryScript: "/usr/bin/something",
      importByName: async () => {
        throw new Error("Cannot find package '@earendil-works/pi-coding-agent' imported from /x\nmore");
      },
    });
    expect(none).toEqual({
      ok: false,
      message:
        "Pi's modules were not found: the script this process runs (/usr/bin/something) is not Pi's, and @earendil-works/pi-coding-agent could not be imported (Cannot find package '@earendil-works/pi-coding-agent' imported from /x)",
    });
    const { createAgentSession: _gone, ...changed } = fakePi();
    const untested = await loadRunningPi({
      entryScript: BUNDLED_CLI,
      importFile: async () => changed,
      importByName: async () => changed,
    });
    const version = JSON.parse(readFileSync(join(PCA, "package.json"), "utf8")).version;
    expect(untested).toEqual({
      ok: false,
      message: `this Pi (${version}) is untested: Pi's modules (the index beside the script Pi runs) could not be read (${join(PCA, "dist/bundle/index.js")} has no createAgentSession, and @earendil-works/pi-coding-agent has no createAgentSession)`,
    });
  });

  it("know the running Pi's version, from its package.json", async () => {
    const found = await loadRunningPi({ entryScript: BUNDLED_CLI, importByName: async () => ({}) });
    const version = JSON.parse(readFileSync(join(PCA, "package.json"), "utf8")).version;
    expect(found.ok && found.value.version).toBe(version);
  });

  it("are not imported from a Pi older than the supported range: one sentence naming the supported versions", async () => {
    const old = packageLike("@earendil-works/pi-coding-agent", "dist/index.js", "1.4.0");
    for (const options of [
      { entryScript: join(old, "dist/bundle/cli.js") },
      // Imported by its name (Pi's loader), the version it exports decides.
      { entryScript: undefined, importByName: async () => ({ ...fakePi(), VERSION: "1.4.0" }) },
    ]) {
      const importer = recording();
      const found = await loadRunningPi({ importFile: importer.load, ...options });
      expect(found).toEqual({
        ok: false,
        tooOld: true,
        message:
          "pi-quests supports Pi 1.5 and 1.6 (1.5.0 or later), not Pi 1.4.0: no quest starts here; update Pi (npm install -g @earendil-works/pi-coding-agent) and start it again.",
      });
      expect(importer.asked).toEqual([]);
    }
  });
});

describe("pi-tui", () => {
  it("is the one Pi's package folder resolves (its dependency), else the one its name gives", async () => {
    const pi = packageLike("@earendil-works/pi-coding-agent");
    const tuiDir = join(pi, "node_modules/@earendil-works/pi-tui");
    mkdirSync(join(tuiDir, "dist"), { recursive: true });
    writeFileSync(
      join(tuiDir, "package.json"),
      JSON.stringify({ name: "@earendil-works/pi-tui", main: "dist/index.js" }),
    );
    writeFileSync(join(tuiDir, "dist/index.js"), "export {};\n");
    const tui = { Markdown: class {}, Text: class {}, truncateToWidth: () => "" };
    const importer = recording(tui);
    expect(await loadPiTui(pi, importer.load)).toEqual({ ok: true, value: tui });
    expect(importer.asked).toEqual([pathToFileURL(join(tuiDir, "dist/index.js")).href]);

    const byName = await loadPiTui(undefined, importer.load, async () => tui);
    expect(byName).toEqual({ ok: true, value: tui });
    expect(importer.asked).toHaveLength(1);
  });

  it("from the checkout's Pi cuts a styled line to a width", async () => {
    const loaded = await loadPiTui(PCA);
    if (!loaded.ok) throw new Error(loaded.message);
    const cut = loaded.value.truncateToWidth("\u001b[31mabcdef\u001b[39m", 4);
    expect(cut.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "")).toBe("a...");
    expect(cut.startsWith("\u001b[31m")).toBe(true);
  });
});

describe("pi-ai for the scripted model: the one the running Pi gives its extensions", () => {
  const PREVIOUS = realpathSync(join(REPO, "node_modules/pi-previous"));
  const byNameInCheckout = () => import("@earendil-works/pi-ai/compat");

  it("in the bundled Pi, is the bundle's own (its virtual modules chunk), not the copy the name resolves to", async () => {
    const loaded = await loadPiAi({ entryScript: BUNDLED_CLI });
    if (!loaded.ok) throw new Error(loaded.message);
    const chunks = join(PCA, "dist/bundle/chunks");
    const chunk = readdirSync(chunks).find((name) => name.startsWith("virtual-modules-"));
    const { VIRTUAL_MODULES } = await import(pathToFileURL(join(chunks, chunk ?? "")).href);
    expect(loaded.value.registerFauxProvider).toBe(
      VIRTUAL_MODULES["@earendil-works/pi-ai/compat"].registerFauxProvider,
    );
    expect(loaded.value.registerFauxProvider).not.toBe((await byNameInCheckout()).registerFauxProvider);
  });

  it("in the unbundled Pi (Pi 1.5.2's dist/cli.js), is its extension view of pi-ai", async () => {
    const loaded = await loadPiAi({ entryScript: join(PREVIOUS, "dist/cli.js") });
    if (!loaded.ok) throw new Error(loaded.message);
    const view = await import(
      pathToFileURL(join(PREVIOUS, "dist/core/extensions/pi-ai-extension-view.js")).href
    );
    expect(loaded.value.registerFauxProvider).toBe(view.registerFauxProvider);
    expect(loaded.value.registerFauxProvider).not.toBe((await byNameInCheckout()).registerFauxProvider);
  });

  it("outside Pi (a test, the checkout), is the one its name gives", async () => {
    const loaded = await loadPiAi({ entryScript: "/usr/bin/something" });
    if (!loaded.ok) throw new Error(loaded.message);
    expect(loaded.value.registerFauxProvider).toBe((await byNameInCheckout()).registerFauxProvider);
  });

  it("in a Pi that keeps it elsewhere, or without the names, is never taken by name: this Pi is untested", async () => {
    const pi = packageLike("@earendil-works/pi-coding-agent", "dist/index.js", "1.7.0");
    const byName = async () => {
      throw new Error("never asked");
    };
    const cli = join(pi, "dist/bundle/cli.js");
    expect(await loadPiAi({ entryScript: cli, importByName: byName })).toEqual({
      ok: false,
      message: `this Pi (1.7.0) is untested: the pi-ai Pi gives its extensions (@earendil-works/pi-ai/compat) could not be read (no chunks/virtual-modules-*.js or core/extensions/pi-ai-extension-view.js beside ${join(pi, "dist/bundle/index.js")})`,
    });
    const chunk = join(pi, "dist/bundle/chunks/virtual-modules-NEW.js");
    mkdirSync(join(pi, "dist/bundle/chunks"));
    writeFileSync(chunk, 'export const VIRTUAL_MODULES = { "@earendil-works/pi-ai": {} };\n');
    expect(await loadPiAi({ entryScript: cli, importByName: byName })).toEqual({
      ok: false,
      message: `this Pi (1.7.0) is untested: the pi-ai Pi gives its extensions (@earendil-works/pi-ai/compat) could not be read (${chunk}'s VIRTUAL_MODULES has no registerFauxProvider, fauxAssistantMessage, fauxText, fauxToolCall, getCurrentSystemPrompt, getCurrentTools)`,
    });
  });
});

describe("the CLI's Pi SDK", () => {
  it("is imported from beside findPi's cli.js when first asked for, once", async () => {
    const importer = recording();
    const source = piSdkBeside(BUNDLED_CLI, importer.load);
    expect(importer.asked).toEqual([]);
    expect(await source()).toMatchObject({ ok: true });
    await source();
    expect(importer.asked).toEqual([pathToFileURL(join(PCA, "dist/bundle/index.js")).href]);
  });

  it("says so when the script is not Pi's", async () => {
    const dir = packageLike("not-pi");
    expect(await piSdkBeside(join(dir, "dist/bundle/cli.js"))()).toEqual({
      ok: false,
      message: `${join(dir, "dist/bundle/cli.js")} is not the entry script of a Pi package`,
    });
  });
});
