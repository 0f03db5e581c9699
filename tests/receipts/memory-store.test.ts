/**
 * Receipts in memory only (src/receipts/memory-store.ts), for a process whose start is not
 * trusted: what it wrote is listed and numbered as a store's, and nothing reaches the disk.
 */
import { describe, expect, it } from "vitest";
import { memoryReceiptStore } from "../../src/receipts/memory-store.ts";
import { sampleReceipt } from "../support/receipt.ts";

describe("a receipt store in memory", () => {
  it("lists what it was given, oldest first, replaces by id, numbers attempts, and recovers nothing", async () => {
    const store = memoryReceiptStore();
    const later = sampleReceipt({ id: "b", startedAt: "2030-01-01T00:00:02.000Z", attempt: 2 });
    await store.write(later);
    await store.write(
      sampleReceipt({
        id: "a",
        state: "running",
        endedAt: null,
        exitCode: null,
        termination: null,
        result: null,
      }),
    );
    await store.write(sampleReceipt({ id: "a", state: "failed", exitCode: 1 }));
    const listed = await store.list();
    expect(listed.receipts.map((receipt) => [receipt.id, receipt.state])).toEqual([
      ["a", "failed"],
      ["b", "passed"],
    ]);
    expect(listed).toMatchObject({ warnings: [], altered: [] });
    expect(await store.nextAttempt("a".repeat(64))).toBe(3);
    expect(await store.recoverInterrupted()).toEqual([]);
  });

  it("refuses an invalid receipt, and what a caller changes afterwards is not what it keeps", async () => {
    const store = memoryReceiptStore();
    await expect(store.write({ ...sampleReceipt({ id: "a" }), checkIdentity: "nope" })).rejects.toThrow();
    const kept = sampleReceipt({ id: "a" });
    await store.write(kept);
    kept.state = "failed";
    expect((await store.list()).receipts[0]?.state).toBe("passed");
  });
});
