import { defineConfig } from "vitest/config";

/** `npm run bench`'s measurements that need the test helpers (the fake GitHub): bench/*.measure.ts. */
export default defineConfig({
  test: {
    include: ["bench/**/*.measure.ts"],
    testTimeout: 600_000,
    pool: "forks",
  },
});
