// Changing a configuration variable mid-run: the app reads its configuration through env(),
// parsed once, so the next read sees the change.
import { resetEnvCache } from "~/env.server";

export function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  resetEnvCache();
}
