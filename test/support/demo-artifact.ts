import { type Artifact, artifactOf, compileDemoContracts } from "../../src/demo/compile.ts";

/** The compiled demo contract `name` (from the disk cache after the first compilation), or a failure naming it. */
export async function demoArtifact(name: string): Promise<Artifact> {
  return artifactOf(await compileDemoContracts(), name);
}
