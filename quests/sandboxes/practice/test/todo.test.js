import assert from "node:assert/strict";
import { test } from "node:test";
import { addTodo, listTodos } from "../src/todo.js";

test("a todo is listed", () => {
  addTodo("write tests");
  assert.ok(listTodos().some((todo) => todo.title === "write tests" && todo.done === false));
});
