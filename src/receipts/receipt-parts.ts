/** The parts every receipt shares, whatever ran: how a new one is named and numbered, and how evidence cites it. */
import { randomUUID } from "node:crypto";
import type { ReceiptEvidence } from "../verifier/checks/command.ts";
import { RECEIPT_SCHEMA, type Receipt } from "./schema.ts";
import type { ReceiptStore } from "./store.ts";

/** A new receipt's name: a fresh id, and the next attempt of its check identity in `store`. */
export async function newReceiptHeader(
  where: { store: ReceiptStore; workspace: string },
  questId: string,
  checkId: string,
  identity: string,
): Promise<Pick<Receipt, "schema" | "id" | "quest" | "check" | "attempt" | "checkIdentity" | "workspace">> {
  return {
    schema: RECEIPT_SCHEMA,
    id: randomUUID(),
    quest: questId,
    check: checkId,
    attempt: await where.store.nextAttempt(identity),
    checkIdentity: identity,
    workspace: where.workspace,
  };
}

/** The receipt as evidence; `reused`: the check was answered from it, nothing ran. */
export function receiptEvidence(receipt: Receipt, reused: boolean): ReceiptEvidence {
  return {
    id: receipt.id,
    state: receipt.state,
    reused,
    ...(receipt.fingerprint ? { fingerprint: receipt.fingerprint.value } : {}),
    ...(receipt.note ? { note: receipt.note } : {}),
  };
}
