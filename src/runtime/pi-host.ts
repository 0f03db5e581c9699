/**
 * Pi's modules, taken from the Pi that runs: the one module of pi-quests that imports Pi at run
 * time (`import type` elsewhere is free).
 *
 * Why not `import "@earendil-works/pi-coding-agent"`: Pi installs a package without its peer
 * dependencies, so in an installed pi-quests that name does not resolve from pi-quests' files.
 * Pi's loader (jiti) then cannot import the built entry natively and falls back to
 * transforming it with Babel (slow on the first run), and code that imports Pi below the entry
 * fails outright. So the entry imports nothing of Pi, and this module finds Pi's own files:
 *
 * - **Pi's modules**: the `index.js` beside the script Pi runs (`process.argv[1]`, links
 *   followed): `…/pi-coding-agent/dist/bundle/cli.js` → `dist/bundle/index.js` (the bundled
 *   Pi; the same instances Pi's loader gives extensions, its chunks already loaded), or
 *   `dist/cli.js` → `dist/index.js` (the unbundled build, what its loader's aliases name); only
 *   in a folder whose package.json is Pi's. Else `import("@earendil-works/pi-coding-agent")`,
 *   which works under Pi's loader (jiti maps the name to Pi's own) and in a checkout.
 * - **pi-tui** (Markdown, Text, truncateToWidth; Pi's index does not export them): resolved from
 *   Pi's package folder as Node resolves Pi's own dependencies, else by its name.
 * - **pi-ai** (the scripted model's faux provider): the view of it Pi's extension loader gives
 *   extensions as `@earendil-works/pi-ai/compat`, beside Pi's entry script: the bundle's
 *   `chunks/virtual-modules-*.js` (its `VIRTUAL_MODULES`), or the unbundled build's
 *   `core/extensions/pi-ai-extension-view.js`; else by its name. Never another copy that Node
 *   would resolve from pi-quests' own files (pi-ai installed beside pi-quests in a project): a
 *   provider registered there is one the running Pi never sees.
 *
 * The CLI, outside Pi, finds Pi with src/cli/plays/pi-binary.ts and hands its `cli.js` to
 * `piSdkBeside`: the same rule, the same index.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as PiAiCompat from "@earendil-works/pi-ai/compat";
import type * as Pi from "@earendil-works/pi-coding-agent";
import type * as Tui from "@earendil-works/pi-tui";
import { piPackageFolderOf, piPackageVersion } from "../core/pi-package.ts";
import { piSupportOf, tooOldText, UPDATE_PI } from "../core/pi-versions.ts";
import { couldNotRead } from "../core/untested-pi.ts";
import { PI_SDK_NAMES, type PiSdk, type PiSdkSource } from "../probes/pi-sdk.ts";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";
const PI_TUI_PACKAGE = "@earendil-works/pi-tui";

/**
 * What quest packs use of Pi (src/runtime/pack-sources.ts): its package list (user and project
 * scope, as `pi install` and `pi install -l` keep it) and its project trust.
 */
export type PiPackageApi = Pick<
  typeof Pi,
  "DefaultPackageManager" | "SettingsManager" | "ProjectTrustStore" | "hasTrustRequiringProjectResources"
>;
export const PI_PACKAGE_API_NAMES = [
  "DefaultPackageManager",
  "SettingsManager",
  "ProjectTrustStore",
  "hasTrustRequiringProjectResources",
] as const satisfies readonly (keyof PiPackageApi)[];

/**
 * What pi-quests uses of Pi's package: the probes' SDK and the extension's own (the local shell
 * of `!` commands, and Pi's bash tool with the shell it resolves, which the agent's sandboxed
 * `bash` is made from).
 */
export type PiModules = PiSdk &
  Pick<
    typeof Pi,
    "createLocalBashOperations" | "createBashToolDefinition" | "getShellConfig" | "getPackageDir"
  >;
const PI_MODULE_NAMES = [
  ...PI_SDK_NAMES,
  "createLocalBashOperations",
  "createBashToolDefinition",
  "getShellConfig",
  "getPackageDir",
] as const;

/** What the extension uses of pi-tui: the HUD's truncation and a kept message's components. */
export type PiTui = Pick<typeof Tui, "Markdown" | "Text" | "truncateToWidth">;
const PI_TUI_NAMES = ["Markdown", "Text", "truncateToWidth"] as const;

/** What the scripted model uses of pi-ai: the faux provider, its messages, and what a request offers. */
export type PiAi = Pick<
  typeof PiAiCompat,
  | "registerFauxProvider"
  | "fauxAssistantMessage"
  | "fauxText"
  | "fauxToolCall"
  | "getCurrentSystemPrompt"
  | "getCurrentTools"
>;
const PI_AI_NAMES = [
  "registerFauxProvider",
  "fauxAssistantMessage",
  "fauxText",
  "fauxToolCall",
  "getCurrentSystemPrompt",
  "getCurrentTools",
] as const;
const PI_AI_VIEW = "@earendil-works/pi-ai/compat";

export type Loaded<T> = { ok: true; value: T } | { ok: false; message: string };

export type PiHost = {
  modules: PiModules;
  /** The real folder of Pi's package, when known (a command check's PI_QUESTS_PI_PACKAGE). */
  packageDir: string | undefined;
  /**
   * The file the modules were imported from, beside Pi's entry script (who judges a review);
   * none when they were imported by Pi's package name.
   */
  sdkFile?: string;
  /** Pi's version (its package.json's, else its `VERSION`), when known: where it stands in the supported range. */
  version: string | undefined;
  /** Pi's package list and trust, for quest packs; absent from a Pi that lacks them (packs-less). */
  packages?: PiPackageApi;
};

export type PiHostOptions = {
  /** The script this process runs (default `process.argv[1]`); Pi's `cli.js` when Pi runs. */
  entryScript?: string | undefined;
  env?: Record<string, string | undefined>;
  /** Imports a file URL (default `import()`). */
  importFile?: (url: string) => Promise<unknown>;
  /** Imports Pi's package by its name (default `import("@earendil-works/pi-coding-agent")`). */
  importByName?: () => Promise<unknown>;
};

/** Pi's `index.js` beside a script of Pi's package (`cli.js`), and the package's real folder. */
export function piIndexBeside(script: string): { index: string; packageDir: string } | undefined {
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return undefined;
  }
  const packageDir = piPackageFolderOf(real);
  const index = join(dirname(real), "index.js");
  return packageDir && existsSync(index) ? { index, packageDir } : undefined;
}

/**
 * Pi's modules from the Pi this process runs; a sentence saying why not when there is none. A Pi
 * older than pi-quests supports is refused before anything of it is imported (`tooOld`: the
 * sentence names the supported versions); a supported or newer Pi whose modules are not where, or
 * not what, pi-quests reads is said to be untested.
 */
export async function loadRunningPi(options: PiHostOptions = {}): Promise<HostLoaded> {
  const script = "entryScript" in options ? options.entryScript : process.argv[1];
  const importFile = options.importFile ?? defaultImport;
  const beside = script ? piIndexBeside(script) : undefined;
  let besideProblem = `the script this process runs (${script ?? "none"}) is not Pi's`;
  if (beside) {
    const version = piPackageVersion(beside.packageDir);
    const refused = refusedAsTooOld(version);
    if (refused) return refused;
    const loaded = await importNamed<PiModules>(
      () => importFile(pathToFileURL(beside.index).href),
      PI_MODULE_NAMES,
      beside.index,
    );
    if (loaded.ok) {
      const { packageDir, index: sdkFile } = beside;
      return {
        ok: true,
        value: { modules: loaded.value, packageDir, sdkFile, version, ...packageApiOf(loaded.value) },
      };
    }
    besideProblem = loaded.message;
  }
  const byName = await importNamed<PiModules>(
    options.importByName ?? (() => import("@earendil-works/pi-coding-agent")),
    PI_MODULE_NAMES,
    PI_PACKAGE,
  );
  const refused = refusedAsTooOld(byName.version);
  if (refused) return refused;
  if (!byName.ok) {
    const version = byName.version ?? (beside ? piPackageVersion(beside.packageDir) : undefined);
    const problem = `${besideProblem}, and ${byName.message}`;
    // A Pi of a known version whose modules are not what pi-quests reads is untested; else no Pi.
    const message =
      version === undefined
        ? `Pi's modules were not found: ${problem}`
        : couldNotRead(version, "modules", problem);
    return { ok: false, message };
  }
  const modules = byName.value;
  const packageDir = packageDirOf(modules, script, options.env);
  const version = (packageDir ? piPackageVersion(packageDir) : undefined) ?? byName.version;
  return { ok: true, value: { modules, packageDir, version, ...packageApiOf(modules) } };
}

/** What loadRunningPi answers: the host, or why not (`tooOld`: a Pi older than the supported range). */
export type HostLoaded = Loaded<PiHost> | { ok: false; message: string; tooOld: true };

/** The refusal of a Pi older than the supported range (src/core/pi-versions.ts), in one sentence. */
function refusedAsTooOld(version: string | undefined): HostLoaded | undefined {
  if (version === undefined || piSupportOf(version).kind !== "too-old") return undefined;
  const then = `no quest starts here; update Pi (${UPDATE_PI}) and start it again.`;
  return { ok: false, tooOld: true, message: tooOldText(version, then) };
}

/** Pi's package list and trust from its loaded module, when it has all of them. */
function packageApiOf(module: object): { packages?: PiPackageApi } {
  const exports = module as Record<string, unknown>;
  return PI_PACKAGE_API_NAMES.every((name) => exports[name] !== undefined)
    ? { packages: module as PiPackageApi }
    : {};
}

/**
 * The folder of the Pi imported by name: Pi's own `getPackageDir()` (the package its modules
 * run from), unless PI_PACKAGE_DIR overrides that answer with whatever the environment says;
 * else the package the entry script belongs to. Only a real Pi package folder counts.
 */
function packageDirOf(
  modules: PiModules,
  script: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const candidates = [env.PI_PACKAGE_DIR ? undefined : modules.getPackageDir(), script];
  for (const candidate of candidates) {
    const folder = candidate ? piPackageFolderOf(candidate) : undefined;
    if (folder) return folder;
  }
  return undefined;
}

/** pi-tui as Pi's package resolves it (its dependency), else by its name. */
export async function loadPiTui(
  packageDir: string | undefined,
  importFile: (url: string) => Promise<unknown> = defaultImport,
  importByName: () => Promise<unknown> = () => import("@earendil-works/pi-tui"),
): Promise<Loaded<PiTui>> {
  const file = packageDir ? resolveFrom(packageDir, PI_TUI_PACKAGE) : undefined;
  if (file) return importNamed<PiTui>(() => importFile(pathToFileURL(file).href), PI_TUI_NAMES, file);
  return importNamed<PiTui>(importByName, PI_TUI_NAMES, PI_TUI_PACKAGE);
}

/**
 * pi-ai as the running Pi's extension loader gives it (`@earendil-works/pi-ai/compat`): the
 * module beside Pi's entry script that holds it, else the name (Pi's loader maps it to Pi's own;
 * a checkout has it). `importFile` and `importByName` as for loadRunningPi.
 */
export async function loadPiAi(options: PiHostOptions = {}): Promise<Loaded<PiAi>> {
  const script = "entryScript" in options ? options.entryScript : process.argv[1];
  const beside = script ? piIndexBeside(script) : undefined;
  if (!beside) {
    const byName = options.importByName ?? (() => import(PI_AI_VIEW));
    return importNamed<PiAi>(byName, PI_AI_NAMES, PI_AI_VIEW);
  }
  // In Pi, never by name: Node would resolve it from pi-quests' files, maybe to another copy.
  const version = piPackageVersion(beside.packageDir);
  const view = piAiViewBeside(dirname(beside.index));
  if (!view) {
    const looked = `no chunks/virtual-modules-*.js or core/extensions/pi-ai-extension-view.js beside ${beside.index}`;
    return { ok: false, message: couldNotRead(version, "piAi", looked) };
  }
  const importFile = options.importFile ?? defaultImport;
  const load = async () => {
    const module = (await importFile(pathToFileURL(view.file).href)) as Record<string, unknown> | null;
    return view.key ? (module?.[view.key] as Record<string, unknown> | undefined)?.[PI_AI_VIEW] : module;
  };
  const loaded = await importNamed<PiAi>(
    load,
    PI_AI_NAMES,
    view.key ? `${view.file}'s ${view.key}` : view.file,
  );
  return loaded.ok ? loaded : { ok: false, message: couldNotRead(version, "piAi", loaded.message) };
}

/**
 * Where Pi's extension view of pi-ai is, in the folder of Pi's index: the bundle's virtual
 * modules chunk (the view under `key`), or the unbundled build's own module.
 */
function piAiViewBeside(indexDir: string): { file: string; key?: string } | undefined {
  const unbundled = join(indexDir, "core/extensions/pi-ai-extension-view.js");
  if (existsSync(unbundled)) return { file: unbundled };
  let chunks: string[];
  try {
    chunks = readdirSync(join(indexDir, "chunks"));
  } catch {
    return undefined;
  }
  const virtual = chunks.find((name) => /^virtual-modules-[\w-]+\.js$/.test(name));
  return virtual ? { file: join(indexDir, "chunks", virtual), key: "VIRTUAL_MODULES" } : undefined;
}

/**
 * The SDK of the Pi whose entry script is `cli` (the CLI's `findPi`), imported when a check first
 * asks for it and then kept.
 */
export function piSdkBeside(
  cli: string,
  importFile: (url: string) => Promise<unknown> = defaultImport,
): PiSdkSource {
  let loading: ReturnType<PiSdkSource> | undefined;
  const load: PiSdkSource = async () => {
    const beside = piIndexBeside(cli);
    if (!beside) return { ok: false, message: `${cli} is not the entry script of a Pi package` };
    const loaded = await importNamed<PiSdk>(
      () => importFile(pathToFileURL(beside.index).href),
      PI_SDK_NAMES,
      beside.index,
    );
    return loaded.ok ? { ok: true, sdk: loaded.value } : loaded;
  };
  return () => {
    loading ??= load();
    return loading;
  };
}

/**
 * Pi's package list and trust, from the Pi whose entry script is `cli` (the CLI's `findPi`):
 * `pi-quests packs` sees the packages that Pi would load.
 */
export async function piPackageApiBeside(
  cli: string,
  importFile: (url: string) => Promise<unknown> = defaultImport,
): Promise<Loaded<PiPackageApi>> {
  const beside = piIndexBeside(cli);
  if (!beside) return { ok: false, message: `${cli} is not the entry script of a Pi package` };
  return importNamed<PiPackageApi>(
    () => importFile(pathToFileURL(beside.index).href),
    PI_PACKAGE_API_NAMES,
    beside.index,
  );
}

function resolveFrom(packageDir: string, name: string): string | undefined {
  try {
    return createRequire(join(packageDir, "package.json")).resolve(name);
  } catch {
    return undefined; // not installed with this Pi: the name is tried next
  }
}

/**
 * The module `load` gives, when it has every one of `names`; else why not, naming `what`. The
 * version it says it is (Pi's `VERSION`), whether or not it has the names: an older Pi's is
 * how it is refused.
 */
async function importNamed<T>(
  load: () => Promise<unknown>,
  names: readonly string[],
  what: string,
): Promise<Loaded<T> & { version?: string }> {
  let module: unknown;
  try {
    module = await load();
  } catch (error) {
    return { ok: false, message: `${what} could not be imported (${firstLine(error)})` };
  }
  const exports = (typeof module === "object" && module !== null ? module : {}) as Record<string, unknown>;
  const version = typeof exports.VERSION === "string" ? { version: exports.VERSION } : {};
  const missing = names.filter((name) => exports[name] === undefined);
  if (missing.length > 0) return { ok: false, message: `${what} has no ${missing.join(", ")}`, ...version };
  return { ok: true, value: exports as T, ...version };
}

const defaultImport = (url: string): Promise<unknown> => import(url);

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
