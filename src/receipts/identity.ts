/**
 * Check identity and command redaction, for receipts.
 *
 * A receipt names the check it judged by a stable identity: a hash of what the check *does*
 * (command, folder, limits, predicates, isolation), never of its id or description. It is taken
 * from the unredacted command, so two commands that differ only in a hidden argument (a token)
 * never share an identity and never supersede one another. The command a receipt stores, on the
 * other hand, is redacted: secrets become `***` and everything else stays byte for byte.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { canonicalJson } from "../core/seal.ts";
import type { CommandCheck } from "../verifier/checks/command.ts";

// --- identity ------------------------------------------------------------------------------

/** Bumped when the definition below changes meaning, so old identities can never collide. */
const IDENTITY_VERSION = "pi-quests.check-identity/1";

/** A workspace-relative posix path: `./a/b/`, `a//b` and `a\b` are all `a/b`; the root is ".". */
export function normalizeRelativePath(path: string): string {
  const normalized = posix.normalize(path.replaceAll("\\", "/"));
  const trimmed = normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
  return trimmed === "" ? "." : trimmed;
}

/** A bare value means equality: `0` and `{equals: 0}` are the same predicate. */
function normalizePredicate(predicate: unknown): unknown {
  if (predicate === undefined) return null;
  return typeof predicate === "object" && predicate !== null ? predicate : { equals: predicate };
}

/**
 * The stable identity of a command check run in `cwd` (workspace-relative; "." for the root):
 * sha256 hex of the canonical JSON of its normalized definition. `check.cwd` itself is left
 * out because `cwd` is where it resolved to: `{workspace}/x` and `x` are the same folder.
 */
export function checkIdentity(check: CommandCheck, cwd: string): string {
  const definition = {
    identity: IDENTITY_VERSION,
    type: check.type,
    run: check.run,
    cwd: normalizeRelativePath(cwd),
    timeout_ms: check.timeout_ms,
    exit_code: normalizePredicate(check.exit_code),
    stdout: normalizePredicate(check.stdout),
    stderr: normalizePredicate(check.stderr),
    oracle_paths: [...new Set(check.oracle_paths.map(normalizeRelativePath))].sort(),
    isolation: check.isolation,
    // A different scope judges different work; absent, the identity is as it was before version 2.
    ...(check.editable ? { editable: [...new Set(check.editable)].sort() } : {}),
  };
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

// Redaction lives in core so the engine and the probes can use it; receipts keep importing it from here.
export { isSecretName, redactCommand } from "../core/redact.ts";
