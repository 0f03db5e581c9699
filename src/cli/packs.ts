/**
 * `pi-quests packs [--cwd DIR] [--json]`: the quest packs Pi would offer in DIR, through the
 * Pi the CLI finds (its package list and trust, src/runtime/pi-host.ts), in the contract's JSON.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../core/package-root.ts";
import { agentDirFrom } from "../core/paths.ts";
import { installedPackages, projectTrusted } from "../runtime/pack-sources.ts";
import {
  type ListedPack,
  listPacks,
  type PackPlaces,
  type PackProblem,
  projectPackDir,
} from "../runtime/packs.ts";
import { piPackageApiBeside } from "../runtime/pi-host.ts";
import { EXIT } from "./exit-codes.ts";
import { type CliIo, tryParse } from "./io.ts";
import { findPi } from "./plays/pi-binary.ts";
import { PACKS_USAGE } from "./usage.ts";

/** The pack that ships with pi-quests. */
const BUILT_IN_PACK = resolve(packageRoot(import.meta.dirname), "quests");

export async function packs(args: string[], io: CliIo): Promise<number> {
  const parsed = tryParse(
    () =>
      parseArgs({
        args,
        options: {
          cwd: { type: "string" },
          json: { type: "boolean" },
          help: { type: "boolean", short: "h" },
        },
        allowPositionals: false,
        strict: true,
      }),
    PACKS_USAGE,
    io,
  );
  if (!parsed) return EXIT.invalid;
  if (parsed.values.help) {
    io.stdout(PACKS_USAGE);
    return EXIT.pass;
  }
  const cwd = resolve(io.cwd, parsed.values.cwd ?? ".");
  const places = await placesFor(cwd, io);
  const listed = await listPacks(places.places);
  const problems = [...places.problems, ...listed.problems];
  io.stdout(parsed.values.json ? packsJson(listed.packs, problems) : packsTable(listed.packs, problems));
  return EXIT.pass;
}

/** Where Pi would find packs in `cwd`: its package list and trust come from the Pi findPi finds. */
async function placesFor(cwd: string, io: CliIo): Promise<{ places: PackPlaces; problems: PackProblem[] }> {
  if (io.env.PI_QUESTS_PACK)
    return {
      places: { builtIn: BUILT_IN_PACK, env: resolve(cwd, io.env.PI_QUESTS_PACK), packages: [] },
      problems: [],
    };
  const agentDir = agentDirFrom(io.env, cwd, homedir());
  const project = projectPackDir(cwd);
  const found = findPi({ env: io.env, cwd: io.cwd });
  const api = found.ok
    ? await piPackageApiBeside(found.pi.cli)
    : { ok: false as const, message: found.message };
  if (!api.ok) {
    const message = `Pi's installed packages are not listed, and the project's trust is not known: ${api.message}`;
    return {
      places: { builtIn: BUILT_IN_PACK, packages: [], project: { dir: project, trusted: false } },
      problems: [{ source: "package", path: agentDir, message }],
    };
  }
  const place = { cwd, agentDir };
  let trusted = false;
  try {
    trusted = projectTrusted(api.value, place);
  } catch (error) {
    const message = `Pi's trust of ${cwd} could not be read: ${(error as Error).message}`;
    return {
      places: { builtIn: BUILT_IN_PACK, packages: [], project: { dir: project, trusted: false } },
      problems: [{ source: "project", path: cwd, message }],
    };
  }
  const installed = installedPackages(api.value, { ...place, projectTrusted: trusted });
  return {
    places: { builtIn: BUILT_IN_PACK, packages: installed.packages, project: { dir: project, trusted } },
    problems: installed.problems.map((message) => ({ source: "package" as const, path: agentDir, message })),
  };
}

function packsJson(packs: readonly ListedPack[], problems: readonly PackProblem[]): string {
  const json = {
    packs: packs.map((pack) => ({
      id: pack.id,
      title: pack.title,
      source: pack.source,
      path: pack.path,
      quests: pack.quests.length,
    })),
    problems,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function packsTable(packs: readonly ListedPack[], problems: readonly PackProblem[]): string {
  const lines = packs.map(
    (pack) => `${pack.id}  ${pack.title}  (${pack.source}, ${pack.quests.length} quest(s))  ${pack.path}`,
  );
  const notOffered = problems.map((problem) => `  ${problem.message}`);
  return `${[
    ...(lines.length > 0 ? lines : ["no packs offered"]),
    ...(notOffered.length > 0 ? ["", "Not offered:", ...notOffered] : []),
  ].join("\n")}\n`;
}
