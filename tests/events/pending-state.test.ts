/** The translator's memory between events, piece by piece. */
import { describe, expect, it } from "vitest";
import { thinkingLevelSelectEvent } from "../../src/events/names.ts";
import { createEntryCursor, createInputQueue, createModelOrder } from "../../src/events/pending-state.ts";

describe("the input queue", () => {
  it("gives the input a message was typed as, else the oldest; cleared at a run's end", () => {
    const queue = createInputQueue();
    queue.push({ rawText: "a" });
    queue.push({ rawText: "/t b" });
    queue.push({ rawText: "c" });
    expect(queue.take("c")).toEqual({ rawText: "c" });
    expect(queue.take("expanded b")).toEqual({ rawText: "a" });
    queue.clear();
    expect(queue.take("/t b")).toBeUndefined();
  });
});

describe("the model order", () => {
  const one = { provider: "p", id: "one" };
  const two = { provider: "p", id: "two" };
  const level = thinkingLevelSelectEvent({ level: "off" });
  const model = { name: "model_select", payload: {} };

  it("holds a level whose model is not the last recorded until that model's event", () => {
    const order = createModelOrder();
    order.start(one);
    expect(order.thinkingSelected(level, two)).toBeUndefined();
    expect(order.modelSelected(two, model)).toEqual([model, level]);
    expect(order.thinkingSelected(level, two)).toBe(level);
  });

  it("gives a level at once when the model did not change, or is not known", () => {
    const order = createModelOrder();
    order.start(one);
    expect(order.thinkingSelected(level, one)).toBe(level);
    expect(order.thinkingSelected(level, undefined)).toBe(level);
  });
});

describe("the entry cursor", () => {
  it("gives only the entries after those seen", () => {
    const cursor = createEntryCursor();
    cursor.start(2);
    expect(cursor.fresh(["a", "b", "c"])).toEqual(["c"]);
    expect(cursor.fresh(["a", "b", "c"])).toEqual([]);
    expect(cursor.fresh(["a", "b", "c", "d"])).toEqual(["d"]);
  });
});
