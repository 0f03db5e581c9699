/**
 * The scripted model pi-quests ships: a Pi extension that registers an offline provider
 * (`pi-quests-play`, models `scripted` and `scripted-thinking`; no key, no network) answering
 * from a play's replies file (`PI_QUESTS_PLAY_REPLIES`; the format and the answers are in
 * src/core/play-replies.ts). What `pi-quests test` and `pi-quests play --solution` start Pi with:
 *
 *   pi -e src/extension/scripted-model.ts -e src/extension/index.ts \
 *      --provider pi-quests-play --model scripted --offline
 *
 * Which list answers a request: the file holds one list per run. A run is what one new user
 * message starts, so the request is placed by the last user message of its context (its
 * timestamp and content): a request whose last user message is the one the current run started
 * with goes on in that run (after a tool result, or when Pi retries); a different one starts the
 * next run, on the next list. The runs are counted by what the model is asked, not by what a
 * caller sent: a prompt answered by an extension command (`/quest check`) or a `!` command asks
 * nothing, and a prompt's leftover replies never reach the next prompt's run. A new session
 * (/new, /fork, /resume) starts with a new user message, so it takes the next list too.
 *
 * Pi calls an extension's factory again for each new session of the process (/new, /fork,
 * /resume, /reload): the playback lives on globalThis, keyed by the file, and goes on where the
 * last session left it.
 *
 * A review check's reviewer (a request whose offered tools include `submit_review`) is answered
 * from the file's `reviews` instead, one list per reviewer session (nextReviewReply): the
 * learner's runs are not touched, so a play's prompts and its reviews never take each other's
 * replies. Told apart by the tools offered, never by the order of the calls.
 *
 * pi-ai's faux provider is the running Pi's own (src/runtime/pi-host.ts, `loadPiAi`: the module
 * Pi's extension loader gives extensions as `@earendil-works/pi-ai/compat`), never imported by
 * name: in a project with pi-ai installed beside pi-quests (`npm i -D pi-quests
 * @earendil-works/pi-coding-agent`), Node resolves the name from pi-quests' files to that copy,
 * the provider would be registered there, and Pi would answer every request with "No API
 * provider registered". Only types are imported from Pi's packages.
 */
import { readFileSync } from "node:fs";
import type { AssistantMessage, FauxResponseFactory } from "@earendil-works/pi-ai/compat";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
  CLOSING_TEXT,
  isToolReply,
  NO_MORE_REPLIES,
  PLAY_MODEL,
  PLAY_PROVIDER,
  PLAY_REPLIES_ENV,
  PLAY_THINKING_MODEL,
  parsePlayReplies,
  type Reply,
  SUMMARIZATION_PROMPT,
  SUMMARY_TEXT,
  unreadableReplies,
} from "../core/play-replies.ts";
import { loadPiAi, type PiAi } from "../runtime/pi-host.ts";

/** The pi-ai API the provider answers on (internal: Pi is told the provider and model). */
export const PLAY_API = "pi-quests-play-api";

const MODELS = [
  { id: PLAY_MODEL, name: "Scripted play model", reasoning: false },
  { id: PLAY_THINKING_MODEL, name: "Scripted play model (thinking)", reasoning: true },
];

/** Where a play stands: which run the last request was in, and the next reply of that run. */
export type Playback = {
  readonly replies:
    | { ok: true; runs: readonly (readonly Reply[])[]; reviews?: readonly (readonly Reply[])[] }
    | { ok: false; problem: string };
  /** The index of the current run in `runs`; -1 before the first request. */
  run: number;
  /** The identity of the user message the current run started with. */
  runKey: string | undefined;
  /** The index of the next reply of the current run. */
  next: number;
};

/** A request as the playback needs to see it. */
export type PlayRequest = {
  systemPrompt: string;
  messages: readonly { role: string; content?: unknown; timestamp?: unknown }[];
};

/** The playback of `file` read now; a missing or bad file is kept as the reason every answer gives. */
export function openPlayback(file: string | undefined): Playback {
  const replies = readReplies(file);
  return { replies, run: -1, runKey: undefined, next: 0 };
}

/** Where the reviewer sessions stand in the file's `reviews`, kept apart from the learner's runs. */
type ReviewPlayback = { run: number; key: string | undefined; next: number };
const REVIEW_PLAYBACKS = new WeakMap<Playback, ReviewPlayback>();

/** Whether a request is a review check's reviewer's: it offers `submit_review`. */
export function isReviewerRequest(
  piAi: Pick<PiAi, "getCurrentTools">,
  messages: Parameters<PiAi["getCurrentTools"]>[0],
): boolean {
  return piAi.getCurrentTools(messages).some((tool) => tool.name === "submit_review");
}

/** The answer to a reviewer's request, from `reviews`: one list per reviewer session, told apart by its first user message. */
export function nextReviewReply(playback: Playback, request: PlayRequest): Reply {
  if (!playback.replies.ok) return { text: unreadableReplies(playback.replies.problem) };
  const state = REVIEW_PLAYBACKS.get(playback) ?? { run: -1, key: undefined, next: 0 };
  REVIEW_PLAYBACKS.set(playback, state);
  const first = request.messages.find((message) => message.role === "user");
  const key = first ? JSON.stringify([first.timestamp ?? null, first.content ?? null]) : "";
  if (key !== state.key) {
    state.key = key;
    state.run++;
    state.next = 0;
  }
  return playback.replies.reviews?.[state.run]?.[state.next++] ?? { text: NO_MORE_REPLIES };
}

function readReplies(file: string | undefined): Playback["replies"] {
  if (!file) return { ok: false, problem: `${PLAY_REPLIES_ENV} is not set` };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return {
      ok: false,
      problem: `${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  const parsed = parsePlayReplies(text);
  if (!parsed.ok) return { ok: false, problem: `${file}: ${parsed.problem}` };
  const { runs, reviews } = parsed.value;
  return reviews ? { ok: true, runs, reviews } : { ok: true, runs };
}

/** The answer to one request, moving the playback on (a summarization request leaves it as it is). */
export function nextReply(playback: Playback, request: PlayRequest): Reply {
  if (request.systemPrompt.startsWith(SUMMARIZATION_PROMPT)) return { text: SUMMARY_TEXT };
  if (!playback.replies.ok) return { text: unreadableReplies(playback.replies.problem) };
  const key = runKeyOf(request.messages);
  if (key !== playback.runKey) {
    playback.runKey = key;
    playback.run++;
    playback.next = 0;
  }
  const replies = playback.replies.runs[playback.run] ?? [];
  const index = playback.next++;
  const reply = replies[index];
  if (reply) return reply;
  const last = replies.at(-1);
  if (index === replies.length && last && isToolReply(last)) return { text: CLOSING_TEXT };
  return { text: NO_MORE_REPLIES };
}

/** The last user message's timestamp and content: what tells one run from the next. */
function runKeyOf(messages: PlayRequest["messages"]): string {
  const user = messages.findLast((message) => message.role === "user");
  return user ? JSON.stringify([user.timestamp ?? null, user.content ?? null]) : "";
}

function messageOf(piAi: PiAi, reply: Reply): AssistantMessage {
  return isToolReply(reply)
    ? piAi.fauxAssistantMessage([piAi.fauxToolCall(reply.tool, reply.args)], { stopReason: "toolUse" })
    : piAi.fauxAssistantMessage(piAi.fauxText(reply.text));
}

/** Every playback of this process, by file: it outlives one session's factory call. */
const PLAYBACKS = "__piQuestsPlayPlaybacks";
const processGlobal = globalThis as typeof globalThis & { [PLAYBACKS]?: Map<string, Playback> };

/** The process's playback of `file`, opened on first use. */
export function playbackOf(file: string | undefined): Playback {
  processGlobal[PLAYBACKS] ??= new Map();
  const playbacks = processGlobal[PLAYBACKS];
  let found = playbacks.get(file ?? "");
  if (!found) {
    found = openPlayback(file);
    playbacks.set(file ?? "", found);
  }
  return found;
}

/**
 * The faux provider takes one step off its queue per request before it looks at the request
 * (and answers an error once the queue is empty), so the queue holds copies of one dispatcher,
 * topped up as they are used, and the dispatcher decides.
 */
const QUEUED = 64;

export type OfflineProvider = {
  provider: string;
  api: string;
  name: string;
  models: readonly { id: string; name: string; reasoning: boolean }[];
  /** The answer to each request, whatever the model: its context in, one assistant message out. */
  answer: FauxResponseFactory;
};

/**
 * Registers a provider that never leaves the process: pi-ai's faux API answers every request
 * with `answer`. The shipped scripted model and the tests' fixture model are both one of these.
 */
export function registerOfflineProvider(
  pi: ExtensionAPI,
  piAi: Pick<PiAi, "registerFauxProvider">,
  options: OfflineProvider,
): void {
  const { provider, api, name, models, answer } = options;
  const faux = piAi.registerFauxProvider({
    provider,
    api,
    models: models.map(({ id, reasoning }) => ({ id, reasoning })),
  });
  const copies = () => Array.from({ length: QUEUED }, () => dispatch);
  const dispatch: FauxResponseFactory = (...request) => {
    if (faux.getPendingResponseCount() < QUEUED / 2) faux.appendResponses(copies());
    return answer(...request);
  };
  faux.setResponses(copies());
  pi.registerProvider(provider, {
    name,
    // Never contacted: the faux API answers in process. Pi wants a URL and a key for a provider.
    baseUrl: "http://127.0.0.1:9",
    apiKey: provider,
    api,
    models: models.map((model) => ({
      ...model,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 100_000,
      maxTokens: 4096,
    })),
  });
}

export default async function scriptedModel(pi: ExtensionAPI): Promise<void> {
  const piAi = await loadPiAi();
  if (!piAi.ok) {
    // No provider: every play then fails on its first prompt, and this says why.
    const problem = `pi-quests' scripted model could not start: ${piAi.message}`;
    pi.on("session_start", (_event, ctx) => {
      if (ctx.hasUI) ctx.ui.notify(problem, "error");
      else process.stderr.write(`${problem}\n`);
    });
    return;
  }
  const playback = playbackOf(process.env[PLAY_REPLIES_ENV]);
  registerOfflineProvider(pi, piAi.value, {
    provider: PLAY_PROVIDER,
    api: PLAY_API,
    name: "pi-quests play",
    models: MODELS,
    answer: (context) => {
      const systemPrompt = piAi.value.getCurrentSystemPrompt(context.messages);
      const request = { systemPrompt, messages: context.messages };
      const reviewer = isReviewerRequest(piAi.value, context.messages);
      const reply = reviewer ? nextReviewReply(playback, request) : nextReply(playback, request);
      return messageOf(piAi.value, reply);
    },
  });
}
