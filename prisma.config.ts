// Prisma CLI configuration: the JavaScript schema engine talks to PostgreSQL through the same
// `pg` driver adapter as the app, so no native engine has to be downloaded (see README).
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    return new PrismaPg({ connectionString });
  },
});
