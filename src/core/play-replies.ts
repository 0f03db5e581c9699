/**
 * The replies file of a play: what the scripted model pi-quests ships
 * (src/extension/scripted-model.ts) answers, written by whoever runs the play and named by
 * `PI_QUESTS_PLAY_REPLIES`. Plain JSON, no schema library: the model's side runs inside Pi,
 * where every module loaded costs Pi's start.
 *
 * ```json
 * { "version": 1,
 *   "runs": [
 *     [{ "tool": "write", "args": { "path": "hello.txt", "content": "hello\n" } }, { "text": "Done." }],
 *     [{ "text": "I did it." }] ] }
 * ```
 *
 * `runs[i]` answers the i-th run of the agent: the i-th time a new user message starts one (a
 * prompt, in a play). Each reply answers one request of that run: `{tool, args}` is one
 * assistant message with one tool call (Pi runs it and asks again), `{text}` a final message (the
 * run ends). A run whose list ends with a tool call is answered `CLOSING_TEXT` after the tool's
 * result. A run asking past its list, or a run past the last list, is answered `NO_MORE_REPLIES`:
 * an ordinary text message, never an error (an error would end the run as a provider failure,
 * and Pi's auto-retry would ask again). Summarization requests (compaction, /tree branch
 * summaries) are answered `SUMMARY_TEXT` and use up no reply.
 *
 * `reviews` (optional) answers a `review` check's reviewer: `reviews[i]` is the i-th reviewer
 * session's list (a request whose offered tools include `submit_review` is a reviewer's, told
 * apart by its first user message), played the same way; `runs` is not touched by a review. A
 * reviewer past its list is answered `NO_MORE_REPLIES`, so it gives no judgment (pending).
 *
 * ```json
 * { "version": 1, "runs": [[{ "text": "Noted." }]],
 *   "reviews": [[{ "tool": "read", "args": { "path": "NOTES.md" } },
 *                { "tool": "submit_review", "args": { "verdict": "pass",
 *                  "evidence": [{ "path": "NOTES.md", "quote": "subtracts b" }] } }]] }
 * ```
 */

/** A JSON value, as a tool call's arguments hold them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One assistant message with one tool call. */
export type ToolReply = { tool: string; args: { [key: string]: JsonValue } };
/** The final message of a run. */
export type TextReply = { text: string };
export type Reply = ToolReply | TextReply;

/** The file: one list of replies per run, in the order the runs start; one per review session. */
export type PlayReplies = { version: 1; runs: Reply[][]; reviews?: Reply[][] };

/** The variable that names the replies file. */
export const PLAY_REPLIES_ENV = "PI_QUESTS_PLAY_REPLIES";

/**
 * The variable that names the play file a `pi-quests play --solution` Pi follows: `/quest
 * solution` in that Pi shows its steps, which Pi's screen wipes from the terminal.
 */
export const PLAY_SOLUTION_ENV = "PI_QUESTS_PLAY_SOLUTION";

/**
 * Set by `pi-quests play` when the play's folders are removed after Pi exits: on quitting, the
 * play controls remove the session file first, so Pi does not print "To resume this session"
 * for a session that is about to be deleted (Pi prints it only for a file that exists).
 */
export const PLAY_DISPOSABLE_ENV = "PI_QUESTS_PLAY_DISPOSABLE";

/** The provider and its models, as `pi --provider PLAY_PROVIDER --model PLAY_MODEL` names them. */
export const PLAY_PROVIDER = "pi-quests-play";
/** No reasoning: what a play starts with. */
export const PLAY_MODEL = "scripted";
/** The same replies with reasoning on, so a thinking level other than "off" sticks (`/thinking`). */
export const PLAY_THINKING_MODEL = "scripted-thinking";

/** What a run is told once its replies are used up, and what a run past the last list is told. */
export const NO_MORE_REPLIES = "(the play has no more replies)";
/** The text that ends a run whose replies end with a tool call. */
export const CLOSING_TEXT = "Done.";
/** How Pi's summarization system prompt starts (pi-coding-agent dist/core/compaction/utils.js). */
export const SUMMARIZATION_PROMPT = "You are a context summarization assistant";
/** The answer to a summarization request. */
export const SUMMARY_TEXT = "Summary: the learner's work so far.";
/** How the answer starts when the replies file cannot be used (the reason follows). */
export const UNREADABLE_REPLIES = "(the play's replies could not be read:";

/** The answer every request gets when the replies file cannot be used. */
export function unreadableReplies(reason: string): string {
  return `${UNREADABLE_REPLIES} ${reason})`;
}

/** Whether a reply is a tool call. */
export function isToolReply(reply: Reply): reply is ToolReply {
  return "tool" in reply;
}

/** The file's text for these runs (and these review sessions, when there are any). */
export function playRepliesJson(
  runs: readonly (readonly Reply[])[],
  reviews?: readonly (readonly Reply[])[],
): string {
  return `${JSON.stringify({ version: 1, runs, ...(reviews ? { reviews } : {}) }, null, 2)}\n`;
}

/** The file's text read back, or the first problem with it (a sentence naming where). */
export function parsePlayReplies(
  text: string,
): { ok: true; value: PlayReplies } | { ok: false; problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
  if (!isPlainObject(data) || data.version !== 1 || !Array.isArray(data.runs)) {
    return { ok: false, problem: 'expected {"version": 1, "runs": [[reply, ...], ...]}' };
  }
  const runs = replyLists(data.runs, "runs");
  if (!runs.ok) return runs;
  if (data.reviews === undefined) return { ok: true, value: { version: 1, runs: runs.lists } };
  if (!Array.isArray(data.reviews))
    return { ok: false, problem: "reviews is not a list of lists of replies" };
  const reviews = replyLists(data.reviews, "reviews");
  if (!reviews.ok) return reviews;
  return { ok: true, value: { version: 1, runs: runs.lists, reviews: reviews.lists } };
}

/** Lists of replies, each checked, or the first problem (named `key[i][j]`). */
function replyLists(
  lists: unknown[],
  key: string,
): { ok: true; lists: Reply[][] } | { ok: false; problem: string } {
  const checked: Reply[][] = [];
  for (const [i, list] of lists.entries()) {
    if (!Array.isArray(list)) return { ok: false, problem: `${key}[${i}] is not a list of replies` };
    for (const [j, reply] of list.entries()) {
      const problem = replyProblem(reply);
      if (problem) return { ok: false, problem: `${key}[${i}][${j}] ${problem}` };
    }
    checked.push(list as Reply[]);
  }
  return { ok: true, lists: checked };
}

function replyProblem(reply: unknown): string | undefined {
  if (!isPlainObject(reply)) return "is not an object";
  const keys = Object.keys(reply).sort().join(",");
  if (keys === "text") return typeof reply.text === "string" ? undefined : "has a text that is not a string";
  if (keys === "args,tool") {
    if (typeof reply.tool !== "string" || reply.tool === "") return "has a tool that is not a name";
    return isPlainObject(reply.args) ? undefined : "has args that are not an object";
  }
  return "is neither {tool, args} nor {text}";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
