import type { TestProject } from "vitest/node";
import { createMigratedDatabase, dropDatabase, uniqueName } from "./db";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** The run's template database, shared by the projects that use this setup (integration, pooler). */
type Template = { name: string; migrated: Promise<unknown>; projects: number };
const run = globalThis as { __templateDatabase?: Template };

/**
 * Builds one template database from the migrations; every test file copies it. Projects run their
 * global setups in one process, each with its own module instance: the template is kept on
 * `globalThis`, so the migrations run once per run, and the last project to finish drops it.
 */
export default async function setup(project: TestProject) {
  const template = (run.__templateDatabase ??= (() => {
    const name = uniqueName("clib_tpl");
    return { name, migrated: createMigratedDatabase(name), projects: 0 };
  })());
  template.projects++;
  await template.migrated;
  project.provide("templateDatabase", template.name);
  return async () => {
    if (--template.projects > 0) return;
    run.__templateDatabase = undefined;
    await dropDatabase(template.name);
  };
}
