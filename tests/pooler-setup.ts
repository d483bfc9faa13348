import type { TestProject } from "vitest/node";
import { startPgbouncer } from "./pgbouncer";

declare module "vitest" {
  export interface ProvidedContext {
    /** Set in the pooler run: the PgBouncer port that the app's DATABASE_URL goes through. */
    poolerPort?: number;
  }
}

/** Starts PgBouncer for the whole run; tests/setup-file.ts points DATABASE_URL at it. */
export default async function setup(project: TestProject) {
  const pooler = await startPgbouncer();
  project.provide("poolerPort", pooler.port);
  return () => pooler.stop();
}
