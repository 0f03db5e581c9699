/** `pi-quests init DIR`: a new quest pack that is a Pi package, written only into an absent or empty DIR. */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "../core/version.ts";
import { defaultPackId, PACK_ID } from "../verifier/pack-manifest.ts";
import { EXIT } from "./exit-codes.ts";
import { packTemplate } from "./init-template.ts";
import { type CliIo, tryParse } from "./io.ts";
import { INIT_USAGE } from "./usage.ts";

export async function init(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () =>
      parseArgs({
        args,
        options: { help: { type: "boolean", short: "h" } },
        allowPositionals: true,
        strict: true,
      }),
    INIT_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  if (parsed.values.help) {
    io.stdout(INIT_USAGE);
    return EXIT.pass;
  }
  const [given, ...extra] = parsed.positionals;
  if (given === undefined || extra.length > 0) {
    io.stderr(`pi-quests init: give one folder for the new pack\n\n${INIT_USAGE}`);
    return EXIT.invalid;
  }
  const dir = resolve(io.cwd, given);
  const problem = await notEmpty(dir);
  if (problem) {
    io.stderr(`pi-quests init: ${dir} ${problem}: give an absent or empty folder; nothing was written\n`);
    return EXIT.invalid;
  }
  const id = packIdFor(basename(dir));
  const files = packTemplate({ name: id, id, title: titleFor(id), version: VERSION });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  io.stdout(
    `Created the quest pack "${id}" in ${dir}:\n${Object.keys(files)
      .map((path) => `  ${path}`)
      .join("\n")}\nNext: cd ${given} && npm install && npx pi-quests test .\n`,
  );
  return EXIT.pass;
}

/** Why DIR cannot take a new pack: it is a file, or a folder with something in it; else undefined. */
async function notEmpty(dir: string): Promise<string | undefined> {
  try {
    const entries = await readdir(dir);
    return entries.length > 0 ? "is not empty" : undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    return code === "ENOTDIR" ? "is a file" : `cannot be read (${(error as Error).message})`;
  }
}

/** The folder's name as a pack id (and package name): lower case, other characters as dashes. */
export function packIdFor(name: string): string {
  const id = defaultPackId(name);
  return PACK_ID.test(id) ? id : "my-quests";
}

const titleFor = (id: string) => id.replace(/-/g, " ").replace(/^./, (first) => first.toUpperCase());
