/**
 * A quest pack's manifest: `pack.yaml` at the pack's root (`id`, `title`, `description`), all
 * optional. Without it, or without an `id`, the id is the pack's default name (the folder's
 * name; for a Pi package, the package's name without its scope). Problems are diagnostics with
 * file:line:col, never an exception.
 */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { type Diagnostic, describeFsError, type Loaded } from "../core/diagnostics.ts";
import { ONE_PARSE } from "../core/one-parse.ts";
import { readYamlSource } from "../core/yaml-source.ts";
import { zodDiagnostics } from "./schema-diagnostics.ts";

/** The manifest's file name at a pack's root; the quest loader does not read it as a quest. */
export const PACK_FILE = "pack.yaml";
/** What a pack id may be: lower-case letters, digits and dashes, not starting with a dash. */
export const PACK_ID = /^[a-z0-9][a-z0-9-]*$/;

export type PackManifest = { id: string; title: string; description?: string };

const PackFileSchema = z.strictObject({
  id: z
    .string()
    .regex(PACK_ID, "a pack id is lower-case letters, digits and dashes ([a-z0-9][a-z0-9-]*)")
    .optional(),
  title: z.string().min(1).optional(),
  description: z.string().optional(),
});

/**
 * The default id of a pack: a package's name without its scope, or the folder's name, in lower
 * case with anything but letters, digits and dashes made a dash (`My Pack` is `my-pack`).
 */
export function defaultPackId(name: string): string {
  return name
    .replace(/^@[^/]+\//, "")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The manifest of the pack at `dir`: pack.yaml's fields, with `defaultId` (and a title from it)
 * where it gives none. An id that is not a pack id is an error naming where it came from.
 */
export async function readPackManifest(
  dir: string,
  defaultId = basename(dir),
): Promise<Loaded<PackManifest>> {
  const file = join(dir, PACK_FILE);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return problem(file, describeFsError(error));
  }
  if (text === undefined || text.trim() === "") return fromDefault(dir, defaultId, {});
  const parsed = await readYamlSource(text, file);
  if (!parsed.ok) return parsed;
  const checked = PackFileSchema.safeParse(parsed.source.value ?? {}, ONE_PARSE);
  if (!checked.success) {
    return {
      ok: false,
      diagnostics: await zodDiagnostics(checked.error, { source: parsed.source, schema: PackFileSchema }),
    };
  }
  return fromDefault(dir, defaultId, checked.data);
}

function fromDefault(
  dir: string,
  defaultId: string,
  given: z.infer<typeof PackFileSchema>,
): Loaded<PackManifest> {
  const id = given.id ?? defaultPackId(defaultId);
  if (!PACK_ID.test(id)) {
    return problem(
      dir,
      `the pack's default id "${id}" (its folder's or package's name) is not a pack id ([a-z0-9][a-z0-9-]*): give one in ${PACK_FILE} (id: my-pack)`,
    );
  }
  return {
    ok: true,
    value: {
      id,
      title: given.title ?? id,
      ...(given.description !== undefined ? { description: given.description } : {}),
    },
  };
}

function problem(file: string, message: string): { ok: false; diagnostics: Diagnostic[] } {
  return { ok: false, diagnostics: [{ file, line: 0, column: 0, message }] };
}
