/**
 * The practice sandbox's checkers (quests/sandboxes/practice/tools/*.mjs), run as a command check
 * runs them: `node tools/X.mjs` in a copy of the project holding the learner's work, with Pi's
 * package named by PI_QUESTS_PI_PACKAGE. Each judges behaviour on inputs of its own: an honest
 * answer in another shape passes, a guess or a fake does not.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli.ts";
import { makeWorkspace } from "../support/workspace.ts";

const PRACTICE = join(REPO, "quests/sandboxes/practice");
const PI_PACKAGE = join(REPO, "node_modules/@earendil-works/pi-coding-agent");

/** A copy of the practice project with `files` written over it. */
function project(files: Record<string, string>): string {
  const dir = makeWorkspace({}, { copy: PRACTICE });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** `node tools/CHECKER ARGS` in `dir`; TMPDIR may be a folder whose name is full of digits. */
function check(dir: string, checker: string, args: string[] = [], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join("tools", checker), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: dir, PI_QUESTS_PI_PACKAGE: PI_PACKAGE, ...env },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/** A word_count extension whose answer is `answer`, a template literal with {file} and {words} in it. */
const wordCount = (answer: string, param = "path", file = ".pi/extensions/word-count.ts") => ({
  [file]: `import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Type } from "typebox";

export default function (pi) {
  pi.registerTool({
    name: "word_count",
    label: "Word count",
    description: "Count the words of a file.",
    parameters: Type.Object({ ${param}: Type.String() }),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const file = resolve(ctx.cwd, params.${param});
      const words = readFileSync(file, "utf8").split(/\\s+/).filter(Boolean).length;
      return { content: [{ type: "text", text: ${answer.replace(/\{(file|words)[^}]*\}/g, "$$$&")} }], details: {} };
    },
  });
}
`,
});

describe("check-word-count.mjs (first-extension)", () => {
  it("passes a tool that echoes the file's path, whatever digits the path holds", () => {
    const digits = makeWorkspace();
    const tmp = join(digits, "9876543210-1234567890-5555");
    mkdirSync(tmp);
    const dir = project(wordCount("`{file} (1 file, 2026 edition): {words} words`"));
    expect(check(dir, "check-word-count.mjs", [], { TMPDIR: tmp })).toMatchObject({ status: 0 });
  });

  it("passes a tool in a folder of its own whose one text parameter is named file, with lines and characters", () => {
    const dir = project(
      wordCount("`{words} words, 3 lines, 1200 characters`", "file", ".pi/extensions/word-count/index.ts"),
    );
    expect(check(dir, "check-word-count.mjs")).toMatchObject({ status: 0 });
  });

  it("fails a tool that guesses every number, and one that miscounts", () => {
    const guess = project(wordCount("Array.from({ length: 600 }, (_, n) => n).join(' ')"));
    expect(check(guess, "check-word-count.mjs")).toMatchObject({
      status: 1,
      output: expect.stringMatching(/not a list of guesses/),
    });
    const wrong = project(wordCount("`{words + 1} words`"));
    expect(check(wrong, "check-word-count.mjs")).toMatchObject({
      status: 1,
      output: expect.stringMatching(/has \d+ words/),
    });
  });
});

const gate = (condition: string, reason = '"rm -rf is blocked here: ask the user first."') => ({
  ".pi/extensions/gate.ts": `export default function (pi) {
  pi.on("tool_call", async (event) => {
    if (event.toolName === "bash" && (${condition})) return { block: true, reason: ${reason} };
  });
}
`,
});

describe("check-gate.mjs (tool-gate)", () => {
  it("passes a gate that blocks rm -rf with a reason and lets other commands through, however it matches", () => {
    expect(check(project(gate('event.input.command.includes("rm -rf")')), "check-gate.mjs")).toMatchObject({
      status: 0,
    });
    expect(
      check(project(gate("/\\brm\\s+-(rf|fr)\\b/.test(event.input.command)")), "check-gate.mjs"),
    ).toMatchObject({
      status: 0,
    });
  });

  it("fails a gate that blocks every bash command, one without a reason, and none at all", () => {
    expect(check(project(gate("true")), "check-gate.mjs")).toMatchObject({
      status: 1,
      output: expect.stringMatching(/was blocked too/),
    });
    expect(
      check(project(gate('event.input.command.includes("rm -rf")', '""')), "check-gate.mjs"),
    ).toMatchObject({
      status: 1,
      output: expect.stringMatching(/without a reason/),
    });
    expect(
      check(project({ ".pi/extensions/other.ts": "export default function () {}\n" }), "check-gate.mjs"),
    ).toMatchObject({
      status: 1,
      output: expect.stringMatching(/no extension .* has a tool_call handler/),
    });
  });
});

describe("check-json-stream.mjs script (print-and-json)", () => {
  const script = (text: string) =>
    project({ "scripts/ask-pi.sh": text, "pi-run.jsonl": "the learner's stream\n" });

  it("passes a script however it is written: a variable for the file, a command over lines, --print", () => {
    for (const text of [
      'pi --mode json -p "Summarize README.md" > pi-run.jsonl\n',
      'OUT=pi-run.jsonl\npi --mode json -p "$1" > "$OUT"\n',
      'cd "$(dirname "$0")/.."\npi --mode json \\\n  --print "Summarize README.md" \\\n  > pi-run.jsonl\n',
      'run() { pi "$@"; }\nrun --mode json -p hi | tee pi-run.jsonl >/dev/null\n',
    ]) {
      const dir = script(text);
      expect(
        check(dir, "check-json-stream.mjs", ["script", "scripts/ask-pi.sh", "pi-run.jsonl"]),
        text,
      ).toMatchObject({
        status: 0,
      });
      // The script ran in a copy: the files the check was given are as they were.
      expect(readFileSync(join(dir, "pi-run.jsonl"), "utf8")).toBe("the learner's stream\n");
    }
  });

  it("fails a script that does not run pi in JSON print mode, or keeps its stream elsewhere", () => {
    const cases: [string, RegExp][] = [
      ['pi --mode=json -p "Summarize" > pi-run.jsonl\n', /not in JSON print mode/],
      ['pi -p "Summarize" > pi-run.jsonl\n', /not in JSON print mode/],
      ["# pi --mode json -p x > pi-run.jsonl\ncat saved.jsonl > pi-run.jsonl\n", /never ran pi/],
      ['pi --mode json -p "Summarize" > other.jsonl\n', /did not end up in pi-run.jsonl/],
    ];
    for (const [text, why] of cases)
      expect(
        check(script(text), "check-json-stream.mjs", ["script", "scripts/ask-pi.sh", "pi-run.jsonl"]),
        text,
      ).toMatchObject({
        status: 1,
        output: expect.stringMatching(why),
      });
  });
});

describe("check-sdk.mjs (sdk-program)", () => {
  it("fails a program that reads the session files itself, though it names the SDK: asked again, the SDK names them anew", () => {
    const dir = project({
      "sdk/sessions.ts": `// SessionManager from "@earendil-works/pi-coding-agent", by hand.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
const folder = process.argv[2];
for (const file of readdirSync(folder)) {
  const named = readFileSync(join(folder, file), "utf8").split("\\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type === "session_info");
  console.log(named.at(-1)?.name);
}
`,
    });
    expect(check(dir, "check-sdk.mjs")).toMatchObject({
      status: 1,
      output: expect.stringMatching(/did not list the sessions through the SDK/),
    });
  });

  it("passes a program that loads the SDK with await import() and prints more than the name on a line", () => {
    const dir = project({
      "sdk/sessions.ts": `const { SessionManager } = await import("@earendil-works/pi-coding-agent");
for (const session of await SessionManager.list(process.cwd(), process.argv[2])) console.log(\`- \${session.name} (\${session.path})\`);
`,
    });
    expect(check(dir, "check-sdk.mjs")).toMatchObject({ status: 0 });
  });
});

/** src/todo.js with the due dates of the capstone, `overdue` as given. */
const todoWith = (overdue: string) => `export function createList() { return []; }
export function addTodo(list, text, { due = null } = {}) {
  const todo = { id: list.length + 1, text, done: false, due };
  list.push(todo);
  return todo;
}
export function completeTodo(list, id) {
  const todo = list.find((item) => item.id === id);
  if (!todo) throw new Error("no todo " + id);
  todo.done = true;
  return todo;
}
export function listTodos(list, { done } = {}) {
  return done === undefined ? [...list] : list.filter((todo) => todo.done === done);
}
export function overdue(list, day) { ${overdue} }
`;
const FIXED_CALC =
  "export function add(a, b) { return a + b; }\nexport function multiply(a, b) { return a * b; }\n";

describe("check-code.mjs (exact-edit, capstone): the code judged from outside its process", () => {
  it("passes honest code of other shapes: overdue() sorted by date, or with a truthy due", () => {
    for (const overdue of [
      "return list.filter((t) => !t.done && t.due !== null && t.due < day);",
      "return list.filter((t) => !t.done && t.due && t.due < day).sort((a, b) => a.due.localeCompare(b.due));",
    ]) {
      const dir = project({ "src/calc.js": FIXED_CALC, "src/todo.js": todoWith(overdue) });
      expect(check(dir, "check-code.mjs", ["calc", "greet", "todo"]), overdue).toMatchObject({ status: 0 });
    }
  });

  it("fails add() still wrong, however the tests were made to pass in the code's own process", () => {
    const cheats = {
      "assert stubbed": 'import assert from "node:assert/strict";\nassert.equal = () => {};\n',
      "the process ended at import": "process.exit(0);\n",
      "the test runner's lines printed":
        'console.log("TAP version 13\\nok 1 - add() adds two numbers\\n1..1");\n',
    };
    for (const [cheat, text] of Object.entries(cheats)) {
      const dir = project({ "src/calc.js": `${text}${readFileSync(join(PRACTICE, "src/calc.js"), "utf8")}` });
      expect(check(dir, "check-code.mjs", ["calc"]), cheat).toMatchObject({
        status: 1,
        output: expect.stringMatching(/add\(.*\) returned|could not be called/),
      });
    }
  });

  it("fails todo code without the feature: a todo without a due date, and no overdue()", () => {
    const noDue = project({ "src/calc.js": FIXED_CALC });
    expect(check(noDue, "check-code.mjs", ["todo"])).toMatchObject({
      status: 1,
      output: expect.stringMatching(/whose due is undefined; it should be/),
    });
    const wrong = project({
      "src/todo.js": todoWith("return list.filter((t) => t.due !== null && t.due < day);"),
    });
    expect(check(wrong, "check-code.mjs", ["todo"])).toMatchObject({
      status: 1,
      output: expect.stringMatching(
        /^check-code: overdue\(list, "\d{4}-\d\d-\d\d"\) returned .*it should list the open todos/,
      ),
    });
  });
});

describe("the practice project's own tests (what `!node --test` shows a learner)", () => {
  /** `node --test` in `dir`: the names of the failing tests and suites, and its output. */
  const nodeTest = (dir: string) => {
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    const failing = [...run.stdout.matchAll(/^not ok \d+ - (.+)$/gm)].map((match) => match[1]);
    return { status: run.status, failing, output: run.stdout };
  };

  it("as set up, only add()'s bug and the last quest's due dates fail, and the due dates say they wait for it", () => {
    const { failing } = nodeTest(project({}));
    expect(failing).toEqual([
      "add() adds two numbers",
      "due dates (the last quest builds them: until then this fails, on purpose)",
    ]);
  });

  it("right after the chapter 1 fix, only the due dates fail, saying they wait for the last quest", () => {
    const calc = readFileSync(join(PRACTICE, "src/calc.js"), "utf8").replace(
      /return a - b;/,
      "return a + b;",
    );
    expect(calc).toContain("return a + b;");
    const { failing } = nodeTest(project({ "src/calc.js": calc }));
    expect(failing).toEqual(["due dates (the last quest builds them: until then this fails, on purpose)"]);
  });
});
