/**
 * What this process was told to run before pi-quests' own code: preloads and loader hooks in
 * `NODE_OPTIONS` or Node's own arguments, a debugger opened at start, module folders in
 * `NODE_PATH`, a shared library the dynamic loader or OpenSSL loads at start. Whoever set the
 * environment could have patched `child_process`, the task verifier's result or the sealer in
 * this very process, and pi-quests would then seal what the patch says. `pi-quests check` run
 * from the agent's shell is such a process; so is a Pi started from a shell whose profile the
 * agent wrote.
 *
 * A tripwire, not a wall: code loaded first can delete these traces before pi-quests reads them
 * (docs/security.md, 15, says what actually holds). It stops the plain attack, and it keeps an
 * honest process with a preload of its own (an editor's debug terminal) from leaving receipts
 * that a later run would trust.
 */

/** Node options that run code, open a debugger, or change what a module name resolves to. */
const LOADING_OPTIONS = new Set([
  "--require",
  "-r",
  "--import",
  "--loader",
  "--experimental-loader",
  "--experimental-specifier-resolution",
  "--experimental-policy",
  "--inspect",
  "--inspect-brk",
  "--inspect-wait",
  "--openssl-config",
  "--snapshot-blob",
]);

/** Only on Node's command line (NODE_OPTIONS refuses them): code given to run as the program. */
const PROGRAM_OPTIONS = new Set(["-e", "--eval", "-p", "--print"]);

/** Environment variables through which code or a library is loaded at start, and what each does. */
const LOADING_VARIABLES: ReadonlyArray<[string, string]> = [
  ["NODE_PATH", "adds folders Node loads modules from"],
  ["LD_PRELOAD", "loads a shared library into Node before it starts"],
  ["LD_AUDIT", "loads a shared library into Node before it starts"],
  ["OPENSSL_CONF", "names an OpenSSL configuration, which can load a shared library into Node"],
];

export type ProcessStart = {
  env: Record<string, string | undefined>;
  /** Node's own arguments before the script (`process.execArgv`). */
  execArgv: readonly string[];
};

/** Each way code could have been loaded before pi-quests, in words (`NODE_OPTIONS --import /tmp/x.mjs`); none: []. */
export function codeLoadedBeforeStart({ env, execArgv }: ProcessStart): string[] {
  const found: string[] = [];
  for (const option of loadingOptions(splitNodeOptions(env.NODE_OPTIONS ?? ""), false))
    found.push(`NODE_OPTIONS ${option}`);
  for (const option of loadingOptions(execArgv, true)) found.push(`node ${option}`);
  for (const [name, what] of LOADING_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") found.push(`${name}=${value} (${what})`);
  }
  return found;
}

/** The sentence a learner or author reads when `found` is not empty: what was found, and what follows. */
export function untrustedStartSentence(found: readonly string[], consequence: string): string {
  return `this process was started with code that runs before pi-quests (${found.join("; ")}): ${consequence}`;
}

/** The options among `args` that load code, each with its value when it has one. */
function loadingOptions(args: readonly string[], commandLine: boolean): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const equals = arg.indexOf("=");
    // Node reads `_` in an option's name as `-` (`--experimental_loader`).
    const name = (equals >= 0 ? arg.slice(0, equals) : arg).replace(/(?<=^--.*)_/g, "-");
    const loads = LOADING_OPTIONS.has(name) || (commandLine && PROGRAM_OPTIONS.has(name));
    if (!loads) continue;
    const takesValue = !name.startsWith("--inspect") && equals < 0 && i + 1 < args.length;
    found.push(takesValue ? `${arg} ${args[++i]}` : arg);
  }
  return found;
}

/**
 * NODE_OPTIONS split as Node splits it: at white space, except inside double quotes, where a
 * backslash escapes the next character.
 */
export function splitNodeOptions(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (quoted && char === "\\" && i + 1 < text.length) {
      word += text[++i];
    } else if (char === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(char)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}
