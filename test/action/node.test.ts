/**
 * The bundle's tests run it on the Node.js action/action.yml declares (`runs.using: node24`): the
 * binary test/helpers/action.ts spawns must be Node.js 24.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ACTION_NODE } from "../helpers/action.js";

describe("the Node.js the bundle's tests run it on", () => {
  it("is the one action.yml declares: node24", () => {
    const action = parse(readFileSync(join(import.meta.dirname, "..", "..", "action", "action.yml"), "utf8")) as {
      runs: { using: string };
    };
    expect(action.runs.using).toBe("node24");
    const version = execFileSync(ACTION_NODE, ["-p", "process.version"], { encoding: "utf8" }).trim();
    expect(version, `${ACTION_NODE} is not Node.js 24`).toMatch(/^v24\./);
  });
});
