/**
 * Which Pi versions pi-quests supports: the one place that says it. Pi ships a release every
 * week or two, and a learner runs whatever Pi they installed last; pi-quests supports the newest
 * Pi it was tested with and the minor release before it, and every play of the built-in pack is
 * proven on both (`npm test` on the newest, `npm run test:previous-pi` on the one before; the
 * versions are the two Pis in package-lock.json: `@earendil-works/pi-coding-agent` and its alias
 * `pi-previous`, which tests/core/pi-versions.test.ts holds to these constants).
 *
 * Three answers for a Pi: supported (a tested minor, not newer than the newest tested release),
 * untested (newer: it runs, and says so once; what pi-quests reads of Pi's texts and internals
 * then fails visibly, docs/architecture.md lists each), too old (pi-quests starts no quest, and
 * `pi-quests test` refuses it, with one sentence naming the supported versions).
 */

/** The Pi releases the built-in pack's plays are proven on: the newest, and the previous minor's. */
export const TESTED_PI_VERSIONS = ["1.6.0", "1.5.2"] as const;

/** The newest Pi pi-quests was tested with: a newer one is untested. */
export const NEWEST_TESTED_PI = TESTED_PI_VERSIONS[0];

/** The oldest Pi pi-quests supports: the first release of the previous minor. */
export const OLDEST_SUPPORTED_PI = `${minorOf(TESTED_PI_VERSIONS[1])}.0`;

/** The supported minors in words, oldest first: "Pi 1.5 and 1.6". */
export const SUPPORTED_PI_TEXT = `Pi ${[...new Set(TESTED_PI_VERSIONS.map(minorOf))].reverse().join(" and ")}`;

export type PiSupport =
  | { kind: "supported"; version: string }
  /** Newer than the newest tested release, or a version that could not be read. */
  | { kind: "untested"; version: string | undefined }
  | { kind: "too-old"; version: string };

/** Where `version` (Pi's package.json version; undefined when it could not be read) stands. */
export function piSupportOf(version: string | undefined): PiSupport {
  if (version === undefined || !/^\d+\.\d+/.test(version)) return { kind: "untested", version };
  if (compareVersions(version, OLDEST_SUPPORTED_PI) < 0) return { kind: "too-old", version };
  if (compareVersions(version, NEWEST_TESTED_PI) > 0) return { kind: "untested", version };
  return { kind: "supported", version };
}

/** The one sentence an older Pi gets: what pi-quests supports, and `then` (what follows, what to do). */
export function tooOldText(version: string, then: string): string {
  return `pi-quests supports ${SUPPORTED_PI_TEXT} (${OLDEST_SUPPORTED_PI} or later), not Pi ${version}: ${then}`;
}

/** How a learner updates Pi. */
export const UPDATE_PI = "npm install -g @earendil-works/pi-coding-agent";

/** What a newer Pi is told once: it runs, untested. */
export function untestedText(version: string | undefined): string {
  const which = version === undefined ? "a Pi whose version could not be read" : `Pi ${version}`;
  return `pi-quests was tested with ${SUPPORTED_PI_TEXT} (up to ${NEWEST_TESTED_PI}); this is ${which}, which is untested: the quests run, and anything of this Pi that pi-quests cannot read is said when it happens.`;
}

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (major.minor.patch, numerically). */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    (version.split("-")[0] ?? "").split(".").map((part) => Number(part) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

function minorOf(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}
