/**
 * A program in a real terminal: a detached tmux session on a server of its own (its socket in a
 * temporary folder, so a person's tmux is never touched), read back with `capture-pane` the way
 * a person sees it, typed into with `send-keys`. Every process started in the pane carries a
 * marker in its environment, so a test can prove none is left once the server is gone.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeWorkspaces } from "./workspace.ts";

const POLL_MS = 100;
const SESSION = "main";
const MARKER_VARIABLE = "PI_QUESTS_TMUX_TEST";

export type TmuxOptions = {
  /** The program and its arguments, run without a shell. */
  command: string[];
  cwd: string;
  /** The pane's environment (on top of PATH, HOME, LANG and TERM). */
  env: Record<string, string>;
  /** HOME for the tmux server and the pane: a temporary folder. */
  home: string;
  /** A temporary folder for tmux's socket and configuration. */
  dir: string;
  width?: number;
  height?: number;
};

export type TmuxPane = {
  /** The visible screen as text; `escapes` keeps the SGR sequences (colors, bold). */
  screen(options?: { escapes?: boolean }): string;
  /** Types `text` literally, then presses each of `keys` (tmux key names, e.g. "Enter"). */
  type(text: string, ...keys: string[]): void;
  /**
   * Polls the screen until `test` holds for its text, and returns that screen (with its escape
   * sequences when `escapes`, so text and colors come from one frame); fails with the last screen
   * after `timeoutMs` (30 s by default).
   */
  waitForScreen(
    test: (screen: string) => boolean,
    what: string,
    options?: { timeoutMs?: number; escapes?: boolean },
  ): Promise<string>;
  /** Live (not zombie) processes started in the pane. */
  processes(): number[];
  /** Polls until no process of the pane is left (the program quit by itself); fails after `timeoutMs`. */
  waitForExit(what: string, options?: { timeoutMs?: number }): Promise<void>;
  /** Kills the tmux server and waits until no process of the pane is left; throws if one had to be killed. */
  kill(): Promise<void>;
};

const started = new Set<TmuxPane>();
let servers = 0;

/** The tmux version; a clear error (never a skip) when tmux is not installed. */
export function requireTmux(): string {
  try {
    return execFileSync("tmux", ["-V"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (error) {
    throw new Error(
      `tmux is required for the terminal UI test and could not be run (${(error as Error).message}). ` +
        "Install it (Debian: apt-get install tmux; .ci/run does this in CI).",
    );
  }
}

export function startTmux(options: TmuxOptions): TmuxPane {
  const marker = `${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  // A socket of its own: a unique name, in a folder of the test's (TMUX_TMPDIR).
  const socketName = `pi-quests-${process.pid}-${++servers}`;
  const socketDir = join(options.dir, "tmux");
  mkdirSync(socketDir, { recursive: true });
  // Our own configuration, never ~/.tmux.conf. Extended keys as Pi's docs/tmux.md asks (tmux
  // 3.2+; without it Pi prints a warning above the editor). remain-on-exit keeps a crashed
  // program's last screen readable.
  const config = join(options.dir, "tmux.conf");
  writeFileSync(config, "set -g extended-keys on\nset -g remain-on-exit on\nset -g history-limit 5000\n");
  const clientEnv = {
    PATH: process.env.PATH ?? "",
    HOME: options.home,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    TMUX_TMPDIR: socketDir,
  };
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-u", "-L", socketName, "-f", config, ...args], {
      env: clientEnv,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  const paneEnv = { ...options.env, HOME: options.home, TERM: "xterm-256color", [MARKER_VARIABLE]: marker };
  tmux(
    "new-session",
    "-d",
    "-s",
    SESSION,
    "-x",
    String(options.width ?? 120),
    "-y",
    String(options.height ?? 40),
    "-c",
    options.cwd,
    ...Object.entries(paneEnv).flatMap(([name, value]) => ["-e", `${name}=${value}`]),
    ...options.command,
  );
  const panePid = Number(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").trim());
  let killed = false;

  const screen = (opts: { escapes?: boolean } = {}) =>
    tmux("capture-pane", "-p", ...(opts.escapes ? ["-e"] : []), "-t", SESSION);
  const paneDead = () => {
    try {
      return tmux("display-message", "-p", "-t", SESSION, "#{pane_dead}").trim() === "1";
    } catch {
      return true;
    }
  };
  const processes = () => {
    if (!existsSync("/proc")) return isLive(panePid) ? [panePid] : [];
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => isLive(pid) && environ(pid).includes(`${MARKER_VARIABLE}=${marker}`));
  };

  const pane: TmuxPane = {
    screen,
    type(text, ...keys) {
      tmux("send-keys", "-t", SESSION, "-l", text);
      if (keys.length > 0) tmux("send-keys", "-t", SESSION, ...keys);
    },
    async waitForScreen(test, what, { timeoutMs = 30_000, escapes = false } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const captured = screen({ escapes });
        const text = escapes ? stripSgr(captured) : captured;
        if (test(text)) return captured;
        if (paneDead()) {
          let history = text;
          try {
            history = tmux("capture-pane", "-p", "-S", "-200", "-t", SESSION);
          } catch {
            // The server is gone too: the last screen is all there is.
          }
          throw new Error(`the program in tmux exited while waiting for ${what}:\n${history}`);
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${text}`);
        await sleep(POLL_MS);
      }
    },
    processes,
    async waitForExit(what, { timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      while (processes().length > 0) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
        await sleep(POLL_MS);
      }
    },
    async kill() {
      if (killed) return;
      killed = true;
      started.delete(pane);
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
      // kill-server hangs up the pane: the program gets SIGHUP and should end on its own.
      const deadline = Date.now() + 10_000;
      while (processes().length > 0 && Date.now() < deadline) await sleep(POLL_MS);
      const left = processes();
      if (left.length === 0) return;
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Ended meanwhile.
        }
      }
      const killedBy = Date.now() + 2_000;
      while (processes().length > 0 && Date.now() < killedBy) await sleep(POLL_MS);
      throw new Error(`processes still running 10 s after tmux kill-server (now killed): ${left.join(", ")}`);
    },
  };
  started.add(pane);
  return pane;
}

/** After each test of a tmux file: its tmux servers killed, then its temporary folders removed. */
export async function cleanUpTmuxTest(): Promise<void> {
  try {
    await killAllTmux();
  } finally {
    removeWorkspaces();
  }
}

/** Kills every tmux server a test started and did not kill (for afterEach). */
export async function killAllTmux(): Promise<void> {
  const errors: unknown[] = [];
  for (const pane of [...started]) {
    try {
      await pane.kill();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
}

function environ(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return "";
  }
}

/** Running, and not a zombie waiting to be reaped. */
function isLive(pid: number): boolean {
  if (existsSync("/proc")) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ESC = String.fromCharCode(0x1b);

export type Cell = { char: string; fg: string | undefined; bold: boolean };

/**
 * The screen of `capture-pane -e` as rows of cells, each with the foreground color and boldness
 * in effect. tmux writes an SGR sequence only where the attributes change (a line in the same
 * color as the one before has none of its own), so the state is carried over, rows included.
 */
export function styledRows(captured: string): Cell[][] {
  const rows: Cell[][] = [[]];
  let fg: string | undefined;
  let bold = false;
  const sgr = new RegExp(`${ESC}\\[([0-9;:]*)m`, "y");
  for (let index = 0; index < captured.length; ) {
    sgr.lastIndex = index;
    const match = sgr.exec(captured);
    if (match) {
      const params = (match[1] ?? "").split(/[;:]/).map((part) => (part === "" ? 0 : Number(part)));
      for (let at = 0; at < params.length; at++) {
        const code = params[at] ?? 0;
        if (code === 0) {
          fg = undefined;
          bold = false;
        } else if (code === 1) bold = true;
        else if (code === 22) bold = false;
        else if (code === 39) fg = undefined;
        else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) fg = String(code);
        else if (code === 38 || code === 48) {
          const width = params[at + 1] === 5 ? 2 : params[at + 1] === 2 ? 4 : 1;
          if (code === 38) fg = params.slice(at, at + 1 + width).join(";");
          at += width;
        }
      }
      index = sgr.lastIndex;
      continue;
    }
    const char = String.fromCodePoint(captured.codePointAt(index) ?? 0);
    index += char.length;
    if (char === "\n") rows.push([]);
    else if (char !== ESC) rows.at(-1)?.push({ char, fg, bold });
  }
  return rows;
}

export const stripSgr = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;:]*m`, "g"), "");

export const rowText = (row: Cell[]) => row.map((cell) => cell.char).join("");

/** A row of Pi's TUI that is one of the editor's borders: a rule of `─` across the screen. */
export const isBorderRow = (line: string) => /^─{20,}$/.test(line.trim());

/** What Pi's editor holds on a screen: the rows between its last two border rows, joined. */
export function editorText(screen: string): string {
  const all = screen.split("\n");
  const borders = all.flatMap((line, index) => (isBorderRow(line) ? [index] : []));
  return all
    .slice((borders.at(-2) ?? 0) + 1, borders.at(-1) ?? 0)
    .map((line) => line.trim())
    .join(" ")
    .trim();
}
