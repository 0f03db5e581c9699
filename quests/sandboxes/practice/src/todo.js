const todos = [];

export function addTodo(title) {
  const todo = { title, done: false };
  todos.push(todo);
  return todo;
}

export function listTodos() {
  return [...todos];
}
