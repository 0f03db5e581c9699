/** The verification engine: pure evaluation over injected probes. Imports nothing from Pi. */

export { readJsonPath } from "./checks/structured-path.ts";
export type { EvaluationContext, QuestPaths } from "./context.ts";
export { aggregate, evaluateCheck, evaluateQuest } from "./evaluate.ts";
export { eventMatches, indexEvents, readDotted } from "./event-index.ts";
export { resolveQuestPath } from "./paths.ts";
export { matchesFieldPredicate, matchesIntPredicate, matchesStringPredicate } from "./predicates.ts";
export type * from "./probes.ts";
export { createScheduler, DEFAULT_DEBOUNCE_MS, type VerifierScheduler } from "./scheduler.ts";
