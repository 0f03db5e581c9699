/**
 * The reviewer: a fresh Pi session made with Pi's SDK (`createAgentSession`), in memory, rooted at
 * the snapshot under review. Never the learner's session and without its history: its own
 * in-memory session and settings (no compaction, no retry), a resource loader that loads nothing
 * (no extension, skill, prompt template, theme, AGENTS.md or SYSTEM.md of the learner's project),
 * pi-quests' own system prompt, and exactly five tools (review-tools.ts). It is closed after its
 * judgment, a timeout or an abort. What it did is reported as facts (review-ledger.ts); the
 * engine's rules judge them.
 *
 * The model is the check's `model`, else the learner's current one, else the CLI's
 * `--review-model`, resolved through Pi's model runtime over the agent dir's auth.json and
 * models.json; a provider an extension registered in the learner's Pi is copied from it.
 */
import { join } from "node:path";
import type { AgentSession, ModelRuntime, ResourceLoader } from "@earendil-works/pi-coding-agent";
import type { PiSdk } from "./pi-sdk.ts";
import { ledgerOf, type ReviewLedger, type SessionMessage } from "./review-ledger.ts";
import { REVIEWER_SYSTEM_PROMPT, reviewerPrompt } from "./review-prompt.ts";
import { REVIEWER_TOOL_NAMES, reviewerTools } from "./review-tools.ts";

/** Where the reviewer's model comes from when the check names none. */
export type ReviewModelSource = {
  /** The learner's current model in Pi; undefined when none is chosen. */
  current?(): { provider: string; id: string } | undefined;
  /** `provider/id` given to the CLI (`--review-model`). */
  fallback?: string;
  /** A provider an extension registered in the learner's Pi, to copy into the reviewer's runtime. */
  registeredProvider?(provider: string): RegisteredProvider | undefined;
  /**
   * Where the learner's running Pi sends requests for this model (its model registry, in memory
   * since Pi started); undefined when that Pi does not know the model. Absent in the CLI.
   */
  endpointInPi?(provider: string, id: string): ModelEndpoint | undefined;
};

/** Where a model's requests go. */
export type ModelEndpoint = { api: string; baseUrl: string };

export type RegisteredProvider =
  | { kind: "config"; config: Parameters<ModelRuntime["registerProvider"]>[1] }
  | { kind: "native"; provider: Parameters<ModelRuntime["registerNativeProvider"]>[0] };

export type ReviewSessionRequest = {
  /** Pi's SDK the session is made with (handed in: this module never loads Pi). */
  sdk: PiSdk;
  /** The snapshot folder the reviewer reads (its only root). */
  root: string;
  agentDir: string;
  criterion: string;
  files: readonly string[];
  /** The check's own `provider/id`, if any. */
  model?: string;
  models: ReviewModelSource;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told once the model is known and the session starts (the HUD says "reviewing"). */
  onStart?(model: string): void;
};

export type ReviewSessionOutcome =
  /** It ended on its own or after its judgment: what it did, judged or not. */
  | { ended: "finished"; model: string; messages: SessionMessage[]; ledger: ReviewLedger }
  | { ended: "timeout" | "stopped" | "error"; model: string; message: string; messages: SessionMessage[] }
  | { ended: "no_model"; message: string };

/** How many tool calls a reviewer may make before it is stopped (a loop should not cost money forever). */
export const MAX_REVIEW_TOOL_CALLS = 40;

const HOW_TO_GET_A_MODEL =
  "choose a model with /model (and /login or set the provider's API key), give the check a model: provider/id, or run the CLI with --review-model provider/id";

type Resolved =
  | {
      ok: true;
      runtime: ModelRuntime;
      model: NonNullable<ReturnType<ModelRuntime["getModel"]>>;
      name: string;
    }
  | { ok: false; message: string };

async function resolveModel(sdk: PiSdk, request: ReviewSessionRequest): Promise<Resolved> {
  const current = request.models.current?.();
  const name = request.model ?? (current ? `${current.provider}/${current.id}` : request.models.fallback);
  if (!name) return { ok: false, message: `no model to review with: ${HOW_TO_GET_A_MODEL}` };
  const slash = name.indexOf("/");
  const provider = name.slice(0, slash);
  const id = name.slice(slash + 1);
  const runtime = await sdk.ModelRuntime.create({
    authPath: join(request.agentDir, "auth.json"),
    modelsPath: join(request.agentDir, "models.json"),
    // The catalog cache stays in memory: a review writes nothing of its own into the agent dir.
    modelsStore: memoryModelsStore(),
    refreshOnCreate: false,
  });
  const registered = request.models.registeredProvider?.(provider);
  if (registered?.kind === "config") runtime.registerProvider(provider, registered.config);
  if (registered?.kind === "native") runtime.registerNativeProvider(registered.provider);
  const model = runtime.getModel(provider, id);
  if (!model)
    return { ok: false, message: `the review model ${name} is not known to Pi: ${HOW_TO_GET_A_MODEL}` };
  const moved = movedEndpoint(request.models, provider, id, model);
  if (moved) return { ok: false, message: moved };
  if (!runtime.hasConfiguredAuth(provider)) {
    return {
      ok: false,
      message: `no credentials for ${provider} (the review model ${name}): ${HOW_TO_GET_A_MODEL}`,
    };
  }
  return { ok: true, runtime, model, name };
}

/**
 * Why the model the agent dir's files give now is not the one the learner's Pi runs, if it is
 * not. The reviewer's runtime reads auth.json and models.json afresh, and the agent can write
 * models.json: a `baseUrl` there would send the review to a server of its own, which could
 * answer with reads and quotes the rules accept. So the model must go where the learner's Pi,
 * loaded before this session's agent could write anything, sends it.
 */
function movedEndpoint(
  models: ReviewModelSource,
  provider: string,
  id: string,
  model: ModelEndpoint,
): string | undefined {
  if (!models.endpointInPi) return undefined;
  const inPi = models.endpointInPi(provider, id);
  const name = `${provider}/${id}`;
  if (!inPi)
    return `the review model ${name} is not one the running Pi knows (models.json changed since Pi started?): restart Pi to use it`;
  if (inPi.api !== model.api || inPi.baseUrl !== model.baseUrl)
    return `the review model ${name} would be sent to ${model.baseUrl}, not where the running Pi sends it (${inPi.baseUrl}): models.json changed since Pi started; restart Pi if that was you`;
  return undefined;
}

type ModelsStore = NonNullable<Parameters<PiSdk["ModelRuntime"]["create"]>[0]>["modelsStore"];

function memoryModelsStore(): ModelsStore {
  const entries = new Map<string, unknown>();
  return {
    read: async (provider) => entries.get(provider) as never,
    write: async (provider, entry) => {
      entries.set(provider, entry);
    },
    delete: async (provider) => {
      entries.delete(provider);
    },
  };
}

/** A resource loader that loads nothing of the learner's: the reviewer's prompt is pi-quests' own. */
function emptyLoader(sdk: PiSdk): ResourceLoader {
  return {
    getExtensions: () => ({ extensions: [], errors: [], runtime: sdk.createExtensionRuntime() }),
    getSkills: () => ({ skills: [], diagnostics: [] }),
    getPrompts: () => ({ prompts: [], diagnostics: [] }),
    getThemes: () => ({ themes: [], diagnostics: [] }),
    getAgentsFiles: () => ({ agentsFiles: [] }),
    getSystemPrompt: () => REVIEWER_SYSTEM_PROMPT,
    getSystemPromptSource: () => undefined,
    getAppendSystemPrompt: () => [],
    getAppendSystemPromptSources: () => [],
    extendResources: () => {},
    reload: async () => {},
  };
}

/** Runs one review; never throws for what the model or provider does (that is an outcome). */
export async function runReviewSession(request: ReviewSessionRequest): Promise<ReviewSessionOutcome> {
  const { sdk } = request;
  const resolved = await resolveModel(sdk, request);
  if (!resolved.ok) return { ended: "no_model", message: resolved.message };
  const { runtime, model, name } = resolved;
  let session: AgentSession | undefined;
  const stop = { reason: undefined as undefined | "timeout" | "stopped" | "judged" | "too_many" };
  const abort = (reason: NonNullable<typeof stop.reason>) => {
    stop.reason ??= reason;
    void session?.abort();
  };
  try {
    const created = await sdk.createAgentSession({
      cwd: request.root,
      agentDir: request.agentDir,
      modelRuntime: runtime,
      model,
      thinkingLevel: "off",
      sessionManager: sdk.SessionManager.inMemory(request.root),
      settingsManager: sdk.SettingsManager.inMemory({
        compaction: { enabled: false },
        retry: { enabled: false },
      }),
      resourceLoader: emptyLoader(sdk),
      tools: [...REVIEWER_TOOL_NAMES],
      customTools: reviewerTools(sdk, request.root, () => abort("judged")),
    });
    session = created.session;
    let toolCalls = 0;
    session.subscribe((event) => {
      if (event.type === "tool_execution_start" && ++toolCalls > MAX_REVIEW_TOOL_CALLS) abort("too_many");
    });
    request.onStart?.(name);
    const timer = setTimeout(() => abort("timeout"), request.timeoutMs);
    const onAbort = () => abort("stopped");
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.signal?.aborted) abort("stopped");
    try {
      if (!stop.reason) await session.prompt(reviewerPrompt(request.criterion, request.files));
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
    return outcomeOf(request.root, name, session.messages as unknown as SessionMessage[], stop.reason);
  } catch (error) {
    return {
      ended: "error",
      model: name,
      message: `the reviewer could not run: ${(error as Error).message}`,
      messages: [],
    };
  } finally {
    session?.dispose();
    await runtime.settleCredentialWrites().catch(() => {});
  }
}

function outcomeOf(
  root: string,
  model: string,
  messages: SessionMessage[],
  stopped: "timeout" | "stopped" | "judged" | "too_many" | undefined,
): ReviewSessionOutcome {
  const ledger = ledgerOf(root, messages);
  // A judgment made before the stop is a judgment; the stop only ended what came after it.
  if (ledger.submissions.length > 0) return { ended: "finished", model, messages, ledger };
  if (stopped === "timeout")
    return { ended: "timeout", model, message: "the review timed out before a judgment", messages };
  if (stopped === "stopped")
    return { ended: "stopped", model, message: "the review was stopped before a judgment", messages };
  if (stopped === "too_many")
    return {
      ended: "error",
      model,
      message: `the reviewer made over ${MAX_REVIEW_TOOL_CALLS} tool calls without a judgment; stopped`,
      messages,
    };
  const last = messages.findLast((message) => message.role === "assistant");
  if (last?.stopReason === "error") {
    return {
      ended: "error",
      model,
      message: `the provider answered: ${String(last.errorMessage ?? "an error")}`,
      messages,
    };
  }
  return { ended: "finished", model, messages, ledger };
}
