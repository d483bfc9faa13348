// `npm start` in a fresh copy of the whole project inside a private (0700) folder, as this user
// (root on CI): it builds, starts on the embedded database and serves every page and demo account
// without a 5xx or an error line; a restart neither builds nor migrates; a second start is refused
// before it builds (tests/private-copy-start.ts). The ordinary user's run is
// tests/first-run-copy-user.test.ts, the run in this checkout tests/first-run.test.ts.
import { describeFirstRunInPrivateCopy, SELF_RUNNER } from "./private-copy-start";

describeFirstRunInPrivateCopy(SELF_RUNNER);
