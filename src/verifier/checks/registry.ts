/**
 * The check types, one line each, in the order docs/quest-format.md lists them, and everything
 * built from that list: the type names, the schema of a check, the check and evidence types, and
 * the lookups the engine and the runtime call instead of switching on a type's name.
 */
import { z } from "zod";
import { closestName } from "../../core/suggest.ts";
import type { EvaluationContext } from "../context.ts";
import type { EventIndex } from "../event-index.ts";
import type { CheckResult, PathEvidence, PendingEvidence } from "../results.ts";
import { type CommandCheck, type CommandEvidence, commandCheck } from "./command.ts";
import { type ConfirmEvidence, confirmCheck } from "./confirm.ts";
import type {
  CheckBehaviour,
  CheckProblem,
  PathField,
  QuestDefaults,
  ReportDetail,
  SiblingCheck,
  VersionedField,
} from "./define.ts";
import { type EventEvidence, eventCheck } from "./event.ts";
import { type FileEvidence, fileExistsCheck } from "./file-exists.ts";
import { type GitEvidence, gitCheck } from "./git.ts";
import { jsonPathCheck } from "./json-path.ts";
import { type McpEvidence, mcpHandshakeCheck } from "./mcp-handshake.ts";
import { sharedReason } from "./result.ts";
import { type ReviewEvidence, reviewCheck } from "./review.ts";
import { type SkillEvidence, skillValidCheck } from "./skill-valid.ts";
import type { StructuredPathEvidence } from "./structured-path.ts";
import { yamlPathCheck } from "./yaml-path.ts";

/** Keys each module by its own `type`: a module filed under another type's name does not compile. */
function byType<const M extends { readonly [K in keyof M]: { readonly type: K } }>(modules: M): M {
  return modules;
}

const CHECK_TYPE_MODULES = byType({
  event: eventCheck,
  file_exists: fileExistsCheck,
  json_path: jsonPathCheck,
  yaml_path: yamlPathCheck,
  command: commandCheck,
  git: gitCheck,
  mcp_handshake: mcpHandshakeCheck,
  skill_valid: skillValidCheck,
  confirm: confirmCheck,
  review: reviewCheck,
});
type Modules = typeof CHECK_TYPE_MODULES;

export type CheckType = keyof Modules;

/** The closed set of check types, in the order the contract lists them. */
export const CHECK_TYPES: readonly CheckType[] = Object.values(CHECK_TYPE_MODULES).map(
  (module) => module.type,
);

const [firstSchema, ...otherSchemas] = Object.values(CHECK_TYPE_MODULES).map((module) => module.schema);
if (firstSchema === undefined) throw new Error("the registry lists no check type");

export const CheckSchema = z.discriminatedUnion("type", [firstSchema, ...otherSchemas], {
  error: (issue) => unknownTypeMessage(issue.input),
});

/** Why a check has no type this registry knows, with the closest one for a typo. */
function unknownTypeMessage(check: unknown): string {
  const list = CHECK_TYPES.join(", ");
  const type = typeof check === "object" && check !== null ? (check as { type?: unknown }).type : undefined;
  if (typeof type !== "string") return `type must be one of: ${list}`;
  const closest = closestName(type, CHECK_TYPES);
  return closest === undefined
    ? `type "${type}" is not a check type; the types are: ${list}`
    : `type "${type}" is not a check type; did you mean ${closest}?`;
}

/** A parsed check, defaults applied, before it gets its id. */
export type ParsedCheck = z.infer<typeof CheckSchema>;

/** A check of each type as its schema parsed it, and as the engine sees it (with its id). */
type ParsedByType = { [K in CheckType]: z.output<Modules[K]["schema"]> };
type CheckByType = { [K in CheckType]: ParsedByType[K] & { id: string } };
/** A check as the engine sees it: every check has an id. */
export type Check = CheckByType[CheckType];
/** The check of one type, e.g. `CheckOfType<"command">`. */
export type CheckOfType<K extends CheckType> = CheckByType[K];

/** What each check type says it saw, plus the two kinds any check may answer with. */
export type Evidence =
  | EventEvidence
  | FileEvidence
  | StructuredPathEvidence
  | CommandEvidence
  | GitEvidence
  | McpEvidence
  | SkillEvidence
  | ConfirmEvidence
  | ReviewEvidence
  | PathEvidence
  | PendingEvidence;

/** Each type's behaviour, for a check of that type: what lets a call on any check go without a cast. */
type Behaviours = { readonly [K in CheckType]: CheckBehaviour<ParsedByType[K]> };
const BEHAVIOURS: Behaviours = CHECK_TYPE_MODULES;

/** The module of one check type. */
export function checkTypeOf<K extends CheckType>(type: K): Modules[K] {
  return CHECK_TYPE_MODULES[type];
}

// The functions below take the type apart from the check so that TypeScript pairs them: called
// with any check, `type` is its type, and the module's function accepts exactly that check.

/** Evaluates a check with its type's module (evaluate.ts catches what it throws). */
export function evaluateByType<K extends CheckType>(
  type: K,
  check: CheckByType[K],
  ctx: EvaluationContext,
  index: EventIndex,
): CheckResult | Promise<CheckResult> {
  return BEHAVIOURS[type].evaluate(check, ctx, index);
}

/** Whether this check runs in the isolated task verifier (a command check with `isolation: worktree`). */
export function runsInTaskVerifier(check: Check): boolean {
  return taskVerifierNeeded(check.type, check);
}

function taskVerifierNeeded<K extends CheckType>(type: K, check: CheckByType[K]): boolean {
  return BEHAVIOURS[type].needs.taskVerifier?.(check) ?? false;
}

/** The checks the isolated task verifier is pinned to. It runs commands: only command checks qualify. */
export function taskVerifierChecks(checks: readonly Check[]): CommandCheck[] {
  return checks.flatMap((check) => (check.type === "command" && runsInTaskVerifier(check) ? [check] : []));
}

/** Whether this check's runs leave receipts (command checks). */
export function leavesReceipts(check: Check): boolean {
  return BEHAVIOURS[check.type].needs.receipts === true;
}

/** Whether this check is judged by an independent reviewer (a review check): the runtime builds one for it. */
export function needsReviewer(check: Check): boolean {
  return BEHAVIOURS[check.type].needs.review === true;
}

/** The question a check waiting on the learner asks (a confirm check's prompt); else undefined. */
export function confirmationPrompt(check: Check): string | undefined {
  return promptOf(check.type, check);
}

function promptOf<K extends CheckType>(type: K, check: CheckByType[K]): string | undefined {
  return BEHAVIOURS[type].needs.confirmation?.(check);
}

/**
 * The learner's reason for a result that is not a pass (the HUD, `/quest status`): its type's
 * wording (given `check`, the check evaluated, when the caller has it), else the wording every
 * pending or path result shares, else the summary.
 */
export function learnerReason(result: CheckResult, check?: Check): string {
  const own = check?.type === result.type && check.id === result.id ? check : undefined;
  return (
    typeHint(result.type, result, own as CheckByType[typeof result.type] | undefined) ?? sharedReason(result)
  );
}

/** The type's own wording of a result, if it words this one. */
export function hintFor(result: CheckResult, check?: Check): string | undefined {
  const own = check?.type === result.type && check.id === result.id ? check : undefined;
  return typeHint(result.type, result, own as CheckByType[typeof result.type] | undefined);
}

function typeHint<K extends CheckType>(
  type: K,
  result: CheckResult,
  check: CheckByType[K] | undefined,
): string | undefined {
  return BEHAVIOURS[type].hint?.(result, check);
}

/** What the report adds under this result's one-line summary (a command's output tail, a reused receipt). */
export function reportDetailFor(result: CheckResult): ReportDetail {
  return BEHAVIOURS[result.type].reportDetail?.(result) ?? {};
}

/** The fields of this check that a later format version added, each with that version. */
export function newerFieldsUsed(check: ParsedCheck): readonly VersionedField[] {
  return newerFieldsOf(check.type, check);
}

function newerFieldsOf<K extends CheckType>(type: K, check: ParsedByType[K]): readonly VersionedField[] {
  return BEHAVIOURS[type].newerFieldsUsed?.(check) ?? [];
}

/** What is wrong with `check` among its quest's checks (a reference to another one). */
export function problemsAmong(check: Check, checks: readonly SiblingCheck[]): readonly CheckProblem[] {
  return problemsAmongOf(check.type, check as ParsedByType[typeof check.type] & { id: string }, checks);
}

function problemsAmongOf<K extends CheckType>(
  type: K,
  check: ParsedByType[K] & { id: string },
  checks: readonly SiblingCheck[],
): readonly CheckProblem[] {
  return BEHAVIOURS[type].problemsAmong?.(check, checks) ?? [];
}

/** The fields of this check that name paths, each with the rule it must follow (for the loader's lint). */
export function pathFieldsOf(check: ParsedCheck): readonly PathField[] {
  return pathFieldsByType(check.type, check);
}

function pathFieldsByType<K extends CheckType>(type: K, check: ParsedByType[K]): readonly PathField[] {
  return BEHAVIOURS[type].pathFields?.(check) ?? [];
}

/** The check once the quest's own fields apply to it (a command check takes the quest's `editable`). */
export function withQuestDefaults(check: Check, quest: QuestDefaults): Check {
  return questDefaultsOf(check.type, check, quest);
}

function questDefaultsOf<K extends CheckType>(
  type: K,
  check: CheckByType[K],
  quest: QuestDefaults,
): ParsedByType[K] & { id: string } {
  return BEHAVIOURS[type].withQuestDefaults?.(check, quest) ?? check;
}
