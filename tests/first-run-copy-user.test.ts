// `npm start` in a fresh copy of the whole project inside a private (0700) folder that an ordinary
// user (`nobody`) owns, started as that user while the tests run as root: the same first run as
// tests/first-run-copy.test.ts (tests/private-copy-start.ts). Skipped when the tests do not run
// as root, since only root can start a process as another user.
import { it } from "vitest";
import { describeFirstRunInPrivateCopy, SELF_RUNNER } from "./private-copy-start";

if (SELF_RUNNER === "root") describeFirstRunInPrivateCopy("an ordinary user");
else it.skip("npm start in a copy of the project in a private folder, as an ordinary user (needs root)", () => undefined);
