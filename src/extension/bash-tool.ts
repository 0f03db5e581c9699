/**
 * The agent's `bash` tool, run where pi-quests' records cannot be seen: pi-quests registers a tool
 * named `bash` (an extension's tool replaces Pi's built-in one of that name) that is Pi's own,
 * made by Pi's `createBashToolDefinition` for each call, with a spawn hook that wraps the command
 * in the bash sandbox (src/probes/os/bash-sandbox.ts). Output truncation, the full-output file,
 * timeouts, aborts and the process-tree kill are all Pi's. The learner's own `!` commands do not
 * go through a tool and are not wrapped.
 *
 * The command wrapped is run by the system's own `sh`, not by the `shellPath` of Pi's settings:
 * the agent can write settings.json, and a shell of its choosing would run before the sandbox.
 * Inside, the command runs in the shell Pi would have used (`shellPath`, else bash), with
 * `shellCommandPrefix` prepended as Pi does.
 *
 * Where the sandbox cannot be made (the probe says why), and where another extension's `bash`
 * is the one Pi runs (pi-quests then registers none, see `claim`), the record guard
 * (record-guard.ts) and the seals are the protection: the learner is told once, and
 * `/quest status` says which applies.
 * No Pi import: Pi's functions come in through the ports below.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type {
  AgentToolResult,
  BashToolDetails,
  ExtensionAPI,
  ExtensionContext,
  ExtensionToolContext,
} from "@earendil-works/pi-coding-agent";
import { agentDirFrom } from "../core/paths.ts";
import { type BashSandbox, probeBashSandbox } from "../probes/os/bash-sandbox.ts";
import type { PiModules } from "../runtime/pi-host.ts";

/** Which protection keeps the agent's bash from pi-quests' records, and why that one. */
export type BashProtection =
  | { kind: "namespaces"; dataDir: string }
  | { kind: "guard"; cause: "machine"; reason: string }
  | { kind: "guard"; cause: "other-extension"; extension: string }
  | { kind: "no-bash" };

/** What this module uses of Pi's extension API: settings, where each tool and command came from, registering. */
export type BashToolPi = {
  getSettings(): { shellPath?: string; shellCommandPrefix?: string };
  getAllTools(): ReadonlyArray<{ name: string; sourceInfo: { path: string; source: string } }>;
  getCommands(): ReadonlyArray<{ name: string; sourceInfo: { path: string } }>;
  registerTool(tool: BashDefinition): void;
};

export type AgentBashDeps = {
  pi: BashToolPi;
  modules: Pick<PiModules, "createBashToolDefinition" | "createLocalBashOperations" | "getShellConfig">;
  /** `{agent_dir}/quests` for the folder Pi runs in. */
  dataDirOf(cwd: string): string;
  /** The sandbox for a data dir, probed once (probeBashSandbox). */
  sandboxFor(dataDir: string): Promise<BashSandbox>;
  /** The `/quest` command pi-quests registered: a `bash` tool from the same place is pi-quests'. */
  ownCommand: string;
};

type BashDefinition = ReturnType<PiModules["createBashToolDefinition"]>;

export type AgentBash = {
  /** The tool registered under the name `bash`. */
  definition: BashDefinition;
  /**
   * At session start: registers the tool, unless Pi's `bash` is already another extension's.
   * Registered then and not when pi-quests loads: Pi refuses to start when two extensions
   * register a tool of one name while loading, and a learner's own bash extension must not stop
   * Pi; registered later, the tool replaces Pi's built-in one, and another's is left alone.
   */
  claim(): void;
  /** Which protection applies now: whose `bash` Pi runs, and the sandbox (probed once). */
  protection(cwd: string): Promise<BashProtection>;
  /** The last answer `protection` gave, for `/quest status`. */
  known(): BashProtection | undefined;
};

export function createAgentBash(deps: AgentBashDeps): AgentBash {
  const { modules, pi } = deps;
  const template = modules.createBashToolDefinition(process.cwd());
  let known: BashProtection | undefined;

  const execute = async (
    toolCallId: string,
    params: { command: string; timeout?: number },
    signal: AbortSignal | undefined,
    onUpdate: Parameters<BashDefinition["execute"]>[3],
    ctx: ExtensionToolContext,
  ): Promise<AgentToolResult<BashToolDetails | undefined>> => {
    const sandbox = await deps.sandboxFor(deps.dataDirOf(ctx.cwd));
    const { shellPath, shellCommandPrefix } = pi.getSettings();
    const prefix = shellCommandPrefix ? { commandPrefix: shellCommandPrefix } : {};
    // The namespaces of this folder (made on its first command); a failure fails the call.
    const entry = sandbox.protection === "namespaces" ? await sandbox.enter(ctx.cwd) : undefined;
    const tool =
      sandbox.protection === "namespaces" && entry
        ? modules.createBashToolDefinition(ctx.cwd, {
            ...prefix,
            operations: modules.createLocalBashOperations({ shellPath: sandbox.outerShell }),
            spawnHook: (spawn) => ({
              ...spawn,
              // Resolved per call as Pi resolves it: a shellPath that does not exist fails the call.
              command: entry.wrap(modules.getShellConfig(shellPath).shell, spawn.command),
            }),
          })
        : modules.createBashToolDefinition(ctx.cwd, { ...prefix, ...(shellPath ? { shellPath } : {}) });
    return tool.execute(toolCallId, params, signal, onUpdate, ctx);
  };

  const definition: BashDefinition = { ...template, execute } as BashDefinition;

  return {
    definition,
    claim() {
      if (bashOwnerOf(pi, deps.ownCommand).kind === "builtin") pi.registerTool(definition);
    },
    async protection(cwd) {
      const owner = bashOwnerOf(pi, deps.ownCommand);
      if (owner.kind === "none") known = { kind: "no-bash" };
      else if (owner.kind !== "pi-quests") {
        const extension = owner.kind === "other" ? owner.path : "Pi's built-in tool";
        known = { kind: "guard", cause: "other-extension", extension };
      } else {
        const sandbox = await deps.sandboxFor(deps.dataDirOf(cwd));
        known =
          sandbox.protection === "namespaces"
            ? { kind: "namespaces", dataDir: deps.dataDirOf(cwd) }
            : { kind: "guard", cause: "machine", reason: sandbox.reason };
      }
      return known;
    },
    known: () => known,
  };
}

/** Whose `bash` the agent has: Pi's built-in, pi-quests', another extension's (its file), or none. */
export type BashOwner =
  | { kind: "builtin" }
  | { kind: "pi-quests" }
  | { kind: "other"; path: string }
  | { kind: "none" };

/**
 * Whose `bash` Pi runs, from where Pi says each tool came from: pi-quests' when it came from the
 * file pi-quests' `/quest` command came from. Pi runs the first extension's tool of a name.
 */
export function bashOwnerOf(
  pi: Pick<BashToolPi, "getAllTools" | "getCommands">,
  ownCommand: string,
): BashOwner {
  const bash = pi.getAllTools().find((tool) => tool.name === "bash");
  if (!bash) return { kind: "none" };
  if (bash.sourceInfo.source === "builtin") return { kind: "builtin" };
  const own = pi.getCommands().find((command) => command.name === ownCommand);
  return own && bash.sourceInfo.path === own.sourceInfo.path
    ? { kind: "pi-quests" }
    : { kind: "other", path: bash.sourceInfo.path };
}

/** What `/quest status` says about the agent's bash, in the learner's words. */
export function protectionText(protection: BashProtection | undefined): string {
  if (!protection) return "Agent's bash: pi-quests is still finding out how to keep it from its records.";
  switch (protection.kind) {
    case "no-bash":
      return "Agent's bash: the agent has no bash tool in this session.";
    case "namespaces":
      return `Agent's bash: its commands run where pi-quests' records (${protection.dataDir}) look like an empty, read-only folder; they cannot read or change them.`;
    case "guard":
      return protection.cause === "other-extension"
        ? `Agent's bash: the bash tool in use comes from ${protection.extension}, not pi-quests, so its commands can see pi-quests' records. pi-quests blocks the commands that name them, and ignores any record changed anyway.`
        : `Agent's bash: this machine does not let pi-quests hide its records from the agent's commands (${protection.reason}). pi-quests blocks the commands that name them, and ignores any record changed anyway.`;
    default:
      return unreachable(protection);
  }
}

/** The one notification a session gets: only when the weaker protection applies. */
export function protectionNotice(protection: BashProtection): string | undefined {
  return protection.kind === "guard" ? `pi-quests: ${protectionText(protection)}` : undefined;
}

function unreachable(value: never): never {
  throw new Error(`unexpected protection ${JSON.stringify(value)}`);
}

/** The agent's bash as the extension wires it to Pi, with what `/quest status` needs first. */
export type WiredAgentBash = AgentBash & {
  /** Finds the protection that applies now; with a UI, the learner is told once a session when it is the guard. */
  settle(ctx: ExtensionContext): Promise<void>;
};

/**
 * Registers the agent's bash with Pi: taken over at each session start (before any prompt),
 * the sandbox probed then with a UI (print mode probes on the first bash call, so a run that
 * never uses bash starts no process for it), the learner told once when the records are in
 * sight of the agent's commands.
 */
export function wireAgentBash(
  pi: ExtensionAPI,
  modules: AgentBashDeps["modules"],
  options: { ownCommand: string; notify(ctx: ExtensionContext, text: string): void },
): WiredAgentBash {
  const bash = createAgentBash({
    pi,
    modules,
    ownCommand: options.ownCommand,
    dataDirOf: (cwd) => join(agentDirFrom(process.env, cwd, homedir()), "quests"),
    sandboxFor: (dataDir) => probeBashSandbox({ dataDir }),
  });
  let told = false;
  const settle = async (ctx: ExtensionContext) => {
    const notice = protectionNotice(await bash.protection(ctx.cwd));
    if (told || !notice || !ctx.hasUI) return;
    told = true;
    try {
      options.notify(ctx, notice);
    } catch {
      // A ctx made stale by a session replacement: the next session says it.
    }
  };
  pi.on("session_start", (_event, ctx) => {
    bash.claim();
    if (ctx.hasUI) void settle(ctx);
  });
  return { ...bash, settle };
}
