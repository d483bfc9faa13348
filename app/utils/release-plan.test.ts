// The release plan rule (releasePlanProblem): steps in the order they open, none before the
// publication; days count from the publication, so a date and a number of days compare through it.
import { describe, expect, it } from "vitest";
import { RELEASE_MESSAGES, releasePlanProblem } from "./release-schemas";

const published = new Date("2030-01-10T12:00:00Z");
const on = (iso: string) => ({ opens_on: new Date(iso), after_days: null });
const after = (days: number) => ({ after_days: days, opens_on: null });

describe("releasePlanProblem", () => {
  it("accepts steps in time order, equal instants and a step at the publication itself", () => {
    expect(releasePlanProblem([], published)).toBeNull();
    expect(releasePlanProblem([on("2030-01-10T12:00:00Z"), after(0), after(7), on("2030-01-17T12:00:00Z"), after(30)], published)).toBeNull();
  });

  it("refuses a step earlier than the one before it, whichever way each is given", () => {
    expect(releasePlanProblem([after(7), after(3)], published)).toBe(RELEASE_MESSAGES.backInTime);
    expect(releasePlanProblem([on("2030-03-01T00:00:00Z"), on("2030-02-01T00:00:00Z")], published)).toBe(RELEASE_MESSAGES.backInTime);
    expect(releasePlanProblem([after(30), on("2030-01-20T00:00:00Z")], published)).toBe(RELEASE_MESSAGES.backInTime);
    expect(releasePlanProblem([on("2030-02-20T00:00:00Z"), after(30)], published)).toBe(RELEASE_MESSAGES.backInTime);
  });

  it("refuses a step dated before the publication, even by a second", () => {
    expect(releasePlanProblem([on("2030-01-10T11:59:59Z")], published)).toBe(RELEASE_MESSAGES.beforePublication);
    expect(releasePlanProblem([after(0), on("2030-01-01T00:00:00Z")], published)).toBe(RELEASE_MESSAGES.beforePublication);
  });
});
