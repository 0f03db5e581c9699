/**
 * Whether Pi has a model it can answer with, and what to tell a learner whose Pi has none. A
 * quest starts with "say hello to Pi"; without a model, Pi's own error comes only after the
 * learner has typed a message. pi-quests says once, as the session opens, how to set one up.
 */

/** What Pi has to answer with: no model selected, a model without a key or login, or one ready. */
export type ModelSetup =
  | { kind: "none" }
  | { kind: "no-key"; provider: string; model: string }
  | { kind: "ready" }
  /** Pi's model API could not be read (an untested Pi): say nothing rather than something wrong. */
  | { kind: "unknown" };

/** What of Pi's session this reads: its model, and its registry's knowledge of models and keys. */
export type ModelSource = {
  readonly model: { provider: string; id: string } | undefined;
  readonly modelRegistry: {
    find(provider: string, id: string): unknown;
    hasConfiguredAuth(model: never): boolean;
  };
};

/** Pi's model and whether it has a key or login; `unknown` where this Pi's model API reads otherwise. */
export function modelSetupOf(source: ModelSource): ModelSetup {
  try {
    const { model, modelRegistry } = source;
    // With no model at all, Pi's session holds a placeholder ("unknown") its registry does not know.
    const known = model ? modelRegistry.find(model.provider, model.id) : undefined;
    if (!model || known === undefined) return { kind: "none" };
    if (modelRegistry.hasConfiguredAuth(known as never)) return { kind: "ready" };
    return { kind: "no-key", provider: model.provider, model: model.id };
  } catch {
    return { kind: "unknown" };
  }
}

/** How a learner gives Pi a model, in Pi's own commands. */
const HOW =
  "type /login to sign in to a provider (a subscription, or paste an API key), then /model to pick a model; " +
  "or set a provider's API key before you start Pi (for example ANTHROPIC_API_KEY or OPENAI_API_KEY).";

/** The sentence for the learner; none when Pi can answer (or when it cannot be told). */
export function modelSetupAdvice(setup: ModelSetup): string | undefined {
  switch (setup.kind) {
    case "none":
      return `Pi has no model to answer with yet, and the quests need one: ${HOW}`;
    case "no-key":
      return `Pi's model ${setup.provider}/${setup.model} has no API key or login that pi-quests can see. If Pi cannot answer, ${HOW}`;
    case "ready":
    case "unknown":
      return undefined;
    default:
      return unreachable(setup);
  }
}

function unreachable(value: never): never {
  throw new Error(`unexpected model setup ${JSON.stringify(value)}`);
}
