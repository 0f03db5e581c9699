/**
 * The port through which the probes reach Pi's SDK: the few functions of
 * `@earendil-works/pi-coding-agent` the skill probe and the reviewer call, handed in by whoever
 * found the running Pi (src/runtime/pi-host.ts: the extension's Pi, or the CLI's `findPi`).
 *
 * The probes never import Pi themselves: in an installed package Pi's modules are not resolvable
 * from pi-quests' own files (Pi installs packages without their peer dependencies), so an
 * `import("@earendil-works/pi-coding-agent")` below the entry would fail there.
 */
import type * as Pi from "@earendil-works/pi-coding-agent";

/** What the probes use of Pi's SDK. */
export type PiSdk = Pick<
  typeof Pi,
  | "loadSkills"
  | "ModelRuntime"
  | "createAgentSession"
  | "createExtensionRuntime"
  | "SessionManager"
  | "SettingsManager"
  | "createReadToolDefinition"
  | "createGrepToolDefinition"
  | "createFindToolDefinition"
  | "createLsToolDefinition"
>;

/** The names `PiSdk` holds, to check a loaded module against (the type alone proves nothing at run time). */
export const PI_SDK_NAMES = [
  "loadSkills",
  "ModelRuntime",
  "createAgentSession",
  "createExtensionRuntime",
  "SessionManager",
  "SettingsManager",
  "createReadToolDefinition",
  "createGrepToolDefinition",
  "createFindToolDefinition",
  "createLsToolDefinition",
] as const satisfies readonly (keyof PiSdk)[];

/** Pi's SDK, or why there is none here (a sentence for a pending check). */
export type PiSdkFound = { ok: true; sdk: PiSdk } | { ok: false; message: string };

/** Gives Pi's SDK when a check first needs it: importing Pi's package can take a second. */
export type PiSdkSource = () => Promise<PiSdkFound>;

/** The source where nobody handed one in: every check that needs Pi is pending, and says why. */
export const NO_PI_SDK: PiSdkSource = async () => ({
  ok: false,
  message: "Pi's modules were not given to pi-quests here (it needs a running Pi or an installed one)",
});
