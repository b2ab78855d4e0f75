/**
 * The pure API with both presets loaded: `evaluate(config, base, head, pr)`, `audit(config, snapshot)`
 * and `writeRecords(config, snapshot, records)` for callers that hold a config already (the GitHub
 * adapter, the authoring commands, the tests). The functions live in `judge.ts`; the use cases in
 * `service.ts` use it directly and load only the preset the config names.
 */
import { createBoardModel } from "./board/model.js";
import { createPhasesModel } from "./phases/model.js";
import { registerPresetModels } from "./presets.js";

registerPresetModels({ board: createBoardModel, phases: createPhasesModel });

export * from "./judge.js";
