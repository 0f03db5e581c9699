/**
 * Receipts kept in this process's memory only: none read from the data dir, none written there.
 * For a process whose start code could have been loaded into before pi-quests ran
 * (src/core/process-start.ts): such a process may reuse what it ran itself, since within it
 * nothing is more trustworthy than the process, but it leaves nothing another process trusts.
 */
import { type Receipt, ReceiptSchema } from "./schema.ts";
import { byStart, type ReceiptListing, type ReceiptStore } from "./store.ts";

export function memoryReceiptStore(): ReceiptStore {
  const kept = new Map<string, Receipt>();
  const list = async (): Promise<ReceiptListing> => ({
    receipts: [...kept.values()].map((receipt) => structuredClone(receipt)).sort(byStart),
    warnings: [],
    altered: [],
  });
  return {
    dir: "(this process's memory)",
    async write(receipt) {
      const valid = ReceiptSchema.parse(receipt);
      kept.set(valid.id, structuredClone(valid));
    },
    list,
    // Every receipt here is this process's, and a running one is running now.
    recoverInterrupted: async () => [],
    async nextAttempt(identity) {
      let last = 0;
      for (const receipt of kept.values())
        if (receipt.checkIdentity === identity) last = Math.max(last, receipt.attempt);
      return last + 1;
    },
  };
}
