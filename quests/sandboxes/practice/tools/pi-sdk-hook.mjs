// `node --import ./tools/pi-sdk-hook.mjs program.ts`: lets a program in this folder import Pi's
// SDK (`@earendil-works/pi-coding-agent`) without installing anything. The bare name resolves to
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
const entry = existsSync(bundle) ? bundle : join(root, "dist", "index.js");

register(
  `data:text/javascript,${encodeURIComponent(`
    const NAME = ${JSON.stringify(NAME)}, URL_ = ${JSON.stringify(pathToFileURL(entry).href)};
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
