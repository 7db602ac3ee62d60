import { type Artifact, compileDemoContracts } from "../../src/demo/compile.ts";
import { present } from "./present.ts";

/** The compiled demo contract `name` (from the disk cache after the first compilation), or a failure naming it. */
export async function demoArtifact(name: string): Promise<Artifact> {
  return present((await compileDemoContracts())[name], `demo contract ${name}`);
}
