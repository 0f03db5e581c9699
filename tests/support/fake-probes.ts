import type { VerifierEvent } from "../../src/events/schema.ts";
import type { ConfirmCheck } from "../../src/verifier/checks/confirm.ts";
import type { EvaluationContext } from "../../src/verifier/context.ts";
import type {
  GitProbe,
  Probes,
  ReadFileProbe,
  ResolvedPath,
  ScriptOutcome,
} from "../../src/verifier/probes.ts";

/** A file system of plain strings keyed by absolute path, for engine tests that spawn nothing. */
export type FakeFiles = Record<
  string,
  string | Buffer | { dir: true } | { escape: string } | { size: number }
>;

const gitUnused: GitProbe = {
  resolveRevision: async () => ({ ok: false, message: "no git in this test" }),
  countCommitsSince: async () => ({ ok: false, message: "no git in this test" }),
  committedSince: async () => ({ ok: false, message: "no git in this test" }),
  changedPaths: async () => ({ ok: false, message: "no git in this test" }),
  branchExists: async () => ({ ok: false, message: "no git in this test" }),
  currentBranch: async () => ({ ok: false, message: "no git in this test" }),
  diffSince: async () => ({ ok: false, message: "no git in this test" }),
  compareWithBaseline: async () => ({ ok: false, message: "no git in this test" }),
};

export function fakeProbes(
  files: FakeFiles = {},
  overrides: Partial<Probes> = {},
): Probes & { scripts: string[] } {
  const scripts: string[] = [];
  const entry = (path: ResolvedPath) => files[path.absolute];
  return {
    scripts,
    async fileExists(path) {
      const found = entry(path);
      if (found === undefined) return { kind: "missing" };
      if (typeof found === "string" || Buffer.isBuffer(found)) return { kind: "file", size: found.length };
      if ("dir" in found) return { kind: "dir" };
      if ("escape" in found) return { kind: "escape", reason: found.escape };
      return { kind: "file", size: found.size };
    },
    async readFile(path, maxBytes): Promise<ReadFileProbe> {
      const found = entry(path);
      if (found === undefined) return { ok: false, problem: "missing", message: "no such file" };
      if (typeof found === "string") return { ok: true, bytes: Buffer.from(found) };
      if (Buffer.isBuffer(found)) return { ok: true, bytes: found };
      if ("dir" in found) return { ok: false, problem: "not_file", message: "is a folder" };
      if ("escape" in found) return { ok: false, problem: "escape", message: found.escape };
      if (found.size > maxBytes)
        return { ok: false, problem: "too_large", message: "too large", size: found.size };
      return { ok: true, bytes: Buffer.alloc(found.size, 32) };
    },
    async runCommand(request): Promise<ScriptOutcome> {
      scripts.push(request.content);
      return { ok: true, passed: true, exitCode: 0, report: "", stdout: "", stderr: "", truncated: false };
    },
    git: gitUnused,
    mcpHandshake: async (request) => ({
      ok: false,
      server: request.check.server ?? "inline",
      kind: "unavailable",
      message: "no MCP in this test",
    }),
    skillValid: async () => ({ ok: false, message: "no skills in this test" }),
    confirm: async (_check: ConfirmCheck) => undefined,
    ...overrides,
  };
}

export const WORKSPACE = "/work/space";

export function context(
  overrides: Partial<EvaluationContext> = {},
  files: FakeFiles = {},
): EvaluationContext {
  return {
    probes: fakeProbes(files),
    events: [],
    paths: { workspace: WORKSPACE, agentDir: "/agent", home: "/home/learner" },
    questId: "test-quest",
    ...overrides,
  };
}

/** Events with seq numbers in order. */
export function events(
  ...list: Array<Omit<VerifierEvent, "seq" | "payload"> & { payload?: Record<string, unknown> }>
): VerifierEvent[] {
  return list.map((event, seq) => ({ payload: {}, ...event, seq }));
}
