// The account page's shop-email forms post here (intent link | verify | resend | cancel). Same
// model functions as /api/kofi/*; answers a redirect back to the page with a toast, so the
// forms work without JavaScript and, through a fetcher, without a full reload.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { cancelShopEmailVerification, linkShopEmail, resendShopEmailCode, verifyShopEmail } from "~/models/shop-email.server";
import { isRestricted, RESTRICTED_MESSAGE } from "~/models/restriction.server";
import { requireUser } from "~/session-guards.server";
import { redirectWithError, redirectWithSuccess } from "~/toast.server";
import { clientAddress } from "~/utils/client-address.server";
import { formRefusal } from "~/utils/form-failure.server";
import { readPageForm } from "~/utils/page-form.server";
import { SHOP_INTENTS, SHOP_MESSAGES, shopEmailCodeSchema, shopEmailSchema, type ShopIntent } from "~/utils/shop-schemas";
import { parseForm, readForm, text } from "~/utils/form-fields";
import { z } from "zod";

const FAILURE: Record<ShopIntent, string> = {
  link: SHOP_MESSAGES.sendFailed,
  verify: SHOP_MESSAGES.verifyFailed,
  resend: SHOP_MESSAGES.resendFailed,
  cancel: SHOP_MESSAGES.cancelFailed,
};

/** Only paths on this site (no `//host`, no `/\host`, no scheme). */
function safeReturnPath(value: string): string {
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/login";
  return value;
}

/** Where to go back to, and what the form asks. */
const shopEmailFormSchema = z.object({ redirectTo: text, intent: z.enum(SHOP_INTENTS).optional().catch(undefined) });

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readPageForm(request);
  const { redirectTo, intent } = parseForm(form, shopEmailFormSchema);
  const back = safeReturnPath(redirectTo);
  if (!intent) return redirectWithError(back, "Unknown action.");
  if (isRestricted(user)) return redirectWithError(back, RESTRICTED_MESSAGE);
  const parsed = intent === "verify" ? readForm(form, shopEmailCodeSchema) : readForm(form, shopEmailSchema);
  if (!parsed.success) return redirectWithError(back, parsed.error.issues[0]?.message ?? FAILURE[intent]);
  const { email } = parsed.data;
  const code = "code" in parsed.data && typeof parsed.data.code === "string" ? parsed.data.code : "";
  try {
    const result =
      intent === "link"
        ? await linkShopEmail(user.id, email, clientAddress(request, context))
        : intent === "verify"
          ? await verifyShopEmail(user.id, email, code)
          : intent === "resend"
            ? await resendShopEmailCode(user.id, email, clientAddress(request, context))
            : await cancelShopEmailVerification(user.id, email);
    return redirectWithSuccess(back, result.message);
  } catch (error) {
    const refusal = formRefusal(error, FAILURE[intent]);
    return redirectWithError(back, refusal.message, { headers: refusal.headers });
  }
}

export function loader() {
  return redirect("/login");
}
