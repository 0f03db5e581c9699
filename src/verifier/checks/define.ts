/**
 * The contract of a check type: everything about one `type:` of a quest file lives in one module
 * in this folder, the way an ESLint rule holds its meta and `create`, or a Goss resource its
 * struct and `Validate`. A newcomer adding a type:
 *
 * 1. Write `src/verifier/checks/<type>.ts` exporting `<type>Check = defineCheckType({...})`, its
 *    schema and its evidence type (a variant with its own `kind`).
 * 2. Add one line to the registry (registry.ts), in the order docs/quest-format.md lists the
 *    types, and its evidence to the registry's `Evidence` union.
 * 3. Write a `### \`<type>\`` section in docs/quest-format.md, a bad-input fixture
 *    `fixtures/bad/quests/<type-with-dashes>-*.yaml` whose first line says what must be
 *    reported, and `tests/verifier/checks/<module>.test.ts`; tests/verifier/checks/registry.test.ts
 *    fails until all three exist.
 */
import type { z } from "zod";
import type { QuestPathRule } from "../../core/paths.ts";
import type { EvaluationContext } from "../context.ts";
import type { EventIndex } from "../event-index.ts";
import type { CheckResult } from "../results.ts";

/** A check as the engine sees it: parsed by its schema (defaults applied) and given its id. */
export type CheckOf<S extends z.ZodType> = z.output<S> & { id: string };

/** What a check of this type asks of the runtime that evaluates it; leave out what it does not need. */
export type CheckNeeds<C> = {
  /**
   * Whether this check runs in the isolated task verifier (a worktree at the pinned baseline with
   * the learner's changes applied). Without one, such a check stays pending and nothing runs.
   */
  taskVerifier?: (check: C) => boolean;
  /** Its runs leave receipts (src/receipts), and a fresh receipt may answer it without a run. */
  receipts?: boolean;
  /**
   * It waits on the learner's answer (`/quest check`, or `--confirm` in the CLI): the question
   * the learner is asked.
   */
  confirmation?: (check: C) => string;
  /** It is judged by an independent reviewer (a model session): the runtime builds one for it. */
  review?: boolean;
};

/** Extra report lines for one check, under its one-line summary (the CLI's `check`, `/quest status`). */
export type ReportDetail = {
  /** Said in parentheses after the summary. */
  note?: string;
  /** Lines printed under the check; the report indents them. */
  lines?: readonly string[];
};

/**
 * A check type's wording for people: the HUD's line for a result and `/quest status`
 * (quest-hud-state.ts) and the author's report (report.ts) ask the registry, which asks the module.
 */
export type CheckWording<C = unknown> = {
  /**
   * The learner's reason for a result that is not a pass: what is missing and what to try, in
   * words, never compared exit codes, event counts, ids or status tags (the summary keeps those,
   * for `/quest status --details` and `pi-quests check`). `check` is the check that was
   * evaluated, when the caller has it. Undefined: the shared wording of result.ts applies (a
   * pending result by its kind), else the summary, which must then read as a learner's reason.
   */
  hint?(result: CheckResult, check?: C): string | undefined;
  /** What the report adds to this result's line; absent or empty for nothing. */
  reportDetail?(result: CheckResult): ReportDetail;
};

/**
 * A field of a check that names a path, and the rule it must follow to ever resolve inside its
 * root. The loader refuses one that cannot (src/core/paths.ts, `parseQuestPath`); `evaluate`
 * resolves the field with the same rule, so lint and run time agree.
 */
export type PathField = {
  /** Where the field is in the check: `["path"]`, `["oracle_paths", 0]`. */
  field: readonly (string | number)[];
  /** The path as written. */
  written: string;
  rule: QuestPathRule;
  /** Said after the problem, when another field decides the rule (`isolation: none` allows {home}). */
  note?: string;
};

/** The quest-level fields a check may take on when the quest is loaded. */
export type QuestDefaults = { editable?: readonly string[] | undefined };

/**
 * What a check type does, for a check `P` of that type as its schema parsed it; the engine's
 * checks have their id as well (`P & { id: string }`).
 */
export type CheckBehaviour<P> = CheckWording<P & { id: string }> & {
  /**
   * Decides the check: pass, fail, or pending with the reason. May throw; the engine turns an
   * exception into a pending result that says so. `index` is the recorded events, indexed once
   * per evaluation.
   */
  evaluate(
    check: P & { id: string },
    ctx: EvaluationContext,
    index: EventIndex,
  ): CheckResult | Promise<CheckResult>;
  readonly needs: CheckNeeds<P & { id: string }>;
  /** The fields of this check that name paths (absent or empty for none). */
  pathFields?(check: P): readonly PathField[];
  /**
   * The fields (or `assert` values) of this check that a later format version added, with the
   * version a quest file must say to use them; empty when it uses none.
   */
  newerFieldsUsed?(check: P): readonly VersionedField[];
  /**
   * What is wrong with this check among its quest's checks (a reference to another check), each
   * with the field it is at; none when absent.
   */
  problemsAmong?(check: P & { id: string }, checks: readonly SiblingCheck[]): readonly CheckProblem[];
  /** The check once the quest's own fields apply to it (a command check takes the quest's `editable`). */
  withQuestDefaults?(check: P & { id: string }, quest: QuestDefaults): P & { id: string };
};

/** Another check of the same quest, as a check may refer to it. */
export type SiblingCheck = { id: string; type: string; after?: unknown };

/** A problem at a field of a check (the path below the check), in words. */
export type CheckProblem = { field: readonly (string | number)[]; message: string };

/** A field a format version added: a quest file that uses it says at least that `version`. */
export type VersionedField = { field: string; version: 2 | 3 };

/** One check type: its name in YAML, its schema, and its behaviour. */
export type CheckTypeModule<T extends string, S extends z.ZodType<{ type: T }>> = CheckBehaviour<
  z.output<S>
> & {
  /** The `type:` a quest file writes. */
  readonly type: T;
  /** The check's fields, strict: an unknown field is an error the loader locates in the file. */
  readonly schema: S;
};

/** Declares a check type; the registry (registry.ts) lists the result. */
export function defineCheckType<const T extends string, S extends z.ZodType<{ type: T }>>(
  module: CheckTypeModule<T, S>,
): CheckTypeModule<T, S> {
  return module;
}
