// The due-dates feature (the last quest): this test fails until it is built.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addTodo, completeTodo, createList, overdue } from "../src/todo.js";

test("a todo can have a due date (YYYY-MM-DD)", () => {
  const list = createList();
  const todo = addTodo(list, "Ship Heron", { due: "2025-07-10" });
  assert.equal(todo.due, "2025-07-10");
});

test("a todo without a due date has due null", () => {
  const list = createList();
  assert.equal(addTodo(list, "Someday").due, null);
});

test("overdue() lists the open todos due before a day", () => {
  const list = createList();
  addTodo(list, "Late", { due: "2025-07-01" });
  addTodo(list, "On time", { due: "2025-07-20" });
  addTodo(list, "Late but done", { due: "2025-06-30" });
  addTodo(list, "No date");
  completeTodo(list, 3);
  assert.deepEqual(
    overdue(list, "2025-07-10").map((todo) => todo.text),
    ["Late"],
  );
});
