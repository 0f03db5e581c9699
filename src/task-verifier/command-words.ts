/**
 * A check's command line read as the shell would split it: its words, the package scripts it
 * runs by name, the words that could name files. Nothing is expanded or run.
 */
import { posix } from "node:path";

/**
 * A command line as shell words, one list per simple command: quotes and backslashes are
 * removed the way the shell removes them, and `;`, `&`, `|`, `(`, `)`, `<`, `>`, a backtick or a
 * newline outside quotes ends a simple command. `alsoSplitOn` characters end a word too (outside
 * quotes), so `--config=a.js` can yield `a.js`. Expansions are not performed: `$X` stays `$X`.
 */
export function shellWords(command: string, alsoSplitOn = ""): string[][] {
  const commands: string[][] = [[]];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const endWord = () => {
    if (inWord) commands[commands.length - 1]?.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const char = command.charAt(i);
    const next = command.charAt(i + 1);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && '"\\$`\n'.includes(next) && next !== "") {
        if (next !== "\n") word += next;
        i++;
      } else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\") {
      if (next !== "\n" && next !== "") {
        word += next;
        inWord = true;
      }
      i++;
    } else if (";&|()<>`\n".includes(char)) {
      endWord();
      if ((commands[commands.length - 1] ?? []).length > 0) commands.push([]);
    } else if (/\s/.test(char) || alsoSplitOn.includes(char)) {
      endWord();
    } else {
      word += char;
      inWord = true;
    }
  }
  endWord();
  return commands.filter((words) => words.length > 0);
}

/** npm's names for the lifecycle scripts it runs without `run`. */
const NPM_LIFECYCLE: Record<string, string> = {
  test: "test",
  t: "test",
  tst: "test",
  start: "start",
  stop: "stop",
  restart: "restart",
};
const RUN_SUBCOMMANDS = new Set(["run", "run-script", "rum", "urn"]);
/** Subcommands that run no package script (a word after them is not a script name). */
const NOT_SCRIPTS = new Set([
  "install",
  "i",
  "add",
  "ci",
  "exec",
  "x",
  "dlx",
  "remove",
  "uninstall",
  "update",
  "upgrade",
  "link",
  "init",
  "create",
  "publish",
  "pack",
  "config",
  "set",
  "get",
  "why",
  "list",
  "ls",
  "outdated",
  "audit",
  "version",
  "help",
  "cache",
  "workspace",
  "workspaces",
]);

/**
 * The package scripts a command line runs by name: `npm test` (and `npm t`, `npm tst`),
 * `npm run x` / `npm run-script x` (options such as `--silent` may come first), `pnpm run x`,
 * `yarn x`, `pnpm x`, and Node's own `node --run x`. npm's `pre`/`post` hooks are not listed
 * here; planProtection adds them.
 */
export function scriptsRunBy(command: string): string[] {
  const names: string[] = [];
  for (const words of shellWords(command)) {
    for (let i = 0; i < words.length; i++) {
      const tool = posix.basename(words[i] ?? "");
      if (tool === "node") {
        const at = words.indexOf("--run", i + 1);
        const name = words[at + 1];
        if (at > i && name !== undefined) names.push(name);
        const inline = words.slice(i + 1).find((word) => word.startsWith("--run="));
        if (inline) names.push(inline.slice("--run=".length));
        break;
      }
      if (tool !== "npm" && tool !== "pnpm" && tool !== "yarn") continue;
      // The first word after the tool that is not an option says what it does. An unknown word
      // after npm is most likely an option's value (`npm --prefix app test`): look further.
      for (let j = i + 1; j < words.length; j++) {
        const word = words[j] ?? "";
        if (word.startsWith("-")) continue;
        if (RUN_SUBCOMMANDS.has(word)) {
          const name = words.slice(j + 1).find((next) => !next.startsWith("-"));
          if (name !== undefined) names.push(name);
          break;
        }
        const lifecycle = NPM_LIFECYCLE[word];
        if (lifecycle !== undefined) {
          names.push(lifecycle);
          break;
        }
        if (NOT_SCRIPTS.has(word)) break;
        if (tool !== "npm") {
          names.push(word);
          break;
        }
      }
      break;
    }
  }
  return names;
}

/**
 * Words of a command line that could name files: shell words (quotes removed, so a quoted name
 * with spaces stays one word), also split on `=` and `,` outside quotes; options and `$`
 * expansions are left out.
 */
export function fileWords(command: string): string[] {
  return shellWords(command, "=,")
    .flat()
    .filter((word) => word.length > 0 && !word.startsWith("-") && !word.startsWith("$"));
}
