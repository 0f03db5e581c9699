/** The real Node adapters behind the engine's `Probes` port. */
import { piPackageEnvironment } from "../core/pi-package.ts";
import type {
  IsolatedRunRequest,
  Probes,
  ReviewOutcome,
  ReviewRequest,
  ScriptOutcome,
} from "../verifier/probes.ts";
import { fileExists, readFile } from "./files.ts";
import { createGitProbe } from "./git.ts";
import type { PiSdkSource } from "./pi-sdk.ts";
import type { CheckScript } from "./script-runner.ts";

export type NodeProbesOptions = {
  /** Whether the learner confirmed a check, by check id (CLI `--confirm`); undefined means not yet. */
  confirmed?: (checkId: string) => boolean | undefined;
  /** The environment MCP `${VAR}` values read (default: process.env). */
  env?: Record<string, string | undefined>;
  /** The home folder `~/` names and Pi's user skills live under (default: the user's). */
  home?: string;
  /** The isolated task verifier's run, when there is one (src/runtime/quest-evaluator.ts builds it). */
  runIsolated?: (request: IsolatedRunRequest) => Promise<ScriptOutcome>;
  /** The reviewer of review checks, when the quest has one (src/runtime/reviewer.ts builds it). */
  review?: (request: ReviewRequest) => Promise<ReviewOutcome>;
  /** Pi's package folder, when the host knows it: an in-place command's PI_QUESTS_PI_PACKAGE. */
  piPackage?: string;
  /** Pi's SDK, for skill checks (Pi's skill loader); without it they are pending. */
  pi?: PiSdkSource;
};

export function createNodeProbes(options: NodeProbesOptions = {}): Probes {
  // Loaded on first use: a process whose checks receipts answer runs no script.
  let run: Promise<CheckScript> | undefined;
  const runScript: CheckScript = async (request) => {
    run ??= import("./script-runner.ts").then(({ bashCheck }) => bashCheck());
    return (await run)(request);
  };
  const piPackage = piPackageEnvironment(options.piPackage);
  return {
    fileExists,
    readFile,
    runCommand: (request) => runScript({ ...request, env: { ...request.env, ...piPackage } }),
    ...(options.runIsolated ? { runIsolated: options.runIsolated } : {}),
    ...(options.review ? { review: options.review } : {}),
    git: createGitProbe(),
    // Loaded on first use: the MCP SDK is large.
    mcpHandshake: async (request) => {
      const { createMcpProbe } = await import("./mcp.ts");
      return createMcpProbe({
        ...(options.env ? { env: options.env } : {}),
        ...(options.home ? { home: options.home } : {}),
      })(request);
    },
    skillValid: async (request) => {
      const { createSkillProbe } = await import("./skill.ts");
      return createSkillProbe({
        ...(options.home ? { homeDir: options.home } : {}),
        ...(options.pi ? { pi: options.pi } : {}),
      })(request);
    },
    // A "no" stays a no (still pending, said so); no answer is undefined.
    confirm: async (check) => options.confirmed?.(check.id),
  };
}
