/**
 * What `pi-quests ARGS` of a built package loads: its `dist/cli/main.js` run in a Node process of
 * its own with a load hook that notes every module URL, in load order (bundle files as `file:`
 * URLs, Node's own as `node:`). For the tests of the lazy command table and the benches.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";

export async function modulesLoadedBy(
  root: string,
  args: readonly string[],
  env?: Record<string, string | undefined>,
): Promise<string[]> {
  const script = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    const { main } = await import(${JSON.stringify(pathToFileURL(join(root, "dist/cli/main.js")).href)});
    const quiet = () => {};
    await main(${JSON.stringify(args)}, { stdout: quiet, stderr: quiet, cwd: "/", env: {} });
    process.stdout.write(JSON.stringify(loaded));
  `;
  const run = await execa(process.execPath, ["--input-type=module", "-e", script], {
    ...(env ? { env, extendEnv: false } : {}),
  });
  return JSON.parse(run.stdout) as string[];
}
