/** The reporters of `pi-quests test`, by the name `--reporter` takes: a report in, text out. */
import type { TestReport } from "./report.ts";
import { formatJsonReport } from "./report-json.ts";
import { formatJunitReport } from "./report-junit.ts";
import { formatTapReport } from "./report-tap.ts";
import { formatTextReport } from "./report-text.ts";

export type Reporter = (report: TestReport) => string | Promise<string>;

export const REPORTERS = {
  text: formatTextReport,
  json: formatJsonReport,
  junit: formatJunitReport,
  tap: formatTapReport,
} as const satisfies Record<string, Reporter>;

export type ReporterName = keyof typeof REPORTERS;
export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];

export function isReporterName(name: string): name is ReporterName {
  return Object.hasOwn(REPORTERS, name);
}
