/**
 * Where a review check's model comes from, read from the Pi session the extension runs in
 * (moved out of the extension's entry, index.ts, which talks to Pi, to keep it within the code
 * shape's bound). No Pi import at run time.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ReviewModelSource } from "../runtime/reviewer.ts";

/**
 * Where a review check's model comes from when it names none: the learner's current model (read
 * when the review starts), and the providers extensions registered in this Pi (a custom provider,
 * the scripted play model), which the reviewer's own model runtime does not have.
 */
export function reviewModelsOf(ctx: ExtensionContext): ReviewModelSource {
  const live = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch {
      return undefined; // a ctx made stale by a session replacement: no model from it
    }
  };
  return {
    current: () => live(() => (ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined)),
    registeredProvider: (provider) =>
      live(() => {
        const config = ctx.modelRegistry.getRegisteredProviderConfig(provider);
        if (config) return { kind: "config" as const, config };
        const native = ctx.modelRegistry.getRegisteredNativeProvider(provider);
        return native ? { kind: "native" as const, provider: native } : undefined;
      }),
    endpointInPi: (provider, id) =>
      live(() => {
        const model = ctx.modelRegistry.find(provider, id);
        return model ? { api: model.api, baseUrl: model.baseUrl } : undefined;
      }),
  };
}
