import assert from "node:assert/strict";
import { test } from "node:test";
import { addTodo, completeTodo, createList, listTodos } from "../src/todo.js";

test("addTodo() adds an open todo", () => {
  const list = createList();
  const todo = addTodo(list, "Write the notes");
  // Field by field: a todo may carry more (the due date of the last quest).
  assert.deepEqual([todo.id, todo.text, todo.done], [1, "Write the notes", false]);
  assert.equal(listTodos(list).length, 1);
});

test("listTodos() filters by done", () => {
  const list = createList();
  addTodo(list, "One");
  addTodo(list, "Two");
  completeTodo(list, 2);
  assert.deepEqual(
    listTodos(list, { done: false }).map((todo) => todo.text),
    ["One"],
  );
  assert.deepEqual(
    listTodos(list, { done: true }).map((todo) => todo.text),
    ["Two"],
  );
});
