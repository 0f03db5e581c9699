// A to-do list kept in memory: a list is an array of todos.

export function createList() {
  return [];
}

export function addTodo(list, text) {
  const todo = { id: list.length + 1, text, done: false };
  list.push(todo);
  return todo;
}

export function completeTodo(list, id) {
  const todo = list.find((item) => item.id === id);
  if (!todo) throw new Error(`no todo ${id}`);
  todo.done = true;
  return todo;
}

export function listTodos(list, { done } = {}) {
  if (done === undefined) return [...list];
  return list.filter((todo) => todo.done === done);
}
