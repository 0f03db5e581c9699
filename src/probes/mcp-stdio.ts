/**
 * The stdio transport of an MCP handshake: the SDK's, except that the server leads its own
 * process group (os/group-leader.ts) and closing kills that group and waits until no process of
 * it is left.
 */
import { stat } from "node:fs/promises";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { execa, type ResultPromise } from "execa";
import type { McpServerSpec } from "./mcp-config.ts";
import { DETACHED_GROUP_LEADER, killGroupAtExit } from "./os/group-leader.ts";
import { forgetAtExit, terminateGroup } from "./os/process-group.ts";

const STDERR_TAIL_CHARS = 2_000;
/** After SIGTERM, how long the group gets before SIGKILL, and how long SIGKILL may take. */
const TERM_GRACE_MS = 1_000;
const KILL_WAIT_MS = 2_000;

/** The SDK's stdio transport, with the server in its own process group until `close()`. */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #spec: Extract<McpServerSpec, { transport: "stdio" }>;
  readonly #env: Record<string, string | undefined>;
  readonly #buffer = new ReadBuffer();
  #child: ResultPromise | undefined;
  #stderr = "";
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #badOutput: string | undefined;
  #closing: Promise<void> | undefined;
  #closeNotified = false;

  constructor(spec: Extract<McpServerSpec, { transport: "stdio" }>, env: Record<string, string | undefined>) {
    this.#spec = spec;
    this.#env = env;
  }

  /** The server's process id, which is also its process group id. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("already started");
    const { command, args, env, cwd } = this.#spec;
    // Node reports a missing cwd as a missing command (ENOENT); say which it is.
    const cwdIsDir = await stat(cwd).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (!cwdIsDir) throw new Error(`the working directory ${cwd} does not exist`);

    // Killed with its group if the verifier itself exits without closing it.
    const child = execa(command, args, {
      ...DETACHED_GROUP_LEADER,
      cwd,
      env: { ...this.#env, ...env },
      extendEnv: false,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
    });
    killGroupAtExit(child.nodeChildProcess);
    this.#child = child;
    // The promise never rejects (reject: false); this only keeps a failed spawn from being unhandled.
    child.catch(() => {});

    const node = child.nodeChildProcess;
    await new Promise<void>((resolve, reject) => {
      node.once("spawn", () => resolve());
      node.once("error", (error: NodeJS.ErrnoException) =>
        reject(error.code === "ENOENT" ? new Error(`command not found: ${command}`) : error),
      );
    });

    node.once("exit", (code, signal) => {
      // Only an exit of its own says something about the server; after close() it is our kill.
      if (!this.#closing) this.#exit = { code, signal };
    });
    // "close", not "exit": a child of the server may still hold stdout after the server exits.
    node.once("close", () => this.#notifyClose());

    child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    child.stdin?.on("error", (error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closing) throw new Error("not connected");
    if (!stdin.write(serializeMessage(message))) {
      await new Promise<void>((resolve) => stdin.once("drain", resolve));
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#kill();
    return this.#closing;
  }

  /**
   * How the server ended, in one line for a failure's summary: a stdout line that is not MCP, its
   * exit, and the line of its stderr that says what went wrong (an `Error: ...` line rather than
   * the stack under it). Undefined when there is nothing to say.
   */
  endSummary(): string | undefined {
    const parts: string[] = [];
    if (this.#badOutput)
      parts.push(`it wrote a line to stdout that is not an MCP message: ${short(this.#badOutput)}`);
    if (this.#exit) {
      const how = this.#exit.signal ? `signal ${this.#exit.signal}` : `code ${this.#exit.code}`;
      parts.push(`it exited with ${how}`);
    }
    const said = telling(this.#stderr);
    if (said) parts.push(`its stderr says: ${short(said)}`);
    return parts.length > 0 ? parts.join("; ") : undefined;
  }

  /** How the server ended, and the tail of its stderr, for a failure's evidence. */
  describeEnd(): string[] {
    const lines: string[] = [];
    if (this.#badOutput) {
      lines.push(
        `The server wrote a line to stdout that is not an MCP message (log to stderr instead): ${this.#badOutput}`,
      );
    }
    if (this.#exit) {
      const how = this.#exit.signal ? `signal ${this.#exit.signal}` : `code ${this.#exit.code}`;
      lines.push(`The server exited with ${how}.`);
    }
    const stderr = this.#stderr.trim();
    if (stderr) lines.push(`Server stderr (last lines):\n${stderr}`);
    return lines;
  }

  #read(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(toError(error));
      return;
    }
    for (;;) {
      try {
        const message = this.#buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // One bad line does not end the session (nor does it in the SDK's transport), but it is
        // the usual reason a server never seems to answer.
        this.#badOutput ??= toError(error).message.slice(0, 300);
        this.onerror?.(toError(error));
      }
    }
  }

  async #kill(): Promise<void> {
    const child = this.#child;
    const pid = child?.pid;
    if (child && pid !== undefined) {
      child.stdin?.end();
      await terminateGroup(pid, TERM_GRACE_MS, KILL_WAIT_MS);
      forgetAtExit(pid);
      // Let execa settle, but not forever: a process that left the group could still hold the pipes.
      child.stdout?.destroy();
      child.stderr?.destroy();
      await Promise.race([child, new Promise((resolve) => setTimeout(resolve, KILL_WAIT_MS).unref())]);
    }
    this.#buffer.clear();
    this.#notifyClose();
  }

  #notifyClose(): void {
    if (this.#closeNotified) return;
    this.#closeNotified = true;
    this.onclose?.();
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** At most this many characters of a line in a one-line summary. */
const SUMMARY_CHARS = 200;

function short(line: string): string {
  const one = line.replace(/\s+/g, " ").trim();
  return one.length > SUMMARY_CHARS ? `${one.slice(0, SUMMARY_CHARS - 1)}…` : one;
}

/**
 * The stderr line that says what went wrong: the first that names an error (`Error: Cannot find
 * module`, Python's `ModuleNotFoundError: ...`), else the first that is not a stack frame, a
 * caret or Node's version line.
 */
export function telling(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(
      (line) => line !== "" && !/^at\s/.test(line) && !/^\^+$/.test(line) && !/^Node\.js v\d/.test(line),
    );
  return lines.find((line) => /^([A-Z]\w*)?(Error|Exception)\b/.test(line)) ?? lines[0];
}
