/**
 * Each check type's wording for people, by type. Apart from the registry because the HUD reads
 * it while Pi starts: nothing here may import zod or the engine. The modules hold the same
 * wording (registry.test.ts checks that they agree).
 */

import type { CheckResult } from "../results.ts";
import { commandWording } from "./command-wording.ts";
import { confirmWording } from "./confirm-wording.ts";
import type { CheckWording, ReportDetail } from "./define.ts";
import { eventWording } from "./event-wording.ts";
import type { CheckType } from "./registry.ts";

/** The types that have wording of their own; the others are said by their summary alone. */
export const CHECK_WORDING: { readonly [K in CheckType]?: CheckWording } = {
  event: eventWording,
  command: commandWording,
  confirm: confirmWording,
};

/** The HUD's reason for this result when its type has a better one than the summary. */
export function hintFor(result: CheckResult): string | undefined {
  return CHECK_WORDING[result.type]?.hint?.(result);
}

/** What the report adds to this result's line. */
export function reportDetailFor(result: CheckResult): ReportDetail {
  return CHECK_WORDING[result.type]?.reportDetail?.(result) ?? {};
}
