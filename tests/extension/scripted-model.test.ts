import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AssistantMessage,
  completeSimple,
  type Message,
  type Model,
} from "@earendil-works/pi-ai/compat";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CLOSING_TEXT,
  NO_MORE_REPLIES,
  PLAY_MODEL,
  PLAY_PROVIDER,
  PLAY_THINKING_MODEL,
  playRepliesJson,
  type Reply,
  SUMMARIZATION_PROMPT,
  SUMMARY_TEXT,
} from "../../src/core/play-replies.ts";
import scriptedModel, { PLAY_API } from "../../src/extension/scripted-model.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(() => {
  vi.unstubAllEnvs();
  removeWorkspaces();
});

type Registered = { name: string; config: Parameters<ExtensionAPI["registerProvider"]>[1] };

/** A fake `pi` that keeps what the extension registers. */
function fakePi(): { pi: ExtensionAPI; registered: Registered[] } {
  const registered: Registered[] = [];
  const pi = {
    registerProvider: (name: string, config: Registered["config"]) => registered.push({ name, config }),
  } as unknown as ExtensionAPI;
  return { pi, registered };
}

/** Loads the extension as Pi would, with a replies file for `runs` (a fresh file: a fresh playback). */
async function load(runs: Reply[][] | undefined, file?: string) {
  const path = file ?? join(makeWorkspace({ "replies.json": playRepliesJson(runs ?? []) }), "replies.json");
  vi.stubEnv("PI_QUESTS_PLAY_REPLIES", path);
  const { pi, registered } = fakePi();
  await scriptedModel(pi);
  const config = registered[0]?.config;
  const model = (id = PLAY_MODEL): Model<string> =>
    ({
      ...config?.models?.find((candidate) => candidate.id === id),
      api: PLAY_API,
      provider: PLAY_PROVIDER,
      baseUrl: config?.baseUrl,
    }) as Model<string>;
  return { path, registered, model };
}

/** A conversation as Pi sends it to the model, one run after another. */
function conversation(model: () => Model<string>) {
  const messages: Message[] = [];
  let clock = 1_000;
  const ask = async (systemPrompt = "You are Pi.") => {
    const answer = await completeSimple(model(), { systemPrompt, messages: [...messages] });
    return answer;
  };
  return {
    messages,
    /** A new user message, then the model asked (a run starts). */
    async prompt(text: string): Promise<AssistantMessage> {
      messages.push({ role: "user", content: text, timestamp: clock++ });
      const answer = await ask();
      messages.push(answer);
      return answer;
    },
    /** The last tool call's result, then the model asked again (the run goes on). */
    async toolResult(): Promise<AssistantMessage> {
      const call = (messages.at(-1) as AssistantMessage).content.find((block) => block.type === "toolCall");
      if (call?.type !== "toolCall") throw new Error("the last answer has no tool call");
      messages.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: "ok" }],
        isError: false,
        timestamp: clock++,
      });
      const answer = await ask();
      messages.push(answer);
      return answer;
    },
    /** The model asked again with the same context (as a retry would). */
    again: () => ask(),
    summarize: () => ask(`${SUMMARIZATION_PROMPT}. Summarize.`),
  };
}

const textOf = (message: AssistantMessage) =>
  message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
const toolCallsOf = (message: AssistantMessage) =>
  message.content.flatMap((block) =>
    block.type === "toolCall" ? [{ name: block.name, arguments: block.arguments }] : [],
  );

const WRITE: Reply = { tool: "write", args: { path: "hello.txt", content: "hello\n" } };

describe("the shipped scripted model", () => {
  it("registers one offline provider with a plain and a thinking model, no key of the learner's", async () => {
    const { registered } = await load([]);
    expect(registered.map(({ name }) => name)).toEqual([PLAY_PROVIDER]);
    const config = registered[0]?.config;
    expect(config?.api).toBe(PLAY_API);
    expect(config?.baseUrl).toBe("http://127.0.0.1:9");
    expect(config?.models?.map((model) => [model.id, "reasoning" in model && model.reasoning])).toEqual([
      [PLAY_MODEL, false],
      [PLAY_THINKING_MODEL, true],
    ]);
  });

  it("answers a tool reply with one assistant message holding one tool call, and a text reply with a final message", async () => {
    const { model } = await load([[WRITE, { text: "I wrote it." }]]);
    const chat = conversation(model);
    const first = await chat.prompt("Create hello.txt");
    expect(first.stopReason).toBe("toolUse");
    expect(toolCallsOf(first)).toEqual([{ name: "write", arguments: WRITE.args }]);
    const second = await chat.toolResult();
    expect(second.stopReason).toBe("stop");
    expect(toolCallsOf(second)).toEqual([]);
    expect(textOf(second)).toBe("I wrote it.");
  });

  it("a run whose replies end with a tool call ends with the closing text after the tool's result", async () => {
    const { model } = await load([[WRITE]]);
    const chat = conversation(model);
    expect((await chat.prompt("Create hello.txt")).stopReason).toBe("toolUse");
    const closing = await chat.toolResult();
    expect([closing.stopReason, textOf(closing)]).toEqual(["stop", CLOSING_TEXT]);
  });

  it("gives each run its own list: a prompt's replies left over never reach the next prompt's run", async () => {
    const { model } = await load([[{ text: "first" }, { text: "left over" }], [{ text: "second" }]]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("one"))).toBe("first");
    expect(textOf(await chat.prompt("two"))).toBe("second");
  });

  it("a request with the run's own last user message goes on in that run (a retry), not on the next list", async () => {
    const { model } = await load([[{ text: "a" }, { text: "b" }], [{ text: "next run" }]]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("one"))).toBe("a");
    chat.messages.pop();
    expect(textOf(await chat.again())).toBe("b");
  });

  it("a new session (its context only the new user message) takes the next list", async () => {
    const { model } = await load([[{ text: "before /new" }], [{ text: "after /new" }]]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("one"))).toBe("before /new");
    chat.messages.splice(0);
    expect(textOf(await chat.prompt("one"))).toBe("after /new");
  });

  it("out of replies, answers the plain text that says so: a final message, never an error, every time", async () => {
    const { model } = await load([[WRITE]]);
    const chat = conversation(model);
    await chat.prompt("Create hello.txt");
    await chat.toolResult();
    for (const answer of [await chat.again(), await chat.prompt("more?"), await chat.prompt("and more?")]) {
      expect([answer.stopReason, textOf(answer), answer.errorMessage]).toEqual([
        "stop",
        NO_MORE_REPLIES,
        undefined,
      ]);
    }
  });

  it("an empty run is out of replies at once", async () => {
    const { model } = await load([[], [{ text: "second" }]]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("one"))).toBe(NO_MORE_REPLIES);
    expect(textOf(await chat.prompt("two"))).toBe("second");
  });

  it("answers a summarization request with the fixed summary and uses up no reply", async () => {
    const { model } = await load([[{ text: "the first reply" }]]);
    const chat = conversation(model);
    chat.messages.push({ role: "user", content: "earlier", timestamp: 1 });
    const summary = await chat.summarize();
    expect([summary.stopReason, textOf(summary)]).toEqual(["stop", SUMMARY_TEXT]);
    expect(textOf(await chat.prompt("now"))).toBe("the first reply");
  });

  it("recognizes Pi's own summarization prompt (pinned against Pi's compaction code)", () => {
    const utils = readFileSync(
      join(
        import.meta.dirname,
        "../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/utils.js",
      ),
      "utf8",
    );
    expect(utils).toContain(`SUMMARIZATION_SYSTEM_PROMPT = \`${SUMMARIZATION_PROMPT}.`);
  });

  it("the thinking model answers from the same playback", async () => {
    const { model } = await load([[{ text: "plain" }], [{ text: "thinking" }]]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("one"))).toBe("plain");
    const thinking = conversation(() => model(PLAY_THINKING_MODEL));
    thinking.messages.push(...chat.messages);
    expect(textOf(await thinking.prompt("two"))).toBe("thinking");
  });

  it("goes on where it was when Pi calls the factory again (/new, /fork, /reload)", async () => {
    const first = await load([[{ text: "one" }], [{ text: "two" }]]);
    const chat = conversation(first.model);
    expect(textOf(await chat.prompt("one"))).toBe("one");
    const reloaded = await load(undefined, first.path);
    expect(textOf(await conversation(reloaded.model).prompt("again"))).toBe("two");
  });

  it("a replies file that cannot be used makes every answer say why, as text", async () => {
    const missing = join(makeWorkspace(), "absent.json");
    const absent = await load(undefined, missing);
    const said = textOf(await conversation(absent.model).prompt("hi"));
    expect(said).toBe(`(the play's replies could not be read: ${missing}: ENOENT)`);

    const bad = join(
      makeWorkspace({ "replies.json": '{"version": 1, "runs": [[{"tool": "bash"}]]}' }),
      "replies.json",
    );
    const invalid = await load(undefined, bad);
    const answer = await conversation(invalid.model).prompt("hi");
    expect([answer.stopReason, textOf(answer)]).toEqual([
      "stop",
      `(the play's replies could not be read: ${bad}: runs[0][0] is neither {tool, args} nor {text})`,
    ]);
  });

  it("without PI_QUESTS_PLAY_REPLIES says it is not set", async () => {
    vi.stubEnv("PI_QUESTS_PLAY_REPLIES", "");
    const { pi, registered } = fakePi();
    await scriptedModel(pi);
    const config = registered[0]?.config;
    const model = { ...config?.models?.[0], api: PLAY_API, provider: PLAY_PROVIDER } as Model<string>;
    const answer = await completeSimple(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
    expect(textOf(answer)).toBe("(the play's replies could not be read: PI_QUESTS_PLAY_REPLIES is not set)");
  });
});

describe("the shipped scripted model, for a review check's reviewer", () => {
  const SUBMIT: Reply = { tool: "submit_review", args: { verdict: "pass", evidence: [] } };
  /** A reviewer session's request: a fresh first user message, and submit_review among its tools. */
  const reviewer = (model: () => Model<string>, at: number) =>
    completeSimple(model(), {
      systemPrompt: "You are an independent reviewer.",
      messages: [{ role: "user", content: "Judge the criterion.", timestamp: at }],
      tools: [
        {
          name: "submit_review",
          description: "Record your judgment.",
          parameters: { type: "object" } as never,
        },
      ],
    });

  it("answers a request that offers submit_review from reviews, one list a session, the learner's runs untouched", async () => {
    const path = join(
      makeWorkspace({
        "replies.json": playRepliesJson([[{ text: "Noted." }]], [[SUBMIT], [{ text: "no judgment" }]]),
      }),
      "replies.json",
    );
    const { model } = await load(undefined, path);
    expect(toolCallsOf(await reviewer(model, 1))).toEqual([
      { name: "submit_review", arguments: SUBMIT.args },
    ]);
    const chat = conversation(model);
    expect(textOf(await chat.prompt("Hello"))).toBe("Noted.");
    expect(textOf(await reviewer(model, 2))).toBe("no judgment");
    expect(textOf(await reviewer(model, 3))).toBe(NO_MORE_REPLIES);
  });

  it("refuses a reviews entry that is not a list of replies, naming where", async () => {
    const path = join(
      makeWorkspace({
        "replies.json": JSON.stringify({ version: 1, runs: [], reviews: [[{ tool: "read" }]] }),
      }),
      "replies.json",
    );
    const { model } = await load(undefined, path);
    expect(textOf(await reviewer(model, 1))).toContain("reviews[0][0] is neither {tool, args} nor {text}");
  });
});
