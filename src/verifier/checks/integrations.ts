import type { ConfirmCheck, McpHandshakeCheck, SkillValidCheck } from "../../core/checks.ts";
import type { EvaluationContext } from "../context.ts";
import { resolveQuestPath } from "../paths.ts";
import type { CheckResult } from "../results.ts";
import { handshakeEvidence } from "./mcp-evidence.ts";
import { pathProblem, pending, result } from "./result.ts";

export async function evaluateMcpHandshakeCheck(
  check: McpHandshakeCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const outcome = await ctx.probes.mcpHandshake({
    check,
    workspace: ctx.paths.workspace,
    agentDir: ctx.paths.agentDir,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (!outcome.ok) {
    const base = {
      kind: "mcp" as const,
      server: outcome.server,
      tools: [],
      missingTools: check.expect_tools,
    };
    // A configuration problem is the learner's to fix; anything else could not be decided.
    if (outcome.kind === "config") return result(check, "fail", { ...base, summary: outcome.message });
    return pending(
      check,
      outcome.kind === "unavailable" ? "unavailable" : outcome.kind,
      `${outcome.server}: ${outcome.message}`,
    );
  }
  const evidence = handshakeEvidence(check, outcome);
  return result(
    check,
    evidence.kind === "mcp" && evidence.missingTools.length === 0 ? "pass" : "fail",
    evidence,
  );
}

export async function evaluateSkillValidCheck(
  check: SkillValidCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  let path: { absolute: string; root: string } | undefined;
  if (check.path !== undefined) {
    const resolved = resolveQuestPath(check.path, ctx.paths);
    if (!resolved.ok) return pathProblem(check, resolved.written, resolved.reason);
    path = resolved.path;
  }
  const outcome = await ctx.probes.skillValid({
    ...(check.name !== undefined ? { name: check.name } : {}),
    ...(path !== undefined ? { path: path.absolute, root: path.root } : {}),
    workspace: ctx.paths.workspace,
    agentDir: ctx.paths.agentDir,
  });
  if (!outcome.ok && "problem" in outcome)
    return pathProblem(check, check.path ?? check.name ?? "", outcome.message);
  if (!outcome.ok) return pending(check, "error", outcome.message);
  const wanted = check.name ?? check.path ?? "";
  const passed = outcome.found !== undefined && outcome.violations.length === 0;
  const summary = passed
    ? `skill ${outcome.found?.name} is valid and Pi finds it`
    : outcome.found === undefined
      ? `Pi's skill discovery does not find ${wanted}${outcome.violations.length ? `: ${outcome.violations[0]}` : ""}`
      : `skill ${outcome.found.name}: ${outcome.violations.join("; ")}`;
  return result(check, passed ? "pass" : "fail", {
    kind: "skill",
    summary,
    ...(outcome.found ? { name: outcome.found.name, filePath: outcome.found.filePath } : {}),
    violations: outcome.violations,
    diagnostics: outcome.diagnostics,
  });
}

export async function evaluateConfirmCheck(
  check: ConfirmCheck,
  ctx: EvaluationContext,
): Promise<CheckResult> {
  const answer = await ctx.probes.confirm(check);
  if (answer === true) {
    return result(check, "pass", {
      kind: "confirm",
      summary: "the learner confirmed",
      prompt: check.prompt,
      answer,
    });
  }
  return result(check, "pending", {
    kind: "confirm",
    summary:
      answer === false
        ? "the learner has not confirmed yet (answered no)"
        : "awaiting the learner's confirmation",
    prompt: check.prompt,
    ...(answer === false ? { answer } : {}),
  });
}
