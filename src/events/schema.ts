import { z } from "zod";

/** A recorded harness event, as the extension writes it and `--events` reads it. */
export const VerifierEventSchema = z.strictObject({
  name: z.string().min(1),
  sessionId: z.string().min(1).optional(),
  seq: z.int().min(0),
  payload: z.record(z.string(), z.unknown()).default({}),
});
export type VerifierEvent = z.infer<typeof VerifierEventSchema>;
