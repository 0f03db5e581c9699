/** The isolated task verifier: command checks in a pinned, protected worktree. */
export {
  DEPENDENCY_LIMITS,
  type DependencyPin,
  dependencyDrift,
  pinDependencies,
} from "./dependencies.ts";
export {
  createTaskVerifier,
  type PinnedCheck,
  type RecoveryReport,
  type TaskVerifier,
  type TaskVerifierOptions,
  type TaskVerifierProblem,
} from "./verifier.ts";
