/**
 * Pi's SDK for in-process tests of the probes that take it (the skill probe, the reviewer): the
 * checkout's `@earendil-works/pi-coding-agent`, imported by name, which a test may do (src/ gets
 * it from src/runtime/pi-host.ts).
 */
import * as Pi from "@earendil-works/pi-coding-agent";
import type { PiSdk, PiSdkSource } from "../../src/probes/pi-sdk.ts";

export const PI_SDK: PiSdk = Pi;
export const PI_SDK_SOURCE: PiSdkSource = async () => ({ ok: true, sdk: Pi });
