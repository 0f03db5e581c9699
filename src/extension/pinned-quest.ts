/**
 * A quest's definition, pinned when the quest is activated: what later evaluations check, even if
 * the quest file (or anything else on disk) is edited afterwards. Stored in progress with a
 * sha256 of its canonical JSON; a stored definition that no longer matches its hash, or no longer
 * parses, is not used. The hash finds damage; the progress file's seal is what keeps a rewritten
 * definition (with a matching new hash) from being loaded at all.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "../core/seal.ts";
import type { Quest } from "../verifier/quest.ts";
import { defaultCheckId, QuestFileSchema } from "../verifier/quest.ts";

export type PinnedDefinition = { definition: Record<string, unknown>; definitionHash: string };

const PinnedExtras = z.strictObject({ source: z.string(), sandboxDir: z.string().optional() });

export function pinQuest(quest: Quest): PinnedDefinition {
  const definition = JSON.parse(JSON.stringify(quest)) as Record<string, unknown>;
  return { definition, definitionHash: hashDefinition(definition) };
}

export function hashDefinition(definition: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

/** The quest a pinned definition describes, or a reason it cannot be used. */
export function unpinQuest(
  pinned: PinnedDefinition,
): { ok: true; quest: Quest } | { ok: false; problem: string } {
  if (hashDefinition(pinned.definition) !== pinned.definitionHash) {
    return { ok: false, problem: "the pinned definition does not match its hash" };
  }
  const { source, sandboxDir, ...file } = pinned.definition;
  const parsedFile = QuestFileSchema.safeParse(file);
  const extras = PinnedExtras.safeParse({ source, sandboxDir });
  if (!parsedFile.success || !extras.success)
    return { ok: false, problem: "the pinned definition is not a quest" };
  const checks = parsedFile.data.checks.map((check, index) => ({
    ...check,
    id: check.id ?? defaultCheckId(index),
  }));
  return { ok: true, quest: { ...parsedFile.data, checks, ...extras.data } };
}
