// /admin/catalog: tags and prices (docs/product.md#tags, #prices). Admins define and delete tags
// (the post editor puts them on posts) and set each tier's price per month, shown on its Subscribe
// buttons. Plain forms: without JavaScript a refusal comes back with its message beside the field.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { createTag, deleteTag, listTags, setTierPrice } from "~/models/catalog.server";
import { requireAdmin } from "~/session-guards.server";
import { db } from "~/db.server";
import { redirectWithSuccess } from "~/toast.server";
import adminStyles from "~/styles/admin.css?url";
import { CATALOG_MESSAGES, formatPrice, tagCreateFormSchema, tierPriceFormSchema } from "~/utils/catalog-schemas";
import { formRefusal } from "~/utils/form-failure.server";
import { personalPageHeaders } from "~/utils/page-headers";
import { parseForm, readForm, text } from "~/utils/form-fields";
import { z } from "zod";
import { readPageForm } from "~/utils/page-form.server";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

export const meta: MetaFunction = () => [{ title: "Tags and prices · Admin · Creator Library" }];

export const headers = personalPageHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [tags, tiers] = await Promise.all([
    listTags(),
    db.tier.findMany({
      orderBy: [{ amountCents: { sort: "asc", nulls: "last" } }, { title: "asc" }],
      select: { id: true, title: true, amountCents: true, currency: true },
    }),
  ]);
  return data({ tags, tiers }, { headers: { "Cache-Control": "private, no-store" } });
}

type Failure = { form: string; target?: string; message: string; fields: Record<string, string> };

/** Which form was posted, and the tag or tier it is about. */
const catalogFormSchema = z.object({ intent: text, tagId: text, tierId: text });

function failure(form: string, message: string, fields: Record<string, string>, status: number, target?: string) {
  return data<Failure>({ form, target, message, fields }, { status });
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const form = await readPageForm(request);
  const { intent, tagId, tierId } = parseForm(form, catalogFormSchema);
  if (intent === "create-tag") {
    const parsed = readForm(form, tagCreateFormSchema);
    if (!parsed.success) {
      const fields = Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0] ?? "name"), issue.message]));
      return failure("create-tag", parsed.error.issues[0]!.message, fields, 400);
    }
    try {
      await createTag(admin.id, parsed.data);
      return redirectWithSuccess("/admin/catalog", CATALOG_MESSAGES.tagCreated);
    } catch (error) {
      const refusal = formRefusal(error, CATALOG_MESSAGES.tagFailed);
      return failure("create-tag", refusal.message, refusal.fields, refusal.status);
    }
  }
  if (intent === "delete-tag") {
    try {
      await deleteTag(admin.id, tagId);
      return redirectWithSuccess("/admin/catalog", CATALOG_MESSAGES.tagDeleted);
    } catch (error) {
      const refusal = formRefusal(error, CATALOG_MESSAGES.tagFailed);
      return failure("delete-tag", refusal.message, refusal.fields, refusal.status);
    }
  }
  if (intent === "tier-price") {
    const parsed = readForm(form, tierPriceFormSchema);
    if (!parsed.success) {
      const fields = Object.fromEntries(parsed.error.issues.map((issue) => [issue.path[0] === "currency" ? "currency" : "amount", issue.message]));
      return failure("tier-price", parsed.error.issues[0]!.message, fields, 400, tierId);
    }
    try {
      await setTierPrice(admin.id, tierId, parsed.data);
      return redirectWithSuccess("/admin/catalog", CATALOG_MESSAGES.tierSaved);
    } catch (error) {
      const refusal = formRefusal(error, CATALOG_MESSAGES.tierFailed);
      return failure("tier-price", refusal.message, refusal.fields, refusal.status, tierId);
    }
  }
  return failure("", "Unknown action.", {}, 400);
}

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="field-error" role="alert">
      {message}
    </p>
  );
}

export default function Catalog() {
  const { tags, tiers } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const tagError = failed?.form === "create-tag" ? failed : undefined;
  return (
    <div className="admin-page">
      <p>
        <Link to="/admin">← Admin</Link>
      </p>
      <h1>Tags and prices</h1>

      <section className="card" aria-labelledby="tags-heading">
        <h2 id="tags-heading">Tags</h2>
        <p className="muted">Put tags on posts in the library&apos;s post editor. Each tag lists its posts in the library.</p>
        {tags.length === 0 ? (
          <p className="muted">No tags yet.</p>
        ) : (
          <ul className="catalog-tags" data-testid="catalog-tags">
            {tags.map((tag) => (
              <li key={tag.id}>
                <Link to={`/library?tag=${encodeURIComponent(tag.slug)}`}>{tag.name}</Link>{" "}
                <span className="muted">
                  ({tag.slug}, {tag.posts} posts)
                </span>{" "}
                <Form method="post" className="inline-form">
                  <input type="hidden" name="intent" value="delete-tag" />
                  <input type="hidden" name="tagId" value={tag.id} />
                  <button type="submit" className="button-quiet" aria-label={`Delete the tag ${tag.name}`}>
                    Delete
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        )}
        <Form method="post" className="admin-fields" noValidate>
          <input type="hidden" name="intent" value="create-tag" />
          <div className="field">
            <label htmlFor="tag-name">Name</label>
            <input id="tag-name" name="name" required aria-invalid={Boolean(tagError?.fields.name)} aria-describedby="tag-name-error" />
            <FieldError id="tag-name-error" message={tagError?.fields.name} />
          </div>
          <div className="field">
            <label htmlFor="tag-slug">Slug (in the address: lowercase letters, digits and dashes)</label>
            <input id="tag-slug" name="slug" required aria-invalid={Boolean(tagError?.fields.slug)} aria-describedby="tag-slug-error" />
            <FieldError
              id="tag-slug-error"
              message={tagError?.fields.slug ?? (tagError && Object.keys(tagError.fields).length === 0 ? tagError.message : undefined)}
            />
          </div>
          <button type="submit" className="button" disabled={busy}>
            Create tag
          </button>
        </Form>
      </section>

      <section className="card" aria-labelledby="prices-heading">
        <h2 id="prices-heading">Tier prices</h2>
        <p className="muted">The members sync fills these from the support platform; correct them here. They show on Subscribe buttons.</p>
        {tiers.map((tier) => {
          const error = failed?.form === "tier-price" && failed.target === tier.id ? failed : undefined;
          const field = (name: string) => `tier-${name}-${tier.id}`;
          return (
            <Form key={tier.id} method="post" className="admin-fields tier-price" noValidate data-testid="tier-price">
              <input type="hidden" name="intent" value="tier-price" />
              <input type="hidden" name="tierId" value={tier.id} />
              <h3>
                {tier.title}
                {tier.amountCents !== null ? <span className="muted"> · {formatPrice(tier.amountCents, tier.currency)}/month</span> : null}
              </h3>
              <div className="field">
                <label htmlFor={field("amount")}>Price per month</label>
                <input
                  id={field("amount")}
                  name="amount"
                  inputMode="decimal"
                  defaultValue={tier.amountCents === null ? "" : (tier.amountCents / 100).toFixed(2)}
                  aria-invalid={Boolean(error?.fields.amount)}
                  aria-describedby={field("amount-error")}
                />
                <FieldError id={field("amount-error")} message={error?.fields.amount ?? (error && !error.fields.currency ? error.message : undefined)} />
              </div>
              <div className="field">
                <label htmlFor={field("currency")}>Currency</label>
                <input
                  id={field("currency")}
                  name="currency"
                  defaultValue={tier.currency}
                  maxLength={3}
                  aria-invalid={Boolean(error?.fields.currency)}
                  aria-describedby={field("currency-error")}
                />
                <FieldError id={field("currency-error")} message={error?.fields.currency} />
              </div>
              <button type="submit" className="button-secondary" disabled={busy}>
                Save price
              </button>
            </Form>
          );
        })}
      </section>
    </div>
  );
}
