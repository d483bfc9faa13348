import type { TestProject } from "vitest/node";
import { createMigratedDatabase, dropDatabase, uniqueName } from "./db";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** Builds one template database from the migrations; every test file copies it. */
export default async function setup(project: TestProject) {
  const name = uniqueName("clib_tpl");
  await createMigratedDatabase(name);
  project.provide("templateDatabase", name);
  return async () => {
    await dropDatabase(name);
  };
}
