// `node --import ./tools/pi-sdk-hook.mjs program.ts`: lets a program in this folder import Pi's
// SDK (`@earendil-works/pi-coding-agent`) without installing anything. For a checker,
// PI_QUESTS_SDK_RENAME has the SDK's SessionManager answer other names for sessions. The bare name resolves to
// the Pi you run: the package in PI_QUESTS_PI_PACKAGE when it is set (pi-quests sets it for its
// checks), else the package of the `pi` on your PATH. Any other bare name this folder cannot
// resolve (`typebox`, `@earendil-works/pi-ai`) is resolved from Pi's package, as Pi resolves an
// extension's imports.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { register } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const NAME = "@earendil-works/pi-coding-agent";

function packageOfPiOnPath() {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, "pi");
    if (!folder || !existsSync(candidate)) continue;
    // A shim that execs Pi's cli.js names it; a link leads to it.
    let start = realpathSync(candidate);
    const named = readFileSync(start, "utf8")
      .slice(0, 4000)
      .match(/[^\s"']*pi-coding-agent[^\s"']*cli\.js/);
    if (named && existsSync(named[0])) start = realpathSync(named[0]);
    for (let dir = dirname(start); dir !== dirname(dir); dir = dirname(dir)) {
      const manifest = join(dir, "package.json");
      if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === NAME) return dir;
    }
  }
  return undefined;
}

const root = process.env.PI_QUESTS_PI_PACKAGE || packageOfPiOnPath();
if (!root) {
  process.stderr.write(
    `Pi's SDK was not found: set PI_QUESTS_PI_PACKAGE to Pi's package folder, or put pi on PATH.\n`,
  );
  process.exit(3);
}
const bundle = join(root, "dist", "bundle", "index.js");
const entry = pathToFileURL(existsSync(bundle) ? bundle : join(root, "dist", "index.js")).href;

/**
 * Pi's SDK, but its SessionManager answers the sessions Pi names `from` as `names[from]`
 * (check-sdk.mjs: only a program that asks SessionManager prints those names).
 */
function renamingSdk(names) {
  return `export * from ${JSON.stringify(entry)};
    import { SessionManager as PiSessionManager } from ${JSON.stringify(entry)};
    const NAMES = ${JSON.stringify(names)};
    const renamed = (info) => (info && Object.hasOwn(NAMES, info.name) ? { ...info, name: NAMES[info.name] } : info);
    export class SessionManager extends PiSessionManager {
      static async list(...args) { return (await super.list(...args)).map(renamed); }
      static async listAll(...args) { return (await super.listAll(...args)).map(renamed); }
      static open(...args) {
        const manager = super.open(...args);
        const name = manager.getSessionName();
        if (Object.hasOwn(NAMES, name)) manager.getSessionName = () => NAMES[name];
        return manager;
      }
    }`;
}
// A checker may have the SDK rename sessions (PI_QUESTS_SDK_RENAME: a JSON map of names).
const rename = process.env.PI_QUESTS_SDK_RENAME;
const sdk = rename ? `data:text/javascript,${encodeURIComponent(renamingSdk(JSON.parse(rename)))}` : entry;

register(
  `data:text/javascript,${encodeURIComponent(`
    const NAME = ${JSON.stringify(NAME)}, URL_ = ${JSON.stringify(sdk)};
    const PI = ${JSON.stringify(pathToFileURL(join(root, "package.json")).href)};
    const bare = (specifier) => !/^(\\.|\\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
    export async function resolve(specifier, context, next) {
      if (specifier === NAME) return { url: URL_, shortCircuit: true };
      try {
        return await next(specifier, context);
      } catch (error) {
        if (!bare(specifier)) throw error;
        return next(specifier, { ...context, parentURL: PI });
      }
    }`)}`,
);
