/**
 * Who made Pi change its model, its thinking level or the session's name: the learner (Pi's own
 * interface: the terminal UI's `/model`, `/thinking`, `/name`, the selectors and the keys, or an
 * RPC client's `set_model`, `set_thinking_level`, `set_session_name`), or an extension
 * (`pi.setModel`, `pi.setThinkingLevel`, `pi.setSessionName`). Pi's event does not say:
 * `model_select` has `source: "set"` for both, the others nothing. The JavaScript stack does, in
 * the handler Pi calls: Pi emits each event from inside the session method that made the change,
 * called by whoever asked for it.
 *
 * This is the one module that reads Pi's internals for it (docs/architecture.md lists it), as Pi
 * 1.6 has them, bundled or not:
 *
 * - the session frame: a method of Pi's `AgentSession` that makes the change (`setModel`,
 *   `_emitModelSelect`, `cycleModel` and its helpers, `setThinkingLevel`, `cycleThinkingLevel`,
 *   `setSessionName`), in a file of Pi's package;
 * - an extension's call: below it, a frame of Pi's package named like the API an extension calls
 *   (`setModel`, `setThinkingLevel`, `setSessionName`) on anything but the session (the extension API's method in
 *   Pi's loader, and the runtime's in the session's `bindCore`). An extension cannot reach the
 *   session without one of them; that is checked first, and wins;
 * - the learner's act: below it, a frame of Pi's package from one of its interfaces: a method of
 *   `InteractiveMode` (the bundle names the class `_InteractiveMode`), the model selector's
 *   `selectModel`, or the RPC mode's `handleCommand`.
 *
 * V8 lists the callers of a synchronous call, and the awaiting callers of an async one (its
 * async frames). `setModel` awaits before it emits, so its event shows the async callers: the
 * runtime's `setModel` awaits the session's whether or not the extension awaits it. A thinking
 * level and a name are emitted without an await, so their stack is whole only when pi-quests'
 * handler is the first one Pi calls for that event; after another extension's handler, Pi's loop has awaited
 * and nothing below it is left. Anything not read as one of the two is "unknown": it never
 * counts as the learner's, and the learner is told once (index.ts), so a Pi that changed where
 * these calls live fails visibly, never silently.
 */
import { sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ActOrigin } from "../events/names.ts";

/** One frame of the stack, as V8's call sites describe it. */
export type StackFrame = {
  /** A path, or a `file:` URL for an ES module. */
  file?: string;
  functionName?: string;
  /** The receiver's constructor, for a method. */
  typeName?: string;
  /** A frame of an async function that awaited the one above it. */
  async?: boolean;
};

/** The frames that called the code that calls this: V8's call sites, async frames included. */
export function captureStack(limit = 200): StackFrame[] {
  const holder: { stack?: unknown } = {};
  const prepare = Error.prepareStackTrace;
  const depth = Error.stackTraceLimit;
  try {
    // pi-quests' own reading of the call sites: another extension's prepareStackTrace (which
    // could write any text) is never asked.
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.stackTraceLimit = limit;
    Error.captureStackTrace(holder, captureStack);
    const sites = holder.stack;
    return Array.isArray(sites) ? sites.map(frameOf) : [];
  } catch {
    return [];
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = depth;
  }
}

function frameOf(site: NodeJS.CallSite): StackFrame {
  const read = <T>(get: () => T | null | undefined): T | undefined => {
    try {
      return get() ?? undefined;
    } catch {
      return undefined;
    }
  };
  const file = read(() => site.getFileName());
  const functionName = read(() => site.getFunctionName());
  const typeName = read(() => site.getTypeName());
  const async = read(() => site.isAsync());
  return {
    ...(file !== undefined ? { file } : {}),
    ...(functionName !== undefined ? { functionName } : {}),
    ...(typeName !== undefined ? { typeName } : {}),
    ...(async ? { async: true } : {}),
  };
}

/** The session's methods that change the model or the level, and emit their event. */
const SESSION_METHODS = new Set([
  "setModel",
  "_emitModelSelect",
  "cycleModel",
  "_cycleScopedModel",
  "_cycleAvailableModel",
  "setThinkingLevel",
  "cycleThinkingLevel",
  "setSessionName",
]);
/** What an extension calls (Pi's loader), and what that calls (the session's runtime). */
const EXTENSION_API = new Set(["setModel", "setThinkingLevel", "setSessionName"]);
const SESSION_TYPE = /(^|_)AgentSession$/;
const INTERACTIVE_TYPE = /(^|_)InteractiveMode$/;
/** The interfaces' functions that are not InteractiveMode's methods: the model selector's, RPC's. */
const INTERFACE_FUNCTIONS = new Set(["selectModel", "handleCommand"]);

/**
 * Who made the change whose event `frames` were captured in. `piFolder`: the real folder of Pi's
 * package (its frames are told apart from others by their file); without it nothing is read.
 */
export function readOrigin(frames: readonly StackFrame[], piFolder: string | undefined): ActOrigin {
  if (piFolder === undefined) return "unknown";
  const inPi = (frame: StackFrame) => pathOf(frame.file)?.startsWith(piFolder + sep) === true;
  const at = frames.findIndex(
    (frame) =>
      inPi(frame) && SESSION_TYPE.test(frame.typeName ?? "") && SESSION_METHODS.has(frame.functionName ?? ""),
  );
  if (at < 0) return "unknown";
  const callers = frames.slice(at + 1);
  const throughApi = callers.some(
    (frame) =>
      inPi(frame) && EXTENSION_API.has(frame.functionName ?? "") && !SESSION_TYPE.test(frame.typeName ?? ""),
  );
  if (throughApi) return "extension";
  const fromInterface = callers.some(
    (frame) =>
      inPi(frame) &&
      (INTERACTIVE_TYPE.test(frame.typeName ?? "") || INTERFACE_FUNCTIONS.has(frame.functionName ?? "")),
  );
  return fromInterface ? "learner" : "unknown";
}

/** A frame's file as a path; undefined for Node's own (`node:`) and frames without a file. */
function pathOf(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  if (file.startsWith("file:")) {
    try {
      return fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  return file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file) ? file : undefined;
}

/** What the learner is told the first time a change could not be read. */
export const UNREAD_ORIGIN_NOTICE =
  "pi-quests could not tell who changed the model, the thinking level or the session's name (you, or code running inside Pi); a quest that asks for your own change does not count it. If it was you: an extension that loads before pi-quests and watches the same change hides it (/quest status lists code Pi wrote), or this version of Pi works differently from the ones pi-quests knows.";

/**
 * Reads who made the change from the stack of the handler it is called in (call it first
 * thing, before anything awaits); the first "unknown" of the session is told with `tell`.
 */
export function createOriginReader(piFolder: string | undefined) {
  let told = false;
  return (tell: (message: string) => void): ActOrigin => {
    const origin = readOrigin(captureStack(), piFolder);
    if (origin === "unknown" && !told) {
      told = true;
      tell(UNREAD_ORIGIN_NOTICE);
    }
    return origin;
  };
}
