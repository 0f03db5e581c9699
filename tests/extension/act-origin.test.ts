/**
 * Who asked Pi for a model or a thinking level, read from a stack. The stacks below are those
 * the real `pi` 1.6 (its bundle, dist/bundle/chunks) showed in a handler of model_select and
 * thinking_level_select, for the learner's acts over RPC and in the terminal UI and for an
 * extension's calls (tests/security/agent-code-rpc.test.ts plays them for real), cut to the frames
 * below Pi's event loop.
 */
import { describe, expect, it } from "vitest";
import {
  captureStack,
  createOriginReader,
  readOrigin,
  type StackFrame,
  UNREAD_ORIGIN_NOTICE,
} from "../../src/extension/act-origin.ts";

const PI = "/home/learner/.npm/lib/node_modules/@earendil-works/pi-coding-agent";
const CHUNK = `file://${PI}/dist/bundle/chunks/chunk-KSDI5FD4.js`;
const TUI_CHUNK = `file://${PI}/dist/bundle/chunks/chunk-X26YOAEH.js`;
const EXTENSION = "/work/project/.pi/extensions/set-model.ts";

const pi = (functionName: string, typeName?: string, async = false): StackFrame => ({
  file: CHUNK,
  functionName,
  ...(typeName ? { typeName } : {}),
  ...(async ? { async: true } : {}),
});
const node = (functionName: string): StackFrame => ({ file: "node:internal/timers", functionName });

/** What is above the session's method in every stack: pi-quests' handler and Pi's event loop. */
const ABOVE = [
  { file: "file:///pkg/pi-quests/src/extension/index.ts", functionName: "readOrigin" },
  pi("registeredHandler"),
  pi("emit", "ExtensionRunner"),
];

const STACKS: Record<string, { origin: string; frames: StackFrame[] }> = {
  "RPC set_model (the model is emitted after an await: async callers)": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      node("processTicksAndRejections"),
      pi("handleCommand", undefined, true),
      pi("handleInputLine", undefined, true),
    ],
  },
  "RPC set_thinking_level (synchronous, down to the pipe)": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      pi("handleCommand"),
      pi("handleInputLine"),
      pi("onData", "Socket"),
      node("onStreamRead"),
    ],
  },
  "the terminal UI's /model NAME": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      node("processTicksAndRejections"),
      pi("handleModelCommand", "_InteractiveMode", true),
      pi("onSubmit", "defaultEditor", true),
    ],
  },
  "the terminal UI's model selector (Ctrl+L)": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      node("processTicksAndRejections"),
      pi("selectModel", undefined, true),
    ],
  },
  "the terminal UI's Ctrl+P": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("_cycleAvailableModel", "AgentSession"),
      pi("cycleModel", "AgentSession"),
      pi("cycleModel", "_InteractiveMode"),
      { file: TUI_CHUNK, functionName: "handleInput", typeName: "CustomEditor" },
    ],
  },
  "the terminal UI's /thinking high": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      pi("selectThinkingLevel", "_InteractiveMode"),
      pi("handleThinkingCommand", "_InteractiveMode"),
      pi("onSubmit", "defaultEditor"),
    ],
  },
  "a level a model switch changed (the learner's /model)": {
    origin: "learner",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      pi("setModel", "AgentSession"),
      node("processTicksAndRejections"),
      pi("handleCommand", undefined, true),
    ],
  },
  "pi.setModel awaited in an extension's session_start": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      pi("setModel", "Object", true),
      { file: EXTENSION, async: true },
      pi("emit", "ExtensionRunner", true),
      pi("bindExtensions", "AgentSession", true),
    ],
  },
  "pi.setModel not awaited (the runtime's setModel still awaits the session's)": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      pi("setModel", "Object", true),
    ],
  },
  "pi.setThinkingLevel from the extension's code": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      pi("setThinkingLevel", "Object"),
      pi("setThinkingLevel", "Object"),
      { file: EXTENSION },
    ],
  },
  "pi.setThinkingLevel handed to a timer (no frame of the extension's own)": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      pi("setThinkingLevel", "Object"),
      pi("setThinkingLevel", "Timeout"),
      node("listOnTimeout"),
    ],
  },
  "an extension's command the learner typed, which calls pi.setModel: the extension's": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("_emitModelSelect", "AgentSession"),
      pi("setModel", "AgentSession"),
      pi("setModel", "Object", true),
      { file: EXTENSION, async: true },
      pi("handleSubmit", "_InteractiveMode", true),
    ],
  },
  "RPC set_session_name": {
    origin: "learner",
    frames: [...ABOVE, pi("setSessionName", "AgentSession"), pi("handleCommand"), pi("handleInputLine")],
  },
  "the terminal UI's /name": {
    origin: "learner",
    frames: [...ABOVE, pi("setSessionName", "AgentSession"), pi("handleNameCommand", "_InteractiveMode")],
  },
  "pi.setSessionName from an extension": {
    origin: "extension",
    frames: [
      ...ABOVE,
      pi("setSessionName", "AgentSession"),
      pi("setSessionName", "Object"),
      pi("setSessionName", "Object"),
      { file: EXTENSION },
    ],
  },
  "a level after another extension's handler: nothing below Pi's loop": {
    origin: "unknown",
    frames: [...ABOVE, node("processTicksAndRejections")],
  },
  "the session reached without the API or an interface": {
    origin: "unknown",
    frames: [...ABOVE, pi("setThinkingLevel", "AgentSession"), node("listOnTimeout")],
  },
  "an interface's names in an extension's own file do not count": {
    origin: "unknown",
    frames: [
      ...ABOVE,
      pi("setThinkingLevel", "AgentSession"),
      { file: EXTENSION, functionName: "handleCommand" },
      { file: EXTENSION, functionName: "selectThinkingLevel", typeName: "InteractiveMode" },
    ],
  },
  "a session class of the same name outside Pi's folder is no session": {
    origin: "unknown",
    frames: [
      ...ABOVE,
      { file: EXTENSION, functionName: "setThinkingLevel", typeName: "AgentSession" },
      pi("handleCommand"),
    ],
  },
};

describe("who asked for a model or a thinking level", () => {
  for (const [name, { origin, frames }] of Object.entries(STACKS)) {
    it(`${name}: ${origin}`, () => {
      expect(readOrigin(frames, PI)).toBe(origin);
    });
  }

  it("reads nothing when Pi's folder is not known", () => {
    const learner = STACKS["RPC set_model (the model is emitted after an await: async callers)"];
    expect(readOrigin(learner?.frames ?? [], undefined)).toBe("unknown");
  });

  it("reads a learner's act in an unbundled Pi (dist/core, dist/modes)", () => {
    const frames: StackFrame[] = [
      ...ABOVE,
      {
        file: `file://${PI}/dist/core/agent-session.js`,
        functionName: "setThinkingLevel",
        typeName: "AgentSession",
      },
      { file: `file://${PI}/dist/modes/rpc/rpc-mode.js`, functionName: "handleCommand" },
    ];
    expect(readOrigin(frames, PI)).toBe("learner");
  });
});

describe("the stack as V8 gives it", () => {
  it("has this file's frames, and the awaiting callers of an async function", async () => {
    async function inner(): Promise<StackFrame[]> {
      await Promise.resolve();
      return captureStack();
    }
    async function awaitingCaller(): Promise<StackFrame[]> {
      return await inner();
    }
    const frames = await awaitingCaller();
    expect(frames[0]).toMatchObject({
      functionName: "inner",
      file: expect.stringContaining("act-origin.test.ts"),
    });
    expect(frames).toContainEqual(expect.objectContaining({ functionName: "awaitingCaller", async: true }));
  });

  it("is read by pi-quests itself: another prepareStackTrace is not asked, and is put back", () => {
    const other = () => "at handleCommand (forged)";
    const before = Error.prepareStackTrace;
    Error.prepareStackTrace = other;
    try {
      const frames = captureStack();
      expect(frames.length).toBeGreaterThan(0);
      expect(Error.prepareStackTrace).toBe(other);
    } finally {
      Error.prepareStackTrace = before;
    }
  });
});

describe("the learner is told once", () => {
  it("the first time a change could not be read, and not again", () => {
    const told: string[] = [];
    const read = createOriginReader(PI);
    const tell = (message: string) => told.push(message);
    // Called from here, no Pi session is on the stack: unknown.
    expect(read(tell)).toBe("unknown");
    expect(read(tell)).toBe("unknown");
    expect(told).toEqual([UNREAD_ORIGIN_NOTICE]);
  });
});
