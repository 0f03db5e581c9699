/** The real `pi` over RPC (scripts/pi-rpc.ts), with every pi a test file starts closed after each test. */
import { type PiRpc, type PiRpcOptions, startPiRpc as startPi } from "../../scripts/pi-rpc.ts";
import { makeWorkspace } from "./workspace.ts";

export type { PiRpc, RpcLine } from "../../scripts/pi-rpc.ts";
export { EXTENSION, PI, SCRIPTED_MODEL } from "../../scripts/pi-rpc.ts";

const started = new Set<PiRpc>();

/** Starts pi in RPC mode, with a throwaway agent dir unless one is given. */
export function startPiRpc(options: PiRpcOptions): PiRpc {
  const pi = startPi({ agentDir: makeWorkspace(), ...options });
  started.add(pi);
  return pi;
}

/** Closes every pi this file started (an `afterEach`), so none outlives its test. */
export async function closeAllPis(): Promise<void> {
  const all = [...started];
  started.clear();
  await Promise.all(all.map((pi) => pi.close()));
}
