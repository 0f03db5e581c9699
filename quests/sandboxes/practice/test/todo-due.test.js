import assert from "node:assert/strict";
import { test } from "node:test";
import { addTodo } from "../src/todo.js";

test("a todo can have a due date", () => {
  assert.equal(addTodo("ship it", { due: "2030-01-31" }).due, "2030-01-31");
});

test("a todo without a due date has none", () => {
  assert.equal(addTodo("someday").due, null);
});
