#!/usr/bin/env node
// Writes the JSON Schemas generated from the zod schemas into docs/ (run `npm run build` first).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatedFiles } from "../dist/core/generated.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
for (const [path, content] of Object.entries(generatedFiles())) {
  writeFileSync(join(root, path), content);
  console.log(`wrote ${path}`);
}
