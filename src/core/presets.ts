/**
 * Each preset's model, loaded when a config names the preset: a command on a phases repository never
 * loads the board's rules, nor one on a board the phases workflow's. `createModel` (judge.ts) is
 * synchronous, so whatever reads a config awaits `loadPresetModel` before it builds the model
 * (`loadConfig` in service.ts). `evaluate.ts`, the pure API for callers that hold a config already,
 * registers both presets as it loads.
 */
import type { createBoardModel } from "./board/model.js";
import type { Config } from "./kernel/config.js";
import type { createPhasesModel } from "./phases/model.js";

export type PresetName = Config["preset"];

export interface PresetModels {
  readonly board: typeof createBoardModel;
  readonly phases: typeof createPhasesModel;
}

const loaded: { -readonly [P in PresetName]?: PresetModels[P] } = {};

/** Makes presets a caller imported itself available to `createModel`. */
export function registerPresetModels(models: Partial<PresetModels>): void {
  Object.assign(loaded, models);
}

/** Imports a preset's model (once). */
export async function loadPresetModel(preset: PresetName): Promise<void> {
  if (loaded[preset]) return;
  if (preset === "board") loaded.board = (await import("./board/model.js")).createBoardModel;
  else loaded.phases = (await import("./phases/model.js")).createPhasesModel;
}

/** A loaded preset's model factory; a preset nobody loaded is a programming error. */
export function presetModel<P extends PresetName>(preset: P): PresetModels[P] {
  const factory = loaded[preset] as PresetModels[P] | undefined;
  if (!factory) {
    throw new Error(
      `the ${preset} preset's model is not loaded: await loadPresetModel("${preset}") before createModel`,
    );
  }
  return factory;
}
