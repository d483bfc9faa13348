// Every page's document title has one shape: "<Page> · Creator Library".
import type { MetaDescriptor } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import * as notFound from "~/routes/$";
import * as home from "~/routes/_index";
import * as admin from "~/routes/admin";
import * as authCallback from "~/routes/auth.callback";
import * as forgotPassword from "~/routes/forgot-password";
import * as infos from "~/routes/infos";
import * as inspiration from "~/routes/inspiration-vote";
import * as library from "~/routes/library";
import * as login from "~/routes/login";

type MetaModule = { meta?: (args: never) => MetaDescriptor[] };

function titleOf(module: MetaModule, data?: unknown): string | undefined {
  const args = { data, params: {}, location: { pathname: "/", search: "", hash: "", state: null, key: "default" }, matches: [] };
  const descriptors = module.meta!(args as never);
  const found = descriptors.find((descriptor) => "title" in descriptor) as { title: string } | undefined;
  return found?.title;
}

describe("page titles", () => {
  it.each([
    ["home", home, "Home"],
    ["library", library, "Library"],
    ["infos", infos, "Infos"],
    ["inspiration vote", inspiration, "Inspiration Vote"],
    ["login", login, "Login"],
    ["forgot password", forgotPassword, "Forgot password"],
    ["auth callback", authCallback, "Signing in"],
    ["admin", admin, "Admin"],
    ["not found", notFound, "Page not found"],
  ] as [string, MetaModule, string][])("%s uses the · separator", (_name, module, page) => {
    expect(titleOf(module)).toBe(`${page} · Creator Library`);
  });

  it("/login names what it shows: the sign-up tab, or the account's settings once signed in", () => {
    expect(titleOf(login, { view: "guest", tab: "login" })).toBe("Login · Creator Library");
    expect(titleOf(login, { view: "guest", tab: "signup" })).toBe("Create My Account · Creator Library");
    expect(titleOf(login, { view: "account" })).toBe("Account settings · Creator Library");
  });

  // Every page under /admin names itself and the area it is in, as the browser's tabs and history show it.
  const adminPages = import.meta.glob<MetaModule>("../app/routes/admin_.*.tsx", { eager: true });
  it.each(Object.entries(adminPages).filter(([, module]) => module.meta))("%s is titled '<Page> · Admin · Creator Library'", (_file, module) => {
    expect(titleOf(module, { post: { title: "Cabin" } })).toMatch(/^[A-Z][^·]*( · Posts)? · Admin · Creator Library$/);
  });
});
