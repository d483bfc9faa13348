// /account: the account page is /login (the product's address for it: sign in when signed out, the
// account's tabs when signed in); people who type /account, beside /account/export and the
// others, land there instead of on a 404.
import { redirect } from "@remix-run/node";

export function loader() {
  return redirect("/login");
}
