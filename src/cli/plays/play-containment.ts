/**
 * What keeps a play's processes from outliving it: Pi, the setup, the shell steps and whatever
 * they start (a dev server, `setsid nohup …`) run in one PID namespace, closed when the chain
 * ends; where namespaces are not available, only in process groups (src/probes/os/).
 */
import { containProcesses } from "../../probes/os/process-containment.ts";

export type PlayContainment = {
  kind: "pid-namespace" | "process-group";
  /** The command that runs `file args` inside. */
  enter(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Ends every process inside; true once they are all gone. */
  close(): Promise<boolean>;
};

export async function containPlay(path: string): Promise<PlayContainment> {
  const contained = await containProcesses("bash", path);
  if (contained.containment === "pid-namespace") {
    const { namespace } = contained;
    return {
      kind: "pid-namespace",
      enter: (file, args) => namespace.enter(file, args),
      close: () => namespace.close(),
    };
  }
  return {
    kind: "process-group",
    enter: (file, args) => ({ file, args: [...args] }),
    close: async () => true,
  };
}
