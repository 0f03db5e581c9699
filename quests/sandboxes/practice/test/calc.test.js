import assert from "node:assert/strict";
import { test } from "node:test";
import { add, multiply } from "../src/calc.js";

test("add() adds two numbers", () => {
  assert.equal(add(2, 3), 5);
  assert.equal(add(-1, 1), 0);
});

test("multiply() multiplies two numbers", () => {
  assert.equal(multiply(4, 5), 20);
});
