// Due dates for todos: the feature you build in the last quest ("Capstone: ship a feature").
// Until then these tests fail on purpose; every other test is independent of them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as todos from "../src/todo.js";

const { addTodo, completeTodo, createList } = todos;

describe("due dates (the last quest builds them: until then this fails, on purpose)", () => {
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
    assert.equal(typeof todos.overdue, "function", "src/todo.js exports no overdue() yet");
    const list = createList();
    addTodo(list, "Late", { due: "2025-07-01" });
    addTodo(list, "On time", { due: "2025-07-20" });
    addTodo(list, "Late but done", { due: "2025-06-30" });
    addTodo(list, "No date");
    completeTodo(list, 3);
    assert.deepEqual(
      todos.overdue(list, "2025-07-10").map((todo) => todo.text),
      ["Late"],
    );
  });
});
