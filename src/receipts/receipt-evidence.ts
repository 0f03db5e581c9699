/** What a check's evidence says of the receipt its result rests on: one shape for every kind. */
import type { ReceiptEvidence } from "../verifier/checks/command.ts";
import type { Receipt } from "./schema.ts";

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
