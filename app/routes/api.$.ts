// An /api address that no route serves: 404 in the API's own shape (`{ "error": "Not found." }`)
// for every method, not the site's HTML "Page not found" (nor, for a POST, a 405).
import { apiError } from "~/api.server";

const notFound = () => apiError(404, "Not found.", { "Cache-Control": "no-store" });

export const loader = notFound;
export const action = notFound;
