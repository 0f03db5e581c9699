// The code quests' checker: `node tools/check-code.mjs MODULE...` (calc, greet, todo) calls the
// functions of src/MODULE.js on inputs it makes up, and judges what they return against what the
// project's tests say they must do. The learner's code runs only in a child process of its own;
// the verdict is computed here, in a process that never loads it. So code that ends its process
// early, prints a test runner's protocol lines, or stubs `assert` or `node:test` wins nothing: the
// tests are the learner's hint, not the judge. Exit 0 when every function does what it must; 1
// with the first thing that is wrong, in words.
import { spawnSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { existsSync } from "node:fs";

const fail = (why) => {
  console.error(`check-code: ${why}`);
  process.exit(1);
};

const word = () => randomBytes(3).toString("hex");
const shown = (value) => (value === undefined ? "undefined" : JSON.stringify(value));
/** What a call gave, in words: its value, or what it threw. */
const gave = (outcome) =>
  outcome && "threw" in outcome ? `threw "${outcome.threw}"` : `returned ${shown(outcome?.value)}`;
/** A day as YYYY-MM-DD, `offset` days from a day of its own. */
const dayFrom = (base, offset) => new Date(base + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Each module: the inputs made up for it, the calls made in the child (`run` is this file's own
 * code, sent to the child as text: it may use only its parameters), and the judgment of what came
 * back (the first problem, in words, or undefined).
 */
const MODULES = {
  calc: {
    inputs: () => ({
      pairs: [
        [randomInt(2, 50), randomInt(2, 50)],
        [-randomInt(1, 50), randomInt(1, 50)],
        [randomInt(-99, 99), 0],
      ],
    }),
    run: (m, { pairs }, call) => ({
      add: pairs.map(([a, b]) => call(() => m.add(a, b))),
      multiply: pairs.map(([a, b]) => call(() => m.multiply(a, b))),
    }),
    judge({ pairs }, seen) {
      for (const [name, op] of [
        ["add", (a, b) => a + b],
        ["multiply", (a, b) => a * b],
      ])
        for (const [i, [a, b]] of pairs.entries())
          if (seen[name]?.[i]?.value !== op(a, b))
            return `${name}(${a}, ${b}) ${gave(seen[name]?.[i])}; it should return ${op(a, b)}`;
      return undefined;
    },
  },
  greet: {
    inputs: () => ({ names: [`Ada${word()}`, `Lin ${word()}`] }),
    run: (m, { names }, call) => names.map((name) => call(() => m.greet(name))),
    judge({ names }, seen) {
      for (const [i, name] of names.entries())
        if (seen[i]?.value !== `Hello, ${name}!`)
          return `greet(${shown(name)}) ${gave(seen[i])}; it should return ${shown(`Hello, ${name}!`)}`;
      return undefined;
    },
  },
  todo: {
    inputs: () => {
      const base = Date.UTC(2025, randomInt(0, 12), randomInt(1, 28));
      return {
        day: dayFrom(base, 0),
        // [text, due]: late, on time, late but done, no date, late; never due on the day itself.
        todos: [
          [`late ${word()}`, dayFrom(base, -randomInt(1, 30))],
          [`on time ${word()}`, dayFrom(base, randomInt(1, 30))],
          [`done ${word()}`, dayFrom(base, -randomInt(1, 30))],
          [`someday ${word()}`, null],
          [`later late ${word()}`, dayFrom(base, -randomInt(1, 30))],
        ],
        done: [3],
      };
    },
    run: (m, { day, todos, done }, call) => {
      const list = call(() => m.createList());
      const added = todos.map(([text, due]) =>
        call(() => {
          const todo = due === null ? m.addTodo(list.value, text) : m.addTodo(list.value, text, { due });
          return { id: todo?.id, text: todo?.text, done: todo?.done, due: todo?.due };
        }),
      );
      const texts = (todos) => (Array.isArray(todos) ? todos.map((todo) => todo?.text) : todos);
      const completed = done.map((id) => call(() => m.completeTodo(list.value, id)?.done));
      return {
        list: { isArray: Array.isArray(list.value), ...("threw" in list ? { threw: list.threw } : {}) },
        added,
        completed,
        unknown: call(() => m.completeTodo(list.value, 10_000)),
        open: call(() => texts(m.listTodos(list.value, { done: false }))),
        closed: call(() => texts(m.listTodos(list.value, { done: true }))),
        all: call(() => texts(m.listTodos(list.value))),
        overdue:
          typeof m.overdue === "function" ? call(() => texts(m.overdue(list.value, day))) : { missing: true },
      };
    },
    judge({ day, todos, done }, seen) {
      if (seen.list?.threw) return `createList() threw "${seen.list.threw}"`;
      if (!seen.list?.isArray) return "createList() does not return an array";
      for (const [i, [text, due]] of todos.entries()) {
        const call =
          due === null
            ? `addTodo(list, ${shown(text)})`
            : `addTodo(list, ${shown(text)}, { due: ${shown(due)} })`;
        const todo = seen.added[i];
        if (!todo || "threw" in todo) return `${call} ${gave(todo)}`;
        const want = { id: i + 1, text, done: false, due };
        for (const field of ["id", "text", "done", "due"])
          if (todo.value?.[field] !== want[field])
            return `${call} gave a todo whose ${field} is ${shown(todo.value?.[field])}; it should be ${shown(want[field])}${field === "due" && due === null ? " (a todo without a due date has due null)" : ""}`;
      }
      for (const [k, id] of done.entries())
        if (seen.completed[k]?.value !== true)
          return `completeTodo(list, ${id}) ${gave(seen.completed[k])}; the todo should be done`;
      if (!("threw" in (seen.unknown ?? {})))
        return "completeTodo(list, 10000) did not throw for a todo that is not there";
      const isDone = (i) => done.includes(i + 1);
      const names = (which) => todos.filter((_, i) => which(i)).map(([text]) => text);
      const sameSet = (got, want) =>
        Array.isArray(got) && got.length === want.length && want.every((text) => got.includes(text));
      for (const [label, got, want] of [
        ["listTodos(list)", seen.all, names(() => true)],
        ["listTodos(list, { done: false })", seen.open, names((i) => !isDone(i))],
        ["listTodos(list, { done: true })", seen.closed, names(isDone)],
      ])
        if (!sameSet(got?.value, want)) return `${label} ${gave(got)}; it should list ${shown(want)}`;
      if (seen.overdue?.missing) return "src/todo.js has no overdue() (test/todo-due.test.js asks for one)";
      const late = names((i) => !isDone(i) && todos[i][1] !== null && todos[i][1] < day);
      if (!sameSet(seen.overdue?.value, late))
        return `overdue(list, ${shown(day)}) ${gave(seen.overdue)}; it should list the open todos due before that day: ${shown(late)}`;
      return undefined;
    },
  },
};

/** Runs `run` on src/MODULE.js in a child and gives back what it saw, or why it could not. */
function callInChild(module, run, inputs) {
  const child = `
    import { pathToFileURL } from "node:url";
    const call = (f) => { try { return { value: f() }; } catch (error) { return { threw: String(error?.message ?? error).split("\\n")[0] }; } };
    const [file, inputs] = process.argv.slice(1);
    const m = await import(pathToFileURL(file).href);
    const seen = await (${run.toString()})(m, JSON.parse(inputs), call);
    process.stdout.write("\\n@@seen@@" + JSON.stringify(seen));`;
  const ran = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", child, `src/${module}.js`, JSON.stringify(inputs)],
    { encoding: "utf8", timeout: 30_000 },
  );
  const at = ran.stdout.lastIndexOf("\n@@seen@@");
  if (at < 0) {
    const why =
      (ran.stderr || "").split("\n").find((line) => /^\w*Error\b[^(]*: /.test(line)) ??
      (ran.error ? ran.error.message : `it ended with exit code ${ran.status} before answering`);
    return { problem: `src/${module}.js could not be called: ${why}` };
  }
  try {
    return { seen: JSON.parse(ran.stdout.slice(at + "\n@@seen@@".length)) };
  } catch {
    return { problem: `src/${module}.js answered something that is not a value` };
  }
}

const asked = process.argv.slice(2);
if (asked.length === 0) fail(`name the modules to check: ${Object.keys(MODULES).join(", ")}`);
for (const module of asked) {
  const checked = MODULES[module];
  if (!checked) fail(`no module "${module}" to check; modules: ${Object.keys(MODULES).join(", ")}`);
  if (!existsSync(`src/${module}.js`)) fail(`src/${module}.js is missing`);
  const inputs = checked.inputs();
  const answer = callInChild(module, checked.run, inputs);
  if (answer.problem) fail(answer.problem);
  const problem = checked.judge(inputs, answer.seen);
  if (problem) fail(problem);
}
console.log(
  `check-code: ${asked.map((module) => `src/${module}.js`).join(", ")} do what the tests say, on inputs of the checker's own`,
);
