// Toasts (remix-toast) in a flash cookie that is really signed. remix-toast 1.2.2 builds its own
// cookie with a sign() that appends nothing, so setToastCookieOptions({ secrets }) signs nothing
// and anyone could plant a toast of their own words. Every toast helper and getToast below go
// through our cookie session storage instead, signed with SESSION_SECRET (rotation included).
import { createCookieSessionStorage, data } from "@remix-run/node";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { env } from "~/env.server";

export const TOAST_COOKIE = "toast-session";

type ToastUtils = ReturnType<typeof createToastUtilsWithCustomSession>;
let utils: ToastUtils | undefined;

function toastUtils(): ToastUtils {
  utils ??= createToastUtilsWithCustomSession(
    createCookieSessionStorage({
      cookie: {
        name: TOAST_COOKIE,
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: env().APP_URL.startsWith("https://"),
        secrets: env().SESSION_SECRET,
      },
    }),
  );
  return utils;
}

/** Kept for callers that configured toasts at start; the storage is built on first use. */
export function configureToasts() {
  toastUtils();
}

export const getToast: ToastUtils["getToast"] = (...args) => toastUtils().getToast(...args);

/**
 * A page action's answer with an error toast, as single fetch's `data()`: remix-toast 1.2 knows only
 * json() answers, so the flash cookie is taken from one of those and set on this answer.
 */
export async function dataWithError<T>(value: T, message: string, init: { status?: number; headers?: HeadersInit } = {}) {
  const headers = new Headers(init.headers);
  for (const cookie of (await toastUtils().jsonWithError(null, message)).headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return data(value, { ...init, headers });
}
export const jsonWithSuccess: ToastUtils["jsonWithSuccess"] = (...args) => toastUtils().jsonWithSuccess(...args);
export const redirectWithError: ToastUtils["redirectWithError"] = (...args) => toastUtils().redirectWithError(...args);
export const redirectWithSuccess: ToastUtils["redirectWithSuccess"] = (...args) => toastUtils().redirectWithSuccess(...args);
