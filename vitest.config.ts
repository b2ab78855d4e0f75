import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: the process-level tests (the bundled Action, the CLI, git) slow down on a loaded machine.
    testTimeout: 60000,
    pool: "forks",
  },
});
