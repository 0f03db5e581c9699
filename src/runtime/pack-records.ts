/**
 * What pi-quests keeps about packs in the data dir (`{agent_dir}/quests`), sealed like its other
 * records (src/core/seal.ts; a file it did not write counts as absent):
 *
 * - where a pack's records live: the built-in pack's (and `PI_QUESTS_PACK`'s) where they always
 *   were, `{data_dir}/workspaces/<key>/`, so progress from before packs carries over unchanged;
 *   any other pack's under `{data_dir}/packs/<id>/workspaces/<key>/` (its progress, events,
 *   receipts and pinned definitions, apart from every other pack's);
 * - which pack is active in a workspace (`workspaces/<key>/active-pack.json`);
 * - which third-party packs the learner agreed to run (`pack-consent.json`): a pack's checks run
 *   commands on the learner's machine, so its first quest waits for that (docs/security.md).
 */
import { join } from "node:path";
import { openRecordSealer } from "../core/record-sealers.ts";
import { readSealedJson, writeSealedJson } from "../core/sealed-json-file.ts";
import { workspaceHome } from "../core/workspace-key.ts";
import type { FoundPack, PackSource } from "./packs.ts";

/** Sources whose records stay in the data dir's own workspaces folder, as before packs. */
const ROOT_SOURCES: ReadonlySet<PackSource> = new Set(["built-in", "env"]);

/** The data dir a pack's records of every workspace live in. */
export function packDataDir(dataDir: string, pack: Pick<FoundPack, "id" | "source">): string {
  return ROOT_SOURCES.has(pack.source) ? dataDir : join(dataDir, "packs", pack.id);
}

/** Whether the learner must agree before a pack's first quest: a pack that is not pi-quests' own or the author's. */
export const needsConsent = (pack: Pick<FoundPack, "source">): boolean => !ROOT_SOURCES.has(pack.source);

const activePackFile = (dataDir: string, workspace: string) =>
  join(workspaceHome(dataDir, workspace), "active-pack.json");

export type ActivePack = Pick<FoundPack, "id" | "source">;
const SOURCES: readonly PackSource[] = ["built-in", "package", "project", "env"];

/** The pack last made active in `workspace` (its real path), by id and source; none yet. */
export async function readActivePack(dataDir: string, workspace: string): Promise<ActivePack | undefined> {
  const record = await readSealedJson(
    activePackFile(dataDir, workspace),
    openRecordSealer(dataDir, "active-pack", workspace),
  );
  const source = SOURCES.find((each) => each === record?.source);
  return typeof record?.pack === "string" && source ? { id: record.pack, source } : undefined;
}

export async function writeActivePack(
  dataDir: string,
  workspace: string,
  pack: ActivePack,
  now = new Date(),
): Promise<void> {
  await writeSealedJson(
    activePackFile(dataDir, workspace),
    openRecordSealer(dataDir, "active-pack", workspace),
    {
      version: 1,
      pack: pack.id,
      source: pack.source,
      at: now.toISOString(),
    },
  );
}

type Consent = { id: string; path: string; at: string };
const consentFile = (dataDir: string) => join(dataDir, "pack-consent.json");
const consentSealer = (dataDir: string) => openRecordSealer(dataDir, "pack-consent", dataDir);

async function consents(dataDir: string): Promise<Consent[]> {
  const record = await readSealedJson(consentFile(dataDir), consentSealer(dataDir));
  return Array.isArray(record?.packs) ? (record.packs as Consent[]) : [];
}

/** Whether the learner agreed to run this pack (its id from this folder) before. */
export async function hasConsent(dataDir: string, pack: Pick<FoundPack, "id" | "path">): Promise<boolean> {
  return (await consents(dataDir)).some((each) => each.id === pack.id && each.path === pack.path);
}

export async function recordConsent(
  dataDir: string,
  pack: Pick<FoundPack, "id" | "path">,
  now = new Date(),
): Promise<void> {
  const packs = [...(await consents(dataDir)), { id: pack.id, path: pack.path, at: now.toISOString() }];
  await writeSealedJson(consentFile(dataDir), consentSealer(dataDir), { version: 1, packs });
}
