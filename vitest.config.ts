import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: the process-level tests (the bundled Action, the CLI, git, the browser) slow down on a
    // loaded machine.
    testTimeout: 60000,
    pool: "forks",
    // Those tests wait on the processes they start as much as they compute: one worker more than there
    // are cores keeps every core busy (on 2 cores, 6.4 minutes instead of 10 with vitest's default).
    maxWorkers: availableParallelism() + 1,
  },
});
