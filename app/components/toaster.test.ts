import { describe, expect, it } from "vitest";
import { addToast, type ToastMessage } from "./toaster";

type Keyed = ToastMessage & { key: number };

describe("addToast", () => {
  it("updates a toast with the same id where it stands: one toast per download", () => {
    const starting: Keyed = { key: 1, id: "download-a", type: "info", message: "Download will be starting soon..." };
    const other: Keyed = { key: 2, type: "success", message: "Post updated." };
    const started: Keyed = { key: 3, id: "download-a", type: "success", message: "Download initiated." };
    expect(addToast([starting, other], started)).toEqual([started, other]);
  });

  it("keeps toasts of different downloads apart", () => {
    const a: Keyed = { key: 1, id: "download-a", type: "info", message: "Download will be starting soon..." };
    const b: Keyed = { key: 2, id: "download-b", type: "info", message: "Download will be starting soon..." };
    // Same words, another download: the identical message still shows once.
    expect(addToast([a], b)).toEqual([b]);
    const aDone: Keyed = { key: 3, id: "download-a", type: "success", message: "Download initiated." };
    expect(addToast([a], aDone)).toEqual([aDone]);
  });

  it("still replaces an identical message and keeps only the newest", () => {
    const one: Keyed = { key: 1, type: "info", message: "One" };
    const two: Keyed = { key: 2, type: "info", message: "Two" };
    const again: Keyed = { key: 3, type: "info", message: "One" };
    expect(addToast([one, two], again)).toEqual([two, again]);
    expect(addToast([one, two, { key: 4, type: "info", message: "Three" }], { key: 5, type: "info", message: "Four" }, 3).map((t) => t.message)).toEqual([
      "Two",
      "Three",
      "Four",
    ]);
  });
});
