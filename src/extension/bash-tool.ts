/**
 * The agent's `bash` tool, run where pi-quests' records cannot be seen: pi-quests registers a tool
 * named `bash` (Pi keeps one tool per name, an extension's over the built-in) that is Pi's own,
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
 * is the one Pi runs (Pi keeps the first registered), the record guard (record-guard.ts) and the
 * seals are the protection: the learner is told once, and `/quest status` says which applies.
 * No Pi import: Pi's functions come in through the ports below.
 */
import type { AgentToolResult, BashToolDetails, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import type { BashSandbox } from "../probes/os/bash-sandbox.ts";
import type { PiModules } from "../runtime/pi-host.ts";

/** Which protection keeps the agent's bash from pi-quests' records, and why that one. */
export type BashProtection =
  | { kind: "namespaces"; dataDir: string }
  | { kind: "guard"; cause: "machine"; reason: string }
  | { kind: "guard"; cause: "other-extension"; extension: string };

/** What this module uses of Pi's extension API: settings, and where each tool and command came from. */
export type BashToolPi = {
  getSettings(): { shellPath?: string; shellCommandPrefix?: string };
  getAllTools(): ReadonlyArray<{ name: string; sourceInfo: { path: string } }>;
  getCommands(): ReadonlyArray<{ name: string; sourceInfo: { path: string } }>;
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
  /** The tool to register under the name `bash`. */
  definition: BashDefinition;
  /**
   * At session start: the sandbox is probed (not waited for) and whose `bash` Pi runs is looked
   * up. Resolves with the protection that applies; `tell` is called with it once.
   */
  start(cwd: string, tell: (protection: BashProtection) => void): Promise<BashProtection>;
  /** The protection found at the last start, once known. */
  protection(): BashProtection | undefined;
};

export function createAgentBash(deps: AgentBashDeps): AgentBash {
  const { modules } = deps;
  const template = modules.createBashToolDefinition(process.cwd());
  let current: BashProtection | undefined;
  let told = false;

  const execute = async (
    toolCallId: string,
    params: { command: string; timeout?: number },
    signal: AbortSignal | undefined,
    onUpdate: Parameters<BashDefinition["execute"]>[3],
    ctx: ExtensionToolContext,
  ): Promise<AgentToolResult<BashToolDetails | undefined>> => {
    const sandbox = await deps.sandboxFor(deps.dataDirOf(ctx.cwd));
    const { shellPath, shellCommandPrefix } = deps.pi.getSettings();
    const prefix = shellCommandPrefix ? { commandPrefix: shellCommandPrefix } : {};
    const tool =
      sandbox.protection === "namespaces"
        ? modules.createBashToolDefinition(ctx.cwd, {
            ...prefix,
            operations: modules.createLocalBashOperations({ shellPath: sandbox.outerShell }),
            spawnHook: (spawn) => ({
              ...spawn,
              // Resolved per call as Pi resolves it: a shellPath that does not exist fails the call.
              command: sandbox.wrap(modules.getShellConfig(shellPath).shell, spawn.command),
            }),
          })
        : modules.createBashToolDefinition(ctx.cwd, { ...prefix, ...(shellPath ? { shellPath } : {}) });
    return tool.execute(toolCallId, params, signal, onUpdate, ctx);
  };

  const definition: BashDefinition = { ...template, execute } as BashDefinition;

  return {
    definition,
    async start(cwd, tell) {
      const other = otherBashOf(deps.pi, deps.ownCommand);
      const sandbox = other ? undefined : await deps.sandboxFor(deps.dataDirOf(cwd));
      const protection: BashProtection = other
        ? { kind: "guard", cause: "other-extension", extension: other }
        : sandbox?.protection === "namespaces"
          ? { kind: "namespaces", dataDir: deps.dataDirOf(cwd) }
          : { kind: "guard", cause: "machine", reason: sandbox?.reason ?? "" };
      current = protection;
      if (!told) {
        told = true;
        tell(protection);
      }
      return protection;
    },
    protection: () => current,
  };
}

/**
 * The file of the extension whose `bash` Pi runs, when it is not pi-quests (whose `/quest`
 * command comes from the same file as its tool); undefined when it is pi-quests', or the agent
 * has no bash. Pi keeps the first extension's tool of a name and shows only that one.
 */
export function otherBashOf(pi: Pick<BashToolPi, "getAllTools" | "getCommands">, ownCommand: string) {
  const bash = pi.getAllTools().find((tool) => tool.name === "bash");
  const own = pi.getCommands().find((command) => command.name === ownCommand);
  if (!bash || !own) return undefined;
  if (bash.sourceInfo.path.startsWith("builtin:")) return "Pi's built-in tool";
  return bash.sourceInfo.path === own.sourceInfo.path ? undefined : bash.sourceInfo.path;
}

/** What `/quest status` says about the agent's bash, in the learner's words. */
export function protectionText(protection: BashProtection | undefined): string {
  if (!protection) return "Agent's bash: pi-quests is still finding out how to keep it from its records.";
  switch (protection.kind) {
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
  return protection.kind === "namespaces" ? undefined : `pi-quests: ${protectionText(protection)}`;
}

function unreachable(value: never): never {
  throw new Error(`unexpected protection ${JSON.stringify(value)}`);
}
