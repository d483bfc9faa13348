import { createContext, useContext } from "react";

/** The per-response CSP nonce; empty in the browser, where it is not needed after hydration. */
export const NonceContext = createContext<string>("");

export function useNonce(): string {
  return useContext(NonceContext);
}
